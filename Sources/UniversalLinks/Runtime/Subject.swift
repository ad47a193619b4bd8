extension LinkRuntime {
  /// One URL prepared for matching, with the four readings rules can ask for (encoded or decoded, case kept or
  /// folded) computed on first use and then shared by every pattern.
  struct Subject {
    final class Reading {
      /// Normalized per rule 5: `//` collapsed, leading and trailing `/` added, empty is `/`.
      let path: SubjectText
      let query: SubjectText
      let fragment: SubjectText
      /// The encoded query, in ``Subject/source``, for ``items``.
      let source: String
      let queryBytes: Range<Int>?
      let slot: Int
      /// `name=value` pairs split on `&` and the first `=`; an item without `=` has the value `""`. Names are
      /// scalar values, compared as such. Built on first use: most rules never ask.
      lazy var items: [(name: SubjectText, value: SubjectText)] = {
        var items: [(name: SubjectText, value: SubjectText)] = []
        guard let queryBytes, !queryBytes.isEmpty else { return items }
        // Split by UTF-8 offsets, so each name and value is read in place like the other parts.
        var start = queryBytes.lowerBound
        var equals: Int? = nil
        func add(upTo end: Int) {
          let value = equals.map { ($0 + 1)..<end } ?? end..<end
          items.append(
            (
              Subject.text(source, start..<(equals ?? end), slot: slot),
              value.isEmpty ? .empty : Subject.text(source, value, slot: slot)
            ))
        }
        var offset = queryBytes.lowerBound
        for byte in Subject.substring(source, queryBytes).utf8 {
          if byte == UInt8(ascii: "&") {
            add(upTo: offset)
            start = offset + 1
            equals = nil
          } else if byte == UInt8(ascii: "="), equals == nil {
            equals = offset
          }
          offset += 1
        }
        add(upTo: queryBytes.upperBound)
        return items
      }()

      init(
        path: SubjectText, query: SubjectText, fragment: SubjectText, source: String, queryBytes: Range<Int>?, slot: Int
      ) {
        self.path = path
        self.query = query
        self.fragment = fragment
        self.source = source
        self.queryBytes = queryBytes
        self.slot = slot
      }
    }

    /// The string the URL's parts are read from, in place: the URL itself when it was parsed here, else its
    /// parts back to back.
    let source: String
    /// Where the path, the query (without `?`) and the fragment (without `#`) are in ``source``'s UTF-8; nil when
    /// the URL has no `?` or no `#`.
    let pathBytes: Range<Int>
    let queryBytes: Range<Int>?
    let fragmentBytes: Range<Int>?
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

    init(_ url: UniversalLinkURL) {
      var source = url.percentEncodedPath
      pathBytes = 0..<source.utf8.count
      func append(_ part: String?) -> Range<Int>? {
        guard let part else { return nil }
        let start = source.utf8.count
        source += part
        return start..<source.utf8.count
      }
      queryBytes = append(url.percentEncodedQuery)
      fragmentBytes = append(url.percentEncodedFragment)
      self.source = source
    }

    /// The URL `string`, whose plain parse gave `parts`; its parts are read where they are, never copied.
    init(_ string: String, _ parts: UniversalLinkURL.PlainParts) {
      source = string
      pathBytes = parts.path
      queryBytes = parts.query
      fragmentBytes = parts.fragment
    }

    /// The part of `source` at UTF-8 offsets `bytes`, for what is not a byte loop.
    static func substring(_ source: String, _ bytes: Range<Int>) -> Substring {
      let utf8 = source.utf8
      let start = utf8.index(utf8.startIndex, offsetBy: bytes.lowerBound)
      return Substring(utf8[start..<utf8.index(start, offsetBy: bytes.count)])
    }

    static func slot(percentEncoded: Bool, caseSensitive: Bool) -> Int {
      (percentEncoded ? 0 : 1) + (caseSensitive ? 0 : 2)
    }

    /// An encoded URL part as the reading `slot` compares it, through strings: what ``text(_:slot:normalizingPath:)``
    /// falls back to when escapes are decoded or a byte is not ASCII.
    static func prepare(_ encoded: Substring, slot: Int, normalizingPath: Bool) -> [UInt32] {
      let text = slot & 1 == 1 ? UniversalLinkURL.percentDecode(String(encoded)) : String(encoded)
      let scalars = (slot & 2 == 2 ? text.lowercased() : text).unicodeScalars.map(\.value)
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
      let path = Self.text(source, pathBytes, slot: slot, normalizingPath: true)
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
      let reading = Reading(
        path: path(slot),
        query: queryBytes.flatMap { $0.isEmpty ? nil : Self.text(source, $0, slot: slot) } ?? SubjectText.empty,
        fragment: fragmentBytes.flatMap { $0.isEmpty ? nil : Self.text(source, $0, slot: slot) } ?? SubjectText.empty,
        source: source, queryBytes: queryBytes, slot: slot)
      readings[slot] = reading
      return reading
    }

    /// An encoded URL part as the reading `slot` compares it: decoded for slots 1 and 3, lower-cased for 2 and 3.
    /// With `normalizingPath`, the result is also normalized as ``normalizePath(_:)`` does, in the same pass.
    static func text(_ source: String, _ bytes: Range<Int>, slot: Int, normalizingPath: Bool = false) -> SubjectText {
      // A native string's bytes are read where they are; any other string takes the string path.
      if let text = source.utf8.withContiguousStorageIfAvailable({
        asciiText(UnsafeBufferPointer(rebasing: $0[bytes]), slot: slot, normalizingPath: normalizingPath)
      }) ?? nil {
        return text
      }
      return SubjectText.make(prepare(substring(source, bytes), slot: slot, normalizingPath: normalizingPath))
    }

    /// The text of an encoded part from its bytes in place, when no escape is to be decoded and every byte is
    /// ASCII (encoded parts nearly always are): a byte loop writing the text's storage. Nil otherwise.
    private static func asciiText(_ bytes: UnsafeBufferPointer<UInt8>, slot: Int, normalizingPath: Bool) -> SubjectText?
    {
      if slot & 1 == 1 && bytes.contains(UInt8(ascii: "%")) { return nil }
      let fold = slot & 2 == 2
      return SubjectText.makeASCII(capacity: bytes.count + 2) { out in
        let slash: UInt32 = 0x2F
        if normalizingPath { out.append(slash) }
        for byte in bytes {
          guard byte < 0x80 else { return false }
          let c = UInt32(fold && byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte)
          if normalizingPath && c == slash && out.last == slash { continue }
          out.append(c)
        }
        if normalizingPath && out.last != slash { out.append(slash) }
        return true
      }
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

  /// What a ``SubjectText`` knows besides its scalars, which follow it in the same allocation.
  struct SubjectTextHeader {
    var count = 0
    var mask = ASCIIMask()
    /// Whether every scalar is ASCII, so ``mask`` describes them all.
    var ascii = true
    /// ``PairFilter`` bits of the text.
    var pairs: UInt64 = 0
    var searches = 0
    /// Dense column per ASCII character present; 0 means absent.
    var columns: [UInt8] = []
    var width = 0
    /// `next[i * width + column - 1]`: the first position ≥ i holding that character, or `count`.
    var next: [Int32] = []
  }

  /// A URL part ready for matching: Unicode scalar values plus the ASCII characters it contains.
  ///
  /// A class because it carries a lazily built next-occurrence index, shared by every pattern tried on the same
  /// URL: once many patterns have searched it, finding a piece costs one lookup per candidate instead of a scan,
  /// which keeps thousands of star-heavy patterns cheap on one URL. A `ManagedBuffer`, so the scalars sit in the
  /// object's own allocation: a URL part is prepared with one allocation, not two. Instances live for one verdict
  /// and are never shared between threads.
  final class SubjectText: ManagedBuffer<SubjectTextHeader, UInt32> {
    /// Writes an ASCII text and describes it as it goes: its mask and pair filter come with the writing, so the
    /// text is not read a second time.
    struct ASCIIWriter {
      fileprivate let out: UnsafeMutablePointer<UInt32>
      fileprivate var count = 0
      fileprivate var mask = ASCIIMask()
      fileprivate var pairs: UInt64 = 0

      /// The last scalar written; 0 when none is.
      var last: UInt32 { count > 0 ? out[count - 1] : 0 }

      /// Writes `c`, which is below 128.
      @inline(__always)
      mutating func append(_ c: UInt32) {
        mask.insert(c)
        if count > 0 { pairs |= PairFilter.bit(out[count - 1], c) }
        out[count] = c
        count += 1
      }
    }

    /// An ASCII text of at most `capacity` scalars, which `write` appends; nil when `write` gives up (returns false).
    static func makeASCII(capacity: Int, _ write: (inout ASCIIWriter) -> Bool) -> SubjectText? {
      let text = unsafeDowncast(create(minimumCapacity: capacity) { _ in SubjectTextHeader() }, to: SubjectText.self)
      let written = text.withUnsafeMutablePointers { header, scalars in
        var writer = ASCIIWriter(out: scalars)
        guard write(&writer) else { return false }
        header.pointee.count = writer.count
        header.pointee.mask = writer.mask
        header.pointee.pairs = writer.pairs
        return true
      }
      return written ? text : nil
    }

    /// The text of `scalars`, any Unicode: what ``Subject/text(_:_:slot:normalizingPath:)`` falls back to.
    static func make(_ scalars: [UInt32]) -> SubjectText {
      let text = unsafeDowncast(
        create(minimumCapacity: scalars.count) { _ in SubjectTextHeader() }, to: SubjectText.self)
      text.withUnsafeMutablePointers { header, out in
        var mask = ASCIIMask()
        var ascii = true
        var pairs: UInt64 = 0
        var previous: UInt32 = 0xFFFF_FFFF
        for (k, c) in scalars.enumerated() {
          out[k] = c
          if c < 128 {
            mask.insert(c)
            if previous < 128 { pairs |= PairFilter.bit(previous, c) }
          } else {
            ascii = false
          }
          previous = c
        }
        header.pointee.count = scalars.count
        header.pointee.mask = mask
        header.pointee.ascii = ascii
        header.pointee.pairs = pairs
      }
      return text
    }

    /// The text of `string`'s scalars.
    static func make(_ string: String) -> SubjectText { make(string.unicodeScalars.map(\.value)) }

    /// The empty text, shared: nothing ever indexes it (see ``wantsIndex()``), so it is never mutated.
    nonisolated(unsafe) static let empty = make([UInt32]())

    // The header is read through its pointer: `header`, a stored property of a class, would be checked for
    // exclusive access at run time on every read, which cost a tenth of the matcher's time.

    /// How many scalars the text holds.
    var count: Int { withUnsafeMutablePointerToHeader { $0.pointee.count } }
    var mask: ASCIIMask { withUnsafeMutablePointerToHeader { $0.pointee.mask } }
    /// Whether every scalar is ASCII, so ``mask`` describes them all.
    var ascii: Bool { withUnsafeMutablePointerToHeader { $0.pointee.ascii } }
    /// ``PairFilter`` bits of the text.
    var pairs: UInt64 { withUnsafeMutablePointerToHeader { $0.pointee.pairs } }

    /// Calls `body` with the scalars, in place.
    @inline(__always)
    func withScalars<Result>(_ body: (UnsafeBufferPointer<UInt32>) throws -> Result) rethrows -> Result {
      try withUnsafeMutablePointers { header, scalars in
        try body(UnsafeBufferPointer(start: scalars, count: header.pointee.count))
      }
    }

    /// The scalars, copied: for explanations and tests, not for matching.
    var scalars: [UInt32] { withScalars(Array.init) }

    /// Whether the index is worth building: after a few searches on the same text.
    func wantsIndex() -> Bool {
      withUnsafeMutablePointerToHeader { header in
        if header.pointee.count == 0 { return false }
        if !header.pointee.next.isEmpty { return true }
        header.pointee.searches += 1
        guard header.pointee.searches > 8 else { return false }
        buildIndex(header)
        return true
      }
    }

    private func buildIndex(_ header: UnsafeMutablePointer<SubjectTextHeader>) {
      withScalars { scalars in
        var columns = [UInt8](repeating: 0, count: 128)
        var width = 0
        for c in scalars where c < 128 && columns[Int(c)] == 0 {
          width += 1
          columns[Int(c)] = UInt8(width)
        }
        let n = scalars.count
        var next = [Int32](repeating: Int32(n), count: (n + 1) * max(width, 1))
        if width > 0 {
          var i = n - 1
          while i >= 0 {
            for k in 0..<width { next[i * width + k] = next[(i + 1) * width + k] }
            let c = scalars[i]
            if c < 128 { next[i * width + Int(columns[Int(c)]) - 1] = Int32(i) }
            i -= 1
          }
        }
        header.pointee.columns = columns
        header.pointee.width = width
        header.pointee.next = next
      }
    }

    /// The first position ≥ `from` holding ASCII character `c`, or nil. Requires the index.
    @inline(__always)
    func nextIndex(of c: UInt32, from: Int) -> Int? {
      withUnsafeMutablePointerToHeader { header in
        let count = header.pointee.count
        guard from < count else { return nil }
        let column = Int(header.pointee.columns[Int(c)])
        guard column > 0 else { return nil }
        let j = Int(header.pointee.next[from * header.pointee.width + column - 1])
        return j < count ? j : nil
      }
    }

    /// The first position ≥ `from` holding any ASCII character of `set`, or nil. Requires the index.
    func nextIndex(ofAny set: ASCIIMask, from: Int) -> Int? {
      withUnsafeMutablePointerToHeader { header in
        let count = header.pointee.count
        guard from < count else { return nil }
        var best = count
        let row = from * header.pointee.width - 1
        let mask = header.pointee.mask
        var word = set.low & mask.low
        while word != 0 {
          best = min(best, Int(header.pointee.next[row + Int(header.pointee.columns[word.trailingZeroBitCount])]))
          word &= word - 1
        }
        word = set.high & mask.high
        while word != 0 {
          best = min(best, Int(header.pointee.next[row + Int(header.pointee.columns[64 + word.trailingZeroBitCount])]))
          word &= word - 1
        }
        return best < count ? best : nil
      }
    }
  }
}
