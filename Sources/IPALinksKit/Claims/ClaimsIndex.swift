import UniversalLinks

/// Who claims what, built once from inspections: every input, every app (bundle) with its associated-domain entries
/// and the AASA file each got, and every host those entries name with the apps that claim it and the entry iOS uses
/// for each. Every audit output reads it (blocklists, `who-claims` and its `--urls` scan, `diff`, `report`), and
/// its runtime table is what decides URLs for all of them.
///
/// Plain values: `Codable` in a stable shape with a ``version``, so a store can save and load it whole.
public struct ClaimsIndex: Sendable, Codable {
  /// The version of the shape this build writes; a reader refuses a newer one.
  public static let currentVersion = 1

  /// One input as named: what it was and what went wrong with it as a whole; its bundles are ``apps``.
  public struct Input: Sendable, Codable, Equatable {
    /// The path as given.
    public var path: String
    /// Which reader handled it.
    public var kind: InspectionReport.InputKind
    /// Complete, partial or unreadable, counting its bundles' problems too.
    public var status: InspectionReport.Status
    /// Problems with the input as a whole.
    public var diagnostics: [Diagnostic]
  }

  /// One bundle, and the input it came from.
  public struct App: Sendable, Codable {
    /// The position of its input in ``ClaimsIndex/inputs``.
    public var input: Int
    /// Everything inspected about it, its entries with their AASA files included.
    public var bundle: BundleReport
  }

  /// One entry of one app, by position: `apps[app].bundle.associatedDomains[entry]`.
  public struct EntryReference: Sendable, Hashable, Codable {
    /// The app's position in ``ClaimsIndex/apps``.
    public var app: Int
    /// The entry's position in the app's `associatedDomains`.
    public var entry: Int
  }

  /// One app's claim on a host.
  public struct Claim: Sendable, Hashable, Codable {
    /// The app's position in ``ClaimsIndex/apps``.
    public var app: Int
    /// Its entries that cover the host, active or not, under any service, in entitlement order.
    public var entries: [Int]
    /// The entry iOS uses for the host's universal links (``AssociatedDomain/governing(_:for:)``); nil when no
    /// active `applinks` entry covers it.
    public var governing: Int?
    /// Whether an entry names the host (or the wildcard) itself, rather than a wildcard over it.
    public var direct: Bool
  }

  /// A host that entries name (`shop.example.com`, or `*.example.com` as such) and every app that claims it.
  public struct Host: Sendable, Codable {
    /// The host as entries write it.
    public var pattern: LinkRuntime.HostPattern
    /// The apps that claim it, in app order. For a named host: every app with an entry covering it, directly or
    /// through a wildcard. For a wildcard: the apps whose entries are that wildcard.
    public var claims: [Claim]
  }

  /// The version of this shape.
  public var version: Int
  /// Every input, in the order given.
  public var inputs: [Input]
  /// Every bundle of every input, in input order.
  public var apps: [App]
  /// Every host an entry names, in the order first named.
  public var hosts: [Host]

  /// Entries by the host they name exactly, and wildcard entries by the host below which they claim.
  private var exact: [String: [EntryReference]] = [:]
  private var wildcards: [String: [EntryReference]] = [:]

  private enum CodingKeys: String, CodingKey { case version, inputs, apps, hosts }

  /// The index of `reports`: the joins every output used to make on its own, made once.
  public init(reports: [InspectionReport]) {
    version = Self.currentVersion
    inputs = reports.map {
      Input(path: $0.input, kind: $0.inputKind, status: $0.status, diagnostics: $0.diagnostics)
    }
    apps = reports.enumerated().flatMap { index, report in report.bundles.map { App(input: index, bundle: $0) } }
    hosts = []
    buildLookups()
    var named: [LinkRuntime.HostPattern] = []
    var seen: Set<LinkRuntime.HostPattern> = []
    for app in apps {
      // A name no host can have (`a b.example.com`) is no host: under a wildcard, it would count as one the wildcard's
      // apps share with this one.
      for domain in app.bundle.associatedDomains
      where !domain.host.isEmpty && domain.namesAHost && seen.insert(domain.pattern).inserted {
        named.append(domain.pattern)
      }
    }
    hosts = named.map { pattern in
      Host(pattern: pattern, claims: pattern.wildcard ? claims(naming: pattern) : claims(on: pattern.host))
    }
  }

