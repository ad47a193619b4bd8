/// A set of ASCII characters as two 64-bit words; used as a cheap necessary condition before matching.
struct ASCIIMask: Sendable, Equatable {
  var low: UInt64 = 0
  var high: UInt64 = 0

  mutating func insert(_ c: UInt32) {
    if c < 64 {
      low |= 1 << UInt64(c)
    } else if c < 128 {
      high |= 1 << UInt64(c - 64)
    }
  }

  func contains(_ c: UInt32) -> Bool {
    c < 64 ? low & (1 << UInt64(c)) != 0 : c < 128 ? high & (1 << UInt64(c - 64)) != 0 : false
  }

  func isSubset(of other: ASCIIMask) -> Bool { low & ~other.low == 0 && high & ~other.high == 0 }
}

/// A 64-bit Bloom filter of adjacent ASCII character pairs: a second cheap necessary condition, like the
/// n-gram indexes of code search engines. A pattern's literal pairs must all appear in the subject's filter.
enum PairFilter {
  @inline(__always)
  static func bit(_ a: UInt32, _ b: UInt32) -> UInt64 { 1 << UInt64(((a << 7 | b) &* 0x9E37_79B1) >> 26) }

  static func of(_ scalars: some Collection<UInt32>) -> UInt64 {
    var bits: UInt64 = 0
    var previous: UInt32 = 0xFFFF_FFFF
    for c in scalars {
      if previous < 128 && c < 128 { bits |= bit(previous, c) }
      previous = c
    }
    return bits
  }
}

/// A URL part ready for matching: Unicode scalar values plus the ASCII characters it contains.
///
/// A class because it carries a lazily built next-occurrence index, shared by every pattern tried on the same
/// URL: once many patterns have searched it, finding a piece costs one lookup per candidate instead of a scan,
/// which keeps thousands of star-heavy patterns cheap on one URL. Instances live for one verdict and are never
/// shared between threads.
final class SubjectText {
  let scalars: [UInt32]
  let mask: ASCIIMask
  /// ``PairFilter`` bits of the text.
  let pairs: UInt64
  @exclusivity(unchecked) private var searches = 0
  /// Dense column per ASCII character present; 0 means absent.
  @exclusivity(unchecked) private var columns: [UInt8] = []
  @exclusivity(unchecked) private var width = 0
  /// `next[i * width + column - 1]`: the first position ≥ i holding that character, or `count`.
  @exclusivity(unchecked) private var next: [Int32] = []

  init(_ scalars: [UInt32]) {
    self.scalars = scalars
    var mask = ASCIIMask()
    for c in scalars where c < 128 { mask.insert(c) }
    self.mask = mask
    pairs = PairFilter.of(scalars)
  }

  convenience init(_ string: String) { self.init(string.unicodeScalars.map(\.value)) }

  static var empty: SubjectText { SubjectText([UInt32]()) }

  /// Whether the index is worth building: after a few searches on the same text.
  func wantsIndex() -> Bool {
    if !next.isEmpty { return true }
    searches += 1
    guard searches > 8 else { return false }
    buildIndex()
    return true
  }

  private func buildIndex() {
    columns = [UInt8](repeating: 0, count: 128)
    for c in scalars where c < 128 && columns[Int(c)] == 0 {
      width += 1
      columns[Int(c)] = UInt8(width)
    }
    let n = scalars.count
    next = [Int32](repeating: Int32(n), count: (n + 1) * max(width, 1))
    guard width > 0 else { return }
    var i = n - 1
    while i >= 0 {
      for k in 0..<width { next[i * width + k] = next[(i + 1) * width + k] }
      let c = scalars[i]
      if c < 128 { next[i * width + Int(columns[Int(c)]) - 1] = Int32(i) }
      i -= 1
    }
  }

  /// The first position ≥ `from` holding ASCII character `c`, or nil. Requires the index.
  @inline(__always)
  func nextIndex(of c: UInt32, from: Int) -> Int? {
    guard from < scalars.count else { return nil }
    let column = Int(columns[Int(c)])
    guard column > 0 else { return nil }
    let j = Int(next[from * width + column - 1])
    return j < scalars.count ? j : nil
  }

