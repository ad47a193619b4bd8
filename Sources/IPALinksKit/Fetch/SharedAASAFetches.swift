import UniversalLinks

/// One fetch per host for a whole batch: a host claimed by 40 apps is retrieved once, even when those apps are
/// inspected at the same time, and every app gets the same answer.
///
/// Each file is parsed and linted once, as it arrives (``ParsedAASA``), and kept for the batch, so memory grows with
/// the number of distinct hosts (each file at most ``AASAFetchOptions/maximumBytes``), not with the number of apps.
public actor SharedAASAFetches {
  let fetcher: AASAFetcher
  /// Keep each retrieval as it came, body included, for a store that records them.
  let keepsRetrievals: Bool
  private var started: [AASARequest: Task<[AASARequest: (parsed: ParsedAASA, raw: AASARetrieval?)], Never>] = [:]
  /// Requests asked for, counting repeats: what the batch would have fetched without sharing.
  public private(set) var requested = 0

  /// Wraps `fetcher`, whose options (source, cache, limits) then apply to every app in the batch. With
  /// `keepingRetrievals`, each result is kept as it came, body included (``retrievals(for:)``): memory then grows by
  /// up to one file per distinct host.
  public init(fetcher: AASAFetcher, keepingRetrievals: Bool = false) {
    self.fetcher = fetcher
    keepsRetrievals = keepingRetrievals
  }

  /// Distinct requests fetched (or being fetched).
  public var fetched: Int { started.count }

  /// The results for `requests`; hosts not seen before are fetched together, the rest are awaited or reused.
  public func results(for requests: [AASARequest]) async -> [AASARequest: ParsedAASA] {
    requested += requests.count
    let new = requests.filter { started[$0] == nil }
    if !new.isEmpty {
      let (fetcher, keep) = (self.fetcher, keepsRetrievals)
      let task = Task {
        await fetcher.fetch(new).mapValues { result in
          let parsed = ParsedAASA(result)
          return (parsed: parsed, raw: keep ? AASARetrieval(result: result, parsed: parsed) : nil)
        }
      }
      for request in new { started[request] = task }
    }
    var out: [AASARequest: ParsedAASA] = [:]
    for request in requests {
      guard let task = started[request] else { continue }
      out[request] = await task.value[request]?.parsed
    }
    return out
  }

  /// The retrievals of `requests` as they came, bodies included, when they are kept; what a store records.
  public func retrievals(for requests: [AASARequest]) async -> [AASARequest: AASARetrieval] {
    var out: [AASARequest: AASARetrieval] = [:]
    for request in requests { out[request] = await started[request]?.value[request]?.raw }
    return out
  }
}

/// One retrieval as it came, body included, with the validator's findings about the file: what a store records.
public struct AASARetrieval: Sendable {
  /// The result, body included.
  public var result: AASAFetchResult
  /// The validator's findings about the file, whatever app reads it.
  public var findings: [AASADiagnostic]
  /// The answer as every report gives it (``ParsedAASA/answer``): `invalid-json` or `over-limit` for a 2xx whose
  /// body is no AASA file, with the reason; otherwise ``result`` without its body.
  public var answer: AASAFetchResult

  /// A retrieval whose file was already parsed and validated.
  public init(result: AASAFetchResult, parsed: ParsedAASA) {
    self.result = result
    findings = parsed.findings
    answer = parsed.answer
  }

  /// A retrieval whose file is parsed and validated here.
  public init(_ result: AASAFetchResult) {
    self.init(result: result, parsed: ParsedAASA(result))
  }
}
