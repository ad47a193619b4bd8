import UniversalLinks

/// What the inventory says about one associated domain's AASA file, for this app.
///
/// It is the retrieval result plus what the file means for this app; in JSON both sit in one flat object, with
/// `host` naming where the file came from (the apex for a `*.` wildcard).
public struct DomainAASA: Sendable, Equatable, Codable {
  /// How the file was retrieved; its status becomes `invalid-json` when the body is not an AASA file.
  public var fetch: AASAFetchResult
  /// The body was a PKCS#7 envelope around the JSON, as old servers send.
  public var signed = false
  /// Whether this app's app id appears in the file for this domain's service.
  public var appListed = false
  /// This app's rules (applinks only), with the file's custom variables: what iOS tries in order, first match
  /// wins. Nil when the file does not list the app.
  public var appLinks: AppLinkRules?
  /// The rules in order; empty when the app is not listed.
  public var rules: [EffectiveRule] { appLinks?.rules ?? [] }
  /// The validator's findings about the file, with stable codes and JSON pointers.
  public var diagnostics: [AASADiagnostic] = []
  /// Every app id the file lists for this service: who else the domain opens.
  public var listedApps: [String] = []
  /// With `--source both`, when the CDN's copy and the origin's file are both read and say different things: the
  /// changes from the CDN's copy (old, what devices use) to the origin's (new, what the site serves now), for this
  /// app (or every app when none is given), each with an example URL whose verdict differs. Empty when they behave
  /// the same, as when only a comment or the way defaults are written differ.
  public var sourceChanges: [AASAComparison.Change] = []
  /// Whether the file was read for an app: `fetch` without `--app-id` reads it for none, and then writes no
  /// `appListed` or rules, which would say false and none where nothing was asked.
  public var forApp = true

  /// Wraps a retrieval result with nothing learned yet; ``evaluate(_:service:appID:)`` fills in the rest.
  public init(fetch: AASAFetchResult) { self.fetch = fetch }

  /// The retrieval status, downgraded to `invalid-json` or `over-limit` when the body could not be used.
  public var status: AASAFetchResult.Status { fetch.status }
  /// The host the file was taken from: the apex for a `*.` wildcard.
  public var servedBy: String { fetch.host }

  /// What the file says for the app, as every consumer decides on it.
  public enum Outcome: Sendable, Hashable {
    /// Read, and it lists the app (with its rules, for applinks).
    case listed
    /// Read, and it does not list the app: nothing opens it.
    case notListed
    /// A definite failure iOS gets too (not found, a redirect, too large, invalid, a private address): nothing
    /// opens the app through this file.
    case failed(AASAFetchResult.Status)
    /// No answer that settles it (a timeout, DNS, TLS, a connection or server error, offline, over our limits):
    /// iOS may have the file, so what opens is unknown.
    case unknown(AASAFetchResult.Status)

    /// Whether the outcome settles what opens the app: anything but ``unknown(_:)``.
    public var isDefinite: Bool {
      if case .unknown = self { return false }
      return true
    }
  }

  /// The retrieval's status and whether the file lists the app, as one typed value.
  public var outcome: Outcome {
    switch status {
    case .ok: appListed ? .listed : .notListed
    case let status where status.isDefinite: .failed(status)
    default: .unknown(status)
    }
  }

  private enum CodingKeys: String, CodingKey {
    case signed, appListed, rules, substitutionVariables, diagnostics, listedApps, sourceChanges
  }

