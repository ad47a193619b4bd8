/// The verdict iOS gives for one URL and one app, and the rule that decided it.
public struct MatchResult: Sendable, Equatable, Codable {
  /// Whether the URL opens the app.
  public enum Verdict: String, Sendable, Codable, CaseIterable {
    /// A pattern without `exclude` matched first: the app opens.
    case match
    /// A pattern with `exclude` matched first: the URL stays in the browser.
    case exclude
    /// Nothing matched (or the app, host or file rules it out): the URL stays in the browser.
    case noMatch = "no-match"
  }

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
  public var detailIndex: Int
  /// Index of the rule in that detail's `components` (or `paths`) array.
  public var componentIndex: Int
  /// Which syntax the rule came from.
  public var kind: Kind
  /// The rule with defaults merged, e.g. `{"/": "/buy/*"}`, or the `paths` string as written.
  public var pattern: String
  /// Whether the rule excludes.
  public var exclude: Bool
  /// JSON pointer to the rule in the file.
  public var pointer: String

  /// Creates a rule reference.
  public init(detailIndex: Int, componentIndex: Int, kind: Kind, pattern: String, exclude: Bool, pointer: String) {
    self.detailIndex = detailIndex
    self.componentIndex = componentIndex
    self.kind = kind
    self.pattern = pattern
    self.exclude = exclude
    self.pointer = pointer
  }
}

/// One rule, compiled with its effective settings; a class so the hot loop copies no fields.
final class CompiledRule: Sendable {
  enum Query: Sendable {
    case whole(CompiledPattern)
    case items([(name: String, pattern: CompiledPattern, matchesEmpty: Bool)])
  }

  let reference: MatchedRule
  let path: CompiledPattern?
  let query: Query?
  let fragment: CompiledPattern?
  let caseSensitive: Bool
  let percentEncoded: Bool
  /// Which of the four readings of a URL this rule compares against.
  let readingSlot: Int

  init(
    reference: MatchedRule, path: CompiledPattern?, query: Query? = nil, fragment: CompiledPattern? = nil,
    caseSensitive: Bool, percentEncoded: Bool
  ) {
    self.reference = reference
    self.path = path
    self.query = query
    self.fragment = fragment
    self.caseSensitive = caseSensitive
    self.percentEncoded = percentEncoded
    readingSlot = Subject.slot(percentEncoded: percentEncoded, caseSensitive: caseSensitive)
  }

  func matches(_ reading: Subject.Reading) -> Bool {
    if let path, !path.matches(reading.path) { return false }
    if let fragment, !fragment.matches(reading.fragment) { return false }
    switch query {
    case nil: return true
    case .whole(let pattern)?: return pattern.matches(reading.query)
    case .items(let items)?:
      for item in items {
        var seen = false
        for pair in reading.items where pair.name == item.name {
          seen = true
          if !item.pattern.matches(pair.value) { return false }
        }
        if !seen && !item.matchesEmpty { return false }
      }
      return true
    }
  }

