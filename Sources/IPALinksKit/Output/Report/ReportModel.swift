import UniversalLinks

/// The report page as plain values, before any markup: the apps, the hosts they claim, what each host's AASA file
/// says, and the counts the summary shows. ``HTMLReporter`` renders it; tests read it without parsing HTML.
struct ReportModel {
  /// What an AASA result tells the auditor: read and listing the app; a definite "no" iOS also gets (not listed,
  /// invalid, not found); unknown (could not check); or not fetched. Each has its own colour.
  enum Outcome: Int, CaseIterable, Comparable {
    case ok, definite, unknown, notFetched

    init(_ aasa: DomainAASA?) {
      // A file that was read but does not list the app is as definite an answer as a 404: nothing opens it.
      switch aasa?.outcome {
      case nil: self = .notFetched
      case .listed: self = .ok
      case .notListed, .failed: self = .definite
      case .unknown: self = .unknown
      }
    }

    /// The class the style sheet colours, and the value the status filter uses.
    var cssClass: String {
      switch self {
      case .ok: "ok"
      case .definite: "definite"
      case .unknown: "unknown"
      case .notFetched: "none"
      }
    }

    var label: String {
      switch self {
      case .ok: "ok, lists the app"
      case .definite: "not listed or failed"
      case .unknown: "unknown (could not check)"
      case .notFetched: "not fetched"
      }
    }

    /// One word for counts in an app's summary line.
    var shortLabel: String {
      switch self {
      case .ok: "ok"
      case .definite: "failed"
      case .unknown: "unknown"
      case .notFetched: "not fetched"
      }
    }

    static func < (a: Outcome, b: Outcome) -> Bool { a.rawValue < b.rawValue }
  }

  /// One bundle, or an input nothing could be read from (so it is not silently missing).
  struct App {
    /// 1-based, across all inputs; the anchor is `app-<number>`.
    var number: Int
    /// 1-based input number; the anchor of an input nothing was read from is `input-<number>`.
    var reportNumber: Int
    /// The input the bundle came from.
    var input: ClaimsIndex.Input
    /// How many bundles were read from the input.
    var inputBundles: Int
    var bundle: BundleReport?
    /// Hosts (by number) whose file's rules apply to this app: its own entries, not a wildcard's coverage of a
    /// host another app names (there the wildcard's own file decides).
    var ruleHosts: [Int] = []
    /// True when another app claims one of ``hosts``.
    var sharesHost = false

    var name: String {
      guard let bundle else { return "(nothing read)" }
      return bundle.name ?? bundle.identifier ?? bundle.path.split(separator: "/").last.map(String.init) ?? bundle.path
    }
    var anchor: String { bundle == nil ? "input-\(reportNumber)" : "app-\(number)" }
    var domains: [AssociatedDomain] { bundle?.associatedDomains ?? [] }
    func count(_ outcome: Outcome) -> Int { domains.filter { Outcome($0.aasa) == outcome }.count }
    var failed: Int { count(.definite) + count(.unknown) }
    var applinks: Int { domains.filter { $0.service == .applinks }.count }
    var schemes: Int { bundle?.urlSchemes.count ?? 0 }
    /// The outcomes of the app's domains, for the status filter.
    var outcomes: [Outcome] { Array(Set(domains.map { Outcome($0.aasa) })).sorted() }
    /// The services of the app's domains, for the service filter.
    var services: [Service] { Array(Set(domains.map(\.service))).sorted() }
  }

  /// One app's claim on a host.
  struct Claim {
    /// The claiming app's number.
    var app: Int
    /// Services the claim is made for (`applinks`, `webcredentials`, …).
    var services: [Service]
    /// The wildcard entry (`*.example.com`) when the app claims a named host through it.
    var via: String?
    /// True when the app also names the host, in entries that are inactive (so the wildcard decides).
    var ownInactive = false
    /// The outcome of the claim's AASA result for this app.
    var outcome: Outcome
  }

