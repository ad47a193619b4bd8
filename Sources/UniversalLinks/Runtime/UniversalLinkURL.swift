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
    var text = string
    guard let parsed = text.withUTF8({ Self.parsePlain($0) }) ?? Self.parseGeneral(string) else { return nil }
    self = parsed
  }

  /// Any string: split on scalars, then what a URL may not hold percent-encoded.
  static func parseGeneral(_ string: String) -> UniversalLinkURL? {
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
    return UniversalLinkURL(
      scheme: scheme, host: host, percentEncodedPath: Self.encode(path, encodeHash: false),
      percentEncodedQuery: query.map { Self.encode($0, encodeHash: false) },
      percentEncodedFragment: fragment.map { Self.encode($0, encodeHash: true) })
  }

  /// The common case without allocating a scalar array: printable ASCII that needs no escaping, one `#` at most,
  /// every `%` starting an escape, and no user info or IP literal. Nil hands anything else to the general parser,
  /// which gives the same parts for these strings.
  static func parsePlain(_ b: UnsafeBufferPointer<UInt8>) -> UniversalLinkURL? {
    func isAlpha(_ c: UInt8) -> Bool { (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A }
    func isHex(_ k: Int) -> Bool { k < b.count && LinkRuntime.hexValue(b[k]) != nil }
    var hashes = 0
    let plain = plainBytes.withUnsafeBufferPointer { classes in
      for k in b.indices {
        switch classes[Int(b[k])] {
        case 0: continue
        case 2:
          hashes += 1
          if hashes > 1 { return false }
        case 3:
          if !(isHex(k + 1) && isHex(k + 2)) { return false }
        default: return false
        }
      }
      return true
    }
    guard plain else { return nil }
    guard let first = b.first, isAlpha(first) else { return nil }
    var i = 1
    while i < b.count, isAlpha(b[i]) || (b[i] >= 0x30 && b[i] <= 0x39) || b[i] == 0x2B || b[i] == 0x2D || b[i] == 0x2E {
      i += 1
    }
    guard i + 2 < b.count, b[i] == 0x3A, b[i + 1] == 0x2F, b[i + 2] == 0x2F else { return nil }
    func lower(_ range: Range<Int>) -> String {
      String(unsafeUninitializedCapacity: range.count) { out in
        for (k, c) in b[range].enumerated() { out[k] = c >= 0x41 && c <= 0x5A ? c | 0x20 : c }
        return range.count
      }
    }
    func text(_ range: Range<Int>) -> String {
      String(decoding: UnsafeBufferPointer(rebasing: b[range]), as: UTF8.self)
    }
    let scheme = lower(0..<i)
    i += 3
    let hostStart = i
    while i < b.count, b[i] != 0x2F, b[i] != 0x3F, b[i] != 0x23 { i += 1 }
    var hostEnd = i
    if let colon = b[hostStart..<i].firstIndex(of: 0x3A) { hostEnd = colon }
    guard hostEnd > hostStart else { return nil }
    var host = lower(hostStart..<hostEnd)
    if host.utf8.count > 1, host.utf8.last == 0x2E { host.removeLast() }
    let pathStart = i
    while i < b.count, b[i] != 0x3F, b[i] != 0x23 { i += 1 }
    let path = text(pathStart..<i)
    var query: String? = nil
    if i < b.count, b[i] == 0x3F {
      let start = i + 1
      i = start
      while i < b.count, b[i] != 0x23 { i += 1 }
      query = text(start..<i)
    }
    let fragment: String? = i < b.count ? text((i + 1)..<b.count) : nil
    return UniversalLinkURL(
      normalized: scheme, host: host, path: path, query: query, fragment: fragment)
  }

  /// Per byte, what ``parsePlain(_:)`` does with it: 0 keeps it, 2 is `#`, 3 is `%`, and 1 declines the string (a
  /// control byte, a space, non-ASCII, a character that needs escaping, and `@` or `[` of user info and IP
  /// literals). A table, because a branch per character was the parser's main cost.
  private static let plainBytes: [UInt8] = (0..<256).map { byte in
    switch byte {
    case 0x23: 2
    case 0x25: 3
    case 0x22, 0x3C, 0x3E, 0x5C, 0x5E, 0x60, 0x7B, 0x7C, 0x7D, 0x40, 0x5B: 1
    case 0x21...0x7E: 0
    default: 1
    }
  }

  /// Parts already lower-cased and trimmed, as the parsers make them.
  private init(normalized scheme: String, host: String, path: String, query: String?, fragment: String?) {
    self.scheme = scheme
    self.host = host
    percentEncodedPath = path
    percentEncodedQuery = query
    percentEncodedFragment = fragment
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
