/// Turns AASA pattern strings into the prepared pieces the runtime core evaluates: path normalization (rule 5),
/// case folding (rule 7) and substitution variables (rule 10) are applied here, once, so neither the matcher nor a
/// generated guard has to know about them.
struct PatternPreparer {
  /// Custom variables; they shadow built-ins of the same name.
  private var custom: [String: [String]]
  /// Expanded variables, shared by every pattern that uses them (`$(lang)` has over a thousand values).
  private var expansions: [Expansion: [[PatternPiece]]] = [:]

  private struct Expansion: Hashable {
    var name: String
    var folded: Bool
  }

  init(variables: [SubstitutionVariable]) {
    var custom: [String: [String]] = [:]
    for variable in variables { custom[variable.name] = variable.values }
    self.custom = custom
  }

  /// `source` as pieces; with `folded`, literals and variable values are lower-cased; with `isPath`, rule 5
  /// normalization applies. Nil when the pattern can never match (an undefined or empty variable).
  mutating func pieces(_ source: String, folded: Bool, isPath: Bool) -> [PatternPiece]? {
    var tokens = PatternToken.tokenize(source)
    if isPath { tokens = PatternToken.normalizePath(tokens) }
    var out: [PatternPiece] = []
    var literal = String.UnicodeScalarView()
    func flush() {
      guard !literal.isEmpty else { return }
      Self.append(.literal(folded ? String(literal).lowercased() : String(literal)), to: &out)
      literal = String.UnicodeScalarView()
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
        Self.append(.star, to: &out)
      case .variable(let name):
        flush()
        guard let values = expansion(of: name, folded: folded), !values.isEmpty else { return nil }
        if values.count == 1 {
          for piece in values[0] { Self.append(piece, to: &out) }
        } else {
          out.append(.choice(values))
        }
      }
    }
    flush()
    return out
  }

  /// A variable's values as plain pieces (literals, `?`, `*`), computed once per name and folding.
  private mutating func expansion(of name: String, folded: Bool) -> [[PatternPiece]]? {
    let key = Expansion(name: name, folded: folded)
    if let hit = expansions[key] { return hit }
    let values: [[PatternPiece]]
    if let raw = custom[name] {
      values = Self.pieces(of: raw, folded: folded)
    } else if let builtin = Self.builtins[key] {
      values = builtin
    } else {
      return nil
    }
    expansions[key] = values
    return values
  }

  /// Every built-in variable, expanded once for the whole process: each app's rules are prepared apart, and
  /// `$(lang)`'s values as pieces take about 100 KB, so a thousand apps each holding a copy took about 170 MiB.
  private static let builtins: [Expansion: [[PatternPiece]]] = {
    var table: [Expansion: [[PatternPiece]]] = [:]
    for name in BuiltinVariables.names {
      for folded in [false, true] {
        table[Expansion(name: name, folded: folded)] = pieces(
          of: BuiltinVariables.values(of: name) ?? [], folded: folded)
      }
    }
    return table
  }()

  /// Values as pieces, each lower-cased first when `folded`.
  private static func pieces(of raw: [String], folded: Bool) -> [[PatternPiece]] {
    raw.map { value in
      var list: [PatternPiece] = []
      for token in PatternToken.tokenize(folded ? value.lowercased() : value, variables: false) {
        switch token {
        case .literal(let c): append(.literal(String(c)), to: &list)
        case .any: list.append(.any)
        case .star: append(.star, to: &list)
        case .variable: break
        }
      }
      return list
    }
  }

  /// Appends a piece, merging adjacent literals and stars.
  private static func append(_ piece: PatternPiece, to list: inout [PatternPiece]) {
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
}

/// Pattern strings straight to compiled patterns: a ``PatternPreparer`` feeding the runtime's builder. The
/// matcher prepares whole rules instead; this serves tests of the pattern engine.
struct PatternCompiler {
  private var preparer: PatternPreparer
  private var builder = LinkRuntime.PatternBuilder()

  init(variables: [SubstitutionVariable]) { preparer = PatternPreparer(variables: variables) }

  /// Compiles `source` as the matcher would; a pattern that can never match compiles to one that matches nothing.
  mutating func compile(_ source: String, folded: Bool, isPath: Bool) -> LinkRuntime.CompiledPattern {
    builder.compile(preparer.pieces(source, folded: folded, isPath: isPath) ?? [.choice([])])
  }
}

/// The runtime's text of a URL part, as the pattern engine's tests build it.
typealias SubjectText = LinkRuntime.SubjectText
