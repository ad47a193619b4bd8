import Foundation

/// Writes reports as JSON through `Codable`, with sorted keys so output is stable for diffs and scripts.
public enum JSONReporter {
  /// `value` as JSON text without a trailing newline: indented for `--format json`, one line (`pretty: false`) for
  /// JSON Lines.
  public static func render<T: Encodable>(_ value: T, pretty: Bool = true) -> String {
    // CanonicalJSON writes JSONEncoder's bytes, indented or not, for a fraction of the time (a JSON Lines batch
    // spent half its time in JSONEncoder).
    terminalSafe(CanonicalJSON.text(value, pretty: pretty))
  }

  /// `value` as a JSON document stamped with the ``ToolVersion/generator`` that wrote it: the object's keys plus
  /// `generator`. For the top-level documents and saved inventories; records inside them stay unstamped.
  public static func document<T: Encodable>(_ value: T, pretty: Bool = true) -> String {
    render(Stamped(value: value), pretty: pretty)
  }

  /// `text` as a JSON string literal, exactly as ``render(_:pretty:)`` writes it (`JSONEncoder`'s escapes, then
  /// ``terminalSafe(_:)``'s): for records written by hand because an encoder per line would cost more than deciding
  /// the line, as for `who-claims --urls`.
  public static func quote(_ text: String) -> String {
    var out = ""
    quote(text, into: &out)
    return out
  }

  /// Appends `text` as a JSON string literal to `out`, as ``quote(_:)`` writes it: a record written by hand is
  /// built in one string, not joined from many.
  public static func quote(_ text: String, into out: inout String) {
    // URLs, app IDs and pointers are nearly always printable ASCII with no quote or backslash, which is written
    // as it is: going scalar by scalar was about a third of the time `who-claims --urls --format jsonl` took.
    if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
      out += "\""
      out += text
      out += "\""
      return
    }
    out += escaped(text)
  }

  private static func escaped(_ text: String) -> String {
    var out = String.UnicodeScalarView()
    out.append("\"")
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": out.append(contentsOf: #"\""#.unicodeScalars)
      case "\\": out.append(contentsOf: #"\\"#.unicodeScalars)
      case "\u{8}": out.append(contentsOf: #"\b"#.unicodeScalars)
      case "\t": out.append(contentsOf: #"\t"#.unicodeScalars)
      case "\n": out.append(contentsOf: #"\n"#.unicodeScalars)
      case "\u{C}": out.append(contentsOf: #"\f"#.unicodeScalars)
      case "\r": out.append(contentsOf: #"\r"#.unicodeScalars)
      // The other C0 controls, and what terminalSafe escapes.
      default:
        if needsUnicodeEscape(scalar) { out.append(contentsOf: unicodeEscape(scalar)) } else { out.append(scalar) }
      }
    }
    out.append("\"")
    return String(out)
  }

  /// JSON text with every character a terminal would act on (DEL, C1 controls, bidi controls, line separators),
  /// and the invisible U+FEFF, written as a `\u` escape. They only occur inside strings, where the escape means the
  /// same character, so the JSON is unchanged for a parser but safe to print. (`JSONEncoder` already escapes C0
  /// controls.) U+FEFF is escaped too because Foundation's parser on Linux drops a raw one that follows an escape.
  static func terminalSafe(_ json: String) -> String {
    // The bytes first, eight at a time: nearly every report has nothing to escape, and going scalar by scalar (or
    // byte by byte through the UTF-8 view) to find that out was a twentieth of what `inspect --format jsonl` spent.
    var json = json
    guard json.withUTF8({ mayNeedUnicodeEscape(UnsafeRawBufferPointer($0)) }) else { return json }
    var out = String.UnicodeScalarView()
    for scalar in json.unicodeScalars {
      if needsUnicodeEscape(scalar) { out.append(contentsOf: unicodeEscape(scalar)) } else { out.append(scalar) }
    }
    return String(out)
  }

  /// What the JSON this tool prints writes as `\u` escapes (besides `"`, `\` and the named C0 escapes): C0
  /// controls and everything ``terminalSafe(_:)`` lists. Every one is in the Basic Multilingual Plane.
  private static func needsUnicodeEscape(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value == 0xFEFF || TerminalText.actsOnTerminal(scalar, true)
  }

  /// Whether a UTF-8 byte is, or begins, a character ``needsUnicodeEscape(_:)`` may hold true of: a C0 control other
  /// than tab and line feed, DEL, or the first byte of U+0080–U+009F (C2), U+061C (D8), U+2000–U+2FFF (E2) or
  /// U+F000–U+FFFF (EF). A first byte never occurs inside another character, so text with none of these bytes has
  /// nothing to escape.
  @inline(__always) static func mayBeginUnicodeEscape(_ byte: UInt8) -> Bool {
    switch byte {
    case 0x09, 0x0A: false
    case 0x00..<0x20, 0x7F, 0xC2, 0xD8, 0xE2, 0xEF: true
    default: false
    }
  }

  /// Whether `bytes` hold one that ``mayBeginUnicodeEscape(_:)`` is true of.
  static func mayNeedUnicodeEscape(_ bytes: UnsafeRawBufferPointer) -> Bool {
    let (ones, high): (UInt64, UInt64) = (0x0101_0101_0101_0101, 0x8080_8080_8080_8080)
    var at = 0
    // Eight bytes at a time, past those that are all printable ASCII (0x20...0x7E). A byte below 0x20 borrows into
    // its top bit; one above 0x7E carries into it or has it (both exact as a whole: a false bit only ever follows
    // a true one).
    while at + 8 <= bytes.count {
      let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self))
      let outside = ((word &- ones &* 0x20) & ~word | (word &+ ones | word)) & high
      if outside != 0, bytes[at..<at + 8].contains(where: mayBeginUnicodeEscape) { return true }
      at += 8
    }
    return bytes[at...].contains(where: mayBeginUnicodeEscape)
  }

  /// `\u` and four lower-case hex digits, as `JSONEncoder` writes them.
  private static func unicodeEscape(_ scalar: Unicode.Scalar) -> String.UnicodeScalarView {
    let digits = String(scalar.value, radix: 16)
    return ("\\u" + String(repeating: "0", count: 4 - digits.count) + digits).unicodeScalars
  }
}

/// A value encoded with a `generator` key beside its own keys.
private struct Stamped<T: Encodable>: Encodable {
  var value: T

  enum Key: String, CodingKey { case generator }

  func encode(to encoder: any Encoder) throws {
    try value.encode(to: encoder)
    var container = encoder.container(keyedBy: Key.self)
    try container.encode(ToolVersion.generator, forKey: .generator)
  }
}
