extension LinkRuntime {
  /// One reading's rules by the literal start of their path pattern, so a URL is tried only against rules that
  /// could match it: a rule whose path starts `/shop/` is a candidate only for paths that start `/shop/`.
  ///
  /// Every path pattern is anchored at the start of the (normalized) path, so its literal start is a necessary
  /// condition. A multi-valued variable at the start (`/$(lang)/help/*`) contributes each of its values while the
  /// number of starts stays small. Rules with no literal start (a leading `*` or `?`, no path key) are listed by
  /// one of the character pairs their path must hold (a ``PairFilter`` bit), so a URL visits only the lists of the
  /// pairs its path holds; a rule that requires no pair is tried for every URL. Lookup is one pass over the path's
  /// first scalars with an incremental hash, probing an open-addressing table only at the lengths some start has.
  ///
  /// A class, so that reaching it per URL costs at most one reference count, not one per array.
  final class PrefixIndex: Sendable {
    /// Starts are cut to this many scalars: a shorter start is still a necessary condition.
    static let maximumLength = 48
    /// A rule with more starts than this is indexed by the part before the variable that multiplies them.
    static let maximumStartsPerRule = 256

    struct Entry: Sendable {
      var hash: UInt64
      /// The start, in ``text``.
      var textStart: Int32
      var textCount: Int32
      /// Its rules, ascending, in the shared lists.
      var listStart: Int32
      var listCount: Int32
    }

    /// Rules with no literal start that require no character pair, tried for every URL, ascending: a range of the
    /// shared lists.
    let always: Range<Int>
    /// The other rules with no literal start, by one ``PairFilter`` bit their path requires: bucket `b` is
    /// `pairBounds[b]..<pairBounds[b + 1]` of the shared lists, ascending. A rule is in one bucket only.
    let pairBounds: [Int32]
    /// Bit `b` is set when bucket `b` is not empty.
    let pairBits: UInt64
    let entries: [Entry]
    /// Open addressing, a power of two long: the entry's hash's high 32 bits, then entry index + 1 in the low 32
    /// bits; 0 for empty.
    let table: [UInt64]
    let text: [UInt32]
    /// Bit `n` is set when some start is `n` scalars long.
    let lengths: UInt64

    /// Indexes `rules` (indices into the program's rules) by `paths`, their prepared path patterns; a rule with a
    /// nil path constrains no path and is always tried. `pairs` are the ``PairFilter`` bits each rule's path must
    /// hold. The rule lists are appended to `lists`, which every index of a program shares, so the matcher walks
    /// them as ranges of one array.
    init(rules: [Int], paths: [[Piece]?], pairs: [UInt64], lists: inout [Int32]) {
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
      var entries: [Entry] = []
      var text: [UInt32] = []
      self.always = lists.count..<(lists.count + always.count)
      lists += always
      var pairBounds = [Int32(lists.count)]
      var pairBits: UInt64 = 0
      for (bit, bucket) in buckets.enumerated() {
        if !bucket.isEmpty { pairBits |= 1 << UInt64(bit) }
        lists += bucket
        pairBounds.append(Int32(lists.count))
      }
      self.pairBounds = pairBounds
      self.pairBits = pairBits
      var lengths: UInt64 = 0
      for (start, list) in byStart.sorted(by: { $0.value[0] < $1.value[0] }) {
        entries.append(
          Entry(
            hash: Self.hash(start[...]), textStart: Int32(text.count), textCount: Int32(start.count),
            listStart: Int32(lists.count), listCount: Int32(list.count)))
        text += start
        lists += list
        lengths |= 1 << UInt64(start.count)
      }
      var size = 8
      while size < entries.count * 2 { size *= 2 }
      var table = [UInt64](repeating: 0, count: size)
      for (i, entry) in entries.enumerated() {
        var slot = Int(truncatingIfNeeded: entry.hash) & (size - 1)
        while table[slot] != 0 { slot = (slot + 1) & (size - 1) }
        table[slot] = (entry.hash >> 32) << 32 | UInt64(i + 1)
      }
      self.entries = entries
      self.table = table
      self.text = text
      self.lengths = lengths
    }

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
          var values: [[UInt32]] = []
          for alternative in alternatives {
            var value: [UInt32] = []
            for part in alternative {
              guard case .literal(let literal) = part else { break scan }
              value += literal.unicodeScalars.map(\.value)
            }
            values.append(value)
          }
          guard !values.isEmpty, starts.count * values.count <= limit else { break scan }
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
    /// `path`.
    @inline(__always)
    func candidates(_ path: UnsafeBufferPointer<UInt32>, pathPairs: UInt64, _ found: (Range<Int>) -> Void) {
      if !always.isEmpty { found(always) }
      var bits = pathPairs & pairBits
      while bits != 0 {
        let bit = bits.trailingZeroBitCount
        found(Int(pairBounds[bit])..<Int(pairBounds[bit + 1]))
        bits &= bits - 1
      }
      guard !entries.isEmpty else { return }
      let mask = table.count - 1
      var h = Self.seed
      // No start is longer than the highest bit of `lengths`: past it, hashing finds nothing.
      let n = min(path.count, 63 - lengths.leadingZeroBitCount)
      var length = 0
      table.withUnsafeBufferPointer { table in
        while length < n {
          h = Self.step(h, path[length])
          length += 1
          guard lengths & (1 << UInt64(length)) != 0 else { continue }
          var slot = Int(truncatingIfNeeded: h) & mask
          // A slot holds the entry's number and its hash's high half, so a probe of another start rarely reads
          // the entry.
          let tag = h >> 32
          while table[slot] != 0 {
            if table[slot] >> 32 == tag {
              let entry = entries[Int(truncatingIfNeeded: table[slot] & 0xFFFF_FFFF) - 1]
              if entry.hash == h, Int(entry.textCount) == length,
                text[Int(entry.textStart)..<Int(entry.textStart) + length].elementsEqual(path[0..<length])
              {
                found(Int(entry.listStart)..<Int(entry.listStart + entry.listCount))
                break
              }
            }
            slot = (slot + 1) & mask
          }
        }
      }
    }
  }
}

