extension LinkRuntime {
  /// One reading's rules by the literal start of their path, so a URL is tried only against rules that
  /// could match it: a rule whose path starts `/shop/` is a candidate only for paths that start `/shop/`.
  ///
  /// Every path pattern is anchored at the start of the (normalized) path, so its literal start is a necessary
  /// condition. A multi-valued variable at the start (`/$(lang)/help/*`) contributes each of its values while the
  /// number of starts stays small. Rules with no literal start (a leading `*` or `?`, no path key) are listed by
  /// one of the character pairs their path must hold (a ``PairFilter`` bit), so a URL visits only the lists of the
  /// pairs its path holds; a rule that requires no pair is tried for every URL. Lookup is one pass over the path's
  /// first scalars with an incremental hash, probing an open-addressing table only at the lengths some start has,
  /// and for a start that ends with `/` (most do) only where the path has a `/` too.
  ///
  /// An index is not an object but a run of words in its ``CandidateIndex``'s one array, found by offset: with a
  /// thousand apps' rules in use at random, each lookup's cost is its cache misses, and every separate allocation
  /// on the way (the index, its table, its entries, their text) was one more. A table slot holds the start's hash
  /// and its rule list, and no text: a start is recognized by its 58-bit hash and its length. Two starts that
  /// collided would only add candidates, which are then matched in full, so a collision can cost time but never
  /// change a verdict.
  enum PrefixIndex {
    /// Starts are cut to this many scalars: a shorter start is still a necessary condition.
    static let maximumLength = 48
    /// A rule with more starts than this is indexed by the part before the variable that multiplies them.
    static let maximumStartsPerRule = 256

    /// Where things sit in an index's words, from its offset: its header, the bounds of its pair buckets, then its
    /// table, two words a slot. An index of one app's rules has few buckets, and all a lookup reads before the
    /// table is then in its first few words.
    private enum Layout {
      /// Bit `n` is set when some start is `n` scalars long and does not end with `/`.
      static let lengths = 0
      /// Bit `n` is set when some start is `n` scalars long and ends with `/`: probed only where the path has a `/`,
      /// since such a start can begin a path only there. Most starts end a segment (`/shop/*` starts `/shop/`), so
      /// a path is probed at its few segment ends, not at every length some start has: each probe is a slot
      /// anywhere in the table, and so a likely cache miss.
      static let slashLengths = 1
      /// Bit `b` is set when pair bucket `b` is not empty.
      static let pairBits = 2
      /// The rules always tried (they have no start and require no pair): the start of their list in the high
      /// half, its end in the low half.
      static let always = 3
      /// The table's slot count, a power of two (0 when it has none), in the low half; where the table starts,
      /// from the index's offset, in the high half.
      static let slots = 4
      /// The pair buckets' bounds, two 32-bit bounds a word, the first in the high half. With few non-empty
      /// buckets (most indexes of one app's rules), only theirs are kept, in bit order: the `k`-th non-empty bucket
      /// is list positions `bound(k)..<bound(k + 1)`, and `k` is a count of the bits below its own. Otherwise all
      /// 65 are, bucket `b` being `bound(b)..<bound(b + 1)`, with no count to make: 33 words, which is how a lookup
      /// tells the two apart (``slots`` says where the table starts).
      static let pairBounds = 5
      static let denseBounds = 33
      /// The most non-empty buckets whose bounds alone are kept.
      static let sparseBuckets = 8
    }

