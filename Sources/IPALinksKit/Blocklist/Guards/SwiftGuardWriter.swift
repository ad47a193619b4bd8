/// Writes `UniversalLinkGuard.swift`: one self-contained Swift file with which an app can tell which URLs would
/// leave its web view for another app.
///
/// Like SQLite's amalgamation, the file is assembled from real sources: the guard's front
/// (`Sources/UniversalLinkGuard`) and the matcher's runtime core (`Sources/UniversalLinks/Runtime`), each copied
/// verbatim, then the rules document as data. So the guard runs the very code `ipalinks match` runs. It depends
/// on Foundation only (plus WebKit where it exists), so it compiles on Linux as well as on Apple platforms.
enum SwiftGuardWriter {
  /// The front, then the runtime core's files in name order; the build embeds them (Plugins/EmbedSources).
  static var sources: [(path: String, text: String)] {
    let front = "Sources/UniversalLinkGuard/UniversalLinkGuard.swift"
    let core = EmbeddedSources.files.keys.filter { $0.hasPrefix("Sources/UniversalLinks/Runtime/") }.sorted()
    return ([front] + core).map { ($0, EmbeddedSources.files[$0] ?? "") }
  }

  /// The complete Swift source: `header` (comment lines, verbatim), the sources, then `rulesJSON` embedded in a
  /// raw string literal that nothing inside the JSON can close or interpolate into.
  static func render(rulesJSON: String, header: String) -> String {
    let json = sourceSafe(rulesJSON)
    let hashes = String(repeating: "#", count: rawStringHashCount(for: json))
    var out = header
    if !out.isEmpty && !out.hasSuffix("\n") { out += "\n" }
    for (path, text) in sources {
      out += "\n// MARK: - " + path + " (verbatim)\n\n" + text
    }
    out += embeddingOpening
    out += " " + hashes + "\"\"\"\n" + indented(json) + "\n    \"\"\"" + hashes + "\n"
    out += embeddingClosing
    return out
  }

  /// JSON text with DEL and every non-ASCII character written as `\u` escapes, which mean the same inside JSON
  /// strings (the only place they occur). Swift refuses a raw DEL in source, and bidi controls or line separators
  /// from untrusted names would make the file read differently from what it does.
  static func sourceSafe(_ json: String) -> String {
    var out = ""
    for c in json.unicodeScalars {
      if c.value < 0x7F {
        out.unicodeScalars.append(c)
      } else {
        for unit in String(c).utf16 {
          let digits = String(unit, radix: 16)
          out += #"\u"# + String(repeating: "0", count: 4 - digits.count) + digits
        }
      }
    }
    return out
  }

  /// The JSON with every line indented like the closing delimiter, which Swift strips again, so the generated file
  /// passes `swift format lint`. JSON strings hold no raw line breaks, so only whitespace between tokens changes;
  /// `\r` is turned into `\n` first because a multi-line literal treats a lone `\r` as a line break too.
  private static func indented(_ json: String) -> String {
    var out = ""
    var lineStart = true
    var afterCR = false
    for c in json.unicodeScalars {
      defer { afterCR = c == "\r" }
      if c == "\n" && afterCR { continue }
      if c == "\n" || c == "\r" {
        out += "\n"
        lineStart = true
      } else {
        // Empty lines stay empty: Swift accepts them at any indentation, and they carry no trailing spaces.
        if lineStart { out += "    " }
        out.unicodeScalars.append(c)
        lineStart = false
      }
    }
    return out
  }

  /// How many `#` the raw string around `text` needs: one more than the longest run of `#` after a `"` (which
  /// could close the literal) or after a `\` (which could start an escape or an interpolation such as `\#(`).
  static func rawStringHashCount(for text: String) -> Int {
    var longest = 0
    var run = 0
    var counting = false
    for byte in text.utf8 {
      if byte == UInt8(ascii: "#") {
        if counting {
          run += 1
          longest = max(longest, run)
        }
      } else {
        counting = byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
        run = 0
      }
    }
    return longest + 1
  }

  private static let embeddingOpening = #"""

    // MARK: - Embedded rules

    extension UniversalLinkGuard {
      /// The guard for the rules embedded in this file, decoded on first use.
      public static let shared: UniversalLinkGuard = {
        do {
          return try UniversalLinkGuard(rulesJSON: embeddedRulesJSON)
        } catch {
          // The document is written by ipalinks, so this is a bug; without rules every URL stays allowed.
          assertionFailure("UniversalLinkGuard: the embedded rules do not decode: \(error)")
          return UniversalLinkGuard(table: LinkRuntime.Table(apps: []))
        }
      }()

      /// The rules document written by ipalinks: per app, the hosts it claims and its rules in the order iOS tries
      /// them, patterns already prepared (paths normalized, variables expanded, lower-cased when case-insensitive).
      /// A raw string, so nothing in it is an escape or an interpolation.
      fileprivate static let embeddedRulesJSON =
    """#

  private static let embeddingClosing = #"""
    }

    """#
}
