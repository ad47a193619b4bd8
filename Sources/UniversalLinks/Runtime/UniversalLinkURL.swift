/// The parts of a URL that universal-link matching reads, kept percent-encoded as the URL carries them.
///
/// The module parses URLs itself (RFC 3986 splitting, no Foundation) so that the verdict is the same on
/// Linux and Apple platforms. Like `URL(string:)` since iOS 17, characters that may not appear in a URL
/// (spaces, non-ASCII, a lone `%`) are percent-encoded as UTF-8 rather than rejected.
public struct UniversalLinkURL: Sendable, Equatable, Hashable {
  /// Lower-cased scheme, such as `https`.
  public var scheme: String
  /// Lower-cased host, without user info, port or a trailing dot.
  public var host: String
  /// The path as encoded; may be empty.
  public var percentEncodedPath: String
  /// The query as encoded, without `?`; nil when the URL has no `?`.
  public var percentEncodedQuery: String?
  /// The fragment as encoded, without `#`; nil when the URL has no `#`.
  public var percentEncodedFragment: String?

  /// Creates a URL from parts that are already percent-encoded (for example from `URLComponents`).
  public init(
    scheme: String = "https", host: String, percentEncodedPath: String, percentEncodedQuery: String? = nil,
    percentEncodedFragment: String? = nil
  ) {
    self.scheme = scheme.lowercased()
    self.host = Self.normalizeHost(host)
    self.percentEncodedPath = percentEncodedPath
    self.percentEncodedQuery = percentEncodedQuery
    self.percentEncodedFragment = percentEncodedFragment
  }

  /// Parses an absolute URL with an authority (`scheme://host/path?query#fragment`); nil otherwise.
  public init?(string: String) {
    let s = Array(string.unicodeScalars)
    guard let first = s.first, Self.isAlpha(first) else { return nil }
    var i = 1
    while i < s.count, Self.isAlpha(s[i]) || ("0"..."9").contains(s[i]) || s[i] == "+" || s[i] == "-" || s[i] == "." {
      i += 1
    }
    guard i + 2 < s.count, s[i] == ":", s[i + 1] == "/", s[i + 2] == "/" else { return nil }
    let scheme = String(String.UnicodeScalarView(s[0..<i])).lowercased()
    i += 3
    let authorityStart = i
    while i < s.count, s[i] != "/", s[i] != "?", s[i] != "#" { i += 1 }
    var authority = Array(s[authorityStart..<i])
    if let at = authority.lastIndex(of: "@") { authority = Array(authority[(at + 1)...]) }
    if authority.first == "[" {
      if let close = authority.firstIndex(of: "]") { authority = Array(authority[...close]) }
    } else if let colon = authority.firstIndex(of: ":") {
      authority = Array(authority[..<colon])
    }
    let host = String(String.UnicodeScalarView(authority))
    guard !host.isEmpty else { return nil }
    let pathStart = i
    while i < s.count, s[i] != "?", s[i] != "#" { i += 1 }
    let path = s[pathStart..<i]
    var query: ArraySlice<Unicode.Scalar>? = nil
    if i < s.count, s[i] == "?" {
      let start = i + 1
      i = start
      while i < s.count, s[i] != "#" { i += 1 }
      query = s[start..<i]
    }
    var fragment: ArraySlice<Unicode.Scalar>? = nil
    if i < s.count, s[i] == "#" { fragment = s[(i + 1)...] }
    self.init(
      scheme: scheme, host: host, percentEncodedPath: Self.encode(path, encodeHash: false),
      percentEncodedQuery: query.map { Self.encode($0, encodeHash: false) },
      percentEncodedFragment: fragment.map { Self.encode($0, encodeHash: true) })
  }

  /// The URL written back as a string.
  public var absoluteString: String {
    var out = scheme + "://" + host + percentEncodedPath
    if let q = percentEncodedQuery { out += "?" + q }
    if let f = percentEncodedFragment { out += "#" + f }
    return out
  }

  private static func isAlpha(_ c: Unicode.Scalar) -> Bool { ("a"..."z").contains(c) || ("A"..."Z").contains(c) }

  static func normalizeHost(_ host: String) -> String {
    var h = host.lowercased()
    if h.hasSuffix("."), h.count > 1 { h.removeLast() }
    return h
  }

  /// Percent-encodes what a URL may not contain as is; keeps valid `%XX` escapes untouched.
  static func encode(_ scalars: some Collection<Unicode.Scalar>, encodeHash: Bool) -> String {
    let chars = Array(scalars)
    var out = ""
    out.unicodeScalars.reserveCapacity(chars.count)
    var i = 0
    while i < chars.count {
      let c = chars[i]
      let v = c.value
      let isHex = { (k: Int) -> Bool in k < chars.count && chars[k].properties.isASCIIHexDigit }
      if c == "%" {
        if isHex(i + 1) && isHex(i + 2) { out.unicodeScalars.append(c) } else { out += "%25" }
      } else if v <= 0x20 || v >= 0x7F || "\"<>\\^`{|}".unicodeScalars.contains(c) || (c == "#" && encodeHash) {
        for byte in UTF8.encode(c)! {
          out += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
        }
      } else {
        out.unicodeScalars.append(c)
      }
      i += 1
    }
    return out
  }

  /// Decodes `%XX` escapes as UTF-8. When the bytes are not valid UTF-8 the text is returned still encoded, so a
  /// malformed escape can only fail to match, never match something else.
  static func percentDecode(_ text: String) -> String {
    guard text.utf8.contains(UInt8(ascii: "%")) else { return text }
    let bytes = Array(text.utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var i = 0
    while i < bytes.count {
      if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count, let hi = LinkRuntime.hexValue(bytes[i + 1]),
        let lo = LinkRuntime.hexValue(bytes[i + 2])
      {
        out.append(hi << 4 | lo)
        i += 3
      } else {
        out.append(bytes[i])
        i += 1
      }
    }
    return LinkRuntime.decodeUTF8(out) ?? text
  }
}
