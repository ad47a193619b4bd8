/// The verdict iOS gives for one URL and one app, and the rule that decided it.
public struct MatchResult: Sendable, Equatable, Codable {
  /// Whether the URL opens the app: `match`, `exclude` or `no-match`.
  public typealias Verdict = LinkRuntime.Verdict

  /// Why the verdict is ``Verdict/noMatch``.
  public enum Reason: String, Sendable, Codable, CaseIterable {
    /// The app's detail was tried and no pattern matched.
    case noPatternMatched = "no-pattern-matched"
    /// `applinks` does not list the app.
    case appNotListed = "app-not-listed"
    /// The URL's host is not the domain the file was served for.
    case hostMismatch = "host-mismatch"
    /// Universal links are only `http` and `https` URLs.
    case unsupportedScheme = "unsupported-scheme"
    /// The file is over 128 KB, so devices never load it.
    case fileTooLarge = "file-too-large"
    /// The string is not an absolute URL with a host.
    case invalidURL = "invalid-url"
  }

  /// The verdict.
  public var verdict: Verdict
  /// The deciding rule; nil for ``Verdict/noMatch``.
  public var rule: MatchedRule?
  /// Why nothing matched; nil unless the verdict is ``Verdict/noMatch``.
  public var reason: Reason?

  /// Creates a result.
  public init(verdict: Verdict, rule: MatchedRule? = nil, reason: Reason? = nil) {
    self.verdict = verdict
    self.rule = rule
    self.reason = reason
  }

  static func noMatch(_ reason: Reason) -> MatchResult { MatchResult(verdict: .noMatch, reason: reason) }
}

/// The rule that decided a verdict, as `swcutil` reports "Matched by pattern at index N".
public struct MatchedRule: Sendable, Equatable, Codable {
  /// Which syntax the rule came from.
  public enum Kind: String, Sendable, Codable {
    /// A `components` entry.
    case component
    /// A legacy `paths` entry.
    case path
  }

  /// Index of the detail in `applinks.details`.
  public var detailIndex: Int {
    get { storage.fields.detailIndex }
    set { update(\.detailIndex, newValue) }
  }
  /// Index of the rule in that detail's `components` (or `paths`) array.
  public var componentIndex: Int {
    get { storage.fields.componentIndex }
    set { update(\.componentIndex, newValue) }
  }
  /// Which syntax the rule came from.
  public var kind: Kind {
    get { storage.fields.kind }
    set { update(\.kind, newValue) }
  }
  /// The rule with defaults merged, e.g. `{"/": "/buy/*"}`, or the `paths` string as written.
  public var pattern: String {
    get { storage.fields.pattern }
    set { update(\.pattern, newValue) }
  }
  /// Whether the rule excludes.
  public var exclude: Bool {
    get { storage.fields.exclude }
    set { update(\.exclude, newValue) }
  }
  /// JSON pointer to the rule in the file.
  public var pointer: String {
    get { storage.fields.pointer }
    set { update(\.pointer, newValue) }
  }

  /// The fields, in the order they are encoded.
  private struct Fields: Sendable, Equatable, Codable {
    var detailIndex: Int
    var componentIndex: Int
    var kind: Kind
    var pattern: String
    var exclude: Bool
    var pointer: String
  }

  /// The fields behind one reference: every verdict copies its deciding rule, and that should cost one retain,
  /// not one per string. Never mutated; a setter stores a new one.
  private final class Storage: Sendable {
    let fields: Fields
    init(_ fields: Fields) { self.fields = fields }
  }

  private var storage: Storage

  private mutating func update<Value>(_ field: WritableKeyPath<Fields, Value>, _ value: Value) {
    var fields = storage.fields
    fields[keyPath: field] = value
    storage = Storage(fields)
  }

  /// Creates a rule reference.
  public init(detailIndex: Int, componentIndex: Int, kind: Kind, pattern: String, exclude: Bool, pointer: String) {
    storage = Storage(
      Fields(
        detailIndex: detailIndex, componentIndex: componentIndex, kind: kind, pattern: pattern, exclude: exclude,
        pointer: pointer))
  }

  /// Reads the keys `detailIndex`, `componentIndex`, `kind`, `pattern`, `exclude` and `pointer`.
  public init(from decoder: any Decoder) throws { storage = Storage(try Fields(from: decoder)) }

  /// Writes the keys ``init(from:)`` reads.
  public func encode(to encoder: any Encoder) throws { try storage.fields.encode(to: encoder) }

  /// Whether the two name the same rule with the same pattern.
  public static func == (lhs: MatchedRule, rhs: MatchedRule) -> Bool {
    lhs.storage === rhs.storage || lhs.storage.fields == rhs.storage.fields
  }
}

