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

  /// The terminal's set (``TerminalText/needsEscape(_:_:)``), line breaks included: one set for every output, so a
  /// character the terminal shows escaped is never raw on the page (U+061C was), nor the reverse (U+200B was).
  private static func isHidden(_ scalar: Unicode.Scalar) -> Bool { TerminalText.needsEscape(scalar) }
}