  /// Reads a saved file description. The app id of the rules is the bundle's; ``BundleReport`` fills it in.
  public init(from decoder: any Decoder) throws {
    fetch = try AASAFetchResult(from: decoder)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    signed = try c.decodeIfPresent(Bool.self, forKey: .signed) ?? false
    appListed = try c.decodeIfPresent(Bool.self, forKey: .appListed) ?? false
    let rules = try c.decodeIfPresent([EffectiveRule].self, forKey: .rules) ?? []
    if appListed {
      appLinks = AppLinkRules(
        appID: "", detailIndex: rules.first?.reference.detailIndex ?? 0,
        substitutionVariables: try c.decodeIfPresent([SubstitutionVariable].self, forKey: .substitutionVariables)
          ?? [], rules: rules)
    }
    diagnostics = try c.decodeIfPresent([AASADiagnostic].self, forKey: .diagnostics) ?? []
    listedApps = try c.decodeIfPresent([String].self, forKey: .listedApps) ?? []
    sourceChanges = try c.decodeIfPresent([AASAComparison.Change].self, forKey: .sourceChanges) ?? []
  }

  /// Writes one flat object: the retrieval result's keys beside this app's, as ``init(from:)`` reads them.
  public func encode(to encoder: any Encoder) throws {
    try fetch.encode(to: encoder)
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(signed, forKey: .signed)
    // Whether an unknown file lists the app is unknown too: left out, as an unknown value is.
    if forApp && outcome.isDefinite { try c.encode(appListed, forKey: .appListed) }
    if forApp {
      try c.encode(rules, forKey: .rules)
      try c.encode(appLinks?.substitutionVariables ?? [], forKey: .substitutionVariables)
    }
    try c.encode(diagnostics, forKey: .diagnostics)
    try c.encode(listedApps, forKey: .listedApps)
    if !sourceChanges.isEmpty { try c.encode(sourceChanges, forKey: .sourceChanges) }
  }

  /// What a retrieved file means for `appID` on `service`: parsed (PKCS#7 unwrapped), validated, `invalid-json`
  /// when it is not an AASA file, and this app's rules in order. Shared by the inventory and `ipalinks fetch`.
  public static func evaluate(_ result: AASAFetchResult, service: Service = .applinks, appID: String?) -> DomainAASA {
    evaluate(ParsedAASA(result), service: service, appID: appID)
  }

  /// The same from a file parsed once: only the app's part (is it listed, its rules) is done here.
  public static func evaluate(_ parsed: ParsedAASA, service: Service = .applinks, appID: String?) -> DomainAASA {
    var aasa = DomainAASA(fetch: parsed.result)
    guard parsed.result.status == .ok, parsed.hadBody else { return aasa }
    aasa.diagnostics = parsed.fileDiagnostics
    guard let file = parsed.file, parsed.answer.status == .ok else {
      aasa.fetch = parsed.answer
      return aasa
    }
    let detail = appID.flatMap { parsed.firstDetails[$0] }
    if service == .applinks, let appID, detail == nil {
      aasa.diagnostics += AASAValidator.appFindings(file, appID: appID)
    }
    if service == .applinks {
      aasa.sourceChanges = parsed.sourceChanges.filter { appID == nil || $0.appId == appID }
    }
    aasa.signed = file.isSigned
    switch service {
    case .applinks: aasa.listedApps = parsed.appLinksAppIDs
    case .webcredentials: aasa.listedApps = file.webcredentials?.apps ?? []
    case .appclips: aasa.listedApps = file.appclips?.apps ?? []
    case .activitycontinuation: aasa.listedApps = file.activitycontinuation?.apps ?? []
    case .other: break
    }
    guard let appID else { return aasa }
    if service == .applinks {
      if let detail {
        aasa.appListed = true
        aasa.appLinks = AppLinkRules(file: file, appID: appID, detail: detail)
      }
    } else {
      aasa.appListed = aasa.listedApps.contains(appID)
    }
    return aasa
  }
}