  /// Whether the rule matches every URL, so nothing after it in the detail is ever tried.
  var matchesEverything: Bool {
    func universal(_ p: CompiledPattern?, isPath: Bool = false) -> Bool {
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

  var neverMatches: Bool {
    if path?.kind == .never || fragment?.kind == .never { return true }
    switch query {
    case .whole(let p)?: return p.kind == .never
    case .items(let items)?: return items.contains { $0.pattern.kind == .never }
    case nil: return false
    }
  }
}

/// What a rule needs of a URL before it is worth trying: plain values, so thousands are skipped in a few
/// nanoseconds each.
struct RuleFilter: Sendable {
  /// The URL's side: the ASCII characters and the length of each part in one reading.
  struct Masks {
    var path: ASCIIMask
    var pathPairs: UInt64
    var pathLength: Int
    var query: ASCIIMask
    var queryPairs: UInt64
    var fragment: ASCIIMask
    var fragmentPairs: UInt64

    init(_ reading: Subject.Reading) {
      path = reading.path.mask
      pathPairs = reading.path.pairs
      pathLength = reading.path.scalars.count
      query = reading.query.mask
      queryPairs = reading.query.pairs
      fragment = reading.fragment.mask
      fragmentPairs = reading.fragment.pairs
    }
  }

  var slot: Int
  var path = ASCIIMask()
  var pathPairs: UInt64 = 0
  var pathLength = 0
  var query = ASCIIMask()
  var queryPairs: UInt64 = 0
  var fragment = ASCIIMask()
  var fragmentPairs: UInt64 = 0
  var never = false
  /// When the rule constrains only the path with a glob: where its ``GlobProgram`` sits in the matcher's arena.
  var arenaStart = 0
  var arenaCount = 0

  init(_ rule: CompiledRule) {
    slot = rule.readingSlot
    never = rule.neverMatches
    if let p = rule.path {
      path = p.required
      pathPairs = p.requiredPairs
      pathLength = p.minLength
    }
    if case .whole(let p)? = rule.query {
      query = p.required
      queryPairs = p.requiredPairs
    }
    if let f = rule.fragment {
      fragment = f.required
      fragmentPairs = f.requiredPairs
    }
  }

  @inline(__always)
  func admits(_ m: Masks) -> Bool {
    !never && m.pathLength >= pathLength && path.isSubset(of: m.path) && pathPairs & ~m.pathPairs == 0
      && query.isSubset(of: m.query) && queryPairs & ~m.queryPairs == 0 && fragment.isSubset(of: m.fragment)
      && fragmentPairs & ~m.fragmentPairs == 0
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
  let rules: [CompiledRule]
  /// Cheap necessary conditions per rule, in a plain array the loop scans before touching a rule.
  let filters: [RuleFilter]
  /// The programs of path-only glob rules, back to back, so scanning thousands of rules reads memory in order.
  let arena: [UInt32]
  let fileTooLarge: Bool

  init(file: AASAFile, appID: String) { self.init(rules: AppLinkRules(file: file, appID: appID)) }

  /// Compiles a rule set, as taken from a file or from a saved inventory.
  public init(rules ruleSet: AppLinkRules) {
    appID = ruleSet.appID
    fileTooLarge = ruleSet.exceedsDeviceSizeLimit
    detailIndex = ruleSet.detailIndex
    var compiler = PatternCompiler(variables: ruleSet.substitutionVariables)
    let rules = ruleSet.detailIndex == nil ? [] : ruleSet.rules.map { Self.compile($0, compiler: &compiler) }
    self.rules = rules
    var filters: [RuleFilter] = []
    var arena: [UInt32] = []
    for rule in rules {
      var filter = RuleFilter(rule)
      if let path = rule.path, rule.query == nil, rule.fragment == nil, path.isSelfContainedProgram {
        filter.arenaStart = arena.count
        filter.arenaCount = path.program.count
        arena += path.program
      }
      filters.append(filter)
    }
    self.filters = filters
    self.arena = arena
  }

  private static func compile(_ rule: EffectiveRule, compiler: inout PatternCompiler) -> CompiledRule {
    let folded = !rule.caseSensitive
    var query: CompiledRule.Query? = nil
    switch rule.query {
    case .string(let s)?: query = .whole(compiler.compile(s, folded: folded, isPath: false))
    case .items(let items)?:
      query = .items(
        items.map { item in
          let pattern = compiler.compile(item.pattern, folded: folded, isPath: false)
          return (folded ? item.name.lowercased() : item.name, pattern, pattern.matches(.empty))
        })
    case nil: break
    }
    return CompiledRule(
      reference: rule.reference, path: rule.path.map { compiler.compile($0, folded: folded, isPath: true) },
      query: query, fragment: rule.fragment.map { compiler.compile($0, folded: folded, isPath: false) },
      caseSensitive: rule.caseSensitive, percentEncoded: rule.percentEncoded)
  }

  /// The verdict for a URL string. `domain` is the host the file was served for; the URL's host must equal it
  /// (compared case-insensitively). When nil, the URL's own host is assumed.
  public func verdict(for url: String, domain: String? = nil) -> MatchResult {
    guard let parsed = UniversalLinkURL(string: url) else { return .noMatch(.invalidURL) }
    return verdict(for: parsed, domain: domain)
  }

  /// The verdict for an already split URL.
  public func verdict(for url: UniversalLinkURL, domain: String? = nil) -> MatchResult {
    guard url.scheme == "https" || url.scheme == "http" else { return .noMatch(.unsupportedScheme) }
    if let domain, UniversalLinkURL.normalizeHost(domain) != url.host { return .noMatch(.hostMismatch) }
    if fileTooLarge { return .noMatch(.fileTooLarge) }
    guard detailIndex != nil else { return .noMatch(.appNotListed) }
    var subject = Subject(url)
    var slot = -1
    var reading = subject.reading(0)
    var masks = RuleFilter.Masks(reading)
    let decided = arena.withUnsafeBufferPointer { arena in
      filters.withUnsafeBufferPointer { filters -> Int? in
        var path = reading.path
        for i in 0..<filters.count {
          let filter = filters[i]
          if filter.slot != slot {
            slot = filter.slot
            reading = subject.reading(slot)
            masks = RuleFilter.Masks(reading)
            path = reading.path
          }
          guard filter.admits(masks) else { continue }
          if filter.arenaCount > 0 {
            let program = UnsafeBufferPointer(
              rebasing: arena[filter.arenaStart..<(filter.arenaStart + filter.arenaCount)])
            if GlobProgram.matches(program, path, others: []) { return i }
          } else if rules[i].matches(reading) {
            return i
          }
        }
        return nil
      }
    }
    guard let decided else { return .noMatch(.noPatternMatched) }
    let rule = rules[decided].reference
    return MatchResult(verdict: rule.exclude ? .exclude : .match, rule: rule)
  }

  /// References to every compiled rule, in the order they are tried.
  public var ruleReferences: [MatchedRule] { rules.map(\.reference) }
}

extension AASAFile {
  /// Compiles the rules iOS uses for `appID` on this domain; compile once, then call
  /// `verdict(for:domain:)` per URL.
  public func matcher(appID: String) -> AASAMatcher { AASAMatcher(file: self, appID: appID) }
}