    /// Appends to `words` the index of `rules` (indices into the program's rules) by `paths`, their prepared
    /// path patterns, and returns its offset; a rule with a nil path constrains no path and is always tried.
    /// `pairs` are the ``PairFilter`` bits each rule's path must hold. Each rule list is appended to `lists` (rule
    /// numbers), which every index of a ``CandidateIndex`` shares, so the matcher walks them as ranges of one array.
    static func append(
      rules: [Int], paths: [[Piece]?], pairs: [UInt64], lists: inout [Int32], to words: inout [UInt64]
    ) -> Int {
      var always: [Int32] = []
      var buckets = [[Int32]](repeating: [], count: 64)
      var byStart: [[UInt32]: [Int32]] = [:]
      // Variables multiply starts; past this budget a rule is indexed by its start before the variable, so a
      // hostile file cannot make the index much larger than its rules.
      var budget = 16 * rules.count + 256
      var unstarted: [(rule: Int32, pairs: UInt64)] = []
      for ((rule, path), required) in zip(zip(rules, paths), pairs) {
        // Every normalized path starts with `/`, so a start of `/` alone (`/$(lang)/…` past the limit) tells
        // nothing: such a rule is listed by a pair, as one with no start is.
        guard let path, let starts = Self.starts(path, limit: min(Self.maximumStartsPerRule, max(budget, 1))),
          starts != [[0x2F]]
        else {
          if required == 0 { always.append(Int32(rule)) } else { unstarted.append((Int32(rule), required)) }
          continue
        }
        budget -= starts.count
        for start in starts { byStart[start, default: []].append(Int32(rule)) }
      }
      // Any required pair is a necessary condition. The one fewest of these rules require is likely the rarest in
      // paths too (a pair every rule needs, like `.h` of `*.html`, says little); ties go to the smaller bucket.
      var frequency = [Int](repeating: 0, count: 64)
      for (_, required) in unstarted {
        var bits = required
        while bits != 0 {
          frequency[bits.trailingZeroBitCount] += 1
          bits &= bits - 1
        }
      }
      for (rule, required) in unstarted {
        var bits = required
        var best = bits.trailingZeroBitCount
        while bits != 0 {
          let bit = bits.trailingZeroBitCount
          if (frequency[bit], buckets[bit].count) < (frequency[best], buckets[best].count) { best = bit }
          bits &= bits - 1
        }
        buckets[best].append(rule)
      }

      let offset = words.count
      var slots = 1
      while slots < byStart.count * 2 { slots *= 2 }
      if byStart.isEmpty { slots = 0 }
      let nonEmpty = buckets.filter { !$0.isEmpty }.count
      let dense = nonEmpty > Layout.sparseBuckets
      let table = Layout.pairBounds + (dense ? Layout.denseBounds : (nonEmpty + 2) / 2)
      words += repeatElement(0, count: table + 2 * slots)
      words[offset + Layout.slots] = UInt64(table) << 32 | UInt64(slots)
      words[offset + Layout.always] = UInt64(lists.count) << 32 | UInt64(lists.count + always.count)
      lists += always
      var bounds = 0
      func addBound(_ value: Int) {
        words[offset + Layout.pairBounds + bounds / 2] |= UInt64(UInt32(value)) << (bounds % 2 == 0 ? 32 : 0)
        bounds += 1
      }
      addBound(lists.count)
      for (bit, bucket) in buckets.enumerated() where dense || !bucket.isEmpty {
        if !bucket.isEmpty { words[offset + Layout.pairBits] |= 1 << UInt64(bit) }
        lists += bucket
        addBound(lists.count)
      }
      for (start, list) in byStart.sorted(by: { $0.value[0] < $1.value[0] }) {
        let hash = Self.hash(start[...])
        var slot = Int(truncatingIfNeeded: hash) & (slots - 1)
        while words[offset + table + 2 * slot + 1] != 0 { slot = (slot + 1) & (slots - 1) }
        words[offset + table + 2 * slot] = key(hash, length: start.count)
        words[offset + table + 2 * slot + 1] = UInt64(lists.count) << 32 | UInt64(list.count)
        lists += list
        words[offset + (start.last == 0x2F ? Layout.slashLengths : Layout.lengths)] |= 1 << UInt64(start.count)
      }
      return offset
    }

    /// What an index holds, for tests and diagnostics: how many starts, which list positions are always tried,
    /// and the pair buckets (bit `b` of `pairBits` set when bucket `b`, `pairBounds[b]..<pairBounds[b + 1]`, is
    /// not empty).
    struct Shape: Equatable {
      var starts: Int
      var always: Range<Int>
      var pairBits: UInt64
      var pairBounds: [Int]
    }

    /// The shape of the index at `offset` in `words`.
    static func shape(_ words: [UInt64], at offset: Int) -> Shape {
      words.withUnsafeBufferPointer { words in
        let always = words[offset + Layout.always]
        let slots = Int(words[offset + Layout.slots] & 0xFFFF_FFFF)
        let table = offset + Int(words[offset + Layout.slots] >> 32)
        return Shape(
          starts: (0..<slots).filter { words[table + 2 * $0 + 1] != 0 }.count,
          always: Int(always >> 32)..<Int(always & 0xFFFF_FFFF), pairBits: words[offset + Layout.pairBits],
          pairBounds: (0...64).map { bound($0, words, at: offset) })
      }
    }