/// A retrieved file parsed and linted once, to be evaluated for every app that claims its domain: in a batch, a
/// host listed by 300 apps is parsed once, not 300 times.
public struct ParsedAASA: Sendable {
  /// The retrieval result, without its body.
  public let result: AASAFetchResult
  let hadBody: Bool
  let file: AASAFile?
  let fileDiagnostics: [AASADiagnostic]
  /// The validator's findings about the file, whatever app reads it.
  public var findings: [AASADiagnostic] { fileDiagnostics }
  let parseError: String?
  /// With both sources read: how the origin's file behaves differently from the CDN's copy, for every app.
  let sourceChanges: [AASAComparison.Change]
  /// The apps the file's `applinks` lists, worked out once: a shared host's file is evaluated for every app.
  let appLinksAppIDs: [String]
  /// The detail iOS uses for each app the file's `applinks` lists (the first listing it), found once: looking it up
  /// in the details for each of a shared host's hundreds of apps costs as much as the rest of their evaluation.
  let firstDetails: [String: AppLinksDetail]
  /// The answer as every report gives it: ``result``, or, for a 2xx whose body is no AASA file, `invalid-json`
  /// (`over-limit` when one of our limits refused it) with the reason, which a store records and `refresh` compares.
  public var answer: AASAFetchResult {
    // A JSON object with none of the services' keys (`no-service-key`) is no AASA file either: a gateway's or a
    // firewall's error in JSON (`{"error": "blocked"}`), served with 200, read as a file that lists no app, and a
    // refresh called the host's apps removed and unblocked every link of it.
    let noService = fileDiagnostics.first { $0.code == .noServiceKey }
    guard result.status == .ok, hadBody, file == nil || noService != nil else { return result }
    var answer = result
    answer.status = overLimit ? .overLimit : .invalidJSON
    answer.message =
      "\(result.host): \(overLimit ? "AASA file refused" : "not a valid AASA file"): "
      + (noService?.message ?? parseError ?? "unreadable")
    return answer
  }

  /// Refused by one of our limits rather than malformed.
  var overLimit: Bool {
    fileDiagnostics.contains { $0.code == .tooManyPatterns || $0.code == .expansionTooLarge }
  }

  /// Parses and validates the body once; the stored result drops the body, so the raw bytes are not kept too.
  public init(_ result: AASAFetchResult) {
    var stripped = result
    stripped.body = nil
    // The other source's answer (`--source both`) read as this one is: a 2xx that is no AASA file (a captive
    // portal's page) is `invalid-json`, where it was said to be `ok` beside the CDN's file, with no difference.
    stripped.comparison = result.comparison.map { other in
      guard other.status == .ok, let body = other.body else { return other }
      var other = other
      do { _ = try AASAFile(bytes: body) } catch {
        other.status = .invalidJSON
        other.message = "\(other.host): not a valid AASA file: \(error)"
      }
      return other
    }
    self.result = stripped
    guard result.status == .ok, let body = result.body else {
      (hadBody, file, fileDiagnostics, parseError, sourceChanges, appLinksAppIDs) = (false, nil, [], nil, [], [])
      firstDetails = [:]
      return
    }
    hadBody = true
    let checked = AASAValidator.check(body)
    file = checked.file
    fileDiagnostics = checked.diagnostics
    appLinksAppIDs = checked.file?.appLinksAppIDs ?? []
    var first: [String: AppLinksDetail] = [:]
    for detail in checked.file?.applinks?.details ?? [] {
      for appID in detail.appIDs where first[appID] == nil { first[appID] = detail }
    }
    firstDetails = first
    sourceChanges = Self.compareSources(result, cdnFile: checked.file)
    if checked.file == nil {
      // Parse again only to get the error's wording; this happens once per broken file.
      do { _ = try AASAFile(bytes: body) } catch { parseError = "\(error)"; return }
    }
    parseError = nil
  }

  /// The CDN's copy against the origin's file by behaviour (`--source both`), when both were read and their bytes
  /// differ: a stale CDN copy is the case this finds.
  static func compareSources(_ result: AASAFetchResult, cdnFile: AASAFile?) -> [AASAComparison.Change] {
    guard result.source == .cdn, let cdn = cdnFile,
      let direct = result.comparison.first(where: { $0.status == .ok && $0.body != nil }),
      let directBody = direct.body, directBody != result.body,
      let origin = try? AASAFile(bytes: directBody)
    else { return [] }
    return AASAComparison(old: cdn, new: origin, host: result.host).changes
  }
}

