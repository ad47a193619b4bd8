/// The runtime core of universal-link matching: prepared rules in, verdicts out.
///
/// The files in `Runtime/` are the project's only implementation of how iOS matches a URL against an AASA file's
/// rules. `UniversalLinks` compiles AASA files into ``LinkRuntime/Rule`` values that these types evaluate, and
/// `ipalinks blocklist --format swift` copies the same files, verbatim, into the guard it writes. So every file
/// here stays self-contained: no `import`, no reference to a declaration outside `Runtime/`, and no top-level
/// `private` name that could clash once the files are concatenated. Types that are not API live inside this enum,
/// so the guard adds only ``LinkRuntime`` and ``UniversalLinkURL`` to the app that embeds it.
public enum LinkRuntime {
  /// What iOS does with a URL for one app.
  public enum Verdict: String, Sendable, Codable, CaseIterable {
    /// A pattern without `exclude` matched first: the app opens.
    case match
    /// A pattern with `exclude` matched first: the URL stays in the browser.
    case exclude
    /// Nothing matched (or the app, host or file rules it out): the URL stays in the browser.
    case noMatch = "no-match"
  }

  /// Strict UTF-8 decoding: nil for overlong forms, surrogates or truncated sequences.
  static func decodeUTF8(_ bytes: some Collection<UInt8>) -> String? {
    var iterator = bytes.makeIterator()
    var decoder = UTF8()
    var scalars = String.UnicodeScalarView()
    while true {
      switch decoder.decode(&iterator) {
      case .scalarValue(let s): scalars.append(s)
      case .emptyInput: return String(scalars)
      case .error: return nil
      }
    }
  }

  /// The value of one ASCII hex digit.
  static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