    /// Where pair bucket `b` of the index at `offset` starts in the lists (and bucket `b - 1` ends).
    @inline(__always)
    private static func bound(_ b: Int, _ words: UnsafeBufferPointer<UInt64>, at offset: Int) -> Int {
      let k = boundNumber(b, words, at: offset)
      return Int(UInt32(truncatingIfNeeded: words[offset + Layout.pairBounds + k / 2] >> (k % 2 == 0 ? 32 : 0)))
    }

    /// Which bound is pair bucket `b`'s start: `b` when all are kept, else the number of non-empty buckets below.
    @inline(__always)
    private static func boundNumber(_ b: Int, _ words: UnsafeBufferPointer<UInt64>, at offset: Int) -> Int {
      if words[offset + Layout.slots] >> 32 == Layout.pairBounds + Layout.denseBounds { return b }
      return (words[offset + Layout.pairBits] & (b == 64 ? ~0 : (1 << UInt64(b)) &- 1)).nonzeroBitCount
    }

    /// The list positions of non-empty pair bucket `bit` of the index at `offset`: its bound and the next.
    @inline(__always)
    private static func bucket(_ bit: Int, _ words: UnsafeBufferPointer<UInt64>, at offset: Int) -> Range<Int> {
      let k = boundNumber(bit, words, at: offset)
      let first = words[offset + Layout.pairBounds + k / 2]
      // Bound `k` is in the high half of its word when `k` is even, and bound `k + 1` then in the low half.
      if k % 2 == 0 { return Int(first >> 32)..<Int(first & 0xFFFF_FFFF) }
      return Int(first & 0xFFFF_FFFF)..<Int(words[offset + Layout.pairBounds + k / 2 + 1] >> 32)
    }

    /// A start's hash with its length in the low six bits, which the hash gives up: a slot recognizes a start of
    /// one length only, so a path meets each rule list at most once.
    @inline(__always)
    private static func key(_ hash: UInt64, length: Int) -> UInt64 { hash & ~63 | UInt64(length) }

    /// FNV-1a over scalar values.
    @inline(__always)
    static func step(_ hash: UInt64, _ c: UInt32) -> UInt64 { (hash ^ UInt64(c)) &* 0x0000_0100_0000_01B3 }
    static let seed: UInt64 = 0xCBF2_9CE4_8422_2325

    static func hash(_ scalars: ArraySlice<UInt32>) -> UInt64 {
      var h = seed
      for c in scalars { h = step(h, c) }
      return h
    }

    /// The literal starts of a prepared path pattern, each at most ``maximumLength`` long and none the start of
    /// another (so a path begins with at most one of them); nil when it has none.
    static func starts(_ pieces: [Piece], limit: Int) -> [[UInt32]]? {
      var starts: [[UInt32]] = [[]]
      scan: for piece in pieces {
        switch piece {
        case .literal(let literal):
          for k in starts.indices { starts[k] += literal.unicodeScalars.map(\.value) }
        case .choice(let alternatives):
          // Checked first, as `$(lang)`'s 1,188 values were each turned into scalars only to be dropped here.
          guard !alternatives.isEmpty, starts.count * alternatives.count <= limit else { break scan }
          var values: [[UInt32]] = []
          for alternative in alternatives {
            var value: [UInt32] = []
            for part in alternative {
              guard case .literal(let literal) = part else { break scan }
              value += literal.unicodeScalars.map(\.value)
            }
            values.append(value)
          }
          starts = starts.flatMap { start in values.map { start + $0 } }
        case .any, .star:
          break scan
        }
        if starts.allSatisfy({ $0.count >= maximumLength }) { break }
      }
      // Sorted, a start that another begins with comes right before it; keeping only the shorter one leaves a
      // necessary condition that each path meets at most once.
      var kept: [[UInt32]] = []
      for start in Set(starts.map { Array($0.prefix(maximumLength)) }).sorted(by: { $0.lexicographicallyPrecedes($1) })
      {
        if let last = kept.last, start.starts(with: last) { continue }
        kept.append(start)
      }
      return kept.isEmpty || kept[0].isEmpty ? nil : kept
    }

