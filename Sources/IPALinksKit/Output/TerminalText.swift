/// The one escaping function for text that reaches a terminal, and small helpers for text meant to be read there.
///
/// Strings from apps, AASA files, servers and file names are untrusted: an ESC sequence can recolour the terminal,
/// move the cursor or set its title; a C1 control such as U+009B does the same on terminals that honour 8-bit
/// controls; a bidi override makes a line read differently from what it says; a line separator forges a line.
/// Every text the CLI prints goes through ``escape(_:keepingLineBreaks:)``.
public enum TerminalText {
  /// `text` with every character that could change what a terminal shows written as a visible `\u{…}` escape:
  /// C0 controls (other than line feed and tab when `keepingLineBreaks`), DEL, C1 controls, the bidi embedding,
  /// override and isolate characters, and the line and paragraph separators.
  public static func escape(_ text: String, keepingLineBreaks: Bool = false) -> String {
    guard text.unicodeScalars.contains(where: { needsEscape($0, keepingLineBreaks) }) else { return text }
    var out = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
      if needsEscape(scalar, keepingLineBreaks) {
        out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16))}".unicodeScalars)
      } else {
        out.append(scalar)
      }
    }
    return String(out)
  }

  /// Whether a scalar must be escaped before it reaches a terminal.
  public static func needsEscape(_ scalar: Unicode.Scalar, _ keepingLineBreaks: Bool = false) -> Bool {
    switch scalar.value {
    case 0x0A, 0x09: !keepingLineBreaks
    case 0x00..<0x20, 0x7F...0x9F: true
    // LRM, RLM, ALM and the embeddings, overrides and isolates: they reorder what follows on the line.
    case 0x200E, 0x200F, 0x061C, 0x202A...0x202E, 0x2066...0x2069: true
    case 0x2028, 0x2029: true
    default: false
    }
  }

  /// `1 app`, `2 apps`: a count with the noun in the right number.
  public static func count(_ n: Int, _ singular: String, _ plural: String? = nil) -> String {
    "\(n) " + (n == 1 ? singular : plural ?? singular + "s")
  }
}
