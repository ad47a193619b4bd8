/// Whether an earlier rule of a `details` entry decides every URL a later one matches, so the later rule never
/// decides: `shadowed-rule` in `aasa validate`, and a note in `match --explain`.
///
/// It is claimed only when proven. The earlier rule's flags must be compatible (the same `percentEncoded`; the same
/// `caseSensitive`, or a case-insensitive earlier rule without query items over a later one whose literal text is
/// ASCII), and each key
/// of the earlier rule must accept everything the later rule's does: its path pattern includes the later's (glob
/// inclusion, decided exactly over the patterns' own characters and one class for every other), and its query and
/// fragment constraints are no stricter. A search that outgrows its budget proves nothing, and nothing is claimed.
struct RuleShadowing {
  /// Steps one file's checks may take in all, so a hostile file costs bounded time; past it, nothing more is claimed.
  static let budget = 2_000_000

  private let rules: [LinkRuntime.Rule]
  /// Per rule: whether its literal text is all ASCII, and its patterns lower-cased, made once.
  private let ascii: [Bool]
  private let lowered: [LinkRuntime.Rule]
  /// What is left of the budget.
  private(set) var budget = Self.budget

  /// A checker for the rules of one `details` entry, in order.
  init(_ rules: [LinkRuntime.Rule]) {
    self.rules = rules
    ascii = rules.map(Self.asciiLiterals)
    lowered = rules.map { rule in
      var out = rule
      out.path = rule.path.map { $0.map(Self.lowered) }
      out.query = rule.query.map { $0.map(Self.lowered) }
      out.fragment = rule.fragment.map { $0.map(Self.lowered) }
      out.items = rule.items.map { items in
        items.map { LinkRuntime.Rule.QueryItem(name: $0.name.lowercased(), value: $0.value.map(Self.lowered)) }
      }
      return out
    }
  }

  /// Whether the budget is spent, so no more can be claimed.
  var exhausted: Bool { budget <= 0 }

  /// Whether rule `earlier` matches every URL rule `later` matches.
  mutating func shadows(_ earlier: Int, _ later: Int) -> Bool {
    let (a, b) = (rules[earlier], rules[later])
    guard a.percentEncoded == b.percentEncoded else { return false }
    // A case-insensitive rule compares lower-cased text: it covers a case-sensitive one once that is lower-cased,
    // which is exact for ASCII.
    var other = b
    if a.caseSensitive != b.caseSensitive {
      // Nor with query items: folding their names, the earlier rule reads `x=1&X=2` as two occurrences of `x`,
      // each of which must match, where the later reads one (`/a/*` with `x=1`, case-insensitive, does not decide
      // that URL; the later exclude does).
      guard !a.caseSensitive, ascii[later], a.items == nil else { return false }
      other = lowered[later]
    }
    return includes(a.path, other.path, path: true) && includes(a.fragment, other.fragment)
      && queryIncluded(a, other)
  }

  /// Whether the earlier rule's query constraint accepts every query the later rule's does.
  private mutating func queryIncluded(_ earlier: LinkRuntime.Rule, _ later: LinkRuntime.Rule) -> Bool {
    if let whole = earlier.query {
      // Against items, only a whole-query pattern that accepts anything is proven.
      guard later.items == nil else { return includes(whole, [.star]) }
      return includes(whole, later.query)
    }
    guard let items = earlier.items else { return true }
    // Every item the earlier rule asks for is asked at least as strictly by the later one (an item the later rule
    // leaves free can hold anything, as can every query a whole-query later rule allows).
    for item in items where !includes(item.value, later.items?.first { $0.name == item.name }?.value ?? [.star]) {
      return false
    }
    return true
  }

  /// The most one comparison may spend, so one pair of huge variables cannot use the whole file's budget.
  static let comparisonBudget = 200_000

  /// Each pattern's automaton, built once however many pairs it is in.
  private var automata: [[LinkRuntime.Piece]: Automaton] = [:]

  private mutating func automaton(_ pieces: [LinkRuntime.Piece]) -> Automaton {
    if let built = automata[pieces] { return built }
    let built = Automaton(pieces)
    budget -= built.edges.count
    automata[pieces] = built
    return built
  }

