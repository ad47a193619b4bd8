extension LinkRuntime {
  /// A star-and-question-mark pattern (with single-character sets) as one flat `[UInt32]`.
  ///
  /// Flat so that a matcher can keep thousands of them side by side in one array: scanning them then reads memory
  /// in order instead of chasing a few objects per pattern, which is what dominates once a file has thousands of
  /// rules. Layout, with P pieces (P == 1: no star, exact length):
  /// `[P, probe + 1, unitCount, bound_0 … bound_P, anchor_0 + 1 … anchor_(P-1) + 1, units…, sets…]`.
  /// Bounds are offsets into the units; each set is four words of its ASCII mask.
  ///
  /// Matching: the first piece is anchored at the start, the last at the end, and each middle piece is placed at
  /// its leftmost occurrence after the previous one, which is optimal because pieces have fixed lengths. No
  /// backtracking, so the cost is linear in the subject for each piece.
  enum GlobProgram {
    static func make(units: [UInt32], bounds: [Int], anchors: [Int], probe: Int, sets: [ASCIIMask]) -> [UInt32] {
      let pieces = bounds.count - 1
      var program = [UInt32(pieces), UInt32(probe + 1), UInt32(units.count)]
      program += bounds.map { UInt32($0) }
      program += anchors.map { UInt32($0 + 1) }
      program += units
      for set in sets {
        program += [UInt32(truncatingIfNeeded: set.low), UInt32(truncatingIfNeeded: set.low >> 32)]
        program += [UInt32(truncatingIfNeeded: set.high), UInt32(truncatingIfNeeded: set.high >> 32)]
      }
      return program
    }

    /// Whether `subject` matches the program `u`; `others` holds non-ASCII set members (empty when none), borrowed:
    /// an array would be retained and released on every call.
    static func matches(
      _ u: UnsafeBufferPointer<UInt32>, _ subject: SubjectText,
      others: UnsafeBufferPointer<Set<UInt32>> = .init(start: nil, count: 0)
    ) -> Bool {
      subject.withScalars { s in
        let p = Program(u, others)
        if p.pieces == 1 { return s.count == p.unitCount && p.run(p.base, p.unitCount, s, 0) }
        let firstLength = p.bound(1)
        let lastStart = p.bound(p.pieces - 1)
        let lastLength = p.unitCount - lastStart
        guard s.count >= firstLength + lastLength, p.run(p.base, firstLength, s, 0),
          p.run(p.base + lastStart, lastLength, s, s.count - lastLength)
        else { return false }
        var position = firstLength
        let end = s.count - lastLength
        let indexed = p.pieces > 2 && subject.wantsIndex()
        let probe = Int(u[1]) - 1
        if indexed && probe >= 0 {
          let from = p.bound(probe)
          guard p.findIndexed(from, p.bound(probe + 1) - from, p.anchor(probe), subject, s, position, end) != nil
          else { return false }
        }
        var piece = 1
        while piece < p.pieces - 1 {
          let from = p.bound(piece)
          let length = p.bound(piece + 1) - from
          let anchor = p.anchor(piece)
          let hit =
            indexed && anchor >= 0
            ? p.findIndexed(from, length, anchor, subject, s, position, end) : p.find(from, length, s, position, end)
          guard let found = hit else { return false }
          position = found + length
          piece += 1
        }
        return true
      }
    }

    /// A view of one program.
    private struct Program {
      let u: UnsafeBufferPointer<UInt32>
      let others: UnsafeBufferPointer<Set<UInt32>>
      let pieces: Int
      let unitCount: Int
      let base: Int
      let setsBase: Int

      init(_ u: UnsafeBufferPointer<UInt32>, _ others: UnsafeBufferPointer<Set<UInt32>>) {
        self.u = u
        self.others = others
        pieces = Int(u[0])
        unitCount = Int(u[2])
        base = 3 + (pieces + 1) + pieces
        setsBase = base + unitCount
      }

      @inline(__always) func bound(_ i: Int) -> Int { Int(u[3 + i]) }
      @inline(__always) func anchor(_ i: Int) -> Int { Int(u[4 + pieces + i]) - 1 }

      func setMask(_ i: Int) -> ASCIIMask {
        let o = setsBase + 4 * i
        return ASCIIMask(low: UInt64(u[o]) | UInt64(u[o + 1]) << 32, high: UInt64(u[o + 2]) | UInt64(u[o + 3]) << 32)
      }

      @inline(__always)
      func unitMatches(_ unit: UInt32, _ c: UInt32) -> Bool {
        if unit == c { return true }
        if unit < CompiledPattern.setBase { return false }
        if unit == CompiledPattern.anyUnit { return true }
        let set = Int(unit & ~CompiledPattern.setBase)
        if c < 128 { return setMask(set).contains(c) }
        return set < others.count && others[set].contains(c)
      }

      /// Whether `length` units from unit offset `from` match the subject at `offset`.
      @inline(__always)
      func run(_ from: Int, _ length: Int, _ s: UnsafeBufferPointer<UInt32>, _ offset: Int) -> Bool {
        var i = 0
        while i < length {
          if !unitMatches(u[from + i], s[offset + i]) { return false }
          i += 1
        }
        return true
      }

      /// Leftmost position in `start..<end` where the piece (units `from..<from + length`, offsets relative to the
      /// units) fits, by scanning.
      func find(_ from: Int, _ length: Int, _ s: UnsafeBufferPointer<UInt32>, _ start: Int, _ end: Int) -> Int? {
        guard end - start >= length else { return nil }
        guard length > 0 else { return start }
        let first = base + from
        let head = u[first]
        var i = start
        while i <= end - length {
          if (head >= CompiledPattern.setBase || s[i] == head) && run(first, length, s, i) { return i }
          i += 1
        }
        return nil
      }

      /// Like ``find``, but jumps between occurrences of the piece's anchor unit using the subject's index.
      func findIndexed(
        _ from: Int, _ length: Int, _ anchor: Int, _ subject: SubjectText, _ s: UnsafeBufferPointer<UInt32>,
        _ start: Int, _ end: Int
      ) -> Int? {
        let lastStart = end - length
        guard lastStart >= start else { return nil }
        let first = base + from
        let c = u[first + anchor]
        if c < 128 {
          var candidate = subject.nextIndex(of: c, from: start + anchor)
          while let j = candidate, j - anchor <= lastStart {
            if run(first, length, s, j - anchor) { return j - anchor }
            candidate = subject.nextIndex(of: c, from: j + 1)
          }
          return nil
        }
        // A set anchor: non-ASCII members are not indexed, so scan when the set has any.
        let set = Int(c & ~CompiledPattern.setBase)
        if set < others.count && !others[set].isEmpty { return find(from, length, s, start, end) }
        let mask = setMask(set)
        var candidate = subject.nextIndex(ofAny: mask, from: start + anchor)
        while let j = candidate, j - anchor <= lastStart {
          if run(first, length, s, j - anchor) { return j - anchor }
          candidate = subject.nextIndex(ofAny: mask, from: j + 1)
        }
        return nil
      }
    }
  }
}
