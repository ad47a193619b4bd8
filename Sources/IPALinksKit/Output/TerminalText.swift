/// The one escaping function for text that reaches a terminal, and small helpers for text meant to be read there.
///
/// Strings from apps, AASA files, servers and file names are untrusted: an ESC sequence can recolour the terminal,
/// move the cursor or set its title; a C1 control such as U+009B does the same on terminals that honour 8-bit
/// controls; a bidi override makes a line read differently from what it says; a line separator forges a line.
/// Every text the CLI prints goes through ``escape(_:keepingLineBreaks:)``.
public enum TerminalText {
  /// `text` with every character that could change what a terminal shows written as a visible `\u{…}` escape:
  /// C0 controls (other than line feed and tab when `keepingLineBreaks`), DEL, C1 controls, the bidi marks,
  /// embedding, override and isolate characters, the line and paragraph separators, and the invisible characters
  /// (zero-width spaces and joiners, the soft hyphen, tags): the same set the report page shows escaped.
  public static func escape(_ text: String, keepingLineBreaks: Bool = false) -> String {
    // Printable ASCII, most of what is printed, is checked a byte at a time.
    if isPrintableASCII(text) { return text }
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

  /// Whether `text` is printable ASCII alone: what ``escape(_:keepingLineBreaks:)`` leaves as it is, a character a
  /// byte.
  public static func isPrintableASCII(_ text: String) -> Bool {
    text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
  }

  /// Whether a scalar must be escaped before it reaches a terminal: one the terminal acts on, or one it shows as
  /// nothing.
  public static func needsEscape(_ scalar: Unicode.Scalar, _ keepingLineBreaks: Bool = false) -> Bool {
    actsOnTerminal(scalar, keepingLineBreaks) || isInvisible(scalar)
  }

  /// Whether a terminal acts on a scalar (moves, recolours, reorders, breaks the line), which JSON printed to it
  /// must escape too (``needsEscape(_:_:)`` without the invisible characters).
  public static func actsOnTerminal(_ scalar: Unicode.Scalar, _ keepingLineBreaks: Bool = false) -> Bool {
    switch scalar.value {
    case 0x0A, 0x09: !keepingLineBreaks
    case 0x00..<0x20, 0x7F...0x9F: true
    // LRM, RLM, ALM and the embeddings, overrides and isolates: they reorder what follows on the line.
    case 0x200E, 0x200F, 0x061C, 0x202A...0x202E, 0x2066...0x2069: true
    // Line and paragraph separators, and the zero-width no-break space (a byte-order mark): invisible otherwise.
    case 0x2028, 0x2029, 0xFEFF: true
    default: false
    }
  }

  /// Whether a terminal shows a scalar as nothing, so that `ex\u{200b}ample.com` would read as `example.com`: the
  /// soft hyphen, zero-width spaces and joiners, word joiners and invisible operators, deprecated format controls,
  /// interlinear annotations, and tags (which can spell hidden ASCII); and every other default-ignorable code point
  /// of Unicode (Hangul fillers, which spoof names, variation selectors, the combining grapheme joiner, Mongolian
  /// and Khmer format characters), which this list missed.
  public static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0xAD, 0x200B...0x200D, 0x2060...0x2064, 0x206A...0x206F, 0xFFF9...0xFFFB, 0xE0000...0xE007F: true
    case 0..<0x80: false
    default: scalar.properties.isDefaultIgnorableCodePoint
    }
  }

  /// `0.5 of 3.0 GiB`: how much of `whole` bytes `part` is, both in the unit that suits `whole` (binary units, one
  /// decimal below ten), short enough for a bar's label.
  public static func size(_ part: Int64, of whole: Int64) -> String {
    var (scale, unit) = (1.0, "bytes")
    for next in ["KiB", "MiB", "GiB", "TiB"] where Double(whole) / scale >= 1024 {
      (scale, unit) = (scale * 1024, next)
    }
    func shown(_ bytes: Int64) -> String {
      let value = Double(bytes) / scale
      return unit == "bytes" || value >= 10 ? "\(Int(value))" : "\((value * 10).rounded(.down) / 10)"
    }
    return "\(shown(part)) of \(shown(whole)) \(unit)"
  }

  /// `1 app`, `2 apps`: a count with the noun in the right number.
  public static func count(_ n: Int, _ singular: String, _ plural: String? = nil) -> String {
    "\(n) " + (n == 1 ? singular : plural ?? singular + "s")
  }
}

extension TerminalText {
  /// `text` as lines of at most `width` characters, the first starting with `first` and the others with `rest`.
  ///
  /// Lines break after `, ` where they can and at a space where they must, so a JSON rule keeps each `"key": value`
  /// whole and a list keeps each item whole. Nothing breaks inside a token: one longer than the line gets a line of
  /// its own and overflows it, which is better than a host or path cut in two.
  public static func wrap(_ text: String, width: Int, first: String = "", rest: String) -> [String] {
    if length(first) + length(text) <= width { return [first + text] }
    var units: [String] = []
    for item in text.split(separator: ", ", omittingEmptySubsequences: false).enumerated().map({
      $0.offset == 0 ? String($0.element) : ", " + $0.element
    }) {
      // `, ` belongs to the end of the unit before it, so a continuation line never starts with a comma.
      if units.isEmpty {
        units.append(item)
      } else {
        units[units.count - 1] += ","
        units.append(String(item.dropFirst(2)))
      }
    }
    var lines: [String] = []
    var line = first
    var lineHasText = false
    func add(_ piece: String) {
      let joined = lineHasText ? line + " " + piece : line + piece
      if joined.count <= width || (!lineHasText && first.count <= rest.count) {
        line = joined
      } else if !lineHasText {
        // A label wider than the continuation indent leaves more room below it than beside it.
        lines.append(trimmingTrailingSpaces(line))
        line = rest + piece
      } else {
        lines.append(line)
        line = rest + piece
      }
      lineHasText = true
    }
    for unit in units {
      let prefix = lineHasText ? line.count + 1 : line.count
      // A byte search: `contains(" ")` on a String is Foundation's, which goes through NSString on Linux.
      if prefix + unit.count <= width || !unit.utf8.contains(0x20) {
        add(unit)
      } else if rest.count + unit.count <= width {
        // A label alone on its line keeps no trailing space.
        lines.append(lineHasText ? line : trimmingTrailingSpaces(line))
        line = rest + unit
        lineHasText = true
      } else {
        for word in unit.split(separator: " ", omittingEmptySubsequences: false) { add(String(word)) }
      }
    }
    lines.append(line)
    return lines
  }

