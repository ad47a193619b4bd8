/// Writes `ipalinks-guard.js`, the click guard of `ipalinks blocklist --format js`: a self-contained script that
/// embeds a rules document, decides URLs with a JavaScript port of the runtime core
/// (`Sources/UniversalLinks/Runtime`), and keeps link taps that would open an app inside the web view.
///
/// The script is a real file, `Sources/IPALinksKit/Resources/ipalinks-guard.js`, which the build embeds
/// (Plugins/EmbedSources). As committed it runs as is, with an empty rules document between the markers
/// ``rulesStart`` and ``rulesEnd``; this type only puts the header in front and the rules in their place.
/// `JSGuardNodeTests` checks its verdicts against the runtime core's in Node.
enum JSGuardWriter {
  /// The script's path among the embedded files.
  static let path = "Sources/IPALinksKit/Resources/ipalinks-guard.js"
  /// Where the placeholder document starts in the script; the marker itself is replaced too.
  static let rulesStart = "/* ipalinks:rules */"
  /// Where the placeholder document ends.
  static let rulesEnd = "/* ipalinks:end */"

  /// The script as committed, with its placeholder.
  static var template: String { EmbeddedSources.files[path] ?? "" }

  /// The complete script: `header` (comment lines, verbatim), then the template with `rulesJSON` in place of the
  /// placeholder, escaped so that it is safe inside an inline `<script>` and in any JavaScript parser.
  static func render(rulesJSON: String, header: String) -> String {
    let template = template
    guard let start = template.firstRange(of: rulesStart),
      let end = template[start.upperBound...].firstRange(of: rulesEnd)
    else {
      // The build embeds the file, and JSGuardNodeTests renders it: a missing marker cannot ship.
      preconditionFailure("\(path) has no \(rulesStart) … \(rulesEnd) placeholder")
    }
    var out = header
    if !out.isEmpty && !out.hasSuffix("\n") { out += "\n" }
    out += template[..<start.lowerBound] + scriptSafe(rulesJSON) + template[end.upperBound...]
    return out
  }

  /// JSON text with `<`, `>`, `&` and every non-ASCII character (U+2028 and U+2029 among them) written as `\u`
  /// escapes. In JSON these characters only ever occur inside strings, where the escape means the same character,
  /// so the text stays valid JSON (and JavaScript) but can no longer close a `<script>` element or open an HTML
  /// comment, and it reads the same whatever charset a page loads the script with.
  static func scriptSafe(_ json: String) -> String {
    var out = ""
    for c in json.unicodeScalars {
      switch c.value {
      case 0x3C, 0x3E, 0x26, 0x80...:
        for unit in String(c).utf16 { out += #"\u"# + hex4(unit) }
      default:
        out.unicodeScalars.append(c)
      }
    }
    return out
  }

  /// Four lower-case hex digits.
  private static func hex4(_ unit: UInt16) -> String {
    let digits = String(unit, radix: 16)
    return String(repeating: "0", count: 4 - digits.count) + digits
  }
}