  /// The first position ≥ `from` holding any ASCII character of `set`, or nil. Requires the index.
  func nextIndex(ofAny set: ASCIIMask, from: Int) -> Int? {
    guard from < scalars.count else { return nil }
    var best = scalars.count
    let row = from * width - 1
    var word = set.low & mask.low
    while word != 0 {
      best = min(best, Int(next[row + Int(columns[word.trailingZeroBitCount])]))
      word &= word - 1
    }
    word = set.high & mask.high
    while word != 0 {
      best = min(best, Int(next[row + Int(columns[64 + word.trailingZeroBitCount])]))
      word &= word - 1
    }
    return best < scalars.count ? best : nil
  }
}

/// Single-character alternatives, such as `$(digit)`.
struct ScalarSet: Sendable, Equatable {
  var ascii = ASCIIMask()
  var others: Set<UInt32> = []

  init(_ scalars: some Sequence<UInt32>) {
    for c in scalars {
      if c < 128 { ascii.insert(c) } else { others.insert(c) }
    }
  }

  func contains(_ c: UInt32) -> Bool { c < 128 ? ascii.contains(c) : others.contains(c) }
}

/// One step of a general program.
enum PatternElement: Sendable, Equatable {
  /// A fixed-length run of units (see ``CompiledPattern`` for the encoding).
  case units([UInt32])
  case star
  /// Index into ``CompiledPattern/choices``.
  case choice(Int)
}

/// Multi-character alternatives of a substitution variable.
struct Choice: Sendable, Equatable {
  struct Node: Sendable, Equatable {
    var edges: [UInt32: Int32] = [:]
    var terminal = false
  }

  /// A trie of the wildcard-free values; node 0 is the root.
  var trie: [Node] = [Node()]
  /// Values containing `*` or `?`, each a small program of units and stars.
  var wild: [[PatternElement]] = []
  var minLength = Int.max

  mutating func insert(literal scalars: [UInt32]) {
    var node = 0
    for c in scalars {
      if let next = trie[node].edges[c] {
        node = Int(next)
      } else {
        trie.append(Node())
        trie[node].edges[c] = Int32(trie.count - 1)
        node = trie.count - 1
      }
    }
    trie[node].terminal = true
    minLength = min(minLength, scalars.count)
  }
}

/// A pattern compiled once into the cheapest form that decides it.
///
/// Units are `UInt32`: a Unicode scalar value, ``CompiledPattern/anyUnit`` for `?`, or
/// `setBase | i` for a single-character variable (set `i`). Scalars never exceed 0x10FFFF, so the encodings
/// cannot collide.
///
/// Without multi-character variables a pattern is a glob and runs as a ``GlobProgram``: linear, no backtracking.
/// With multi-character variables it runs as a position-set simulation (a Thompson NFA): each element maps the set
/// of reachable positions to the next one, so the cost is bounded by elements × length × value length, never
/// exponential. A final class because rules share patterns (the compiler caches them by source).
final class CompiledPattern: Sendable {
  static let anyUnit: UInt32 = 0xFFFF_FFFF
  static let setBase: UInt32 = 0x8000_0000

  enum Kind: Sendable, Equatable {
    /// `*`: matches everything, a missing component included.
    case any
    /// Uses an undefined variable (or one with no values): never matches.
    case never
    /// No star: same length, unit by unit.
    case exact
    /// `piece0 * piece1 * … * pieceN`, N ≥ 1.
    case glob
    /// Multi-character alternatives: position-set simulation over ``elements``.
    case general
  }

