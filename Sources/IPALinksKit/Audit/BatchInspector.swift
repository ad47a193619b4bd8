import Dispatch
import Foundation

/// Inspects many inputs, `jobs` at a time, joins each with the shared AASA fetches, and hands each report over as
/// soon as it is complete, so a caller can write it before the next one finishes.
///
/// Reports are not kept: memory depends on `jobs` and on the distinct hosts, not on the number of inputs.
public struct BatchInspector: Sendable {
  /// How many inputs are inspected at once, at least 1; memory grows with it, as each job holds one report.
  public var jobs: Int
  /// Nil inspects without looking up AASA files (`--no-fetch`).
  public var fetches: SharedAASAFetches?

  /// Clamps `jobs` to at least 1, so the batch always makes progress.
  public init(jobs: Int, fetches: SharedAASAFetches?) {
    self.jobs = max(1, jobs)
    self.fetches = fetches
  }

  /// Runs the batch. `started` and `finished` are called on the caller's task, one at a time, in the order
  /// inputs start and finish; a bad input yields its own report (partial or unreadable) and never stops the rest.
  public func run(
    _ inputs: [String], started: (String) -> Void = { _ in }, finished: (InspectionReport) async -> Void
  ) async {
    await withTaskGroup(of: InspectionReport.self) { group in
      var pending = inputs.makeIterator()
      var running = 0
      func startNext() -> Bool {
        guard let input = pending.next() else { return false }
        started(input)
        let fetches = self.fetches
        group.addTask { await Self.inspect(input, fetches: fetches) }
        running += 1
        return true
      }
      while running < jobs, startNext() {}
      while let report = await group.next() {
        running -= 1
        await finished(report)
        _ = startNext()
      }
    }
  }

  /// What a batch did: how many inputs its arguments named, which shard of them it inspected, and how many AASA
  /// lookups it made.
  public struct Outcome: Sendable {
    /// Inputs the arguments named, before the shard was picked.
    public var named = 0
    /// Arguments that named nothing, such as a folder without an IPA.
    public var problems = 0
    /// Counts of the reports inspected.
    public var summary = BatchSummary()
    /// Distinct AASA requests fetched, and requests asked for counting repeats; nil when nothing was fetched.
    public var lookups: (fetched: Int, requested: Int)?
  }

  /// The one batch pipeline every command shares: `arguments` collected (folders walked, sorted, see
  /// ``BatchInputs``), the `shard` picked, each input inspected `jobs` at a time with one fetch per AASA host through
  /// `fetches` (none without), and each report handed to `finished` as soon as it is done. An argument that names
  /// nothing goes to `problem`, and what a folder's walk skipped to `note`; `willInspect` gets the inputs in the shard
  /// (files and app folders, in order) before the first starts, when the arguments named any.
  public static func run(
    _ arguments: [String], shard: Shard? = nil, jobs: Int, fetches: SharedAASAFetches?, problem: (String) -> Void,
    note: (String) -> Void = { _ in }, willInspect: ([String]) -> Void = { _ in },
    started: (String) -> Void = { _ in }, finished: (InspectionReport) async -> Void
  ) async -> Outcome {
    var outcome = Outcome()
    let collected = BatchInputs.collect(arguments)
    collected.problems.forEach(problem)
    collected.notes.forEach(note)
    outcome.problems = collected.problems.count
    outcome.named = collected.inputs.count
    let selected = shard?.select(collected.inputs) ?? collected.inputs
    guard !collected.inputs.isEmpty else { return outcome }
    willInspect(selected)
    await BatchInspector(jobs: jobs, fetches: fetches).run(selected, started: started) { report in
      outcome.summary.add(report)
      await finished(report)
    }
    if let fetches { outcome.lookups = (await fetches.fetched, await fetches.requested) }
    return outcome
  }

  /// One input: read on a thread of its own (libzip and the parsers block), then joined with its AASA files.
  public static func inspect(_ input: String, fetches: SharedAASAFetches?) async -> InspectionReport {
    // A pipe (`inspect <(curl …)`) cannot be sought in, as libzip does: it is read whole, as standard input is.
    if InventoryReader.isPipe(input) { return await inspectStream(input, fetches: fetches) }
    let report = await withCheckedContinuation { continuation in
      DispatchQueue.global().async { continuation.resume(returning: Inspector().inspect(path: input)) }
    }
    return await attach(report, fetches: fetches)
  }

