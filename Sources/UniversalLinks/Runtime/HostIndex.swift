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
        let key = Self.key(bytes, wildcard: wildcard)
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
      let key = Self.key(host, wildcard: wildcard)
      let mask = slots.count - 1
      return slots.withUnsafeBufferPointer { slots in
        var slot = Self.slot(key, shift: shift)
        while slots[slot].group != 0 {
          if slots[slot].key == key, Int(slots[slot].textCount) == host.count {
            let start = Int(slots[slot].textStart)
            let same = text.withUnsafeBufferPointer { text in
              var k = 0
              while k < host.count, Self.fold(host[k]) == text[start + k] { k += 1 }
              return k == host.count
            }
            if same { return Int(slots[slot].group) - 1 }
          }
          slot = (slot + 1) & mask
        }
        return nil
      }
    }

    @inline(__always)
    private static func fold(_ c: UInt8) -> UInt8 { c >= 0x41 && c <= 0x5A ? c | 0x20 : c }

    /// FNV-1a over the folded bytes, with the low bit telling a wildcard claim.
    @inline(__always)
    private static func key(_ bytes: some Sequence<UInt8>, wildcard: Bool) -> UInt64 {
      var h: UInt64 = 0xCBF2_9CE4_8422_2325
      for c in bytes { h = (h ^ UInt64(fold(c))) &* 0x0000_0100_0000_01B3 }
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