  let kind: Kind
  /// For `exact` and `glob`: all pieces' units, concatenated.
  let units: [UInt32]
  /// For `glob`: piece `i` is `units[bounds[i]..<bounds[i + 1]]`.
  let bounds: [Int]
  let elements: [PatternElement]
  let sets: [ScalarSet]
  /// The ASCII part of each set, kept apart so the simulation reads plain values.
  let setMasks: [ASCIIMask]
  /// For `exact` and `glob`: the ``GlobProgram`` the hot loop runs.
  let program: [UInt32]
  /// Non-ASCII members of each set, which programs do not carry.
  let others: [Set<UInt32>]
  let choices: [Choice]
  /// No subject shorter than this can match.
  let minLength: Int
  /// ASCII characters every match must contain.
  let required: ASCIIMask
  /// ``PairFilter`` bits every match must contain: adjacent literal pairs inside one piece.
  let requiredPairs: UInt64

  init(
    kind: Kind, units: [UInt32] = [], bounds: [Int] = [], elements: [PatternElement] = [], sets: [ScalarSet] = [],
    choices: [Choice] = [], minLength: Int = 0, required: ASCIIMask = ASCIIMask()
  ) {
    self.kind = kind
    self.units = units
    self.bounds = bounds
    self.elements = elements
    self.sets = sets
    self.setMasks = sets.map(\.ascii)
    // Each piece's search anchor: its first ASCII literal or set unit (not `?`), or -1.
    var anchors: [Int] = []
    if bounds.count > 1 {
      for piece in 0..<(bounds.count - 1) {
        let range = bounds[piece]..<bounds[piece + 1]
        let anchor = units[range].firstIndex { $0 < 128 || ($0 >= Self.setBase && $0 != Self.anyUnit) }
        anchors.append(anchor.map { $0 - range.lowerBound } ?? -1)
      }
    }
    var probe = -1
    if bounds.count > 3 {
      var longest = 0
      for piece in 1..<(bounds.count - 2) where bounds[piece + 1] - bounds[piece] >= longest && anchors[piece] >= 0 {
        longest = bounds[piece + 1] - bounds[piece]
        probe = piece
      }
    }
    // The longest middle piece is looked up first, anywhere in the subject: the cheapest way to reject most URLs
    // (the required-literal trick of regex engines).
    program =
      kind == .exact || kind == .glob
      ? GlobProgram.make(units: units, bounds: bounds, anchors: anchors, probe: probe, sets: sets.map(\.ascii)) : []
    others = sets.map(\.others)
    self.choices = choices
    self.minLength = minLength
    self.required = required
    var pairs: UInt64 = 0
    if bounds.count > 1 {
      for piece in 0..<(bounds.count - 1) { pairs |= PairFilter.of(units[bounds[piece]..<bounds[piece + 1]]) }
    }
    for case .units(let run) in elements { pairs |= PairFilter.of(run) }
    requiredPairs = pairs
  }

  static let never = CompiledPattern(kind: .never)

  /// For tests: the pieces of a glob.
  var pieces: [[UInt32]] {
    guard kind == .glob else { return [] }
    return (0..<(bounds.count - 1)).map { Array(units[bounds[$0]..<bounds[$0 + 1]]) }
  }

  /// Whether the subject matches the whole pattern.
  func matches(_ subject: SubjectText) -> Bool {
    switch kind {
    case .any: return true
    case .never: return false
    case .exact:
      guard subject.scalars.count == units.count, required.isSubset(of: subject.mask) else { return false }
    case .glob, .general:
      guard subject.scalars.count >= minLength, required.isSubset(of: subject.mask) else { return false }
    }
    guard requiredPairs & ~subject.pairs == 0 else { return false }
    if kind == .general {
      return subject.scalars.withUnsafeBufferPointer { s in
        var reach = [Bool](repeating: false, count: s.count + 1)
        reach[0] = true
        return simulate(elements, s, &reach) && reach[s.count]
      }
    }
    return program.withUnsafeBufferPointer { GlobProgram.matches($0, subject, others: others) }
  }

  /// Whether the pattern can run from its ``program`` alone (no non-ASCII set members).
  var isSelfContainedProgram: Bool {
    (kind == .exact || kind == .glob) && others.allSatisfy(\.isEmpty)
  }