  /// Whether every string `b` matches, `a` matches too; a nil pattern (a key the rule leaves out) matches
  /// everything, as `*` does. For a `path`, only the strings a normalized path can be count: a `/` at each end and
  /// none doubled (rule 5). False when not proven within the budget.
  mutating func includes(_ a: [LinkRuntime.Piece]?, _ b: [LinkRuntime.Piece]?, path: Bool = false) -> Bool {
    guard let a else { return true }
    let b = b ?? [.star]
    if a == b { return true }
    // Every comparison costs something, so a file of thousands of rules stops claiming once its budget is spent.
    budget -= 16
    guard budget > 0, Self.literalEnds(a, b, path: path) else { return false }
    let (left, right) = (automaton(a), automaton(b))
    var allowance = min(budget, Self.comparisonBudget)
    defer { budget -= Self.comparisonBudget - allowance }
    // The characters either pattern names, and one class (nil) for all others; a path's slashes always count.
    let slash = UInt32(UInt8(ascii: "/"))
    var alphabet: [UInt32?] = Array(left.scalars.union(right.scalars).union(path ? [slash] : [])).sorted().map { $0 }
    alphabet.append(nil)
    var seen = Set<Pair>()
    var pending: [Pair] = []
    for state in right.closure([0]) {
      pending.append(Pair(b: state, shape: path ? .start : .any, a: left.closure([0])))
    }
    while let pair = pending.popLast() {
      guard seen.insert(pair).inserted else { continue }
      // What a step costs: every symbol, over every state `a` may be in.
      allowance -= alphabet.count * (pair.a.count + 1)
      guard allowance > 0 else { return false }
      // A string `b` accepts here, which `a` does not: not included.
      if pair.b == right.accept && pair.shape.accepts && !pair.a.contains(left.accept) { return false }
      for symbol in alphabet {
        guard let shape = pair.shape.next(symbol == slash) else { continue }
        let nextB = right.step([pair.b], symbol)
        guard !nextB.isEmpty else { continue }
        let nextA = left.closure(left.step(pair.a, symbol))
        for state in right.closure(nextB) { pending.append(Pair(b: state, shape: shape, a: nextA)) }
      }
    }
    return true
  }

  /// Where a string stands against the shape of a normalized path (`/`, or `/` segments each followed by `/`);
  /// ``any`` for keys with no such shape.
  private enum Shape: Hashable {
    case any, start, afterSlash, inSegment

    /// Whether a string may end here.
    var accepts: Bool { self == .any || self == .afterSlash }

    /// The shape after one more character; nil where a path cannot go (no leading `/`, or `//`).
    func next(_ isSlash: Bool) -> Shape? {
      switch self {
      case .any: .any
      case .start: isSlash ? .afterSlash : nil
      case .afterSlash: isSlash ? nil : .inSegment
      case .inSegment: isSlash ? .afterSlash : .inSegment
      }
    }
  }

  /// A quick necessary condition: where `b` starts (or ends) with literal text and then a wildcard, or nothing, every
  /// string it matches starts (ends) with that text, so `a`'s literal start (end) must be part of it. Most pairs of
  /// rules fail here, before any automaton is built.
  /// A path's strings all start and end with `/`, whatever the pattern says there.
  private static func literalEnds(_ a: [LinkRuntime.Piece], _ b: [LinkRuntime.Piece], path: Bool) -> Bool {
    /// The literal text at the start of `pieces` (given backwards: at the end), and whether a wildcard or the end
    /// follows it rather than a variable, whose values may carry on the text.
    func run(_ pieces: some Sequence<LinkRuntime.Piece>, backwards: Bool) -> (text: String, open: Bool) {
      var literals: [String] = []
      var open = true
      for piece in pieces {
        if case .literal(let literal) = piece {
          literals.append(literal)
          continue
        }
        if case .choice = piece { open = false }
        break
      }
      return ((backwards ? literals.reversed() : literals).joined(), open)
    }
    let (aStart, aEnd) = (run(a, backwards: false), run(a.reversed(), backwards: true))
    var (bStart, bEnd) = (run(b, backwards: false), run(b.reversed(), backwards: true))
    if path && bStart.text.isEmpty { bStart.text = "/" }
    if path && bEnd.text.isEmpty { bEnd.text = "/" }
    if bStart.open && !bStart.text.unicodeScalars.starts(with: aStart.text.unicodeScalars) { return false }
    if bEnd.open && !bEnd.text.unicodeScalars.reversed().starts(with: aEnd.text.unicodeScalars.reversed()) {
      return false
    }
    return true
  }

