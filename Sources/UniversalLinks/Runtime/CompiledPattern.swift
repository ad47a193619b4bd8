extension LinkRuntime {
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
        guard subject.count == units.count, required.isSubset(of: subject.mask) else { return false }
      case .glob, .general:
        guard subject.count >= minLength, required.isSubset(of: subject.mask) else { return false }
      }
      guard requiredPairs & ~subject.pairs == 0 else { return false }
      if kind == .general {
        return subject.withScalars { s in
          if s.count < 64 { return simulate(elements, s, from: 1) & (1 << UInt64(s.count)) != 0 }
          var reach = [Bool](repeating: false, count: s.count + 1)
          reach[0] = true
          return simulate(elements, s, &reach) && reach[s.count]
        }
      }
      return program.withUnsafeBufferPointer { program in
        others.withUnsafeBufferPointer { GlobProgram.matches(program, subject, others: $0) }
      }
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

    /// The positions reachable after `elements` from the positions `reach`, as bits, for a subject shorter than 64
    /// scalars (nearly all URL parts): what ``simulate(_:_:_:)`` does with arrays, with no allocation.
    private func simulate(_ elements: [PatternElement], _ s: UnsafeBufferPointer<UInt32>, from reach: UInt64) -> UInt64
    {
      let n = s.count
      // Positions 0...n.
      let all: UInt64 = n == 63 ? ~0 : (1 << UInt64(n + 1)) - 1
      var reach = reach
      for element in elements {
        var next: UInt64 = 0
        switch element {
        case .star:
          // Every position from the first reachable one on.
          next = all & ~((reach & (0 &- reach)) &- 1)
        case .units(let units):
          guard units.count <= n else { return 0 }
          units.withUnsafeBufferPointer { u in
            var starts = reach & ((1 << UInt64(n - u.count + 1)) &- 1)
            while starts != 0 {
              let p = starts.trailingZeroBitCount
              if runMatches(u, 0, u.count, s, p) { next |= 1 << UInt64(p + u.count) }
              starts &= starts &- 1
            }
          }
        case .choice(let index):
          // Borrowed in place: a copy of the choice retained its trie and its wild values.
          choices.withUnsafeBufferPointer { choices in
            choices[index].trie.withUnsafeBufferPointer { trie in
              var starts = reach
              while starts != 0 {
                let p = starts.trailingZeroBitCount
                starts &= starts &- 1
                if trie[0].terminal { next |= 1 << UInt64(p) }
                var node = 0
                var q = p
                while q < n, let edge = trie[node].edges[s[q]] {
                  node = Int(edge)
                  q += 1
                  if trie[node].terminal { next |= 1 << UInt64(q) }
                }
              }
            }
            for value in choices[index].wild { next |= simulate(value, s, from: reach) }
          }
        }
        guard next != 0 else { return 0 }
        reach = next
      }
      return reach
    }

    /// Advances `reach` (positions reachable so far) through `elements`; false once nothing is reachable.
    private func simulate(_ elements: [PatternElement], _ s: UnsafeBufferPointer<UInt32>, _ reach: inout [Bool]) -> Bool
    {
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

  /// Compiles prepared patterns into ``CompiledPattern``s, once per distinct pattern: rules share patterns, and a
  /// `$(lang)` choice has over a thousand values.
  ///
  /// Choices are cached too: every pattern using `$(lang)` shares one trie of its values (arrays are copied on
  /// write, so a cached ``Choice`` costs its memory once), which keeps thousands of apps' rules small.
  public struct PatternBuilder {
    private var cache: [[Piece]: CompiledPattern] = [:]
    private var choiceCache: [[[Piece]]: Choice] = [:]

    /// An empty builder; share one across the programs of many apps.
    public init() {}

    /// The compiled form of `pieces`.
    mutating func compile(_ pieces: [Piece]) -> CompiledPattern {
      if let hit = cache[pieces] { return hit }
      let compiled = build(pieces)
      cache[pieces] = compiled
      return compiled
    }

    private mutating func build(_ pieces: [Piece]) -> CompiledPattern {
      var sets: [ScalarSet] = []
      var choices: [Choice] = []
      var minLength = 0
      var required = ASCIIMask()
      var elements: [PatternElement] = []
      var run: [UInt32] = []
      var hasChoice = false

      func flushRun() {
        if !run.isEmpty { elements.append(.units(run)) }
        run = []
      }

      for piece in pieces {
        switch piece {
        case .literal(let text):
          for c in text.unicodeScalars {
            run.append(c.value)
            required.insert(c.value)
          }
          minLength += text.unicodeScalars.count
        case .any:
          run.append(CompiledPattern.anyUnit)
          minLength += 1
        case .star:
          flushRun()
          if elements.last != .star { elements.append(.star) }
        case .choice(let alternatives):
          guard !alternatives.isEmpty else { return .never }
          if let scalars = Self.singleScalars(alternatives) {
            // Single characters: one set unit, so the pattern stays a glob.
            sets.append(ScalarSet(scalars))
            run.append(CompiledPattern.setBase | UInt32(sets.count - 1))
            minLength += 1
          } else {
            flushRun()
            let cached = choiceCache[alternatives]
            var choice = cached ?? Choice()
            for alternative in alternatives where cached == nil {
              if alternative.contains(where: { $0 == .star || $0 == .any }) {
                choice.wild.append(Self.simpleElements(alternative))
                choice.minLength = min(choice.minLength, Self.minimumLength(alternative))
              } else {
                choice.insert(
                  literal: alternative.flatMap { piece -> [UInt32] in
                    if case .literal(let text) = piece { return text.unicodeScalars.map(\.value) }
                    return []
                  })
              }
            }
            if cached == nil { choiceCache[alternatives] = choice }
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

    /// The scalars of a choice whose every alternative is exactly one literal scalar; nil otherwise.
    private static func singleScalars(_ alternatives: [[Piece]]) -> [UInt32]? {
      var out: [UInt32] = []
      for alternative in alternatives {
        guard alternative.count == 1, case .literal(let text) = alternative[0], text.unicodeScalars.count == 1
        else { return nil }
        out.append(text.unicodeScalars.first!.value)
      }
      return out
    }

    private static func minimumLength(_ pieces: [Piece]) -> Int {
      pieces.reduce(0) { total, piece in
        switch piece {
        case .literal(let text): total + text.unicodeScalars.count
        case .any: total + 1
        case .star, .choice: total
        }
      }
    }

    /// An alternative (literals, `?` and `*` only) as units and stars.
    private static func simpleElements(_ pieces: [Piece]) -> [PatternElement] {
      var elements: [PatternElement] = []
      var run: [UInt32] = []
      for piece in pieces {
        switch piece {
        case .literal(let text): run += text.unicodeScalars.map(\.value)
        case .any: run.append(CompiledPattern.anyUnit)
        case .star:
          if !run.isEmpty { elements.append(.units(run)) }
          run = []
          if elements.last != .star { elements.append(.star) }
        case .choice: break
        }
      }
      if !run.isEmpty { elements.append(.units(run)) }
      return elements
    }
  }
}