  @inline(__always)
  private func unitMatches(_ unit: UInt32, _ c: UInt32) -> Bool {
    if unit == c { return true }
    if unit < Self.setBase { return false }
    if unit == Self.anyUnit { return true }
    let set = Int(unit & ~Self.setBase)
    return c < 128 ? setMasks[set].contains(c) : sets[set].contains(c)
  }

  @inline(__always)
  private func runMatches(
    _ u: UnsafeBufferPointer<UInt32>, _ from: Int, _ length: Int, _ s: UnsafeBufferPointer<UInt32>, _ offset: Int
  ) -> Bool {
    var i = 0
    while i < length {
      if !unitMatches(u[from + i], s[offset + i]) { return false }
      i += 1
    }
    return true
  }

  /// Advances `reach` (positions reachable so far) through `elements`; false once nothing is reachable.
  private func simulate(_ elements: [PatternElement], _ s: UnsafeBufferPointer<UInt32>, _ reach: inout [Bool]) -> Bool {
    let n = s.count
    var next = [Bool](repeating: false, count: n + 1)
    for element in elements {
      for i in 0...n { next[i] = false }
      var any = false
      switch element {
      case .star:
        guard let first = reach.firstIndex(of: true) else { return false }
        for i in first...n { next[i] = true }
        any = true
      case .units(let units):
        if units.count <= n {
          units.withUnsafeBufferPointer { u in
            for p in 0...(n - units.count) where reach[p] && runMatches(u, 0, u.count, s, p) {
              next[p + units.count] = true
              any = true
            }
          }
        }
      case .choice(let index):
        let choice = choices[index]
        for p in 0...n where reach[p] {
          var node = 0
          if choice.trie[0].terminal {
            next[p] = true
            any = true
          }
          var q = p
          while q < n, let edge = choice.trie[node].edges[s[q]] {
            node = Int(edge)
            q += 1
            if choice.trie[node].terminal {
              next[q] = true
              any = true
            }
          }
        }
        for value in choice.wild {
          var sub = reach
          if simulate(value, s, &sub) {
            for i in 0...n where sub[i] {
              next[i] = true
              any = true
            }
          }
        }
      }
      guard any else { return false }
      swap(&reach, &next)
    }
    return true
  }
}

/// Compiles pattern strings, expanding substitution variables and applying case folding and path rules.
struct PatternCompiler {
  /// Custom variables; they shadow built-ins of the same name.
  var custom: [String: [String]]
  private var cache: [Key: CompiledPattern] = [:]
  /// Expanded variables, shared by every pattern that uses them (`$(lang)` has over a thousand values).
  private var expansions: [Expansion: [[PatternToken]]] = [:]

  private struct Expansion: Hashable {
    var name: String
    var folded: Bool
  }

  private struct Key: Hashable {
    var source: String
    var folded: Bool
    var isPath: Bool
  }

  init(variables: [SubstitutionVariable]) {
    var custom: [String: [String]] = [:]
    for variable in variables { custom[variable.name] = variable.values }
    self.custom = custom
  }

  func values(of name: String) -> [String]? { custom[name] ?? BuiltinVariables.values(of: name) }

  /// Compiles `source`; with `folded`, literals and variable values are lower-cased (rule 7); with `isPath`,
  /// rule 5 normalization applies.
  mutating func compile(_ source: String, folded: Bool, isPath: Bool) -> CompiledPattern {
    let key = Key(source: source, folded: folded, isPath: isPath)
    if let hit = cache[key] { return hit }
    for name in PatternToken.variableNames(in: source) {
      let e = Expansion(name: name, folded: folded)
      if expansions[e] == nil, let raw = values(of: name) {
        expansions[e] = raw.map { PatternToken.tokenize(folded ? $0.lowercased() : $0, variables: false) }
      }
    }
    let compiled = build(source, folded: folded, isPath: isPath)
    cache[key] = compiled
    return compiled
  }