    /// Calls `found` with the ranges, in the shared lists, of the rules always tried, of the rules with no start
    /// listed under a pair `path` holds (`pathPairs`, its ``PairFilter`` bits), and of the rules whose start begins
    /// `path`, for the index at `offset` in `words`.
    @inline(__always)
    static func candidates(
      _ words: UnsafeBufferPointer<UInt64>, at offset: Int, _ path: UnsafeBufferPointer<UInt32>, pathPairs: UInt64,
      _ found: (Range<Int>) -> Void
    ) {
      let always = words[offset + Layout.always]
      if always >> 32 != always & 0xFFFF_FFFF { found(Int(always >> 32)..<Int(always & 0xFFFF_FFFF)) }
      var bits = pathPairs & words[offset + Layout.pairBits]
      while bits != 0 {
        found(bucket(bits.trailingZeroBitCount, words, at: offset))
        bits &= bits - 1
      }
      let slots = Int(words[offset + Layout.slots] & 0xFFFF_FFFF)
      guard slots != 0 else { return }
      // The home slot is the hash's low bits, as it is for the table's entries: a multiply to mix them more would
      // lengthen the chain of dependent steps each probe waits on.
      let mask = slots &- 1
      let table = offset + Int(words[offset + Layout.slots] >> 32)
      let lengths = words[offset + Layout.lengths]
      let slashLengths = words[offset + Layout.slashLengths]
      var h = Self.seed
      // No start is longer than the highest bit of the lengths: past it, hashing finds nothing.
      let n = min(path.count, 63 - (lengths | slashLengths).leadingZeroBitCount)
      var length = 0
      while length < n {
        let c = path[length]
        h = Self.step(h, c)
        length += 1
        guard (lengths | (c == 0x2F ? slashLengths : 0)) & (1 << UInt64(length)) != 0 else { continue }
        let key = key(h, length: length)
        var slot = Int(truncatingIfNeeded: h) & mask
        // A slot's second word is its list (start, count); 0 when it is empty.
        while words[table &+ 2 &* slot &+ 1] != 0 {
          if words[table &+ 2 &* slot] == key {
            let list = words[table &+ 2 &* slot &+ 1]
            found(Int(list >> 32)..<Int((list >> 32) + (list & 0xFFFF_FFFF)))
            break
          }
          slot = (slot &+ 1) & mask
        }
      }
    }
  }
}

extension LinkRuntime {
  /// Rules numbered `0..<n` by the literal start of their path, one ``PrefixIndex`` per reading they compare
  /// against, with each listed rule's path conditions beside it: what turns a URL into the few rules worth trying.
  /// One app's rules (``RuleProgram``) or several apps' rules on one host (``Table``) are indexed alike.
  struct CandidateIndex: Sendable {
    /// A rule as an index lists it: its number, its path conditions and, for a path-only glob, where its program
    /// sits in its ``RuleProgram``'s arena; so a candidate is rejected, or a glob matched, from this one record.
    struct Listed: Sendable {
      var filter: PathFilter
      var rule: Int32
      /// The glob's program in the arena; a count of 0 when the rule is not a path-only glob.
      var globStart: Int32
      var globCount: UInt16
      /// The reading the rule compares against.
      var slot: UInt8
      /// ``pathConditionsOnly``, ``needsQuery`` and ``needsFragment``, as bits.
      var flags: UInt8

      /// The rule's cheap conditions are all on the path, so ``filter`` holds them all and its full filter need
      /// not be read: no whole-query or fragment characters are required.
      static let pathConditionsOnly: UInt8 = 1
      /// The rule matches only a URL with a query (its query pattern, or an item it requires, does not match an
      /// empty one): a URL without one rejects it here, before its compiled form is read.
      static let needsQuery: UInt8 = 2
      /// The same for the fragment.
      static let needsFragment: UInt8 = 4

      var pathConditionsOnly: Bool { flags & Self.pathConditionsOnly != 0 }
    }

    /// The prefix indexes, one after another (see ``PrefixIndex``). Word `s` (for `s` in `0..<4`) is the offset of
    /// the index of reading `s` (see ``Subject/slot(percentEncoded:caseSensitive:)``), or 0 when no rule reads it.
    let words: [UInt64]
    /// The indexes' rule lists, back to back.
    let listed: [Listed]
    /// Whether no rule is indexed: none can match.
    let isEmpty: Bool

    /// Indexes rule `k`, with conditions `filters[k]` and prepared path `paths[k]`, unless it can never match.
    init(filters: [RuleFilter], paths: [[Piece]?]) {
      var lists: [Int32] = []
      var words = [UInt64](repeating: 0, count: 4)
      var isEmpty = true
      for slot in 0..<4 {
        let members = filters.indices.filter { filters[$0].slot == slot && !filters[$0].never }
        guard !members.isEmpty else { continue }
        isEmpty = false
        words[slot] = UInt64(
          PrefixIndex.append(
            rules: members, paths: members.map { paths[$0] }, pairs: members.map { filters[$0].pathPairs },
            lists: &lists, to: &words))
      }
      self.words = words
      self.isEmpty = isEmpty
      listed = lists.map { rule in
        let filter = filters[Int(rule)]
        // A glob too long for the record, or placed too far, is matched the general way, from the rule's filter.
        let start = Int32(exactly: filter.arenaStart)
        let count = UInt16(exactly: filter.arenaCount)
        return Listed(
          filter: PathFilter(filter), rule: rule, globStart: start ?? 0, globCount: start == nil ? 0 : count ?? 0,
          slot: UInt8(filter.slot),
          flags: (filter.conditionsAreOnThePath ? Listed.pathConditionsOnly : 0)
            | (filter.needsQuery ? Listed.needsQuery : 0) | (filter.needsFragment ? Listed.needsFragment : 0))
      }
    }

