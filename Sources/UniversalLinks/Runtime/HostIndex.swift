extension LinkRuntime {
  /// A ``Table``'s hosts, exact and wildcard, found from a URL's host bytes as they are, ASCII letters folded to
  /// lower case on the way: the number of the host's group, or nil.
  ///
  /// A dictionary keyed by `String` needed a string of each URL's host (its own allocation past 15 bytes), a
  /// SipHash of it, and a comparison with a key in yet another allocation; with a thousand apps' hosts used at
  /// random, each was a cache miss. Here the hosts' bytes sit back to back in one array and a slot holds a host's
  /// FNV-1a hash, where its bytes are and its group. Only hosts made of ASCII bytes are indexed: a host with other
  /// bytes can equal only such a host, and the table looks those up by string, as before.
  struct HostIndex: Sendable {
    private struct Slot {
      /// The host's hash, its low bit set for a wildcard claim.
      var key: UInt64
      var textStart: UInt32
      var textCount: UInt32
      /// The group's number plus one; 0 for an empty slot.
      var group: UInt32
    }

    private let slots: [Slot]
    private let text: [UInt8]
    private let shift: Int

    /// Indexes `exact` hosts and `wildcard` claims (without `*.`), each with its group's number; hosts that are not
    /// ASCII are left out.
    init(exact: [(host: String, group: Int)], wildcard: [(host: String, group: Int)]) {
      let entries =
        exact.map { (Array($0.host.utf8), false, $0.group) } + wildcard.map { (Array($0.host.utf8), true, $0.group) }
      let kept = entries.filter { $0.0.allSatisfy { $0 < 0x80 } && $0.0.count <= Int(UInt32.max) }
      var count = 2
      while count < kept.count * 2 { count *= 2 }
      shift = 64 - count.trailingZeroBitCount
      var slots = [Slot](repeating: Slot(key: 0, textStart: 0, textCount: 0, group: 0), count: count)
      var text: [UInt8] = []
      for (bytes, wildcard, group) in kept {
        // Kept hosts are ASCII, so each has a key.
        guard let key = bytes.withUnsafeBytes({ Self.key($0, wildcard: wildcard) }) else { continue }
        var slot = Self.slot(key, shift: shift)
        while slots[slot].group != 0 { slot = (slot + 1) & (count - 1) }
        slots[slot] = Slot(
          key: key, textStart: UInt32(text.count), textCount: UInt32(bytes.count), group: UInt32(group + 1))
        text += bytes
      }
      self.slots = slots
      self.text = text
    }

    /// The group governing `host` (ASCII bytes, any case): the exact host's, else that of the longest wildcard
    /// claim over it; `*.example.com` covers `a.example.com`, not `example.com` itself.
    func group(_ host: UnsafeBufferPointer<UInt8>) -> Int? {
      if let group = find(host, wildcard: false) { return group }
      for k in host.indices where host[k] == 0x2E {
        if let group = find(UnsafeBufferPointer(rebasing: host[(k + 1)...]), wildcard: true) { return group }
      }
      return nil
    }

    private func find(_ host: UnsafeBufferPointer<UInt8>, wildcard: Bool) -> Int? {
      // A host with a byte that is not ASCII equals no host indexed.
      guard let key = Self.key(UnsafeRawBufferPointer(host), wildcard: wildcard) else { return nil }
      let mask = slots.count - 1
      return slots.withUnsafeBufferPointer { slots in
        var slot = Self.slot(key, shift: shift)
        while slots[slot].group != 0 {
          if slots[slot].key == key, Int(slots[slot].textCount) == host.count {
            let start = Int(slots[slot].textStart)
            let same = text.withUnsafeBytes { text in
              let stored = UnsafeRawBufferPointer(rebasing: text[start..<(start + host.count)])
              var offset = 0
              while offset < host.count, Self.fold(Self.word(host, at: offset)) == Self.word(stored, at: offset) {
                offset += 8
              }
              return offset >= host.count
            }
            if same { return Int(slots[slot].group) - 1 }
          }
          slot = (slot + 1) & mask
        }
        return nil
      }
    }

    /// Eight bytes of `bytes` from `offset` as one word (the first byte lowest), the last few padded with zeros:
    /// hosts are hashed and compared a word at a time, as a byte at a time was a twelfth of the scan's
    /// instructions.
    @inline(__always)
    private static func word(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt64 {
      let rest = bytes.count - offset
      if rest >= 8 { return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
      // The last eight bytes, shifted so that those before `offset` drop out.
      if bytes.count >= 8 {
        return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self))
          >> UInt64(8 * (8 - rest))
      }
      var word: UInt64 = 0
      for k in 0..<rest { word |= UInt64(bytes[offset + k]) << UInt64(8 * k) }
      return word
    }

    @inline(__always)
    private static func word(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> UInt64 {
      word(UnsafeRawBufferPointer(bytes), at: offset)
    }

    /// `word` with its ASCII capitals in lower case, every byte at once; each byte must be below 0x80. A byte
    /// plus 0x3F reaches 0x80 from `A` on, plus 0x25 from past `Z`: the two differ in bit 7 for capitals only,
    /// and that bit moved to bit 5 is what lower-cases one.
    @inline(__always)
    private static func fold(_ word: UInt64) -> UInt64 {
      let capitals = ((word &+ 0x3F3F_3F3F_3F3F_3F3F) ^ (word &+ 0x2525_2525_2525_2525)) & 0x8080_8080_8080_8080
      return word | capitals >> 2
    }

    /// FNV-1a over the folded words, with the low bit telling a wildcard claim; nil when a byte is not ASCII.
    @inline(__always)
    private static func key(_ bytes: UnsafeRawBufferPointer, wildcard: Bool) -> UInt64? {
      var h: UInt64 = 0xCBF2_9CE4_8422_2325
      var seen: UInt64 = 0
      var offset = 0
      while offset < bytes.count {
        let word = word(bytes, at: offset)
        seen |= word
        h = (h ^ fold(word)) &* 0x0000_0100_0000_01B3
        offset += 8
      }
      guard seen & 0x8080_8080_8080_8080 == 0 else { return nil }
      return h & ~1 | (wildcard ? 1 : 0)
    }

    /// A key's home slot: its high bits after a Fibonacci multiply, since FNV's low bits mix poorly and hosts share
    /// long suffixes; one lookup per URL affords it.
    @inline(__always)
    private static func slot(_ key: UInt64, shift: Int) -> Int {
      Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> UInt64(shift))
    }
  }
}