  private func build(_ source: String, folded: Bool, isPath: Bool) -> CompiledPattern {
    var tokens = PatternToken.tokenize(source)
    if isPath { tokens = PatternToken.normalizePath(tokens) }
    var sets: [ScalarSet] = []
    var choices: [Choice] = []
    var minLength = 0
    var required = ASCIIMask()
    var elements: [PatternElement] = []
    var run: [UInt32] = []
    var literalRun = String.UnicodeScalarView()
    var hasChoice = false

    func flushLiterals() {
      guard !literalRun.isEmpty else { return }
      let text = folded ? String(literalRun).lowercased() : String(literalRun)
      for c in text.unicodeScalars {
        run.append(c.value)
        required.insert(c.value)
      }
      minLength += text.unicodeScalars.count
      literalRun = String.UnicodeScalarView()
    }
    func flushRun() {
      flushLiterals()
      if !run.isEmpty { elements.append(.units(run)) }
      run = []
    }

    for token in tokens {
      switch token {
      case .literal(let c):
        literalRun.append(c)
      case .any:
        flushLiterals()
        run.append(CompiledPattern.anyUnit)
        minLength += 1
      case .star:
        flushRun()
        if elements.last != .star { elements.append(.star) }
      case .variable(let name):
        flushLiterals()
        guard let values = expansions[Expansion(name: name, folded: folded)], !values.isEmpty else { return .never }
        if values.allSatisfy({ $0.count == 1 && $0[0] != .star && $0[0] != .any }) {
          // Single characters: one set unit, so the pattern stays a glob.
          let scalars = values.compactMap { tokens -> UInt32? in
            if case .literal(let c) = tokens[0] { return c.value }
            return nil
          }
          sets.append(ScalarSet(scalars))
          run.append(CompiledPattern.setBase | UInt32(sets.count - 1))
          minLength += 1
        } else if values.count == 1 {
          for t in values[0] {
            switch t {
            case .literal(let c): run.append(c.value)
            case .any: run.append(CompiledPattern.anyUnit)
            case .star:
              flushRun()
              if elements.last != .star { elements.append(.star) }
            case .variable: break
            }
          }
          minLength += values[0].filter { $0 != .star }.count
        } else {
          flushRun()
          var choice = Choice()
          for value in values {
            if value.contains(where: { $0 == .star || $0 == .any }) {
              choice.wild.append(Self.simpleElements(value))
              choice.minLength = min(choice.minLength, value.filter { $0 != .star }.count)
            } else {
              choice.insert(
                literal: value.compactMap {
                  if case .literal(let c) = $0 { return c.value }
                  return nil
                })
            }
          }
          choices.append(choice)
          minLength += choice.minLength
          elements.append(.choice(choices.count - 1))
          hasChoice = true
        }
      }
    }
    flushRun()

    if hasChoice {
      return CompiledPattern(
        kind: .general, elements: elements, sets: sets, choices: choices, minLength: minLength, required: required)
    }
    if elements == [.star] { return CompiledPattern(kind: .any) }
    var units: [UInt32] = []
    var bounds = [0]
    for element in elements {
      switch element {
      case .star: bounds.append(units.count)
      case .units(let run): units += run
      case .choice: break
      }
    }
    bounds.append(units.count)
    // bounds now has one entry per star plus two: pieces = stars + 1.
    let kind: CompiledPattern.Kind = bounds.count == 2 ? .exact : .glob
    return CompiledPattern(
      kind: kind, units: units, bounds: bounds, sets: sets, minLength: minLength, required: required)
  }

  private static func simpleElements(_ tokens: [PatternToken]) -> [PatternElement] {
    var elements: [PatternElement] = []
    var run: [UInt32] = []
    for t in tokens {
      switch t {
      case .literal(let c): run.append(c.value)
      case .any: run.append(CompiledPattern.anyUnit)
      case .star:
        if !run.isEmpty { elements.append(.units(run)) }
        run = []
        if elements.last != .star { elements.append(.star) }
      case .variable: break
      }
    }
    if !run.isEmpty { elements.append(.units(run)) }
    return elements
  }
}
