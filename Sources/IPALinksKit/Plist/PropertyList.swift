internal import CPlist
import Foundation

/// Why a property list could not be read. Each case names the file it came from.
public enum PlistError: Error, CustomStringConvertible, Equatable, Sendable {
  /// libplist could not parse the bytes as XML or binary plist.
  case malformed(file: String)
  /// Nests past ``PropertyList/maximumDepth``; refused before libplist recurses into it.
  case tooDeep(file: String, limit: Int)
  /// Bigger than ``PropertyList/maximumSize``; refused without parsing.
  case tooLarge(file: String, size: Int, limit: Int)
  /// Parsed, but the top level is not the dictionary an Info.plist, entitlements or profile must be.
  case notADictionary(file: String)
  /// A string holds U+0000: no real plist does, and libplist aborts the process on such a string.
  case nulCharacter(file: String)
  /// A binary plist whose objects are referred to so many times that it would expand past
  /// ``PropertyList/maximumExpansion`` bytes once read; refused before libplist reads it.
  case expandsTooLarge(file: String, limit: Int)

  /// One line naming the file and the problem, as printed in diagnostics.
  public var description: String {
    switch self {
    case .malformed(let file): "\(file): not a valid XML or binary property list"
    case .tooDeep(let file, let limit): "\(file): property list nests deeper than \(limit) levels"
    case .tooLarge(let file, let size, let limit):
      "\(file): property list is \(size) bytes, over the \(limit)-byte limit"
    case .notADictionary(let file): "\(file): property list top level is not a dictionary"
    case .nulCharacter(let file): "\(file): property list has a NUL character inside a string; refused"
    case .expandsTooLarge(let file, let limit):
      "\(file): property list refers to its values so often that it would take over \(limit >> 20) MiB once read; refused"
    }
  }
}

/// Decodes XML and binary property lists with libplist into ``PlistValue``.
public enum PropertyList {
  /// Deeper nesting than any real Info.plist or entitlements file; bounds recursion in libplist and here.
  public static let maximumDepth = 64
  /// Real plists in an app are kilobytes; anything past this is refused before parsing.
  public static let maximumSize = 8 << 20
  /// What a binary plist may take once read, its shared values copied for each reference: four times the largest
  /// file, where a real one, whose writer shares only equal strings, takes a small multiple of its size.
  public static let maximumExpansion = 32 << 20

  /// Parses `bytes` (XML or `bplist00`) named `file` in diagnostics.
  public static func decode(_ bytes: [UInt8], file: String) throws(PlistError) -> PlistValue {
    guard bytes.count <= maximumSize else { throw .tooLarge(file: file, size: bytes.count, limit: maximumSize) }
    let isBinary = bytes.starts(with: Array("bplist00".utf8))
    // libplist's readers recurse per level; refuse hostile nesting before they see the bytes.
    if isBinary {
      switch BinaryPlistDepth.check(bytes, limit: maximumDepth) {
      case .withinLimit: break
      case .tooDeep: throw .tooDeep(file: file, limit: maximumDepth)
      case .malformed: throw .malformed(file: file)
      case .nulCharacter: throw .nulCharacter(file: file)
      case .expandsTooLarge: throw .expandsTooLarge(file: file, limit: maximumExpansion)
      }
    } else {
      guard xmlNestingDepth(bytes) <= maximumDepth else { throw .tooDeep(file: file, limit: maximumDepth) }
      // libplist 2.2 asserts that a string has no NUL inside, and the assertion aborts: refuse those first.
      guard !xmlHasNulCharacter(bytes) else { throw .nulCharacter(file: file) }
    }
    guard let handle = PlistHandle(bytes: bytes, binary: isBinary) else { throw .malformed(file: file) }
    guard let value = handle.value(maxDepth: maximumDepth) else { throw .tooDeep(file: file, limit: maximumDepth) }
    return value
  }

  /// Like ``decode(_:file:)`` but requires a dictionary at the top, as Info.plist and entitlements are.
  public static func decodeDictionary(_ bytes: [UInt8], file: String) throws(PlistError) -> [String: PlistValue] {
    guard let dict = try decode(bytes, file: file).dictionaryValue else { throw .notADictionary(file: file) }
    return dict
  }