  /// A problem line (`ipalinks: …`) as a terminal should show it: lines of at most `width` characters, broken
  /// between words as prose is, each continuation indented two past the message's own start, so none can be read as
  /// a problem of its own. A word longer than a line (a URL, a path) overflows its line rather than being cut. A line
  /// that is not a problem line, or that fits, is kept.
  public static func wrapProblem(_ line: String, width: Int) -> [String] {
    let label = "ipalinks: "
    guard line.count > width, line.hasPrefix(label) else { return [line] }
    let message = line.dropFirst(label.count)
    let indent = message.prefix { $0 == " " }.count
    let rest = String(repeating: " ", count: label.count + indent + 2)
    var lines: [String] = []
    var current = label + String(repeating: " ", count: indent)
    var empty = true
    for word in message.dropFirst(indent).split(separator: " ", omittingEmptySubsequences: false) {
      if !empty && current.count + 1 + word.count > width {
        lines.append(current)
        current = rest + word
      } else {
        current += (empty ? "" : " ") + word
      }
      empty = false
    }
    lines.append(current)
    return lines
  }

  /// `line` without the spaces at its end: a label left alone on its line keeps none.
  static func trimmingTrailingSpaces(_ line: String) -> String {
    String(line.reversed().drop { $0 == " " }.reversed())
  }

  /// The width text output should fit: `COLUMNS` when set, else the terminal's width when standard output is one,
  /// else 80. Passed in by the caller, so the library never looks at the terminal.
  public static func width(columns: String?, terminalWidth: Int?) -> Int {
    if let columns, let value = Int(columns), value >= 20 { return value }
    if let terminalWidth, terminalWidth >= 20 { return terminalWidth }
    return 80
  }
}

extension TerminalText {
  /// The columns `text` takes on a terminal: two for each wide character (CJK, Hangul, fullwidth forms, emoji),
  /// none for combining marks and joiners, one for the others. Approximates `wcwidth(3)`, which Swift lacks.
  public static func columns(_ text: String) -> Int {
    if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.utf8.count }
    return text.unicodeScalars.reduce(0) { $0 + columns(of: $1) }
  }

  /// The longest start of `text` that takes at most `limit` columns.
  public static func prefix(_ text: String, columns limit: Int) -> String {
    var used = 0
    var end = text.startIndex
    for character in text {
      let width = character.unicodeScalars.reduce(0) { $0 + columns(of: $1) }
      guard used + width <= limit else { break }
      used += width
      end = text.index(after: end)
    }
    return String(text[..<end])
  }

  private static func columns(of scalar: Unicode.Scalar) -> Int {
    let value = scalar.value
    switch scalar.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format: return 0
    default: break
    }
    if scalar.properties.isEmojiPresentation { return 2 }
    let wide: [ClosedRange<UInt32>] = [
      0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
      0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD,
    ]
    return wide.contains { $0.contains(value) } ? 2 : 1
  }

  /// `text`'s length in characters: its bytes when they are ASCII, which are counted far faster than characters.
  static func length(_ text: String) -> Int {
    text.utf8.allSatisfy { $0 < 0x80 } ? text.utf8.count : text.count
  }

  /// Fields joined by `separator` on lines of at most `width` characters, the first line starting with `first` and
  /// the others with `rest`: a field that does not fit starts a new line, and one too long for any line is wrapped
  /// as ``wrap(_:width:first:rest:)`` does.
  public static func pack(
    _ fields: [String], width: Int, first: String = "", rest: String, separator: String = "  "
  ) -> [String] {
    var lines: [String] = []
    var line = first
    // The line's length in characters, kept as it grows rather than counted again for each field (a tenth of
    // `match --urls`'s time in text was counting lines).
    var length = Self.length(first)
    var empty = true
    let separatorLength = Self.length(separator)
    for field in fields where !field.isEmpty {
      let joint = empty ? "" : separator
      // Lengths add up unless the field begins with a scalar that joins the character before it (a combining
      // mark): that one is counted whole.
      let added =
        field.unicodeScalars.first?.isASCII == true
        ? (empty ? 0 : separatorLength) + Self.length(field) : (line + joint + field).count - length
      if length + added <= width {
        line += joint + field
        length += added
        empty = false
        continue
      }
      if !empty {
        lines.append(line)
        line = rest
      }
      let wrapped = wrap(field, width: width, first: line, rest: rest)
      lines += wrapped.dropLast()
      line = wrapped.last ?? line
      length = Self.length(line)
      empty = false
    }
    lines.append(line)
    return lines
  }
}