/// Decides, for one app, which URLs on a domain open it: compiled once from an ``AASAFile``, then fast and
/// allocation-light per URL.
///
/// Follows rule 1: only the first `details` entry that lists the app is used, its rules are tried in order, and
/// the first one that matches decides.
public struct AASAMatcher: Sendable {
  /// The app this matcher decides for.
  public let appID: String
  /// Index of the `details` entry iOS uses for the app; nil when `applinks` does not list it.
  public let detailIndex: Int?
  /// Where each rule sits in the file, in the order they are tried.
  public let ruleReferences: [MatchedRule]
  /// The rules with the file's pattern strings, which explanations quote.
  let effectiveRules: [EffectiveRule]
  /// The compiled rules: the runtime core that generated guards embed too.
  let program: LinkRuntime.RuleProgram
  let fileTooLarge: Bool
  /// The later `details` entries that also list the app, which iOS never uses for it; known when the matcher is
  /// made from a file.
  let ignoredEntries: [(pointer: String, rules: AppLinkRules)]

  init(file: AASAFile, appID: String) {
    self.init(rules: AppLinkRules(file: file, appID: appID), ignoring: AppLinkRules.ignored(file: file, appID: appID))
  }

  /// Compiles a rule set, as taken from a file or from a saved inventory.
  public init(rules ruleSet: AppLinkRules) { self.init(rules: ruleSet, ignoring: []) }

  private init(rules ruleSet: AppLinkRules, ignoring ignored: [(pointer: String, rules: AppLinkRules)]) {
    appID = ruleSet.appID
    fileTooLarge = ruleSet.exceedsDeviceSizeLimit
    detailIndex = ruleSet.detailIndex
    let listed = ruleSet.detailIndex != nil
    effectiveRules = listed ? ruleSet.rules : []
    ruleReferences = effectiveRules.map(\.reference)
    program = LinkRuntime.RuleProgram(rules: listed ? ruleSet.runtimeRules(keepingNever: true) : [])
    ignoredEntries = ignored
  }

  /// The verdict for a URL string. `domain` is the host the file was served for; the URL's host must equal it
  /// (compared case-insensitively). When nil, the URL's own host is assumed.
  public func verdict(for url: String, domain: String? = nil) -> MatchResult {
    // A plain URL (nearly all of them) is read in place: no string is made for any of its parts.
    var text = url
    let plain = text.withUTF8 { bytes in
      UniversalLinkURL.PlainParts(bytes).map { parts in
        (parts, isWeb: parts.isWeb(in: bytes), hostMatches: domain.map { parts.hasHost($0, in: bytes) } ?? true)
      }
    }
    if let plain {
      return verdict(isWeb: plain.isWeb, hostMatches: plain.hostMatches) { LinkRuntime.Subject(text, plain.0) }
    }
    guard let parsed = UniversalLinkURL(string: url) else { return .noMatch(.invalidURL) }
    return verdict(for: parsed, domain: domain)
  }

  /// The verdict for an already split URL.
  public func verdict(for url: UniversalLinkURL, domain: String? = nil) -> MatchResult {
    verdict(
      isWeb: url.scheme == "https" || url.scheme == "http",
      hostMatches: domain.map { $0 == url.host || UniversalLinkURL.normalizeHost($0) == url.host } ?? true
    ) { LinkRuntime.Subject(url) }
  }

  /// The verdict once the scheme and the host are checked; `subject` prepares the URL for the rules.
  private func verdict(isWeb: Bool, hostMatches: Bool, _ subject: () -> LinkRuntime.Subject) -> MatchResult {
    guard isWeb else { return .noMatch(.unsupportedScheme) }
    guard hostMatches else { return .noMatch(.hostMismatch) }
    if fileTooLarge { return .noMatch(.fileTooLarge) }
    guard detailIndex != nil else { return .noMatch(.appNotListed) }
    var prepared = subject()
    guard let decided = program.firstMatch(&prepared) else { return .noMatch(.noPatternMatched) }
    let rule = ruleReferences[decided]
    return MatchResult(verdict: rule.exclude ? .exclude : .match, rule: rule)
  }
}

extension LinkRuntime.CompiledRule {
  /// Whether the rule matches every URL, so nothing after it in the detail is ever tried.
  var matchesEverything: Bool {
    func universal(_ p: LinkRuntime.CompiledPattern?, isPath: Bool = false) -> Bool {
      guard let p else { return true }
      if p.kind == .any { return true }
      // Every normalized URL path starts with "/", so "/*" is universal for paths.
      return isPath && p.kind == .glob && p.pieces == [[0x2F], []]
    }
    guard universal(path, isPath: true), universal(fragment) else { return false }
    switch query {
    case nil: return true
    case .whole(let p)?: return universal(p)
    case .items(let items)?: return items.allSatisfy { universal($0.pattern) }
    }
  }
}

extension AASAFile {
  /// Compiles the rules iOS uses for `appID` on this domain; compile once, then call
  /// `verdict(for:domain:)` per URL.
  public func matcher(appID: String) -> AASAMatcher { AASAMatcher(file: self, appID: appID) }
}
