extension LinkRuntime {
  /// One URL prepared for matching, with the four readings rules can ask for (encoded or decoded, case kept or
  /// folded) computed on first use and then shared by every pattern.
  ///
  /// Its texts live in its ``TextArena``: they are plain pointers, so passing one to a pattern costs no retain, and
  /// preparing a URL costs one allocation however many texts it needs. They are valid while the subject is.
  struct Subject {
    /// One reading of the URL's parts. Copies share the query's items.
    struct Reading {
      /// Normalized per rule 5: `//` collapsed, leading and trailing `/` added, empty is `/`.
      let path: SubjectText
      let query: SubjectText
      let fragment: SubjectText
      fileprivate let cell: UnsafeMutablePointer<ItemsCell>

      /// `name=value` pairs split on `&` and the first `=`; an item without `=` has the value `""`. Names are
      /// scalar values, compared as such. Built on first use: most rules never ask.
      var items: UnsafeBufferPointer<(name: SubjectText, value: SubjectText)> {
        if !cell.pointee.built { cell.pointee.build() }
        return UnsafeBufferPointer(start: cell.pointee.items, count: cell.pointee.count)
      }
    }

    /// A reading's query items and what splitting them needs, in the arena.
    fileprivate struct ItemsCell {
      var built = false
      var items: UnsafeMutablePointer<(name: SubjectText, value: SubjectText)>? = nil
      var count = 0
      let queryBytes: Range<Int>?
      let slot: Int
      let arena: Unmanaged<TextArena>

      mutating func build() {
        built = true
        guard let queryBytes, !queryBytes.isEmpty else { return }
        let arena = arena.takeUnretainedValue()
        let source = arena.source
        let query = Subject.substring(source, queryBytes).utf8
        let capacity = query.reduce(1) { $0 + ($1 == UInt8(ascii: "&") ? 1 : 0) }
        let out = arena.allocate(MemoryLayout<(SubjectText, SubjectText)>.stride * capacity)
          .bindMemory(to: (name: SubjectText, value: SubjectText).self, capacity: capacity)
        // Split by UTF-8 offsets, so each name and value is read in place like the other parts.
        var start = queryBytes.lowerBound
        var equals: Int? = nil
        var count = 0
        let slot = slot
        func add(upTo end: Int) {
          let value = equals.map { ($0 + 1)..<end } ?? end..<end
          (out + count).initialize(
            to: (
              Subject.text(source, start..<(equals ?? end), slot: slot, in: arena),
              value.isEmpty ? .empty : Subject.text(source, value, slot: slot, in: arena)
            ))
          count += 1
        }
        var offset = queryBytes.lowerBound
        for byte in query {
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
        items = out
        self.count = count
      }
    }

    /// Holds the texts, and the string the URL's parts are read from, in place: the URL itself when it was parsed
    /// here, else its parts back to back.
    let arena: TextArena
    /// Where the path, the query (without `?`) and the fragment (without `#`) are in the source's UTF-8; nil when
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
      arena = TextArena.make(source: source)
    }

    /// The URL `string`, whose plain parse gave `parts`; its parts are read where they are, never copied. Its texts
    /// go to `arena`, which must be empty and read from `string`, or to a new one.
    init(_ string: String, _ parts: UniversalLinkURL.PlainParts, arena: TextArena? = nil) {
      self.arena = arena ?? TextArena.make(source: string)
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
      let path = Self.text(arena.source, pathBytes, slot: slot, normalizingPath: true, in: arena)
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
      let source = arena.source
      let cell = arena.allocate(MemoryLayout<ItemsCell>.stride).bindMemory(to: ItemsCell.self, capacity: 1)
      cell.initialize(to: ItemsCell(queryBytes: queryBytes, slot: slot, arena: Unmanaged.passUnretained(arena)))
      let reading = Reading(
        path: path(slot),
        query: queryBytes.flatMap { $0.isEmpty ? nil : Self.text(source, $0, slot: slot, in: arena) } ?? .empty,
        fragment: fragmentBytes.flatMap { $0.isEmpty ? nil : Self.text(source, $0, slot: slot, in: arena) } ?? .empty,
        cell: cell)
      readings[slot] = reading
      return reading
    }

    /// An encoded URL part as the reading `slot` compares it: decoded for slots 1 and 3, lower-cased for 2 and 3.
    /// With `normalizingPath`, the result is also normalized as ``normalizePath(_:)`` does, in the same pass.
    static func text(
      _ source: String, _ bytes: Range<Int>, slot: Int, normalizingPath: Bool = false, in arena: TextArena
    ) -> SubjectText {
      // A native string's bytes are read where they are; any other string takes the string path.
      if let text = source.utf8.withContiguousStorageIfAvailable({
        asciiText(UnsafeBufferPointer(rebasing: $0[bytes]), slot: slot, normalizingPath: normalizingPath, in: arena)
      }) ?? nil {
        return text
      }
      return SubjectText.make(
        prepare(substring(source, bytes), slot: slot, normalizingPath: normalizingPath), in: arena)
    }

