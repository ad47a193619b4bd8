import Foundation

/// A value's JSON byte for byte as `JSONEncoder` writes it with `.sortedKeys` and `.withoutEscapingSlashes`, at a
/// fraction of its cost: each line ``JSONReporter`` writes as JSON Lines, and the canonical JSON the audit store
/// keys every app's observation by. `JSONEncoder` checks every value for the types it writes its own way (dates,
/// data, URLs, decimals) by casting it; this encoder compares types, and gives up on those and on floating-point
/// numbers (``Unsupported``), which the caller then writes with `JSONEncoder`. The same rules otherwise: keys in the
/// byte order of their UTF-8, a key written twice keeps its last value, a value that writes nothing is `{}`, and a
/// string escapes `"`, `\` and the C0 controls (`\b`, `\f`, `\n`, `\r`, `\t`, else `\u00xx`), nothing else.
public enum CanonicalJSON {
  /// A value this encoder does not write: the caller uses `JSONEncoder`.
  public struct Unsupported: Error {}

  /// `value` as canonical JSON text; `pretty`, indented as `JSONEncoder`'s `.prettyPrinted` indents it (two spaces
  /// a level, `"key" : value`, an empty container's brackets a blank line apart).
  public static func encode<T: Encodable>(_ value: T, pretty: Bool = false) throws -> String {
    let node = Node()
    try node.encode(value, at: [])
    var out: [UInt8] = []
    out.reserveCapacity(2048)
    // A value that writes nothing is `{}` however it is asked for: JSONEncoder refuses it, and the callers' answer
    // for a value it refuses is `{}`.
    node.write(into: &out, indent: pretty && node.kind != .unset ? 0 : nil)
    return String(decoding: out, as: UTF8.self)
  }

  /// `value` as canonical JSON text (indented when `pretty`), written here, or by `JSONEncoder` (sorted keys, slashes
  /// unescaped) when this encoder does not write it: the same bytes either way; `{}` for a value neither can encode.
  public static func text<T: Encodable>(_ value: T, pretty: Bool = false) -> String {
    if let json = try? encode(value, pretty: pretty) { return json }
    let encoder = JSONEncoder()
    encoder.outputFormatting =
      pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
    return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
  }

  /// The lower-case hex digit of `nibble` (0...15), as UTF-8: for the control escapes here, and the store's keys.
  @inlinable @inline(__always) public static func hexDigit(_ nibble: UInt8) -> UInt8 {
    nibble < 10 ? 0x30 + nibble : 0x57 + nibble
  }

  /// One JSON value, filled in by the containers an `encode(to:)` asks for.
  final class Node {
    enum Kind { case unset, null, literal, string, object, array, strings }
    var kind = Kind.unset
    /// A number's or a Boolean's text, or a string's value.
    var text = ""
    /// An object's members in the order they were written; ``write(into:)`` sorts them, and of a key written twice
    /// keeps the last. An array, not a dictionary: hashing every key cost more than the sort does.
    var members: [(key: String, node: Node)] = []
    var items: [Node] = []
    /// A list of strings' strings, kept as they are rather than a node each.
    var strings: [String] = []

    init() {}

    init(_ kind: Kind, _ text: String) {
      self.kind = kind
      self.text = text
    }

    func encode<T: Encodable>(_ value: T, at path: [any CodingKey]) throws {
      if T.self == String.self {
        kind = .string
        text = value as! String
        return
      }
      // Lists of strings, most of an inventory's bytes (every app on a shared host lists its file's apps), are made
      // here rather than through an unkeyed container, a string at a time.
      if T.self == [String].self {
        kind = .strings
        strings = value as! [String]
        return
      }
      // What JSONEncoder writes its own way, or as this encoder does not (floating-point numbers).
      if T.self == Date.self || T.self == Data.self || T.self == URL.self || T.self == Decimal.self
        || T.self == Double.self || T.self == Float.self
      {
        throw Unsupported()
      }
      try value.encode(to: NodeEncoder(self, path))
    }