  /// One `details` entry of a host's file that lists claiming apps, with the rules every app it lists gets.
  struct Entry {
    var detailIndex: Int
    var apps: [Int]
    var rules: AppLinkRules
  }

  /// A host as claimed: a name (`shop.example.com`) or a wildcard (`*.example.com`), and what its file says.
  struct Host {
    /// 1-based; the anchor is `h-<number>`.
    var number: Int
    /// The host as entries write it, with `*.` for a wildcard.
    var name: String
    var claims: [Claim] = []
    /// The file's result as the first direct claimer got it; nil when nothing fetched it.
    var aasa: DomainAASA?
    /// Its `details` entries that list claimers, in file order.
    var entries: [Entry] = []
    /// Where the entries open the same URLs, and which entry wins.
    var overlaps: [RuleOverlap] = []
    /// Every app id the file lists for each service, once per service.
    var listed: [(service: Service, apps: [String])] = []

    /// Claimers whose own entry names this host (not a wildcard above it).
    var direct: [Claim] { claims.filter { $0.via == nil } }
    var outcomes: [Outcome] { Array(Set(claims.map(\.outcome))).sorted() }
    var services: [Service] { Array(Set(claims.flatMap(\.services))).sorted() }
    /// The colour of the host as a whole: the best file result among its direct claimers.
    var outcome: Outcome { direct.map(\.outcome).min() ?? claims.map(\.outcome).min() ?? .notFetched }
    var listedClaimers: Int { direct.filter { $0.outcome == .ok }.count }
  }

  var apps: [App]
  var hosts: [Host]
  /// Host numbers by name (`*.example.com` for a wildcard).
  var hostNumbers: [String: Int]
  var inputs: Int
  /// How many inputs were read only in part, and how many not at all.
  var partial: Int
  var unreadable: Int
  var bundles: Int
  /// Associated domains per outcome, over every bundle.
  var domainCounts: [Outcome: Int]
  var errors: Int
  var warnings: Int

  init(_ index: ClaimsIndex) {
    var apps: [App] = []
    var numbers: [Int] = []  // the app number of each of the index's apps, which are in input order
    let byInput = Dictionary(grouping: index.apps.indices, by: { index.apps[$0].input })
    for (position, input) in index.inputs.enumerated() {
      let bundles = byInput[position] ?? []
      func row(_ bundle: BundleReport?) -> App {
        App(
          number: apps.count + 1, reportNumber: position + 1, input: input, inputBundles: bundles.count,
          bundle: bundle)
      }
      if bundles.isEmpty { apps.append(row(nil)) }
      for app in bundles {
        numbers.append(apps.count + 1)
        apps.append(row(index.apps[app].bundle))
      }
    }
    inputs = index.inputs.count
    partial = index.inputs.filter { $0.status == .partial }.count
    unreadable = index.inputs.filter { $0.status == .unreadable }.count
    bundles = index.apps.count
    let domains = index.apps.flatMap(\.bundle.associatedDomains)
    domainCounts = Dictionary(grouping: domains, by: { Outcome($0.aasa) }).mapValues(\.count)
    let diagnostics = index.inputs.flatMap(\.diagnostics) + index.apps.flatMap(\.bundle.diagnostics)
    errors = diagnostics.filter { $0.severity == .error }.count
    warnings = diagnostics.filter { $0.severity == .warning }.count
    hosts = Self.hosts(index, numbers: numbers, &apps)
    hostNumbers = Dictionary(hosts.map { ($0.name, $0.number) }, uniquingKeysWith: { a, _ in a })
    self.apps = apps
  }

