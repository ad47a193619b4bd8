/// Host names come from an untrusted app, and end up in URLs and cache file names, so only plain DNS names pass.
enum HostName {
  /// The lowercased host when it is a plain DNS name or IPv4 literal (``isPlain(_:punycode:)``). Anything else (a
  /// `/`, `..`, `:`, `@`, `%`, non-ASCII) is nil.
  static func validated(_ host: String) -> String? {
    var host = host.lowercased()
    return host.withUTF8 { isPlain($0[...]) } ? host : nil
  }

  /// Whether `bytes` are a plain DNS name or IPv4 literal: ASCII letters (either case), digits, `-` and `_` in
  /// dot-separated labels of 1 to 63 characters, 253 at most in all. `punycode` false refuses an `xn--` label too,
  /// which `URLComponents` decodes as IDNA (`URLList.isPlain`).
  static func isPlain(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, punycode: Bool = true) -> Bool {
    guard !bytes.isEmpty, bytes.count <= 253 else { return false }
    var start = bytes.startIndex
    for end in bytes.indices where bytes[end] == UInt8(ascii: ".") || end == bytes.endIndex - 1 {
      let label = bytes[start..<(bytes[end] == UInt8(ascii: ".") ? end : end + 1)]
      guard (1...63).contains(label.count),
        label.allSatisfy({
          ($0 | 0x20) &- 0x61 < 26 || $0 &- 0x30 < 10 || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
        })
      else { return false }
      if !punycode && label.count >= 4 {
        // `xn--`, in either case, compared in place: a list's every URL passes here.
        let k = label.startIndex
        if label[k] | 0x20 == UInt8(ascii: "x") && label[k + 1] | 0x20 == UInt8(ascii: "n") && label[k + 2] == 0x2D
          && label[k + 3] == 0x2D
        {
          return false
        }
      }
      start = end + 1
    }
    // A name that ends with a dot has an empty last label.
    return bytes.last != UInt8(ascii: ".")
  }
}

/// Checks a host given on the command line, so a mistake is a usage error that names it rather than a lookup that
/// fails later.
public enum HostArgument {
  /// Why `text` is not a host name such as `shop.example.com`, or nil when it is one; `allowURL` accepts an
  /// absolute URL too (its host is then checked), `allowWildcard` a wildcard entry (`*.example.com`).
  public static func problem(_ text: String, allowURL: Bool = false, allowWildcard: Bool = false) -> String? {
    // A line of a file that is no host list at all (an inventory's, say) is quoted by its start.
    let shown = TerminalText.escape(text.count > 80 ? text.prefix(79) + "…" : text)
    if allowWildcard && text.hasPrefix("*.") {
      return problem(String(text.dropFirst(2))).map { _ in "'\(shown)' is not a wildcard entry such as *.example.com" }
    }
    if let range = text.range(of: "://") {
      let rest = text[range.upperBound...]
      let host = String(rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" && $0 != ":" })
      if !allowURL {
        return "'\(shown)' is a URL; give the host alone" + (HostName.validated(host) != nil ? ", \(host)" : "")
      }
      // As `match` and `who-claims --urls` read a URL (they read `SHOP.example.com.` and refuse a port of -1 alike).
      return URLList.problem(text)
    }
    return HostName.validated(normalized(text)) == nil ? "'\(shown)' is not a host name" : nil
  }

  /// The host `text` names, as the commands look it up and store it: lowercased, and without the dot that ends a
  /// fully qualified name (`shop.example.com.`), which ``problem(_:allowURL:allowWildcard:)`` accepts. Kept, the dot
  /// made a host that was never looked up read as one without an AASA file.
  public static func normalized(_ text: String) -> String {
    let host = text.lowercased()
    return host.hasSuffix(".") ? String(host.dropLast()) : host
  }
}