    /// Writes the value on one line, or indented `indent` levels of two spaces deep (its first line is already
    /// where it begins).
    func write(into out: inout [UInt8], indent: Int? = nil) {
      switch kind {
      case .null: out.append(contentsOf: "null".utf8)
      case .literal: out.append(contentsOf: text.utf8)
      case .string: Self.write(text, into: &out)
      case .array:
        out.append(UInt8(ascii: "["))
        for (i, item) in items.enumerated() {
          if i > 0 { out.append(UInt8(ascii: ",")) }
          Self.newLine(into: &out, indent: indent.map { $0 + 1 })
          item.write(into: &out, indent: indent.map { $0 + 1 })
        }
        Self.close(UInt8(ascii: "]"), empty: items.isEmpty, into: &out, indent: indent)
      case .strings:
        out.append(UInt8(ascii: "["))
        for (i, string) in strings.enumerated() {
          if i > 0 { out.append(UInt8(ascii: ",")) }
          Self.newLine(into: &out, indent: indent.map { $0 + 1 })
          Self.write(string, into: &out)
        }
        Self.close(UInt8(ascii: "]"), empty: strings.isEmpty, into: &out, indent: indent)
      case .unset, .object:
        out.append(UInt8(ascii: "{"))
        // By key, then in the order written, so that of a key written twice the last comes last and is kept.
        let order = members.indices.sorted { a, b in
          let (x, y) = (members[a].key, members[b].key)
          return x == y ? a < b : x.utf8.lexicographicallyPrecedes(y.utf8)
        }
        var first = true
        for (n, i) in order.enumerated() where n + 1 == order.count || members[order[n + 1]].key != members[i].key {
          if !first { out.append(UInt8(ascii: ",")) }
          first = false
          Self.newLine(into: &out, indent: indent.map { $0 + 1 })
          Self.write(members[i].key, into: &out)
          if indent == nil {
            out.append(UInt8(ascii: ":"))
          } else {
            out.append(contentsOf: " : ".utf8)
          }
          members[i].node.write(into: &out, indent: indent.map { $0 + 1 })
        }
        Self.close(UInt8(ascii: "}"), empty: order.isEmpty, into: &out, indent: indent)
      }
    }