    /// The shape of each reading's index, for the readings some rule compares against, in reading order.
    var shapes: [PrefixIndex.Shape] {
      (0..<4).filter { words[$0] != 0 }.map { PrefixIndex.shape(words, at: Int(words[$0])) }
    }

    /// The rule of a candidate that ``withCandidates(_:_:)`` gives.
    @inline(__always)
    static func rule(_ candidate: UInt64) -> Int { Int(candidate >> 32) }

    /// The candidate's position in ``listed``.
    @inline(__always)
    static func position(_ candidate: UInt64) -> Int { Int(candidate & 0xFFFF_FFFF) }

    /// Calls `body` with the rules that could match `subject`, ascending, as positions in ``listed`` (each in the
    /// low half of a word whose high half is the rule; see ``rule(_:)`` and ``position(_:)``): those whose path's
    /// literal start begins the URL's path (or that have none) and whose path conditions the path meets.
    @inline(__always)
    func withCandidates<Result>(
      _ subject: inout Subject,
      _ body: (UnsafeBufferPointer<UInt64>, UnsafeBufferPointer<Listed>, inout Subject) -> Result
    ) -> Result {
      // Each list is reported at most once per path, so the candidates fit in a buffer as long as all the lists:
      // on the stack when that is small, else in the subject's arena (a temporary allocation that large was taken
      // from the heap and given back for every URL on a host many apps share).
      let capacity = max(listed.count, 1)
      if capacity > 128 {
        let buffer = subject.arena.allocate(8 * capacity).bindMemory(to: UInt64.self, capacity: capacity)
        return candidates(UnsafeMutableBufferPointer(start: buffer, count: capacity), &subject, body)
      }
      return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: capacity) { candidates($0, &subject, body) }
    }

    /// ``withCandidates(_:_:)`` with `survivors`, room for as many candidates as ``listed`` holds.
    @inline(__always)
    private func candidates<Result>(
      _ survivors: UnsafeMutableBufferPointer<UInt64>, _ subject: inout Subject,
      _ body: (UnsafeBufferPointer<UInt64>, UnsafeBufferPointer<Listed>, inout Subject) -> Result
    ) -> Result {
      var count = 0
      // What a rule may need that this URL lacks.
      let lacking =
        (subject.queryBytes?.isEmpty ?? true ? Listed.needsQuery : 0)
        | (subject.fragmentBytes?.isEmpty ?? true ? Listed.needsFragment : 0)
      listed.withUnsafeBufferPointer { listed in
        words.withUnsafeBufferPointer { words in
          for slot in 0..<4 {
            let offset = Int(words[slot])
            guard offset != 0 else { continue }
            let path = subject.path(slot)
            let masks = PathFilter(path)
            path.withScalars { scalars in
              PrefixIndex.candidates(words, at: offset, scalars, pathPairs: masks.pairs) { range in
                for position in range
                where listed[position].filter.admits(masks) && listed[position].flags & lacking == 0 {
                  survivors[count] = UInt64(UInt32(bitPattern: listed[position].rule)) << 32 | UInt64(position)
                  count += 1
                }
              }
            }
          }
        }
      }
      // Usually a handful survive, mostly in order already, so an insertion sort is the cheapest; tried in rule
      // order, the first match decides.
      if count > 32 {
        var sorted = UnsafeMutableBufferPointer(rebasing: survivors[0..<count])
        sorted.sort()
      } else if count > 1 {
        for i in 1..<count {
          let rule = survivors[i]
          var j = i
          while j > 0 && survivors[j - 1] > rule {
            survivors[j] = survivors[j - 1]
            j -= 1
          }
          survivors[j] = rule
        }
      }
      return listed.withUnsafeBufferPointer { listed in
        body(UnsafeBufferPointer(rebasing: survivors[0..<count]), listed, &subject)
      }
    }
  }
}
