/// Measures how deep a binary plist nests, and how large it grows once read, without recursion and without
/// building it.
///
/// libplist parses `bplist00` recursively, so a few megabytes of nested one-element arrays overflow its
/// stack before we ever see the tree. This walk runs first: an iterative depth-first search over the
/// object table that stops as soon as the path from the top object is deeper than the limit. Each
/// object is expanded once, so the work is linear in the number of references.
///
/// libplist and ``PlistValue`` copy an object for each reference to it, so a file of a kilobyte whose arrays each
/// hold the one below twice reads as millions of values (22 levels took 1.5 GB and 9 s). The walk adds up what each
/// object expands to, references counted as often as they occur, and stops past a limit.
enum BinaryPlistDepth {
  /// What the walk found.
  enum Verdict: Equatable {
    case withinLimit
    case tooDeep
    /// Not a structurally valid binary plist; libplist will reject it with its own error.
    case malformed
    /// A string object holds U+0000, on which libplist's accessors assert and abort.
    case nulCharacter
    /// Read, it would take more than the expansion limit: objects referred to many times.
    case expandsTooLarge
  }

  /// What one object costs once read, besides its bytes: a node of libplist's and a ``PlistValue``.
  static let objectCost = 64

  /// `bytes` checked: nesting at most `limit` levels, and expanding (each object as often as it is referred to,
  /// ``objectCost`` plus its bytes each time) to at most `expansionLimit` bytes.
  static func check(_ bytes: [UInt8], limit: Int, expansionLimit: Int = PropertyList.maximumExpansion) -> Verdict {
    let n = bytes.count
    guard n >= 8 + 32 else { return .malformed }
    let t = n - 32
    let offsetSize = Int(bytes[t + 6])
    let refSize = Int(bytes[t + 7])
    guard (1...8).contains(offsetSize), (1...8).contains(refSize),
      let objectCount = uint(bytes, t + 8, 8), let top = uint(bytes, t + 16, 8),
      let tableOffset = uint(bytes, t + 24, 8),
      objectCount > 0, objectCount <= UInt64(n), top < objectCount, tableOffset < UInt64(t),
      objectCount * UInt64(offsetSize) <= UInt64(t) - tableOffset
    else { return .malformed }
    let count = Int(objectCount)

    func offset(of object: Int) -> Int? {
      guard let o = uint(bytes, Int(tableOffset) + object * offsetSize, offsetSize), o < UInt64(tableOffset) else {
        return nil
      }
      return Int(o)
    }
    /// An object's kind (the marker's high nibble), its length in elements, and where its elements start; a length
    /// of 15 means an integer object follows with the real length.
    func header(of object: Int) -> (kind: UInt8, length: Int, cursor: Int)? {
      guard let start = offset(of: object) else { return nil }
      let marker = bytes[start]
      var length = Int(marker & 0x0F)
      var cursor = start + 1
      if length == 0x0F {
        guard cursor < n, bytes[cursor] >> 4 == 0x1 else { return nil }
        let width = 1 << Int(bytes[cursor] & 0x0F)
        guard width <= 8, let value = uint(bytes, cursor + 1, width), value <= UInt64(n) else { return nil }
        length = Int(value)
        cursor += 1 + width
      }
      return (marker >> 4, length, cursor)
    }
    /// The object references held by a container, or [] for scalars.
    func children(of object: Int) -> [Int]? {
      guard let start = offset(of: object) else { return nil }
      let kind = bytes[start] >> 4
      guard kind == 0xA || kind == 0xC || kind == 0xD else { return [] }
      guard let (_, length, cursor) = header(of: object) else { return nil }
      let refs = kind == 0xD ? length * 2 : length
      guard refs <= (n - cursor) / refSize else { return nil }
      var out: [Int] = []
      out.reserveCapacity(refs)
      for i in 0..<refs {
        guard let r = uint(bytes, cursor + i * refSize, refSize), r < objectCount else { return nil }
        out.append(Int(r))
      }
      return out
    }

    // ASCII (0x5) and UTF-16 (0x6) strings: libplist aborts on a NUL inside one, keys included.
    for object in 0..<count {
      guard let start = offset(of: object) else { return .malformed }
      let kind = bytes[start] >> 4
      guard kind == 0x5 || kind == 0x6 else { continue }
      guard let (_, length, cursor) = header(of: object) else { return .malformed }
      let unit = kind == 0x6 ? 2 : 1
      guard length <= (n - cursor) / unit else { return .malformed }
      if unit == 1 {
        if bytes[cursor..<cursor + length].contains(0) { return .nulCharacter }
      } else {
        for i in 0..<length where bytes[cursor + 2 * i] == 0 && bytes[cursor + 2 * i + 1] == 0 { return .nulCharacter }
      }
    }

    /// An object's own cost once read: strings and data their bytes too.
    func cost(of object: Int) -> Int {
      guard let (kind, length, _) = header(of: object) else { return Self.objectCost }
      switch kind {
      case 0x4, 0x5, 0x7: return Self.objectCost + length
      case 0x6: return Self.objectCost + 2 * length
      default: return Self.objectCost
      }
    }
    // 0 = unseen, 1 = on the current path, 2 = fully explored.
    var state = [UInt8](repeating: 0, count: count)
    // Once explored, what each object expands to, with everything it refers to (at most expansionLimit + 1).
    var expanded = [Int](repeating: 0, count: count)
    var stack: [(object: Int, children: [Int], next: Int)] = []
    guard let rootChildren = children(of: Int(top)) else { return .malformed }
    stack.append((Int(top), rootChildren, 0))
    state[Int(top)] = 1
    while let last = stack.last {
      if last.next == last.children.count {
        state[last.object] = 2
        var total = cost(of: last.object)
        for child in last.children {
          total += expanded[child]
          guard total <= expansionLimit else { return .expandsTooLarge }
        }
        expanded[last.object] = total
        stack.removeLast()
        continue
      }
      let child = last.children[last.next]
      stack[stack.count - 1].next += 1
      switch state[child] {
      case 1: return .malformed  // a reference cycle
      case 2: continue
      default:
        guard stack.count < limit else { return .tooDeep }
        guard let grandchildren = children(of: child) else { return .malformed }
        state[child] = 1
        stack.append((child, grandchildren, 0))
      }
    }
    return .withinLimit
  }

  private static func uint(_ bytes: [UInt8], _ at: Int, _ width: Int) -> UInt64? {
    guard at >= 0, width <= 8, at <= bytes.count - width else { return nil }
    var v: UInt64 = 0
    for i in 0..<width { v = v << 8 | UInt64(bytes[at + i]) }
    return v
  }
}
