/// One rule as iOS tries it for an app: the file's component (or legacy path) with every default merged in and
/// the flags made explicit.
///
/// It is what the matcher compiles and what blocklists translate, so both read the same thing; an inventory saved
/// as JSON carries it, so a blocklist can be made later without the AASA file.
public struct EffectiveRule: Sendable, Equatable, Codable {
  /// Where the rule sits in the file, as match reports name it.
  public var reference: MatchedRule
  /// The `/` pattern; nil constrains nothing. For legacy `paths`, the path without `NOT `.
  public var path: String?
  /// The `?` pattern; nil constrains nothing.
  public var query: QueryPattern?
  /// The `#` pattern; nil constrains nothing.
  public var fragment: String?
  /// Whether a match means "do not open the app".
  public var exclude: Bool { reference.exclude }
  /// Effective `caseSensitive`.
  public var caseSensitive: Bool
  /// Effective `percentEncoded`.
  public var percentEncoded: Bool

  /// Creates a rule.
  public init(
    reference: MatchedRule, path: String?, query: QueryPattern? = nil, fragment: String? = nil,
    caseSensitive: Bool = true, percentEncoded: Bool = true
  ) {
    self.reference = reference
    self.path = path
    self.query = query
    self.fragment = fragment
    self.caseSensitive = caseSensitive
    self.percentEncoded = percentEncoded
  }

  private enum CodingKeys: String, CodingKey {
    case path, query, fragment, caseSensitive, percentEncoded
  }

  /// Flat in JSON: the reference's keys (`detailIndex`, `pattern`, `pointer`, …) beside the effective keys.
  public init(from decoder: any Decoder) throws {
    reference = try MatchedRule(from: decoder)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    path = try c.decodeIfPresent(String.self, forKey: .path)
    query = try c.decodeIfPresent(QueryPattern.self, forKey: .query)
    fragment = try c.decodeIfPresent(String.self, forKey: .fragment)
    caseSensitive = try c.decodeIfPresent(Bool.self, forKey: .caseSensitive) ?? true
    percentEncoded = try c.decodeIfPresent(Bool.self, forKey: .percentEncoded) ?? true
  }

  /// Flat, as ``init(from:)`` reads it: the reference's keys beside the effective ones; a nil pattern is left out.
  public func encode(to encoder: any Encoder) throws {
    try reference.encode(to: encoder)
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encodeIfPresent(path, forKey: .path)
    try c.encodeIfPresent(query, forKey: .query)
    try c.encodeIfPresent(fragment, forKey: .fragment)
    try c.encode(caseSensitive, forKey: .caseSensitive)
    try c.encode(percentEncoded, forKey: .percentEncoded)
  }
}

/// Everything that decides which URLs of one domain open one app: the rules of the first detail listing it, in
/// order, and the custom substitution variables they may use.
public struct AppLinkRules: Sendable, Equatable, Codable {
  /// The app the rules are for.
  public var appID: String
  /// Index of the detail iOS uses; nil when `applinks` does not list the app.
  public var detailIndex: Int?
  /// Custom `$(name)` variables of the file; built-ins need not be carried.
  public var substitutionVariables: [SubstitutionVariable]
  /// The rules in the order iOS tries them.
  public var rules: [EffectiveRule]
  /// The file is over 128 KB, so devices never use it.
  public var exceedsDeviceSizeLimit: Bool

  /// Creates a rule set directly, as a saved inventory provides it.
  public init(
    appID: String, detailIndex: Int?, substitutionVariables: [SubstitutionVariable] = [], rules: [EffectiveRule],
    exceedsDeviceSizeLimit: Bool = false
  ) {
    self.appID = appID
    self.detailIndex = detailIndex
    self.substitutionVariables = substitutionVariables
    self.rules = rules
    self.exceedsDeviceSizeLimit = exceedsDeviceSizeLimit
  }

  /// The rules `file` gives `appID`: rule 1 (first detail), rule 3 (defaults key by key) and rule 11 (legacy
  /// paths take their flags from the defaults).
  public init(file: AASAFile, appID: String) {
    self.init(file: file, appID: appID, detail: file.applinks?.detail(for: appID))
  }

  /// The rules of every `details` entry after the first that lists `appID`: entries iOS never uses for the app,
  /// though they list it. A rule there is the usual cause of "my rule is right but never matches".
  /// Each comes with the entry's JSON pointer.
  public static func ignored(file: AASAFile, appID: String) -> [(pointer: String, rules: AppLinkRules)] {
    let listing = (file.applinks?.details ?? []).filter { $0.appIDs.contains(appID) }
    return listing.dropFirst().map { ($0.pointer, AppLinkRules(file: file, appID: appID, detail: $0)) }
  }