/// Joins an inspection with the domains' AASA files: which requests to make, and what each answer means for the app.
public enum UniversalLinkInventory {
  /// One request per distinct host, apex for wildcards, direct for developer-mode entries.
  public static func requests(for report: InspectionReport) -> [AASARequest] { requests(for: [report]) }

  /// The requests of several reports, each host once however many apps claim it.
  public static func requests(for reports: [InspectionReport]) -> [AASARequest] {
    var seen: Set<AASARequest> = []
    var out: [AASARequest] = []
    for bundle in reports.flatMap(\.bundles) {
      for request in bundle.associatedDomains.compactMap(\.request) where seen.insert(request).inserted {
        out.append(request)
      }
    }
    return out
  }

  /// Attaches each result to the domains it serves and reports what could not be learned.
  ///
  /// Statuses that leave the answer unknown (timeouts, DNS, TLS, connection and 5xx errors, offline) make the
  /// report partial; definite answers iOS would also get (404, redirect, too large, invalid) are warnings.
  public static func attach(_ results: [AASARequest: AASAFetchResult], to report: inout InspectionReport) {
    attach(results.mapValues(ParsedAASA.init), to: &report)
  }

  /// The same with files already parsed, as a batch shares them.
  public static func attach(_ results: [AASARequest: ParsedAASA], to report: inout InspectionReport) {
    for index in report.bundles.indices {
      let appID = report.bundles[index].appId
      for d in report.bundles[index].associatedDomains.indices {
        let domain = report.bundles[index].associatedDomains[d]
        guard let request = domain.request, let result = results[request] else { continue }
        let aasa = DomainAASA.evaluate(result, service: domain.service, appID: appID)
        report.bundles[index].associatedDomains[d].aasa = aasa
        if let finding = finding(for: aasa, domain: domain, appID: appID) {
          report.bundles[index].diagnostics.append(finding)
        }
      }
    }
  }

  /// Joins a saved bundle with files retrieved later: each domain whose request has a result takes it, the others
  /// keep what they had, and the findings about AASA files are made anew from the domains. How a store's latest
  /// state is read.
  public static func rejoin(_ bundle: inout BundleReport, with results: [AASARequest: ParsedAASA]) {
    for d in bundle.associatedDomains.indices {
      let domain = bundle.associatedDomains[d]
      guard let request = domain.request, let result = results[request] else { continue }
      bundle.associatedDomains[d].aasa = DomainAASA.evaluate(result, service: domain.service, appID: bundle.appId)
    }
    bundle.diagnostics.removeAll { $0.code.isAboutAASAFile }
    for domain in bundle.associatedDomains {
      if let aasa = domain.aasa, let finding = finding(for: aasa, domain: domain, appID: bundle.appId) {
        bundle.diagnostics.append(finding)
      }
    }
  }

  static func finding(for aasa: DomainAASA, domain: AssociatedDomain, appID: String?) -> Diagnostic? {
    let name = "\(domain.service):\(domain.pattern)"
    // Fetch messages start with the host; the domain name already says it.
    let hostPrefix = "\(aasa.servedBy): "
    let full = aasa.fetch.message
    let message = full.hasPrefix(hostPrefix) ? String(full.dropFirst(hostPrefix.count)) : full
    switch aasa.outcome {
    case .listed:
      return nil
    case .notListed:
      return Diagnostic(
        .warning, .aasaAppNotListed, "\(name): \(aasa.servedBy)'s AASA file does not list \(appID ?? "this app")")
    case .failed(let status):
      return DiagnosticCode.aasa(status).map { Diagnostic(.warning, $0, "\(name): \(message)") }
    case .unknown(let status):
      return DiagnosticCode.aasa(status).map { Diagnostic(.error, $0, "\(name): \(message)") }
    }
  }
}