  /// Whether `bytes` look like a property list at all (used to sniff bare inputs).
  public static func looksLikePlist(_ bytes: some Collection<UInt8>) -> Bool {
    let head = Array(bytes.prefix(64))
    if head.starts(with: Array("bplist00".utf8)) { return true }
    let text = String(decoding: head, as: UTF8.self).drop { $0 == "\u{FEFF}" || $0.isWhitespace }
    return text.hasPrefix("<?xml") || text.hasPrefix("<!DOCTYPE plist") || text.hasPrefix("<plist")
  }

  /// Maximum depth of the elements libplist's XML reader recurses into (`<dict>`, `<array>`, and `<plist>`, which
  /// it reads again while it has no value), counted without building a tree. Tags are read as libplist 2.2 reads
  /// them: the name ends at a space, tab, CR, LF, `<` or `>` (`<array` then a line feed is an array: only `<array>`,
  /// `<array/` and `<array ` were counted, and 200,000 levels so written overflowed libplist's stack), the tag at
  /// the next `<` or `>`, and it is empty when `/` ends it. Comments and CDATA hold no tags. Only a closing
  /// `</dict`, `</array` or `</plist` ends a level here, where libplist ends one at any closing tag it meets between
  /// values: so this counts as deep as libplist goes, or deeper.
  static func xmlNestingDepth(_ bytes: [UInt8]) -> Int {
    let (lt, gt, slash) = (UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "/"))
    let nameEnds: Set<UInt8> = [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n"), lt, gt]
    let levels: Set<[UInt8]> = [Array("dict".utf8), Array("array".utf8), Array("plist".utf8)]
    var depth = 0
    var deepest = 0
    var i = 0
    let n = bytes.count
    /// The index after the first `end` at or after `from`, or the end.
    func after(_ end: String, from: Int) -> Int {
      let e = Array(end.utf8)
      var k = from
      while k + e.count <= n {
        if bytes[k] == e[0] && bytes[k..<k + e.count].elementsEqual(e) { return k + e.count }
        k += 1
      }
      return n
    }
    while i < n {
      guard bytes[i] == lt else {
        i += 1
        continue
      }
      if matches(bytes, at: i, "<!--") {
        i = after("-->", from: i + 4)
        continue
      }
      if matches(bytes, at: i, "<![CDATA[") {
        i = after("]]>", from: i + 9)
        continue
      }
      if i + 1 < n && (bytes[i + 1] == UInt8(ascii: "?") || bytes[i + 1] == UInt8(ascii: "!")) {
        i = after(">", from: i + 2)
        continue
      }
      var j = i + 1
      while j < n && !nameEnds.contains(bytes[j]) { j += 1 }
      var name = bytes[(i + 1)..<j]
      while j < n && bytes[j] != lt && bytes[j] != gt { j += 1 }
      // libplist stops at a tag without its `>`.
      guard j < n, bytes[j] == gt else { break }
      let empty = bytes[j - 1] == slash
      if name.last == slash { name = name.dropLast() }
      if name.first == slash {
        if levels.contains(Array(name.dropFirst())) { depth = max(0, depth - 1) }
      } else if !empty && levels.contains(Array(name)) {
        depth += 1
        deepest = max(deepest, depth)
      }
      i = j + 1
    }
    return deepest
  }

  /// A raw NUL byte, or a character reference to U+0000 (`&#0;`, `&#x00;`).
  static func xmlHasNulCharacter(_ bytes: [UInt8]) -> Bool {
    if bytes.contains(0) { return true }
    var i = 0
    let n = bytes.count
    while i + 3 < n {
      defer { i += 1 }
      guard bytes[i] == UInt8(ascii: "&"), bytes[i + 1] == UInt8(ascii: "#") else { continue }
      var j = i + 2
      let hex = bytes[j] | 0x20 == UInt8(ascii: "x")
      if hex { j += 1 }
      let digitsStart = j
      var allZero = true
      while j < n, bytes[j] != UInt8(ascii: ";"), j - digitsStart < 16 {
        if bytes[j] != UInt8(ascii: "0") { allZero = false }
        j += 1
      }
      if j < n, bytes[j] == UInt8(ascii: ";"), j > digitsStart, allZero { return true }
    }
    return false
  }

  private static func matches(_ bytes: [UInt8], at index: Int, _ word: String) -> Bool {
    let w = Array(word.utf8)
    return index + w.count <= bytes.count && bytes[index..<index + w.count].elementsEqual(w)
  }
}

/// Owns one libplist tree and frees it; nothing else holds a `plist_t`.
final class PlistHandle {
  private let root: plist_t