  /// Every claimed host, most claimers first, from the claims model. A wildcard entry also claims every named host
  /// below it that another app claims directly (`*.example.com` covers `nested.example.com`, as `who-claims`
  /// finds), and the wildcard is named.
  private static func hosts(_ index: ClaimsIndex, numbers: [Int], _ apps: inout [App]) -> [Host] {
    var hosts: [Host] = index.hosts.map { claimed in
      var host = Host(number: 0, name: claimed.pattern.description)
      for claim in claimed.claims {
        let domains = claim.entries.map { index.apps[claim.app].bundle.associatedDomains[$0] }
        // A direct claim is made by the entries naming the host; one through a wildcard by the wildcard iOS uses,
        // and so is a claim whose entries naming the host are inactive (a developer-mode entry in a release
        // build) while a wildcard covers it: shown as its own, its file's 404 said the app opened nothing there,
        // where `who-claims` (and iOS) open links through the wildcard.
        let governing = claim.governing.flatMap(claim.entries.firstIndex).map { domains[$0] }
        // Only an applinks entry that names the host and does not open links gives way: entries of other services
        // (webcredentials) are the app's own claim on the host, as before.
        let inactiveLinks = domains.contains { $0.pattern == claimed.pattern && $0.service == .applinks }
        let named = claim.direct && (governing.map { $0.pattern == claimed.pattern } ?? true || !inactiveLinks)
        let via = named ? nil : (governing ?? domains[0]).pattern
        let own = domains.filter { $0.pattern == (via ?? claimed.pattern) }
        let inactive = !named && claim.direct
        var services: [Service] = []
        for d in own where !services.contains(d.service) { services.append(d.service) }
        // The applinks entry decides the colour when there is one: it is the claim that opens URLs.
        let deciding = own.first { $0.service == .applinks } ?? own[0]
        let number = numbers[claim.app]
        host.claims.append(
          Claim(
            app: number, services: services, via: via?.description, ownInactive: inactive,
            outcome: Outcome(deciding.aasa)))
        if via == nil { add(own, of: number, to: &host) }
      }
      // Apps naming the host first, then those whose wildcards cover it.
      host.claims = host.claims.filter { $0.via == nil } + host.claims.filter { $0.via != nil }
      return host
    }
    hosts.sort { $0.claims.count != $1.claims.count ? $0.claims.count > $1.claims.count : $0.name < $1.name }
    for index in hosts.indices {
      hosts[index].number = index + 1
      hosts[index].entries.sort { $0.detailIndex < $1.detailIndex }
      hosts[index].overlaps = RuleOverlap.find(
        entries: Dictionary(hosts[index].entries.map { ($0.detailIndex, $0.rules) }, uniquingKeysWith: { a, _ in a }),
        host: LinkRuntime.HostPattern(hosts[index].name).exampleHost, limit: 10)
      for claim in hosts[index].claims {
        if claim.via == nil { apps[claim.app - 1].ruleHosts.append(hosts[index].number) }
        if hosts[index].claims.count > 1 { apps[claim.app - 1].sharesHost = true }
      }
    }
    return hosts
  }

  /// Records what one direct claimer's entries tell about the host's file: the result, the entry listing it, and
  /// the file's list of app ids per service.
  private static func add(_ domains: [AssociatedDomain], of app: Int, to host: inout Host) {
    for d in domains {
      guard let aasa = d.aasa else { continue }
      if host.aasa == nil || (host.aasa?.status != .ok && aasa.status == .ok) { host.aasa = aasa }
      if !aasa.listedApps.isEmpty && !host.listed.contains(where: { $0.service == d.service }) {
        host.listed.append((d.service, aasa.listedApps))
      }
      guard d.service == .applinks, aasa.outcome == .listed, let links = aasa.appLinks, let detail = links.detailIndex
      else { continue }
      if let at = host.entries.firstIndex(where: { $0.detailIndex == detail }) {
        if !host.entries[at].apps.contains(app) { host.entries[at].apps.append(app) }
      } else {
        host.entries.append(Entry(detailIndex: detail, apps: [app], rules: links))
      }
    }
  }

  /// The hosts with the most claiming apps, for the summary chart.
  func topHosts(_ limit: Int) -> [Host] { Array(hosts.filter { $0.claims.count > 1 }.prefix(limit)) }
}
