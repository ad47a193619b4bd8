import Foundation
import UniversalLinks

/// What changed between two inventories (two versions of an app, or two saved batches): per bundle, the
/// associated domains and URL schemes added and removed, and per applinks domain how the app's rules behave
/// differently (compared as `ipalinks aasa diff` compares files); optionally, the sample URLs whose verdict changed.
public struct InventoryDiff: Sendable, Encodable {
  /// Who a bundle is and what version, on one side.
  public struct Identity: Sendable, Equatable, Encodable {
    /// The input path the bundle came from (an .ipa, an app folder, a bare executable…), naming the app in a batch.
    public var input: String
    /// Where the bundle sits in its input, such as `Payload/Store.app/PlugIns/Share.appex`.
    public var path: String
    /// The display name, for people reading the diff.
    public var name: String?
    /// `TEAMID.bundle.id`, the key AASA files list apps by.
    public var appId: String?
    /// `CFBundleShortVersionString`, the version users see.
    public var version: String?
    /// `CFBundleVersion`, the build number.
    public var build: String?
  }

  /// An entitlement entry or scheme that one side has and the other does not.
  public struct Entry: Sendable, Equatable, Encodable {
    /// `applinks`, `webcredentials` and so on: one host under two services is two entries.
    public var service: Service
    /// `host` or `*.host`, with `?mode=` when it has one.
    public var domain: String
  }

  /// What changed for one applinks (or other service) domain's AASA file, for this app.
  public struct DomainChange: Sendable, Equatable, Encodable {
    /// The entitlement service of the domain, usually `applinks`.
    public var service: Service
    /// `host` or `*.host`, with `?mode=` when it has one, as in ``Entry/domain``.
    public var domain: String
    /// Fetch status (`ok`, `not-found`, …, `not-fetched`) when it changed.
    public var oldStatus: String?
    /// The new side's status; set together with ``oldStatus``, only when they differ.
    public var newStatus: String?
    /// Whether the file lists the app, when that changed.
    public var oldAppListed: Bool?
    /// The new side's answer; set together with ``oldAppListed``, only when they differ.
    public var newAppListed: Bool?
    /// Whether iOS honours the entry, when that changed: a `?mode=developer` entry in a build no longer
    /// development-signed, say, which opens nothing any more though its file is the same.
    public var oldActive: Bool?
    /// The new side's answer; set together with ``oldActive``, only when they differ.
    public var newActive: Bool?
    /// Why iOS ignores the entry on the side where it is inactive, when ``oldActive`` is set.
    public var inactiveReason: String?
    /// False when a side's file is unknown (not fetched, or a failure such as a timeout): its rules cannot be
    /// compared, and reporting them all as removed would be wrong.
    public var rulesCompared = true
    /// How the app's rules behave differently, as `ipalinks aasa diff` tells it: rewriting a rule without changing
    /// what it matches is no change; a rule added, removed or changed, or a reordering that changes which rule
    /// decides, is one, with the pointers on both sides and an example URL on the domain whose verdict differs.
    public var changes: [AASAComparison.Change] = []
    /// The rules the changes name, by JSON pointer, on each side, for text that shows them; not in the JSON, which
    /// names rules by pointer.
    public var rules: (old: [String: MatchedRule], new: [String: MatchedRule]) = ([:], [:])

    private enum CodingKeys: String, CodingKey {
      case service, domain, oldStatus, newStatus, oldAppListed, newAppListed, oldActive, newActive, inactiveReason
      case rulesCompared, changes
    }

    /// Compares everything but ``rules``, which follow from the sides.
    public static func == (a: DomainChange, b: DomainChange) -> Bool {
      (a.service, a.domain, a.oldStatus, a.newStatus) == (b.service, b.domain, b.oldStatus, b.newStatus)
        && (a.oldAppListed, a.newAppListed, a.rulesCompared) == (b.oldAppListed, b.newAppListed, b.rulesCompared)
        && (a.oldActive, a.newActive, a.inactiveReason) == (b.oldActive, b.newActive, b.inactiveReason)
        && a.changes == b.changes
    }
  }

  /// One field that differs, such as `version` or `appId`.
  public struct FieldChange: Sendable, Equatable, Encodable {
    /// The field's name as in the inventory JSON: `appId`, `teamId`, `kind`, `version`, `build`, `name` or
    /// `distribution`.
    public var field: String
    /// The old side's value; nil when that side lacks the field.
    public var old: String?
    /// The new side's value; nil when that side lacks the field.
    public var new: String?
  }

