/// Escaping for the report page, in one place: every string from an app or an AASA file goes through ``esc(_:marked:)``
/// or ``text(_:)`` before it becomes part of the page.
enum HTML {
  /// Escapes `& < > " '` for text and quoted attributes alike. Control, bidi and invisible characters become a
  /// visible `\u{…}` so an untrusted name cannot hide or reorder what the auditor reads; in flow content they are
  /// also marked (`marked`); the title and SVG text get the plain form, where markup would not belong.
  static func esc(_ s: String, marked: Bool = false) -> String {
    var out = ""
    out.reserveCapacity(s.utf8.count)
    for scalar in s.unicodeScalars {
      switch scalar {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&#39;"
      default:
        if isHidden(scalar) {
          let shown = "\\u{\(String(scalar.value, radix: 16))}"
          out += marked ? "<span class=\"ctl\">\(shown)</span>" : shown
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    return out
  }

  /// Flow-content text: escaped, with hidden characters marked.
  static func text(_ s: String) -> String { esc(s, marked: true) }

  /// `s` escaped inside `<code>`.
  static func code(_ s: String) -> String { "<code>\(text(s))</code>" }

  private static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0..<0x20, 0x7F...0x9F, 0xAD, 0x200B...0x200F, 0x2028...0x202E, 0x2060...0x2064, 0x2066...0x206F, 0xFEFF,
      0xFFF9...0xFFFB, 0xE0000...0xE007F:
      true
    default: false
    }
  }
}
