/// One lexical element of an AASA pattern.
enum PatternToken: Sendable, Equatable {
  case literal(Unicode.Scalar)
  /// `?`: exactly one character.
  case any
  /// `*`: zero or more characters, `/` included.
  case star
  /// `$(name)`.
  case variable(String)

  /// Splits a pattern into tokens. `$(` without a closing `)` (or with `$` or `(` before it) is literal text.
  /// With `variables: false`, as inside variable values, `$(…)` is always literal.
  static func tokenize(_ pattern: String, variables: Bool = true) -> [PatternToken] {
    let scalars = Array(pattern.unicodeScalars)
    var out: [PatternToken] = []
    out.reserveCapacity(scalars.count)
    var i = 0
    while i < scalars.count {
      let c = scalars[i]
      switch c {
      case "*": out.append(.star)
      case "?": out.append(.any)
      case "$" where variables && i + 1 < scalars.count && scalars[i + 1] == "(":
        var j = i + 2
        while j < scalars.count, scalars[j] != ")", scalars[j] != "$", scalars[j] != "(" { j += 1 }
        if j < scalars.count, scalars[j] == ")" {
          var name = String.UnicodeScalarView()
          name.append(contentsOf: scalars[(i + 2)..<j])
          out.append(.variable(String(name)))
          i = j + 1
          continue
        }
        out.append(.literal(c))
      default: out.append(.literal(c))
      }
      i += 1
    }
    return out
  }

  /// The `$(name)` references in a pattern, in order.
  static func variableNames(in pattern: String) -> [String] {
    guard pattern.contains("$(") else { return [] }
    return tokenize(pattern).compactMap {
      if case .variable(let name) = $0 { return name }
      return nil
    }
  }

  /// Rule 5 on a pattern: `**` becomes `*`, `//` becomes `/`, and a leading and a trailing `/` are implied
  /// unless the pattern starts (or ends) with `*`.
  static func normalizePath(_ tokens: [PatternToken]) -> [PatternToken] {
    var out: [PatternToken] = []
    out.reserveCapacity(tokens.count + 2)
    for token in tokens {
      if token == .star, out.last == .star { continue }
      if token == .literal("/"), out.last == .literal("/") { continue }
      out.append(token)
    }
    if out.first != .star, out.first != .literal("/") { out.insert(.literal("/"), at: 0) }
    if out.last != .star, out.last != .literal("/") { out.append(.literal("/")) }
    return out
  }
}