  /// What differs for one bundle between the sides, or that it appeared or disappeared.
  public struct BundleChange: Sendable, Encodable {
    /// `added`: only in the new inventory; `removed`: only in the old; `changed`: in both, with differences.
    public enum Change: String, Sendable, Encodable { case added, removed, changed }
    /// The bundle id; bundles without one are paired by path. Two apps of one bundle id (under two teams, say) are
    /// each a change of their own under it.
    public var key: String
    /// Whether the bundle was added, removed or changed. An added or removed bundle lists what it brings or takes:
    /// its domains and schemes.
    public var change: Change
    /// Who the bundle was in the old inventory; nil when it was added.
    public var old: Identity?
    /// Who the bundle is in the new inventory; nil when it was removed.
    public var new: Identity?
    /// Identity fields that differ, such as a new version or a different team; empty for an added or removed bundle.
    public var fields: [FieldChange] = []
    /// Associated-domain entries only the new version claims: new places on the web the app may open from. For an
    /// added bundle, all of its entries.
    public var domainsAdded: [Entry] = []
    /// Associated-domain entries only the old version claimed; for a removed bundle, all of its entries.
    public var domainsRemoved: [Entry] = []
    /// Custom URL schemes only the new version registers; for an added bundle, all of its schemes.
    public var schemesAdded: [String] = []
    /// Custom URL schemes only the old version registered; for a removed bundle, all of its schemes.
    public var schemesRemoved: [String] = []
    /// AASA changes for the domains both versions claim; domains on one side only are in the lists above.
    public var domains: [DomainChange] = []

    /// Nothing in it differs.
    var isEmpty: Bool {
      change == .changed && fields.isEmpty && domainsAdded.isEmpty && domainsRemoved.isEmpty && schemesAdded.isEmpty
        && schemesRemoved.isEmpty && domains.isEmpty
    }
  }

  /// A sample URL whose verdict, or whose deciding app or rule, differs between the versions.
  public struct VerdictChange: Sendable, Equatable, Encodable {
    /// The sample URL as given.
    public var url: String
    /// What the old apps, taken together, do with the URL, and which app and rule decided.
    public var old: BlocklistVerdict
    /// The same over the new apps.
    public var new: BlocklistVerdict
    /// Whether the verdict itself changed; false when it stays and only the deciding app or rule moved.
    public var verdictChanged: Bool { old.verdict != new.verdict }

    private enum CodingKeys: String, CodingKey { case url, old, new, verdictChanged }

    /// Writes `verdictChanged` beside the sides, so a script need not compare them.
    public func encode(to encoder: any Encoder) throws {
      var c = encoder.container(keyedBy: CodingKeys.self)
      try c.encode(url, forKey: .url)
      try c.encode(old, forKey: .old)
      try c.encode(new, forKey: .new)
      try c.encode(verdictChanged, forKey: .verdictChanged)
    }
  }

  /// How one entry's AASA file behaves differently, told once for every app it affects: one edit to a shared
  /// host's file is one change, not one per app.
  public struct FileChange: Sendable, Equatable, Encodable {
    /// The entries' service, usually `applinks`.
    public var service: Service
    /// `host` or `*.host`, with `?mode=` when it has one, as the entries write it.
    public var domain: String
    /// Each change, with the apps (by app id) it is for, in the order first met.
    public var changes: [AASAComparison.SharedChange]
  }

  /// Bundles that differ, sorted by key so the same inputs always give the same output.
  public var bundles: [BundleChange]
  /// Sample URLs whose verdict differs, in the order given; empty when no URLs were passed.
  public var verdicts: [VerdictChange]
  /// How many sample URLs were compared.
  public var urlsCompared: Int

  /// Whether the old side, or the new, was read only in part: an input, an inventory line or an AASA file that
  /// could not be read, so a bundle or rule told as removed or added may be one that was not read.
  public var oldPartial = false
  /// The same for the new side.
  public var newPartial = false

  /// Whether anything differs; `ipalinks diff` exits 1 when it does, like `diff`.
  public var hasDifferences: Bool { !bundles.isEmpty || !verdicts.isEmpty }