extension LinkRuntime {
  /// Rules numbered `0..<n` by the literal start of their path, one ``PrefixIndex`` per reading they compare
  /// against, with each listed rule's path conditions beside the lists: what turns a URL into the few rules worth
  /// trying. One app's rules (``RuleProgram``) or several apps' rules on one host (``Table``) are indexed alike.
  struct CandidateIndex: Sendable {
    /// Per reading (see ``Subject/slot(percentEncoded:caseSensitive:)``), the rules by the start of their path.
    let indexes: [(slot: Int, index: PrefixIndex)]
    /// The indexes' rule lists, back to back.
    let lists: [Int32]
    /// The path part of each listed rule's filter, beside ``lists``, so rejecting a candidate reads memory in order.
    let listFilters: [PathFilter]

    /// Indexes rule `k`, with conditions `filters[k]` and prepared path `paths[k]`, unless it can never match.
    init(filters: [RuleFilter], paths: [[Piece]?]) {
      var lists: [Int32] = []
      indexes = (0..<4).compactMap { slot in
        let members = filters.indices.filter { filters[$0].slot == slot && !filters[$0].never }
        guard !members.isEmpty else { return nil }
        return (
          slot,
          PrefixIndex(
            rules: members, paths: members.map { paths[$0] }, pairs: members.map { filters[$0].pathPairs },
            lists: &lists)
        )
      }
      self.lists = lists
      listFilters = lists.map { PathFilter(filters[Int($0)]) }
    }

    /// Whether no rule is indexed: none can match.
    var isEmpty: Bool { indexes.isEmpty }

    /// Calls `body` with the rules that could match `subject`, ascending: those whose path's literal start begins
    /// the URL's path (or that have none) and whose path conditions the path meets.
    @inline(__always)
    func withCandidates<Result>(
      _ subject: inout Subject, _ body: (UnsafeBufferPointer<Int32>, inout Subject) -> Result
    ) -> Result {
      // Each list is reported at most once per path, so the candidates fit in a buffer as long as all the lists;
      // and each rule's starts being prefix-free, no rule is a candidate twice.
      withUnsafeTemporaryAllocation(of: Int32.self, capacity: max(lists.count, 1)) { survivors in
        var count = 0
        lists.withUnsafeBufferPointer { lists in
          listFilters.withUnsafeBufferPointer { listFilters in
            // Through a buffer pointer, each index is borrowed in place. Indexes are classes: when they were
            // structs, the tuple holding one was still copied per URL, retaining and releasing its five arrays.
            indexes.withUnsafeBufferPointer { indexes in
              for k in indexes.indices {
                let path = subject.path(indexes[k].slot)
                let masks = PathFilter(path)
                path.withScalars { scalars in
                  indexes[k].index.candidates(scalars, pathPairs: masks.pairs) { range in
                    for position in range where listFilters[position].admits(masks) {
                      survivors[count] = lists[position]
                      count += 1
                    }
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
        return body(UnsafeBufferPointer(rebasing: survivors[0..<count]), &subject)
      }
    }
  }
}