  /// Reads a saved index, refusing a shape newer than this build knows.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    version = try c.decode(Int.self, forKey: .version)
    guard version <= Self.currentVersion else {
      throw DecodingError.dataCorruptedError(
        forKey: .version, in: c,
        debugDescription: "claims index version \(version) is newer than this ipalinks reads (\(Self.currentVersion))")
    }
    inputs = try c.decode([Input].self, forKey: .inputs)
    apps = try c.decode([App].self, forKey: .apps)
    hosts = try c.decode([Host].self, forKey: .hosts)
    buildLookups()
  }

  private mutating func buildLookups() {
    (exact, wildcards) = ([:], [:])
    for (a, app) in apps.enumerated() {
      for (e, domain) in app.bundle.associatedDomains.enumerated() where !domain.host.isEmpty {
        let reference = EntryReference(app: a, entry: e)
        if domain.wildcard {
          wildcards[domain.host, default: []].append(reference)
        } else {
          exact[domain.host, default: []].append(reference)
        }
      }
    }
  }

  /// The entry a reference names.
  public func entry(_ reference: EntryReference) -> AssociatedDomain {
    apps[reference.app].bundle.associatedDomains[reference.entry]
  }

  /// The entry of `claim` iOS uses for the host's universal links, with its file; nil when none.
  public func governingEntry(_ claim: Claim) -> AssociatedDomain? {
    claim.governing.map { apps[claim.app].bundle.associatedDomains[$0] }
  }

  /// The rules iOS applies for the claim's host: the governing entry's file's rules for the app, when the file
  /// lists it.
  public func rules(_ claim: Claim) -> AppLinkRules? { governingEntry(claim)?.aasa?.appLinks }

  /// Every app whose entries cover `host` (lower-cased, a name such as `a.example.com`), directly or through a
  /// wildcard, with the entry iOS uses for it.
  public func claims(on host: String) -> [Claim] {
    var found = exact[host] ?? []
    var rest = Substring(host)
    while let dot = rest.firstIndex(of: ".") {
      rest = rest[rest.index(after: dot)...]
      found += wildcards[String(rest)] ?? []
    }
    return claims(grouping: found) { entries in
      (AssociatedDomain.governing(entries, for: host), entries.contains { !$0.wildcard })
    }
  }

  /// Every app whose wildcard entries cover the subdomains of `host`: `*.host` itself or a wildcard over a parent
  /// domain, with the one iOS uses for a subdomain no entry names.
  public func claims(belowWildcard host: String) -> [Claim] {
    var found = wildcards[host] ?? []
    var rest = Substring(host)
    while let dot = rest.firstIndex(of: ".") {
      rest = rest[rest.index(after: dot)...]
      found += wildcards[String(rest)] ?? []
    }
    return claims(grouping: found) { entries in
      let candidates = entries.indices.filter { entries[$0].opensLinks }
      let governing = LinkRuntime.HostPattern.governing(candidates.map { entries[$0].pattern }, below: host)
      return (governing.map { candidates[$0] }, true)
    }
  }

  /// The hosts entries name below `pattern`'s host, narrower wildcards included, sorted: for `*.example.com`,
  /// `shop.example.com` and `*.shop.example.com`, not `example.com`.
  public func hosts(below pattern: LinkRuntime.HostPattern) -> [LinkRuntime.HostPattern] {
    hosts.map(\.pattern).filter { $0 != pattern && $0.host.hasSuffix("." + pattern.host) }
      .sorted { ($0.host, $0.wildcard ? 1 : 0) < ($1.host, $1.wildcard ? 1 : 0) }
  }

  /// The apps whose entries are `pattern` itself.
  func claims(naming pattern: LinkRuntime.HostPattern) -> [Claim] {
    let named = (pattern.wildcard ? wildcards[pattern.host] : exact[pattern.host]) ?? []
    return claims(grouping: named) { entries in
      (entries.firstIndex(where: \.opensLinks), true)
    }
  }

  /// Entry references grouped by app, in app and entitlement order; `decide` gives the governing entry (among the
  /// app's entries found) and whether the claim is direct.
  private func claims(
    grouping references: [EntryReference], _ decide: ([AssociatedDomain]) -> (governing: Int?, direct: Bool)
  ) -> [Claim] {
    let byApp = Dictionary(grouping: references, by: \.app)
    return byApp.keys.sorted().map { app in
      let positions = byApp[app]!.map(\.entry).sorted()
      let (governing, direct) = decide(positions.map { apps[app].bundle.associatedDomains[$0] })
      return Claim(app: app, entries: positions, governing: governing.map { positions[$0] }, direct: direct)
    }
  }
}
