import UniversalLinks

/// Which apps of an inventory claim a host, directly or through a `*.` wildcard, and with which rules: the
/// question "who opens links on our domain?".
public struct HostClaims: Sendable, Encodable {
  /// One associated-domain entry that covers the host.
  public struct Entry: Sendable, Encodable {
    /// `applinks`, `webcredentials` and so on; only `applinks` entries decide which URLs open the app.
    public var service: Service
    /// The entry exactly as the entitlement writes it, e.g. `applinks:*.example.com?mode=developer`.
    public var raw: String
    /// True for a `*.` entry, which covers subdomains of its host but not the host itself.
    public var wildcard: Bool
    /// False when iOS ignores the entry (invalid, or developer mode in a build that cannot use it).
    public var active: Bool
    /// Why iOS ignores the entry, when ``active`` is false.
    public var inactiveReason: String?
    /// The AASA fetch status for this entry; nil when not fetched.
    public var status: String?
    /// Whether the entry's AASA file lists this app; nil when the file was not fetched or is unknown.
    public var appListed: Bool?
    /// For applinks: whether iOS uses this entry for the host (an exact entry beats a wildcard, a longer
    /// wildcard beats a shorter one).
    public var decides: Bool?
  }

  /// One bundle that claims the host.
  public struct Claim: Sendable, Encodable {
    /// The input path holding the bundle: an .ipa, an app folder, or a bare executable or plist.
    public var input: String
    /// Where the bundle sits inside its input, which tells an extension from its app.
    public var path: String
    /// The bundle's display name, for people reading the answer.
    public var name: String?
    /// The bundle identifier from Info.plist.
    public var bundleId: String?
    /// `TEAMID.bundle.id`, the name AASA files list apps by; nil when the team is unknown.
    public var appId: String?
    /// Every associated-domain entry of the bundle that covers the host, active or not, under any service.
    public var entries: [Entry]
    /// The rules iOS applies for this host (from the deciding applinks entry), in order; empty when none.
    public var rules: [EffectiveRule]
    /// With a URL: what this app's rules decide for it; nil when ``verdictUnknown``.
    public var verdict: MatchResult?
    /// With a URL: true when the AASA file of the entry that decides for its host is unknown (a timeout, an
    /// unreadable file, offline), so whether the app opens the URL is unknown; nil otherwise.
    public var verdictUnknown: Bool?

    /// An active entry (not just one iOS ignores).
    public var isActive: Bool { entries.contains(where: \.active) }
  }

  /// Lower-cased host asked about, or a wildcard entry (`*.example.com`).
  public var host: String
  /// For a wildcard: the hosts below it that entries in the inputs name, narrower wildcards included.
  public var hostsBelow: [String]?
  /// The URL asked about, when a URL was given instead of a host.
  public var url: String?
  /// Every bundle with an entry covering the host, sorted by input and path so the answer is the same on every run.
  public var claims: [Claim]

  /// Finds the claims on `query`: a host (`example.com`), a wildcard entry (`*.example.com`: the apps whose entries
  /// are it or a wildcard over it, and the hosts below it that apps name), or a URL (`https://example.com/path`),
  /// which also gives each app's verdict.
  public init?(query: String, claims index: ClaimsIndex) {
    let parsed = query.contains("://") ? UniversalLinkURL(string: query) : nil
    guard let host = Self.host(ofQuery: query) else { return nil }
    self.host = host
    url = parsed == nil ? nil : query
    let pattern = LinkRuntime.HostPattern(host)
    if pattern.wildcard { hostsBelow = index.hosts(below: pattern).map(\.description) }
    let found = pattern.wildcard ? index.claims(belowWildcard: pattern.host) : index.claims(on: host)
    claims = found.map { found in
      let bundle = index.apps[found.app].bundle
      let entries = found.entries.map { position in
        let d = bundle.associatedDomains[position]
        return Entry(
          service: d.service, raw: d.raw, wildcard: d.wildcard, active: d.active,
          inactiveReason: d.inactiveReason?.message, status: d.aasa?.status.rawValue,
          appListed: d.aasa.flatMap { $0.outcome.isDefinite ? $0.appListed : nil },
          decides: d.service == .applinks ? position == found.governing : nil)
      }
      let rules = index.rules(found)
      var claim = Claim(
        input: index.inputs[index.apps[found.app].input].path, path: bundle.path, name: bundle.name,
        bundleId: bundle.bundleId, appId: bundle.appId, entries: entries, rules: rules?.rules ?? [])
      if let parsed {
        // An entry whose file is unknown (or not fetched) decides nothing either way: its answer is unknown, not
        // "no".
        if let entry = index.governingEntry(found), entry.aasa?.outcome.isDefinite != true {
          claim.verdictUnknown = true
        } else {
          claim.verdict = rules.map { AASAMatcher(rules: $0).verdict(for: parsed) } ?? MatchResult(verdict: .noMatch)
        }
      }
      return claim
    }
    // Batches save reports in the order they finished; sorting keeps the answer the same from run to run.
    .enumerated().sorted { a, b in
      (a.element.input, a.element.path, a.offset) < (b.element.input, b.element.path, b.offset)
    }.map(\.element)
  }

  /// The same from inspections.
  /// The host a query asks about: a URL's host, or the host (or `*.` wildcard) as written, lower-cased; nil for
  /// neither.
  public static func host(ofQuery query: String) -> String? {
    // A URL's host as a host is given: lower-cased, without the dot of a fully qualified name.
    let host =
      query.contains("://")
      ? HostArgument.normalized(UniversalLinkURL(string: query)?.host ?? "")
      : query.lowercased().trimmingCharacters(in: ["."])
    return host.isEmpty ? nil : host
  }

  /// The same from reports, for one question.
  public init?(query: String, reports: [InspectionReport]) {
    self.init(query: query, claims: ClaimsIndex(reports: reports))
  }
}
