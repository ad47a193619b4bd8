/// Host names come from an untrusted app, and end up in URLs and cache file names, so only plain DNS names pass.
enum HostName {
  /// The lowercased host when it is a plain DNS name or IPv4 literal: ASCII letters, digits, `-` and `_` in dot-separated
  /// labels of 1 to 63 characters, 253 at most in all. Anything else (a `/`, `..`, `:`, `@`, `%`, non-ASCII) is nil.
  static func validated(_ host: String) -> String? {
    let host = host.lowercased()
    guard !host.isEmpty, host.utf8.count <= 253 else { return nil }
    let labels = host.split(separator: ".", omittingEmptySubsequences: false)
    for label in labels {
      guard (1...63).contains(label.utf8.count),
        label.utf8.allSatisfy({ isLetterOrDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") })
      else { return nil }
    }
    return host
  }

  private static func isLetterOrDigit(_ c: UInt8) -> Bool {
    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(c) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c)
  }
}

/// Checks a host given on the command line, so a mistake is a usage error that names it rather than a lookup that
/// fails later.
public enum HostArgument {
  /// Why `text` is not a host name such as `shop.example.com`, or nil when it is one; `allowURL` accepts an
  /// absolute URL too (its host is then checked), `allowWildcard` a wildcard entry (`*.example.com`).
  public static func problem(_ text: String, allowURL: Bool = false, allowWildcard: Bool = false) -> String? {
    let shown = TerminalText.escape(text)
    if allowWildcard && text.hasPrefix("*.") {
      return problem(String(text.dropFirst(2))).map { _ in "'\(shown)' is not a wildcard entry such as *.example.com" }
    }
    if let range = text.range(of: "://") {
      let rest = text[range.upperBound...]
      let host = String(rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" && $0 != ":" })
      if !allowURL {
        return "'\(shown)' is a URL; give the host alone" + (HostName.validated(host) != nil ? ", \(host)" : "")
      }
      return HostName.validated(host) == nil ? "'\(shown)' is not a URL with a valid host" : nil
    }
    let host = text.hasSuffix(".") ? String(text.dropLast()) : text
    return HostName.validated(host) == nil ? "'\(shown)' is not a host name" : nil
  }
}
