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
    self.appID = appID
    exceedsDeviceSizeLimit = file.exceedsDeviceSizeLimit
    guard let links = file.applinks, let detail = links.detail(for: appID) else {
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
    PatternCompiler(variables: substitutionVariables).pieces(source, folded: folded, isPath: isPath)
  }
}

/// One element of a prepared pattern.
public indirect enum PatternPiece: Sendable, Equatable, Hashable {
  /// Text that must appear as is.
  case literal(String)
  /// `?`: exactly one Unicode scalar.
  case any
  /// `*`: zero or more scalars.
  case star
  /// A multi-valued substitution variable: any one alternative; alternatives hold no choices.
  case choice([[PatternPiece]])
}

extension PatternCompiler {
  /// The same expansion ``build(_:folded:isPath:)`` compiles, as plain pieces.
  func pieces(_ source: String, folded: Bool, isPath: Bool) -> [PatternPiece]? {
    var tokens = PatternToken.tokenize(source)
    if isPath { tokens = PatternToken.normalizePath(tokens) }
    var out: [PatternPiece] = []
    var literal = String.UnicodeScalarView()
    func append(_ piece: PatternPiece, to list: inout [PatternPiece]) {
      switch piece {
      case .literal(let text):
        if case .literal(let before)? = list.last {
          list[list.count - 1] = .literal(before + text)
        } else if !text.isEmpty {
          list.append(piece)
        }
      case .star:
        if list.last != .star { list.append(.star) }
      default:
        list.append(piece)
      }
    }
    func flush() {
      guard !literal.isEmpty else { return }
      append(.literal(folded ? String(literal).lowercased() : String(literal)), to: &out)
      literal = String.UnicodeScalarView()
    }
    func plain(_ value: [PatternToken]) -> [PatternPiece] {
      var list: [PatternPiece] = []
      for token in value {
        switch token {
        case .literal(let c): append(.literal(String(c)), to: &list)
        case .any: list.append(.any)
        case .star: append(.star, to: &list)
        case .variable: break
        }
      }
      return list
    }
    for token in tokens {
      switch token {
      case .literal(let c):
        literal.append(c)
      case .any:
        flush()
        out.append(.any)
      case .star:
        flush()
        append(.star, to: &out)
      case .variable(let name):
        flush()
        guard let raw = values(of: name), !raw.isEmpty else { return nil }
        let values = raw.map { plain(PatternToken.tokenize(folded ? $0.lowercased() : $0, variables: false)) }
        if values.count == 1 {
          for piece in values[0] { append(piece, to: &out) }
        } else {
          out.append(.choice(values))
        }
      }
    }
    flush()
    return out
  }
}