  /// The bundles' AASA rule changes, by entry: each entry's changes told once, with every app they affect.
  public var files: [FileChange] {
    var entries: [(service: Service, domain: String, changes: [AASAComparison.Change])] = []
    for bundle in bundles {
      for domain in bundle.domains where !domain.changes.isEmpty {
        if let at = entries.firstIndex(where: { $0.service == domain.service && $0.domain == domain.domain }) {
          entries[at].changes += domain.changes
        } else {
          entries.append((domain.service, domain.domain, domain.changes))
        }
      }
    }
    return entries.map {
      FileChange(service: $0.service, domain: $0.domain, changes: AASAComparison.SharedChange.grouping($0.changes))
    }
  }

  private enum CodingKeys: String, CodingKey {
    case differences, oldPartial, newPartial, bundles, files, verdicts, urlsCompared
  }

  /// Writes a `differences` flag before the lists, so a script can check one field.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(hasDifferences, forKey: .differences)
    // A script that reads `differences` alone would take a lost line for a removed app: these say so.
    try c.encode(oldPartial, forKey: .oldPartial)
    try c.encode(newPartial, forKey: .newPartial)
    try c.encode(bundles, forKey: .bundles)
    try c.encode(files, forKey: .files)
    try c.encode(verdicts, forKey: .verdicts)
    try c.encode(urlsCompared, forKey: .urlsCompared)
  }

  /// Compares `old` with `new`. Bundles are paired by bundle id (else by path inside the app); `urls` are decided
  /// on each side with the same matcher as `ipalinks match`, over every app of that side.
  public init(old: ClaimsIndex, new: ClaimsIndex, urls: [String] = []) {
    var changes: [BundleChange] = []
    for (key, old, new) in Self.paired(Self.keyed(old), Self.keyed(new)) {
      switch (old, new) {
      case (let entry?, nil):
        var change = BundleChange(key: key, change: .removed, old: Self.identity(entry), new: nil)
        change.domainsRemoved = Self.entries(entry.bundle)
        change.schemesRemoved = entry.bundle.urlSchemes
        changes.append(change)
      case (nil, let entry?):
        var change = BundleChange(key: key, change: .added, old: nil, new: Self.identity(entry))
        change.domainsAdded = Self.entries(entry.bundle)
        change.schemesAdded = entry.bundle.urlSchemes
        changes.append(change)
      case (let before?, let entry?):
        let change = Self.compare(key: key, before, entry)
        if !change.isEmpty { changes.append(change) }
      case (nil, nil): break
      }
    }
    // Two changes of one key and kind (two apps of one bundle id) in the order of their inputs, apps and paths.
    let order = { (c: BundleChange) in
      let who = c.new ?? c.old
      return [c.key, c.change.rawValue, who?.input ?? "", who?.appId ?? "", who?.path ?? ""]
    }
    bundles = changes.sorted { order($0).lexicographicallyPrecedes(order($1)) }
    let (oldTable, newTable) = (old.table(), new.table())
    verdicts = urls.compactMap { url in
      let (a, b) = (BlocklistVerdict(oldTable.decide(url)), BlocklistVerdict(newTable.decide(url)))
      return a == b ? nil : VerdictChange(url: url, old: a, new: b)
    }
    urlsCompared = urls.count
  }

  /// The same from inspections.
  public init(old: [InspectionReport], new: [InspectionReport], urls: [String] = []) {
    self.init(old: ClaimsIndex(reports: old), new: ClaimsIndex(reports: new), urls: urls)
  }

  typealias Located = (input: String, bundle: BundleReport)

  /// Bundles by key, each key's in the order of the inputs.
  static func keyed(_ claims: ClaimsIndex) -> [String: [Located]] {
    var out: [String: [Located]] = [:]
    for app in claims.apps {
      let key = app.bundle.identifier ?? "path:" + innerPath(app.bundle.path)
      out[key, default: []].append((claims.inputs[app.input].path, app.bundle))
    }
    return out
  }

  /// The sides' bundles in pairs under their key, a side nil where the other has a bundle it has not. A key with
  /// one bundle on each side pairs them, as a new build of the app. A key with more on either side (two apps of one
  /// bundle ID under different teams, or one app twice) pairs those of the same app ID and path first, then one
  /// left on each side; each bundle left over is added or removed, so that none is dropped unseen (the first of
  /// them alone was compared, and a second app that claimed another domain read as no difference).
  static func paired(_ old: [String: [Located]], _ new: [String: [Located]]) -> [(String, Located?, Located?)] {
    var out: [(String, Located?, Located?)] = []
    for key in Set(old.keys).union(new.keys) {
      var (left, right) = (old[key] ?? [], new[key] ?? [])
      if left.count > 1 || right.count > 1 {
        var index = 0
        while index < left.count {
          let a = left[index]
          if let match = right.firstIndex(where: {
            $0.bundle.appId == a.bundle.appId && $0.bundle.path == a.bundle.path
          }) {
            out.append((key, a, right.remove(at: match)))
            left.remove(at: index)
          } else {
            index += 1
          }
        }
      }
      if left.count == 1 && right.count == 1 {
        out.append((key, left[0], right[0]))
      } else {
        out += left.map { (key, $0, nil) } + right.map { (key, nil, $0) }
      }
    }
    return out
  }

  /// `Payload/Store.app/PlugIns/Share.appex` → `PlugIns/Share.appex`, so renamed apps still pair up.
  static func innerPath(_ path: String) -> String {
    let parts = path.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count >= 2, parts[0] == "Payload", parts[1].hasSuffix(".app") else { return path }
    return parts.dropFirst(2).joined(separator: "/")
  }

  static func identity(_ located: Located) -> Identity {
    let b = located.bundle
    return Identity(
      input: located.input, path: b.path, name: b.name, appId: b.appId, version: b.version, build: b.build)
  }

  /// A bundle's associated-domain entries.
  static func entries(_ b: BundleReport) -> [Entry] {
    b.associatedDomains.map { Entry(service: $0.service, domain: $0.label) }
  }

  static func compare(key: String, _ a: Located, _ b: Located) -> BundleChange {
    var change = BundleChange(key: key, change: .changed, old: identity(a), new: identity(b))
    let (x, y) = (a.bundle, b.bundle)
    let fields: [(String, String?, String?)] = [
      ("appId", x.appId, y.appId), ("teamId", x.teamId, y.teamId), ("kind", x.kind.rawValue, y.kind.rawValue),
      ("version", x.version, y.version), ("build", x.build, y.build), ("name", x.name, y.name),
      ("distribution", x.distribution, y.distribution),
    ]
    change.fields = fields.filter { $0.1 != $0.2 }.map { FieldChange(field: $0.0, old: $0.1, new: $0.2) }

    let (oldEntries, newEntries) = (entries(x), entries(y))
    change.domainsAdded = newEntries.filter { !oldEntries.contains($0) }
    change.domainsRemoved = oldEntries.filter { !newEntries.contains($0) }
    change.schemesAdded = y.urlSchemes.filter { !x.urlSchemes.contains($0) }
    change.schemesRemoved = x.urlSchemes.filter { !y.urlSchemes.contains($0) }

    for domain in y.associatedDomains {
      guard let before = x.associatedDomains.first(where: { $0.service == domain.service && $0.label == domain.label })
      else { continue }
      if let d = compareDomain(before, domain, appID: y.appId) { change.domains.append(d) }
    }
    return change
  }

  static func compareDomain(_ a: AssociatedDomain, _ b: AssociatedDomain, appID: String?) -> DomainChange? {
    var d = DomainChange(service: b.service, domain: b.label)
    let (sa, sb) = (a.aasa?.status.rawValue ?? "not-fetched", b.aasa?.status.rawValue ?? "not-fetched")
    if sa != sb { (d.oldStatus, d.newStatus) = (sa, sb) }
    if a.active != b.active {
      (d.oldActive, d.newActive) = (a.active, b.active)
      d.inactiveReason = (a.inactiveReason ?? b.inactiveReason)?.message
    }
    guard let x = a.aasa, let y = b.aasa, x.status.isDefinite, y.status.isDefinite else {
      d.rulesCompared = false
      return d.oldStatus == nil && d.oldActive == nil ? nil : d
    }
    if x.appListed != y.appListed { (d.oldAppListed, d.newAppListed) = (x.appListed, y.appListed) }
    // A wildcard entry's file serves its subdomains, so the example URL is on one of them.
    d.rules = (TextStyle.rulesByPointer(x.appLinks), TextStyle.rulesByPointer(y.appLinks))
    d.changes = AASAComparison(old: x.appLinks, new: y.appLinks, host: b.pattern.exampleHost).changes.map { change in
      var change = change
      change.appId = appID ?? change.appId
      return change
    }
    let unchanged = d.oldStatus == nil && d.oldAppListed == nil && d.oldActive == nil && d.changes.isEmpty
    return unchanged ? nil : d
  }
}
