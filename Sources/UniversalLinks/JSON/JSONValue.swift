/// A parsed JSON value that keeps object members in file order and tells booleans from numbers.
///
/// Foundation's `JSONSerialization` bridges both to `NSNumber` on Linux, and AASA rules depend on the
/// difference (`"exclude": 1` is not a boolean), so the module reads JSON itself.
enum JSONValue: Sendable, Equatable {
  case null
  case bool(Bool)
  /// The number's text, as written; AASA never needs its value.
  case number(String)
  case string(String)
  case array([JSONValue])
  /// Members in file order, duplicates included; lookups take the last one, as `NSDictionary` does.
  case object([JSONMember])

  var typeName: String {
    switch self {
    case .null: "null"
    case .bool: "a boolean"
    case .number: "a number"
    case .string: "a string"
    case .array: "an array"
    case .object: "an object"
    }
  }

  var stringValue: String? {
    if case .string(let s) = self { return s }
    return nil
  }
}

/// One `"key": value` pair of a JSON object.
struct JSONMember: Sendable, Equatable {
  var key: String
  var value: JSONValue
}

extension [JSONMember] {
  /// The value of the last member named `key`, as Apple's JSON reader keeps the last duplicate.
  subscript(key: String) -> JSONValue? {
    last(where: { $0.key == key })?.value
  }

  /// Members with duplicate keys removed, keeping the last value at the position of its first occurrence.
  var uniqued: [JSONMember] {
    var seen: [String: Int] = [:]
    var out: [JSONMember] = []
    for member in self {
      if let i = seen[member.key] {
        out[i].value = member.value
      } else {
        seen[member.key] = out.count
        out.append(member)
      }
    }
    return out
  }
}

/// Why a byte sequence is not strict JSON, with the byte offset where reading stopped.
struct JSONSyntaxError: Error, Sendable, Equatable {
  var offset: Int
  var line: Int
  var column: Int
  var reason: String
  /// Reading stopped at the end of the bytes: the document is cut short, whatever was expected there.
  var atEnd: Bool
}

/// A strict RFC 8259 reader with bounded nesting: no comments, no trailing commas, UTF-8 only.
struct JSONReader {
  /// Deeper documents are refused, so hostile input cannot exhaust the stack.
  static let maximumDepth = 128

  private let bytes: [UInt8]
  private var index: Int

  private init(_ bytes: [UInt8]) {
    self.bytes = bytes
    // A UTF-8 byte order mark is tolerated, as Apple's reader does.
    index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
  }