    /// When indenting, a line break and `indent` levels of two spaces; nothing on one line.
    private static func newLine(into out: inout [UInt8], indent: Int?) {
      guard let indent else { return }
      out.append(UInt8(ascii: "\n"))
      out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * indent))
    }

    /// A container's closing `bracket`: when indenting, on a line of its own, a blank line after an empty
    /// container's opening one, as `JSONEncoder` writes it.
    private static func close(_ bracket: UInt8, empty: Bool, into out: inout [UInt8], indent: Int?) {
      if empty, indent != nil { out.append(UInt8(ascii: "\n")) }
      newLine(into: &out, indent: indent)
      out.append(bracket)
    }

    static func write(_ string: String, into out: inout [UInt8]) {
      out.append(UInt8(ascii: "\""))
      var string = string
      string.withUTF8 { bytes in
        // The runs between the bytes to escape are copied whole, found eight bytes at a time: a byte at a time, this
        // was an eighth of what `inspect --format jsonl` spent.
        let raw = UnsafeRawBufferPointer(bytes)
        var (start, at) = (0, 0)
        while at < bytes.count {
          if at + 8 <= bytes.count, !mayNeedEscape(raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)) {
            at += 8
            continue
          }
          let byte = bytes[at]
          if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
            at += 1
            continue
          }
          out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<at]))
          escape(byte, into: &out)
          at += 1
          start = at
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
      }
      out.append(UInt8(ascii: "\""))
    }

    /// Whether any of the eight bytes in `word` is a C0 control, `"` or `\`: exact as a whole (a false bit only
    /// ever follows a true one), the same in either byte order.
    @inline(__always) static func mayNeedEscape(_ word: UInt64) -> Bool {
      let (ones, high): (UInt64, UInt64) = (0x0101_0101_0101_0101, 0x8080_8080_8080_8080)
      let quote = word ^ (ones &* 0x22)
      let backslash = word ^ (ones &* 0x5C)
      let below = (word &- ones &* 0x20) | (quote &- ones) | (backslash &- ones)
      return below & ~(word & quote & backslash) & high != 0
    }

    /// `byte`, which JSON does not allow bare in a string, as `JSONEncoder` escapes it.
    static func escape(_ byte: UInt8, into out: inout [UInt8]) {
      switch byte {
      case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
      case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
      case 0x08: out.append(contentsOf: #"\b"#.utf8)
      case 0x0C: out.append(contentsOf: #"\f"#.utf8)
      case 0x0A: out.append(contentsOf: #"\n"#.utf8)
      case 0x0D: out.append(contentsOf: #"\r"#.utf8)
      case 0x09: out.append(contentsOf: #"\t"#.utf8)
      default:
        out.append(contentsOf: #"\u00"#.utf8)
        out.append(CanonicalJSON.hexDigit(byte >> 4))
        out.append(CanonicalJSON.hexDigit(byte & 0xF))
      }
    }
  }

  private final class NodeEncoder: Encoder {
    let node: Node
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(_ node: Node, _ codingPath: [any CodingKey]) {
      self.node = node
      self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
      node.kind = .object
      return KeyedEncodingContainer(Keyed<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
      node.kind = .array
      return Unkeyed(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { Single(node: node, codingPath: codingPath) }
  }

  private struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    let codingPath: [any CodingKey]

    private func set(_ key: Key, _ kind: Node.Kind, _ text: String) {
      node.members.append((key.stringValue, Node(kind, text)))
    }

    mutating func encodeNil(forKey key: Key) throws { set(key, .null, "") }
    mutating func encode(_ value: Bool, forKey key: Key) throws { set(key, .literal, value ? "true" : "false") }
    mutating func encode(_ value: String, forKey key: Key) throws { set(key, .string, value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { throw Unsupported() }
    mutating func encode(_ value: Float, forKey key: Key) throws { throw Unsupported() }
    mutating func encode(_ value: Int, forKey key: Key) throws { set(key, .literal, String(value)) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { set(key, .literal, String(value)) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { set(key, .literal, String(value)) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { set(key, .literal, String(value)) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { set(key, .literal, String(value)) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { set(key, .literal, String(value)) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { set(key, .literal, String(value)) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { set(key, .literal, String(value)) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { set(key, .literal, String(value)) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { set(key, .literal, String(value)) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
      let child = Node()
      try child.encode(value, at: codingPath + [key])
      node.members.append((key.stringValue, child))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
      keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
      let child = Node(.object, "")
      node.members.append((key.stringValue, child))
      return KeyedEncodingContainer(Keyed<NestedKey>(node: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
      let child = Node(.array, "")
      node.members.append((key.stringValue, child))
      return Unkeyed(node: child, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder { superEncoder(named: "super") }
    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(named: key.stringValue) }

    private func superEncoder(named name: String) -> any Encoder {
      let child = Node()
      node.members.append((name, child))
      return NodeEncoder(child, codingPath)
    }
  }

  private struct Unkeyed: UnkeyedEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]
    var count: Int { node.items.count }

    private func append(_ kind: Node.Kind, _ text: String) { node.items.append(Node(kind, text)) }

    mutating func encodeNil() throws { append(.null, "") }
    mutating func encode(_ value: Bool) throws { append(.literal, value ? "true" : "false") }
    mutating func encode(_ value: String) throws { append(.string, value) }
    mutating func encode(_ value: Double) throws { throw Unsupported() }
    mutating func encode(_ value: Float) throws { throw Unsupported() }
    mutating func encode(_ value: Int) throws { append(.literal, String(value)) }
    mutating func encode(_ value: Int8) throws { append(.literal, String(value)) }
    mutating func encode(_ value: Int16) throws { append(.literal, String(value)) }
    mutating func encode(_ value: Int32) throws { append(.literal, String(value)) }
    mutating func encode(_ value: Int64) throws { append(.literal, String(value)) }
    mutating func encode(_ value: UInt) throws { append(.literal, String(value)) }
    mutating func encode(_ value: UInt8) throws { append(.literal, String(value)) }
    mutating func encode(_ value: UInt16) throws { append(.literal, String(value)) }
    mutating func encode(_ value: UInt32) throws { append(.literal, String(value)) }
    mutating func encode(_ value: UInt64) throws { append(.literal, String(value)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
      let child = Node()
      try child.encode(value, at: codingPath)
      node.items.append(child)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
      -> KeyedEncodingContainer<NestedKey>
    {
      let child = Node(.object, "")
      node.items.append(child)
      return KeyedEncodingContainer(Keyed<NestedKey>(node: child, codingPath: codingPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
      let child = Node(.array, "")
      node.items.append(child)
      return Unkeyed(node: child, codingPath: codingPath)
    }

    mutating func superEncoder() -> any Encoder {
      let child = Node()
      node.items.append(child)
      return NodeEncoder(child, codingPath)
    }
  }

  private struct Single: SingleValueEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]

    private func set(_ kind: Node.Kind, _ text: String) {
      node.kind = kind
      node.text = text
    }

    mutating func encodeNil() throws { set(.null, "") }
    mutating func encode(_ value: Bool) throws { set(.literal, value ? "true" : "false") }
    mutating func encode(_ value: String) throws { set(.string, value) }
    mutating func encode(_ value: Double) throws { throw Unsupported() }
    mutating func encode(_ value: Float) throws { throw Unsupported() }
    mutating func encode(_ value: Int) throws { set(.literal, String(value)) }
    mutating func encode(_ value: Int8) throws { set(.literal, String(value)) }
    mutating func encode(_ value: Int16) throws { set(.literal, String(value)) }
    mutating func encode(_ value: Int32) throws { set(.literal, String(value)) }
    mutating func encode(_ value: Int64) throws { set(.literal, String(value)) }
    mutating func encode(_ value: UInt) throws { set(.literal, String(value)) }
    mutating func encode(_ value: UInt8) throws { set(.literal, String(value)) }
    mutating func encode(_ value: UInt16) throws { set(.literal, String(value)) }
    mutating func encode(_ value: UInt32) throws { set(.literal, String(value)) }
    mutating func encode(_ value: UInt64) throws { set(.literal, String(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws { try node.encode(value, at: codingPath) }
  }
}