  init?(bytes: [UInt8], binary: Bool) {
    guard !bytes.isEmpty, bytes.count < Int(UInt32.max) else { return nil }
    var node: plist_t? = nil
    bytes.withUnsafeBufferPointer { buffer in
      buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { chars in
        if binary {
          plist_from_bin(chars, UInt32(buffer.count), &node)
        } else {
          plist_from_xml(chars, UInt32(buffer.count), &node)
        }
      }
    }
    guard let node else { return nil }
    root = node
  }

  deinit { plist_free(root) }

  /// Converts the tree; nil when it nests deeper than `maxDepth` (binary plists can nest via references).
  func value(maxDepth: Int) -> PlistValue? { Self.convert(root, depth: 0, maxDepth: maxDepth) }

  private static func takeString(_ pointer: UnsafeMutablePointer<CChar>?) -> String? {
    guard let pointer else { return nil }
    defer { free(pointer) }
    return String(validatingCString: pointer)
      ?? String(decoding: UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)), as: UTF8.self)
  }

  private static func convert(_ node: plist_t, depth: Int, maxDepth: Int) -> PlistValue? {
    guard depth <= maxDepth else { return nil }
    switch plist_get_node_type(node) {
    case PLIST_BOOLEAN:
      var b: UInt8 = 0
      plist_get_bool_val(node, &b)
      return .bool(b != 0)
    case PLIST_UINT:
      var u: UInt64 = 0
      plist_get_uint_val(node, &u)
      return .integer(Int64(bitPattern: u))
    case PLIST_REAL:
      var r: Double = 0
      plist_get_real_val(node, &r)
      return .real(r)
    case PLIST_STRING:
      // The pointer form, with its length: `plist_get_string_val` asserts (and aborts) on an inner NUL.
      var length: UInt64 = 0
      guard let p = plist_get_string_ptr(node, &length) else { return .string("") }
      return .string(String(decoding: UnsafeRawBufferPointer(start: p, count: Int(length)), as: UTF8.self))
    case PLIST_KEY:
      var p: UnsafeMutablePointer<CChar>? = nil
      plist_get_key_val(node, &p)
      return .string(takeString(p) ?? "")
    case PLIST_UID:
      var u: UInt64 = 0
      plist_get_uid_val(node, &u)
      return .integer(Int64(bitPattern: u))
    case PLIST_DATE:
      var sec: Int32 = 0
      var usec: Int32 = 0
      plist_get_date_val(node, &sec, &usec)
      return .date(978_307_200 + Double(sec) + Double(usec) / 1_000_000)
    case PLIST_DATA:
      var p: UnsafeMutablePointer<CChar>? = nil
      var length: UInt64 = 0
      plist_get_data_val(node, &p, &length)
      guard let p else { return .data([]) }
      defer { free(p) }
      return .data(Array(UnsafeRawBufferPointer(start: p, count: Int(length))))
    case PLIST_ARRAY:
      // Walked with libplist's iterator: `plist_array_get_item` walks a binary plist's array from its start for
      // each index, and a 5 KB Info.plist of 500,000 references to one string took a quarter of an hour.
      var items: [PlistValue] = []
      items.reserveCapacity(Int(plist_array_get_size(node)))
      var iterator: plist_array_iter? = nil
      plist_array_new_iter(node, &iterator)
      guard let iterator else { return .array([]) }
      defer { free(iterator) }
      while true {
        var child: plist_t? = nil
        plist_array_next_item(node, iterator, &child)
        guard let child else { break }
        guard let value = convert(child, depth: depth + 1, maxDepth: maxDepth) else { return nil }
        items.append(value)
      }
      return .array(items)
    case PLIST_DICT:
      var items: [String: PlistValue] = [:]
      var iterator: plist_dict_iter? = nil
      plist_dict_new_iter(node, &iterator)
      guard let iterator else { return .dictionary([:]) }
      defer { free(iterator) }
      while true {
        var key: UnsafeMutablePointer<CChar>? = nil
        var child: plist_t? = nil
        plist_dict_next_item(node, iterator, &key, &child)
        guard let child else {
          if let key { free(key) }
          break
        }
        let name = takeString(key) ?? ""
        guard let value = convert(child, depth: depth + 1, maxDepth: maxDepth) else { return nil }
        items[name] = value
      }
      return .dictionary(items)
    default:
      return nil
    }
  }
}