  static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
    var reader = JSONReader(bytes)
    // A gzip stream (a server that compresses what was not asked to be) starts 1F 8B, and has NUL bytes too.
    if bytes.starts(with: [0x1F, 0x8B]) {
      throw reader.error(
        "the body is gzip-compressed (Content-Encoding: gzip, which was not asked for), not JSON", at: 0)
    }
    // UTF-16 and UTF-32 start with their byte order mark or a NUL byte: said as such, not as a strange character.
    if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) || bytes.prefix(4).contains(0) {
      throw reader.error("the text is UTF-16 or UTF-32, not UTF-8", at: 0)
    }
    reader.skipWhitespace()
    let value = try reader.readValue(depth: 0)
    reader.skipWhitespace()
    guard reader.index == bytes.count else { throw reader.error("unexpected data after the top-level value") }
    return value
  }

  private func error(_ reason: String, at offset: Int? = nil) -> JSONSyntaxError {
    let offset = min(offset ?? index, bytes.count)
    var line = 1
    var lineStart = 0
    for i in 0..<offset where bytes[i] == 0x0A {
      line += 1
      lineStart = i + 1
    }
    return JSONSyntaxError(
      offset: offset, line: line, column: offset - lineStart + 1, reason: reason, atEnd: offset == bytes.count)
  }

  private mutating func skipWhitespace() {
    while index < bytes.count {
      switch bytes[index] {
      case 0x20, 0x09, 0x0A, 0x0D: index += 1
      default: return
      }
    }
  }

  private mutating func readValue(depth: Int) throws(JSONSyntaxError) -> JSONValue {
    guard index < bytes.count else { throw error("unexpected end of input") }
    switch bytes[index] {
    case UInt8(ascii: "{"): return try readObject(depth: depth + 1)
    case UInt8(ascii: "["): return try readArray(depth: depth + 1)
    case UInt8(ascii: "\""): return .string(try readString())
    case UInt8(ascii: "t"): return try readLiteral("true", .bool(true))
    case UInt8(ascii: "f"): return try readLiteral("false", .bool(false))
    case UInt8(ascii: "n"): return try readLiteral("null", .null)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try readNumber()
    default:
      // A byte that is no printable ASCII is named by its value: as a character it would read as Latin-1.
      let byte = bytes[index]
      throw error(
        (0x21..<0x7F).contains(byte)
          ? "unexpected character '\(Unicode.Scalar(byte))'"
          : "unexpected byte 0x\(String(byte, radix: 16, uppercase: true))")
    }
  }

  private mutating func readLiteral(_ word: StaticString, _ value: JSONValue) throws(JSONSyntaxError) -> JSONValue {
    let count = word.utf8CodeUnitCount
    let expected = UnsafeBufferPointer(start: word.utf8Start, count: count)
    guard index + count <= bytes.count, bytes[index..<index + count].elementsEqual(expected) else {
      throw error("invalid literal")
    }
    index += count
    return value
  }

  private mutating func readNumber() throws(JSONSyntaxError) -> JSONValue {
    let start = index
    func digits(_ reader: inout JSONReader) -> Int {
      let from = reader.index
      while reader.index < reader.bytes.count, (0x30...0x39).contains(reader.bytes[reader.index]) { reader.index += 1 }
      return reader.index - from
    }
    if bytes[index] == UInt8(ascii: "-") { index += 1 }
    guard index < bytes.count, (0x30...0x39).contains(bytes[index]) else { throw error("invalid number") }
    if bytes[index] == UInt8(ascii: "0") {
      index += 1
    } else {
      _ = digits(&self)
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
      index += 1
      guard digits(&self) > 0 else { throw error("invalid number: no digits after '.'") }
    }
    if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
      index += 1
      if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
      guard digits(&self) > 0 else { throw error("invalid number: no digits in exponent") }
    }
    return .number(String(decoding: bytes[start..<index], as: UTF8.self))
  }

  private mutating func readString() throws(JSONSyntaxError) -> String {
    let open = index
    index += 1
    var out: [UInt8] = []
    var runStart = index
    while true {
      guard index < bytes.count else {
        // Cut inside a string: said as the end of the file, with where the string began.
        let begun = error("", at: open)
        throw error("inside the string begun at line \(begun.line), column \(begun.column)")
      }
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") {
        out.append(contentsOf: bytes[runStart..<index])
        index += 1
        break
      }
      if byte < 0x20 { throw error("unescaped control character in string") }
      if byte == UInt8(ascii: "\\") {
        out.append(contentsOf: bytes[runStart..<index])
        try readEscape(into: &out)
        runStart = index
        continue
      }
      index += 1
    }
    guard let string = Self.decodeUTF8(out) else { throw error("string is not valid UTF-8", at: open) }
    return string
  }

  private mutating func readEscape(into out: inout [UInt8]) throws(JSONSyntaxError) {
    index += 1
    guard index < bytes.count else { throw error("unterminated escape") }
    let c = bytes[index]
    index += 1
    switch c {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(c)
    case UInt8(ascii: "b"): out.append(0x08)
    case UInt8(ascii: "f"): out.append(0x0C)
    case UInt8(ascii: "n"): out.append(0x0A)
    case UInt8(ascii: "r"): out.append(0x0D)
    case UInt8(ascii: "t"): out.append(0x09)
    case UInt8(ascii: "u"):
      var scalar = try readHex4()
      if (0xD800...0xDBFF).contains(scalar) {
        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
          throw error("unpaired surrogate in \\u escape")
        }
        index += 2
        let low = try readHex4()
        guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate in \\u escape") }
        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
      } else if (0xDC00...0xDFFF).contains(scalar) {
        throw error("unpaired surrogate in \\u escape")
      }
      guard let s = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
      out.append(contentsOf: UTF8.encode(s)!)
    default:
      throw error("invalid escape '\\\(Unicode.Scalar(c))'", at: index - 2)
    }
  }

  private mutating func readHex4() throws(JSONSyntaxError) -> UInt32 {
    guard index + 4 <= bytes.count else { throw error("truncated \\u escape") }
    var value: UInt32 = 0
    for _ in 0..<4 {
      guard let digit = LinkRuntime.hexValue(bytes[index]) else { throw error("invalid hex digit in \\u escape") }
      value = value << 4 | UInt32(digit)
      index += 1
    }
    return value
  }

  private mutating func readArray(depth: Int) throws(JSONSyntaxError) -> JSONValue {
    guard depth <= Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth) levels") }
    index += 1
    var items: [JSONValue] = []
    skipWhitespace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
      index += 1
      return .array(items)
    }
    while true {
      skipWhitespace()
      items.append(try readValue(depth: depth))
      skipWhitespace()
      guard index < bytes.count else { throw error("unterminated array") }
      if bytes[index] == UInt8(ascii: ",") {
        index += 1
      } else if bytes[index] == UInt8(ascii: "]") {
        index += 1
        return .array(items)
      } else {
        throw error("expected ',' or ']' in array")
      }
    }
  }

  private mutating func readObject(depth: Int) throws(JSONSyntaxError) -> JSONValue {
    guard depth <= Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth) levels") }
    index += 1
    var members: [JSONMember] = []
    skipWhitespace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
      index += 1
      return .object(members)
    }
    while true {
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a string key") }
      let key = try readString()
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':' after key") }
      index += 1
      skipWhitespace()
      members.append(JSONMember(key: key, value: try readValue(depth: depth)))
      skipWhitespace()
      guard index < bytes.count else { throw error("unterminated object") }
      if bytes[index] == UInt8(ascii: ",") {
        index += 1
      } else if bytes[index] == UInt8(ascii: "}") {
        index += 1
        return .object(members)
      } else {
        throw error("expected ',' or '}' in object")
      }
    }
  }

  /// Strict UTF-8 decoding: nil for overlong forms, surrogates or truncated sequences.
  static func decodeUTF8(_ bytes: some Collection<UInt8>) -> String? { LinkRuntime.decodeUTF8(bytes) }
}