  /// A state of `b`'s automaton, where the string stands against a path's shape, and the set of states `a`'s
  /// can be in after the same string.
  private struct Pair: Hashable {
    var b: Int
    var shape: Shape
    var a: [Int]
  }

  /// A pattern as a nondeterministic automaton over Unicode scalars: `?` reads any one, `*` loops on any, a
  /// variable's alternatives branch.
  private struct Automaton {
    enum Label: Equatable {
      case scalar(UInt32)
      case any
    }

    var edges: [[(label: Label, to: Int)]] = [[]]
    var epsilon: [[Int]] = [[]]
    var scalars: Set<UInt32> = []
    var accept = 0

    init(_ pieces: [LinkRuntime.Piece]) {
      accept = build(pieces, from: 0)
    }

    private mutating func state() -> Int {
      edges.append([])
      epsilon.append([])
      return edges.count - 1
    }

    /// Adds `pieces` after `start`; returns the state reached at their end.
    private mutating func build(_ pieces: [LinkRuntime.Piece], from start: Int) -> Int {
      var current = start
      for piece in pieces {
        switch piece {
        case .literal(let text):
          for scalar in text.unicodeScalars {
            let next = state()
            edges[current].append((.scalar(scalar.value), next))
            scalars.insert(scalar.value)
            current = next
          }
        case .any:
          let next = state()
          edges[current].append((.any, next))
          current = next
        case .star:
          // A state of its own for the loop, so it never loops back into what led here.
          let loop = state()
          epsilon[current].append(loop)
          edges[loop].append((.any, loop))
          current = loop
        case .choice(let alternatives):
          let end = state()
          for alternative in alternatives {
            let first = state()
            epsilon[current].append(first)
            epsilon[build(alternative, from: first)].append(end)
          }
          current = end
        }
      }
      return current
    }

    /// `states` and every state reachable from them without reading, sorted.
    func closure(_ states: [Int]) -> [Int] {
      var seen = Set(states)
      var pending = states
      while let state = pending.popLast() {
        for next in epsilon[state] where seen.insert(next).inserted { pending.append(next) }
      }
      return seen.sorted()
    }

    /// The states reached from `states` by reading `symbol` (nil: a scalar neither pattern names).
    func step(_ states: [Int], _ symbol: UInt32?) -> [Int] {
      var out: [Int] = []
      for state in states {
        for edge in edges[state] {
          switch edge.label {
          case .any: out.append(edge.to)
          case .scalar(let c): if c == symbol { out.append(edge.to) }
          }
        }
      }
      return out
    }
  }

  /// Whether every literal of the rule is ASCII, so lower-casing it character by character is exact.
  private static func asciiLiterals(_ rule: LinkRuntime.Rule) -> Bool {
    func ascii(_ pieces: [LinkRuntime.Piece]?) -> Bool {
      (pieces ?? []).allSatisfy { piece in
        switch piece {
        case .literal(let text): text.unicodeScalars.allSatisfy(\.isASCII)
        case .any, .star: true
        case .choice(let alternatives): alternatives.allSatisfy(ascii)
        }
      }
    }
    return ascii(rule.path) && ascii(rule.query) && ascii(rule.fragment)
      && (rule.items ?? []).allSatisfy { ascii($0.value) && $0.name.unicodeScalars.allSatisfy(\.isASCII) }
  }

  private static func lowered(_ piece: LinkRuntime.Piece) -> LinkRuntime.Piece {
    switch piece {
    case .literal(let text): .literal(text.lowercased())
    case .any, .star: piece
    case .choice(let alternatives): .choice(alternatives.map { $0.map(lowered) })
    }
  }
}
