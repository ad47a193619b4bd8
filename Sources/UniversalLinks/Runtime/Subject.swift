extension LinkRuntime {
  /// One URL prepared for matching, with the four readings rules can ask for (encoded or decoded, case kept or
  /// folded) computed on first use and then shared by every pattern.
  struct Subject {
    final class Reading {
      /// Normalized per rule 5: `//` collapsed, leading and trailing `/` added, empty is `/`.
      let path: SubjectText
      let query: SubjectText
      let fragment: SubjectText
      let encodedQuery: String
      let slot: Int
      /// `name=value` pairs split on `&` and the first `=`; an item without `=` has the value `""`. Names are
      /// scalar values, compared as such. Built on first use: most rules never ask.
      lazy var items: [(name: [UInt32], value: SubjectText)] = {
        var items: [(name: [UInt32], value: SubjectText)] = []
        guard !encodedQuery.isEmpty else { return items }
        for item in encodedQuery.split(separator: "&", omittingEmptySubsequences: false) {
          if let eq = item.firstIndex(of: "=") {
            let value = Subject.prepare(Substring(item[item.index(after: eq)...]), slot: slot)
            items.append(
              (Subject.prepare(Substring(item[..<eq]), slot: slot), value.isEmpty ? .empty : SubjectText(value)))
          } else {
            items.append((Subject.prepare(Substring(item), slot: slot), SubjectText.empty))
          }
        }
        return items
      }()

      init(path: SubjectText, query: SubjectText, fragment: SubjectText, encodedQuery: String, slot: Int) {
        self.path = path
        self.query = query
        self.fragment = fragment
        self.encodedQuery = encodedQuery
        self.slot = slot
      }
    }

    let url: UniversalLinkURL
    private var readings = PerSlot<Reading>()
    private var paths = PerSlot<SubjectText>()

    /// One optional value per reading slot, in a tuple: no array allocated per URL.
    struct PerSlot<Value> {
      private var values: (Value?, Value?, Value?, Value?) = (nil, nil, nil, nil)

      subscript(slot: Int) -> Value? {
        get {
          switch slot {
          case 0: values.0
          case 1: values.1
          case 2: values.2
          default: values.3
          }
        }
        set {
          switch slot {
          case 0: values.0 = newValue
          case 1: values.1 = newValue
          case 2: values.2 = newValue
          default: values.3 = newValue
          }
        }
      }
    }

    init(_ url: UniversalLinkURL) { self.url = url }

    static func slot(percentEncoded: Bool, caseSensitive: Bool) -> Int {
      (percentEncoded ? 0 : 1) + (caseSensitive ? 0 : 2)
    }

    /// An encoded URL part as the reading `slot` compares it: decoded for slots 1 and 3, lower-cased for 2 and 3.
    /// Encoded parts are ASCII, so unless escapes are decoded this is a byte loop.
    /// With `normalizingPath`, the result is also normalized as ``normalizePath(_:)`` does, in the same pass.
    static func prepare(_ encoded: Substring, slot: Int, normalizingPath: Bool = false) -> [UInt32] {
      let decode = slot & 1 == 1
      let fold = slot & 2 == 2
      if !decode || !encoded.utf8.contains(UInt8(ascii: "%")) {
        var out: [UInt32] = []
        out.reserveCapacity(encoded.utf8.count + 2)
        let slash: UInt32 = 0x2F
        if normalizingPath { out.append(slash) }
        var ascii = true
        for byte in encoded.utf8 {
          if byte >= 0x80 { ascii = false }
          let c = UInt32(fold && byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte)
          if normalizingPath && c == slash && out.last == slash { continue }
          out.append(c)
        }
        if normalizingPath && out.last != slash { out.append(slash) }
        if ascii { return out }
      }
      let text = decode ? UniversalLinkURL.percentDecode(String(encoded)) : String(encoded)
      let scalars = (fold ? text.lowercased() : text).unicodeScalars.map(\.value)
      return normalizingPath ? normalizePath(scalars) : scalars
    }

    /// The normalized path alone, as `slot` reads it: what the prefix index and the path filters need, so the
    /// rest of a reading is built only for URLs that some rule's path could match.
    mutating func path(_ slot: Int) -> SubjectText {
      if let cached = paths[slot] { return cached }
      if slot != 0 {
        // Most paths hold no escape and no capital: then every reading is the encoded one, built once.
        let encoded = path(0)
        if Self.readsAsEncoded(encoded, slot: slot) {
          paths[slot] = encoded
          return encoded
        }
      }
      let path = SubjectText(Self.prepare(Substring(url.percentEncodedPath), slot: slot, normalizingPath: true))
      paths[slot] = path
      return path
    }

    /// Whether `text`, as encoded, reads the same in `slot`: decoding changes only a `%`, and folding only a
    /// capital or a non-ASCII character.
    static func readsAsEncoded(_ text: SubjectText, slot: Int) -> Bool {
      let percent: UInt64 = 1 << 37
      let capitals: UInt64 = 0x07FF_FFFE  // A-Z, bits 65-90 of the high word
      return (slot & 1 == 0 || text.mask.low & percent == 0)
        && (slot & 2 == 0 || (text.ascii && text.mask.high & capitals == 0))
    }

    mutating func reading(_ slot: Int) -> Reading {
      if let cached = readings[slot] { return cached }
      if slot != 0 {
        let encoded = reading(0)
        if Self.readsAsEncoded(encoded.path, slot: slot), Self.readsAsEncoded(encoded.query, slot: slot),
          Self.readsAsEncoded(encoded.fragment, slot: slot)
        {
          // Its items, split from the same text, read the same too.
          readings[slot] = encoded
          return encoded
        }
      }
      let query = url.percentEncodedQuery ?? ""
      let reading = Reading(
        path: path(slot),
        query: query.isEmpty ? SubjectText.empty : SubjectText(Self.prepare(Substring(query), slot: slot)),
        fragment: url.percentEncodedFragment.flatMap {
          $0.isEmpty ? nil : SubjectText(Self.prepare(Substring($0), slot: slot))
        }
          ?? SubjectText.empty,
        encodedQuery: query, slot: slot)
      readings[slot] = reading
      return reading
    }

    static func normalizePath(_ path: [UInt32]) -> [UInt32] {
      let slash: UInt32 = 0x2F
      var out: [UInt32] = [slash]
      out.reserveCapacity(path.count + 2)
      for c in path where !(c == slash && out.last == slash) {
        out.append(c)
      }
      if out.last != slash { out.append(slash) }
      return out
    }
  }

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
    /// Whether every scalar is ASCII, so ``mask`` describes them all.
    let ascii: Bool
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
      // The mask and the pair filter in one pass.
      var mask = ASCIIMask()
      var ascii = true
      var pairs: UInt64 = 0
      var previous: UInt32 = 0xFFFF_FFFF
      scalars.withUnsafeBufferPointer { scalars in
        for c in scalars {
          if c < 128 {
            mask.insert(c)
            if previous < 128 { pairs |= PairFilter.bit(previous, c) }
          } else {
            ascii = false
          }
          previous = c
        }
      }
      self.mask = mask
      self.ascii = ascii
      self.pairs = pairs
    }

    convenience init(_ string: String) { self.init(string.unicodeScalars.map(\.value)) }

    /// The empty text, shared: nothing ever indexes it (see ``wantsIndex()``), so it is never mutated.
    nonisolated(unsafe) static let empty = SubjectText([UInt32]())

    /// Whether the index is worth building: after a few searches on the same text.
    func wantsIndex() -> Bool {
      if scalars.isEmpty { return false }
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
}