    /// The text of an encoded part from its bytes in place, when no escape is to be decoded and every byte is
    /// ASCII (encoded parts nearly always are); nil otherwise.
    private static func asciiText(
      _ bytes: UnsafeBufferPointer<UInt8>, slot: Int, normalizingPath: Bool, in arena: TextArena
    ) -> SubjectText? {
      if slot & 1 == 1 && bytes.contains(UInt8(ascii: "%")) { return nil }
      // One loop per combination of the two flags, each with them as constants.
      switch (slot & 2 == 2, normalizingPath) {
      case (false, false): return asciiText(bytes, fold: false, normalizingPath: false, in: arena)
      case (false, true): return asciiText(bytes, fold: false, normalizingPath: true, in: arena)
      case (true, false): return asciiText(bytes, fold: true, normalizingPath: false, in: arena)
      case (true, true): return asciiText(bytes, fold: true, normalizingPath: true, in: arena)
      }
    }

    /// One loop writes the text and describes it, its state in locals; a non-ASCII byte is found once at the end,
    /// from all the bytes or-ed together.
    @inline(__always)
    private static func asciiText(
      _ bytes: UnsafeBufferPointer<UInt8>, fold: Bool, normalizingPath: Bool, in arena: TextArena
    ) -> SubjectText? {
      let slash: UInt32 = 0x2F
      return SubjectText.makeASCII(capacity: bytes.count + 2, in: arena) { out in
        guard normalizingPath || !bytes.isEmpty else { return (0, ASCIIMask(), 0) }
        var low: UInt64 = 0
        var high: UInt64 = 0
        var pairs: UInt64 = 0
        var all: UInt8 = 0
        @inline(__always) func scalar(_ byte: UInt8) -> UInt32 {
          all |= byte
          let c = UInt32(byte)
          return fold && c &- 0x41 < 26 ? c | 0x20 : c
        }
        @inline(__always) func describe(_ c: UInt32) {
          // Branch-free: bit 6 of an ASCII scalar picks the word.
          let bit: UInt64 = 1 &<< UInt64(c & 63)
          let upper = UInt64(truncatingIfNeeded: c >> 6)
          low |= bit & (upper &- 1)
          high |= bit & (0 &- upper)
        }
        // The first scalar makes no pair.
        var previous = normalizingPath ? slash : scalar(bytes[0])
        describe(previous)
        out[0] = previous
        var count = 1
        for byte in normalizingPath ? bytes[...] : bytes[1...] {
          let c = scalar(byte)
          if normalizingPath && c == slash && previous == slash { continue }
          describe(c)
          pairs |= PairFilter.bit(previous, c)
          out[count] = c
          count += 1
          previous = c
        }
        if normalizingPath && previous != slash {
          pairs |= PairFilter.bit(previous, slash)
          low |= 1 << UInt64(slash)
          out[count] = slash
          count += 1
        }
        return all < 0x80 ? (count, ASCIIMask(low: low, high: high), pairs) : nil
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

  /// Memory for one URL's texts, given out in order and freed all at once, with the string they are read from.
  ///
  /// The first block is the arena's own tail, sized for a few readings of the URL, so a fresh arena is one
  /// allocation; more blocks are added when needed. Everything placed here is trivial (numbers and pointers), so
  /// nothing is deinitialized. Its state is in the header, read through a pointer: a class's stored properties are
  /// checked for exclusive access at run time.
  final class TextArena: ManagedBuffer<TextArena.State, UInt64> {
    struct State {
      /// The string the URL's parts are read from.
      var source: String
      /// Where allocation continues: the tail, or the last block added.
      var block: UnsafeMutableRawPointer?
      var used = 0
      var size = 0
      /// Whether ``block`` was added (the tail is not freed with the blocks).
      var added = false
      /// Blocks added and filled before ``block``.
      var full: [UnsafeMutableRawPointer] = []
    }

    /// An arena for the texts of `source`, or for texts made one by one when it is empty.
    static func make(source: String) -> TextArena {
      let words = (8 * source.utf8.count + 4 * MemoryLayout<SubjectTextHeader>.stride + 256) / 8
      let arena = unsafeDowncast(
        create(minimumCapacity: words) { _ in State(source: source) }, to: TextArena.self)
      arena.withUnsafeMutablePointers { state, tail in
        state.pointee.block = UnsafeMutableRawPointer(tail)
        state.pointee.size = 8 * words
      }
      return arena
    }

    deinit {
      withUnsafeMutablePointerToHeader { state in
        for block in state.pointee.full { block.deallocate() }
        if state.pointee.added { state.pointee.block?.deallocate() }
      }
    }

    /// The string the URL's parts are read from.
    var source: String { withUnsafeMutablePointerToHeader { $0.pointee.source } }

    /// Empties the arena for the texts of `source`, keeping its current block: what a ``Table/Scratch`` does
    /// between URLs, so that preparing one allocates nothing. A block past 1 MiB, left by a huge URL, is given back.
    func reset(source: String) {
      withUnsafeMutablePointers { state, tail in
        state.pointee.source = source
        state.pointee.used = 0
        if !state.pointee.full.isEmpty {
          for block in state.pointee.full { block.deallocate() }
          state.pointee.full.removeAll()
        }
        if state.pointee.added && state.pointee.size > 1 << 20 {
          state.pointee.block?.deallocate()
          state.pointee.block = UnsafeMutableRawPointer(tail)
          state.pointee.size = 8 * capacity
          state.pointee.added = false
        }
      }
    }

    /// `bytes` bytes, 8-aligned, valid as long as the arena is.
    @inline(__always)
    func allocate(_ bytes: Int) -> UnsafeMutableRawPointer {
      withUnsafeMutablePointerToHeader { state in
        let rounded = (bytes + 7) & ~7
        if state.pointee.used + rounded > state.pointee.size { Self.grow(state, rounded) }
        let start = state.pointee.block! + state.pointee.used
        state.pointee.used += rounded
        return start
      }
    }

    private static func grow(_ state: UnsafeMutablePointer<State>, _ bytes: Int) {
      if state.pointee.added, let block = state.pointee.block { state.pointee.full.append(block) }
      state.pointee.size = max(2 * state.pointee.size, bytes)
      state.pointee.block = .allocate(byteCount: state.pointee.size, alignment: 16)
      state.pointee.used = 0
      state.pointee.added = true
    }
  }

  /// What a ``SubjectText`` knows besides its scalars, which follow it in the same block.
  struct SubjectTextHeader {
    var count = 0
    var mask = ASCIIMask()
    /// Whether every scalar is ASCII, so ``mask`` describes them all.
    var ascii = true
    /// ``PairFilter`` bits of the text.
    var pairs: UInt64 = 0
    var searches = 0
    var width = 0
    /// Dense column per ASCII character present (128 of them); 0 means absent. Nil until the index is built.
    var columns: UnsafeMutablePointer<UInt8>? = nil
    /// `next[i * width + column - 1]`: the first position ≥ i holding that character, or `count`.
    var next: UnsafeMutablePointer<Int32>? = nil
    /// The arena the text and its index are in; nil for the shared empty text, which is never indexed.
    var arena: Unmanaged<TextArena>?
  }

  /// A URL part ready for matching: Unicode scalar values plus the ASCII characters it contains.
  ///
  /// A pointer to a header followed by the scalars, in a ``TextArena``: copying one costs nothing, and it is valid
  /// while its arena is (for a URL's texts, while its ``Subject`` is). It carries a lazily built next-occurrence
  /// index, shared by every pattern tried on the same URL: once many patterns have searched it, finding a piece
  /// costs one lookup per candidate instead of a scan, which keeps thousands of star-heavy patterns cheap on one
  /// URL. Never shared between threads.
  struct SubjectText {
    let header: UnsafeMutablePointer<SubjectTextHeader>

    @inline(__always)
    private var base: UnsafeMutablePointer<UInt32> {
      UnsafeMutableRawPointer(header + 1).assumingMemoryBound(to: UInt32.self)
    }

    /// Room for `capacity` scalars in `arena`, with a header that describes no scalar yet.
    @inline(__always)
    private static func allocate(capacity: Int, in arena: TextArena) -> SubjectText {
      let raw = arena.allocate(MemoryLayout<SubjectTextHeader>.stride + 4 * capacity)
      let header = raw.bindMemory(to: SubjectTextHeader.self, capacity: 1)
      header.initialize(to: SubjectTextHeader(arena: Unmanaged.passUnretained(arena)))
      (raw + MemoryLayout<SubjectTextHeader>.stride).bindMemory(to: UInt32.self, capacity: capacity)
      return SubjectText(header: header)
    }

    /// An ASCII text of at most `capacity` scalars in `arena`, which `write` writes at the pointer it is given,
    /// returning their count, their ``ASCIIMask`` and their ``PairFilter`` bits; nil when `write` gives up (returns
    /// nil).
    @inline(__always)
    static func makeASCII(
      capacity: Int, in arena: TextArena,
      _ write: (UnsafeMutablePointer<UInt32>) -> (count: Int, mask: ASCIIMask, pairs: UInt64)?
    ) -> SubjectText? {
      let text = allocate(capacity: capacity, in: arena)
      guard let (count, mask, pairs) = write(text.base) else { return nil }
      text.header.pointee.count = count
      text.header.pointee.mask = mask
      text.header.pointee.pairs = pairs
      return text
    }

    /// The text of `scalars`, any Unicode, in `arena`: what ``Subject/text(_:_:slot:normalizingPath:in:)`` falls
    /// back to.
    static func make(_ scalars: [UInt32], in arena: TextArena) -> SubjectText {
      let text = allocate(capacity: scalars.count, in: arena)
      var mask = ASCIIMask()
      var ascii = true
      var pairs: UInt64 = 0
      var previous: UInt32 = 0xFFFF_FFFF
      for (k, c) in scalars.enumerated() {
        text.base[k] = c
        if c < 128 {
          mask.insert(c)
          if previous < 128 { pairs |= PairFilter.bit(previous, c) }
        } else {
          ascii = false
        }
        previous = c
      }
      text.header.pointee.count = scalars.count
      text.header.pointee.mask = mask
      text.header.pointee.ascii = ascii
      text.header.pointee.pairs = pairs
      return text
    }

    /// The text of `string`'s scalars, in `arena`.
    static func make(_ string: String, in arena: TextArena) -> SubjectText {
      make(string.unicodeScalars.map(\.value), in: arena)
    }

    /// The empty text, shared: nothing ever indexes it (see ``wantsIndex()``), so it is never written.
    nonisolated(unsafe) static let empty: SubjectText = {
      let header = UnsafeMutablePointer<SubjectTextHeader>.allocate(capacity: 1)
      header.initialize(to: SubjectTextHeader())
      return SubjectText(header: header)
    }()

    /// How many scalars the text holds.
    @inline(__always) var count: Int { header.pointee.count }
    @inline(__always) var mask: ASCIIMask { header.pointee.mask }
    /// Whether every scalar is ASCII, so ``mask`` describes them all.
    @inline(__always) var ascii: Bool { header.pointee.ascii }
    /// ``PairFilter`` bits of the text.
    @inline(__always) var pairs: UInt64 { header.pointee.pairs }

    /// Calls `body` with the scalars, in place.
    @inline(__always)
    func withScalars<Result>(_ body: (UnsafeBufferPointer<UInt32>) throws -> Result) rethrows -> Result {
      try body(UnsafeBufferPointer(start: base, count: header.pointee.count))
    }

    /// The scalars, copied: for explanations and tests, not for matching.
    var scalars: [UInt32] { withScalars(Array.init) }

    /// Whether the index is worth building: after a few searches on the same text.
    func wantsIndex() -> Bool {
      if header.pointee.count == 0 { return false }
      if header.pointee.next != nil { return true }
      header.pointee.searches += 1
      guard header.pointee.searches > 8, let arena = header.pointee.arena?.takeUnretainedValue() else { return false }
      buildIndex(in: arena)
      return true
    }

    private func buildIndex(in arena: TextArena) {
      let columns = arena.allocate(128).bindMemory(to: UInt8.self, capacity: 128)
      columns.initialize(repeating: 0, count: 128)
      let n = header.pointee.count
      let scalars = base
      var width = 0
      for i in 0..<n where scalars[i] < 128 && columns[Int(scalars[i])] == 0 {
        width += 1
        columns[Int(scalars[i])] = UInt8(width)
      }
      let size = (n + 1) * max(width, 1)
      let next = arena.allocate(4 * size).bindMemory(to: Int32.self, capacity: size)
      next.initialize(repeating: Int32(n), count: size)
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

    /// The first position ≥ `from` holding ASCII character `c`, or nil. Requires the index.
    @inline(__always)
    func nextIndex(of c: UInt32, from: Int) -> Int? {
      let count = header.pointee.count
      guard from < count, let columns = header.pointee.columns, let next = header.pointee.next else { return nil }
      let column = Int(columns[Int(c)])
      guard column > 0 else { return nil }
      let j = Int(next[from * header.pointee.width + column - 1])
      return j < count ? j : nil
    }

    /// The first position ≥ `from` holding any ASCII character of `set`, or nil. Requires the index.
    func nextIndex(ofAny set: ASCIIMask, from: Int) -> Int? {
      let count = header.pointee.count
      guard from < count, let columns = header.pointee.columns, let next = header.pointee.next else { return nil }
      var best = count
      let row = from * header.pointee.width - 1
      let mask = header.pointee.mask
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
      return best < count ? best : nil
    }
  }
}