  /// The most `inspect -` reads: an IPA on standard input is read in memory, so the bound keeps memory bounded.
  public static let standardInputLimit = 512 << 20

  /// An IPA on standard input (`inspect -`), read whole up to ``standardInputLimit``; past it, or unreadable, the
  /// report says why.
  public static func inspectStandardInput(fetches: SharedAASAFetches?) async -> InspectionReport {
    await inspectStream("-", fetches: fetches)
  }

  /// An IPA read whole from `path`, standard input (`-`) or a pipe, up to ``standardInputLimit``; past it, or
  /// unreadable, the report says why.
  static func inspectStream(_ path: String, fetches: SharedAASAFetches?) async -> InspectionReport {
    let (name, what) = path == "-" ? ("-", "standard input") : (path, "the pipe")
    guard path != "-" || !Terminal.stdinIsTerminal else {
      let why = "standard input is a terminal, not an IPA: pipe one in, as in `ipalinks inspect - < app.ipa`"
      return InspectionReport(
        input: "-", inputKind: .ipa, diagnostics: [Diagnostic(.error, .inputUnreadable, "-: \(why)")])
    }
    do {
      let bytes = Array(try WholeFile.read(path, limit: standardInputLimit))
      // As a file of 0 bytes is told: `inspect - < /dev/null`, or a download that wrote nothing.
      guard !bytes.isEmpty else {
        return InspectionReport(
          input: name, inputKind: .ipa, diagnostics: [Diagnostic(.error, .inputUnreadable, "\(name): empty (0 bytes)")])
      }
      return await inspect(ipaBytes: bytes, name: name, fetches: fetches)
    } catch {
      let why =
        error == .tooLarge
        ? "\(what) is over \(standardInputLimit >> 20) MiB; save the IPA to a file and inspect that"
        : "cannot read \(what)"
      return InspectionReport(
        input: name, inputKind: .ipa, diagnostics: [Diagnostic(.error, .inputUnreadable, "\(name): \(why)")])
    }
  }

  /// An IPA held in memory (`inspect -`), named `name` in the report, then joined with its AASA files.
  public static func inspect(ipaBytes: [UInt8], name: String, fetches: SharedAASAFetches?) async -> InspectionReport {
    await attach(Inspector().inspect(ipaBytes: ipaBytes, name: name), fetches: fetches)
  }

  private static func attach(_ report: InspectionReport, fetches: SharedAASAFetches?) async -> InspectionReport {
    var report = report
    if let fetches {
      let requests = UniversalLinkInventory.requests(for: report)
      if !requests.isEmpty {
        UniversalLinkInventory.attach(await fetches.results(for: requests), to: &report)
      }
    }
    return report
  }
}

/// What a batch did, for the summary line on stderr.
public struct BatchSummary: Sendable, Equatable {
  /// Reports counted, one per input.
  public var inputs = 0
  /// Inputs read in full.
  public var complete = 0
  /// Inputs where something could not be read, though other facts were reported.
  public var partial = 0
  /// Inputs of which nothing could be read.
  public var unreadable = 0
  /// Bundles found across all inputs, extensions included.
  public var bundles = 0
  /// Associated-domain entries across all bundles, each bundle's counted separately (not distinct hosts).
  public var domains = 0

  /// An empty summary, filled by ``add(_:)`` as reports finish.
  public init() {}

  /// Counts one finished report, so the batch never has to keep its reports for the summary.
  public mutating func add(_ report: InspectionReport) {
    inputs += 1
    switch report.status {
    case .complete: complete += 1
    case .partial: partial += 1
    case .unreadable: unreadable += 1
    }
    bundles += report.bundles.count
    domains += report.bundles.reduce(0) { $0 + $1.associatedDomains.count }
  }

  /// 0 when every input is complete, 2 when no input could be read at all, else 1 (partial).
  public var exitStatus: InspectionReport.Status {
    if inputs > 0 && unreadable == inputs { return .unreadable }
    return partial + unreadable == 0 ? .complete : .partial
  }
}