  /// The rules `detail` of `file` gives `appID`; none when `detail` is nil. For a caller that has found the detail
  /// (``AppLinks/detail(for:)``) once for many apps.
  public init(file: AASAFile, appID: String, detail: AppLinksDetail?) {
    self.appID = appID
    exceedsDeviceSizeLimit = file.exceedsDeviceSizeLimit
    guard let links = file.applinks, let detail else {
      detailIndex = nil
      substitutionVariables = []
      rules = []
      return
    }
    detailIndex = detail.index
    substitutionVariables = links.substitutionVariables
    switch detail.rules {
    case .components(let components):
      rules = components.map { component in
        let c = component.merged(over: detail.defaults).merged(over: links.defaults)
        let caseSensitive = c.caseSensitive ?? true
        let percentEncoded = c.percentEncoded ?? true
        var shown = c
        shown.exclude = c.exclude == true ? true : nil
        shown.caseSensitive = caseSensitive ? nil : false
        shown.percentEncoded = percentEncoded ? nil : false
        let reference = MatchedRule(
          detailIndex: detail.index, componentIndex: c.index, kind: .component, pattern: shown.summary,
          exclude: c.exclude ?? false, pointer: detail.pointer + "/components/" + String(c.index))
        return EffectiveRule(
          reference: reference, path: c.path, query: c.query, fragment: c.fragment, caseSensitive: caseSensitive,
          percentEncoded: percentEncoded)
      }
    case .paths(let paths):
      let flags = AASAComponent().merged(over: detail.defaults).merged(over: links.defaults)
      rules = paths.map { entry in
        let reference = MatchedRule(
          detailIndex: detail.index, componentIndex: entry.index, kind: .path, pattern: entry.source,
          exclude: entry.exclude, pointer: detail.pointer + "/paths/" + String(entry.index))
        return EffectiveRule(
          reference: reference, path: entry.pattern, caseSensitive: flags.caseSensitive ?? true,
          percentEncoded: flags.percentEncoded ?? true)
      }
    case .none:
      rules = []
    }
  }

  /// A pattern as the matcher reads it: tokenized, normalized for paths (rule 5), variables expanded (rule 10) and
  /// lower-cased when `folded` (rule 7). Nil when it can never match (an undefined or empty variable).
  ///
  /// Generators that translate rules into other languages start from this, so they cannot drift from the matcher.
  public func prepare(_ source: String, folded: Bool, isPath: Bool) -> [PatternPiece]? {
    var preparer = PatternPreparer(variables: substitutionVariables)
    return preparer.pieces(source, folded: folded, isPath: isPath)
  }

  /// The rules as the runtime core evaluates them, in order. A rule that can never match (it uses an undefined
  /// or empty variable) is kept as one whose pattern matches nothing when `keepingNever`, so indices stay those
  /// of ``rules``, and dropped otherwise.
  public func runtimeRules(keepingNever: Bool) -> [LinkRuntime.Rule] {
    var preparer = PatternPreparer(variables: substitutionVariables)
    return rules.compactMap { rule in
      let folded = !rule.caseSensitive
      var never = false
      func prepared(_ source: String?, isPath: Bool = false) -> [PatternPiece]? {
        guard let source else { return nil }
        guard let pieces = preparer.pieces(source, folded: folded, isPath: isPath) else {
          never = true
          return [.choice([])]
        }
        return pieces
      }
      var out = LinkRuntime.Rule(
        pointer: rule.reference.pointer, exclude: rule.exclude, caseSensitive: rule.caseSensitive,
        percentEncoded: rule.percentEncoded, path: prepared(rule.path, isPath: true), fragment: prepared(rule.fragment))
      switch rule.query {
      case .string(let source)?: out.query = prepared(source)
      case .items(let items)?:
        out.items = items.map { item in
          LinkRuntime.Rule.QueryItem(
            name: folded ? item.name.lowercased() : item.name, value: prepared(item.pattern) ?? [])
        }
      case nil: break
      }
      return never && !keepingNever ? nil : out
    }
  }
}

/// One element of a prepared pattern (see ``LinkRuntime/Piece``).
public typealias PatternPiece = LinkRuntime.Piece
