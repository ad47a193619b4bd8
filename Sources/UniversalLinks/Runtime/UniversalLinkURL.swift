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
    guard let parts = PlainParts(b) else { return nil }
    func text(_ range: Range<Int>) -> String {
      String(decoding: UnsafeBufferPointer(rebasing: b[range]), as: UTF8.self)
    }
    return UniversalLinkURL(
      normalized: parts.lowercased(parts.scheme, in: b), host: parts.lowercased(parts.host, in: b),
      path: text(parts.path), query: parts.query.map(text), fragment: parts.fragment.map(text))
  }

  /// Where the parts of a URL that ``parsePlain(_:)`` accepts sit in its UTF-8, found without making a string:
  /// the matcher reads them in place.
  struct PlainParts {
    var scheme: Range<Int>
    /// Without user info, port or a trailing dot, not yet lower-cased.
    var host: Range<Int>
    var path: Range<Int>
    var query: Range<Int>?
    var fragment: Range<Int>?

    init?(_ b: UnsafeBufferPointer<UInt8>) {
      guard let p = b.baseAddress, !b.isEmpty else { return nil }
      let n = b.count
      func isAlpha(_ c: UInt8) -> Bool { (c | 0x20) &- 0x61 < 26 }
      func isHex(_ k: Int) -> Bool { k < n && LinkRuntime.hexValue(p[k]) != nil }
      guard isAlpha(p[0]) else { return nil }
      var i = 1
      // Nearly every URL starts `https://`, in some case: one 8-byte compare instead of a loop.
      if n > 8, UnsafeRawPointer(p).loadUnaligned(as: UInt64.self) | 0x20_2020_2020 == 0x2F2F_3A73_7074_7468 {
        i = 5
      } else {
        while i < n, isAlpha(p[i]) || p[i] &- 0x30 < 10 || p[i] == 0x2B || p[i] == 0x2D || p[i] == 0x2E { i += 1 }
        guard i + 2 < n, p[i] == 0x3A, p[i + 1] == 0x2F, p[i + 2] == 0x2F else { return nil }
      }
      scheme = 0..<i
      i += 3
      let hostStart = i
      var colon = -1
      var question = -1
      var hash = -1
      // Every byte after the scheme is read once, by one of two loops whose common case is one table load and one
      // compare: the host's, which stops at the first `/`, `?` or `#`, then the rest's, which finds the first `?`
      // and the `#`, so the query and the fragment need no second scan.
      let plain = plainBytes.withUnsafeBufferPointer { classes -> Bool in
        host: while i < n {
          switch classes[Int(p[i])] {
          case 0: break
          case 2: if colon < 0 { colon = i }
          case 5:
            guard isHex(i + 1) && isHex(i + 2) else { return false }
            i += 2
          case 7: return false
          default: break host
          }
          i += 1
        }
        var k = i
        while k < n {
          let c = classes[Int(p[k])]
          if c < 3 {
            k += 1
            continue
          }
          switch c {
          case 4:
            if hash >= 0 { return false }
            hash = k
          case 5:
            guard isHex(k + 1) && isHex(k + 2) else { return false }
            k += 2
          case 6: if question < 0 && hash < 0 { question = k }
          default: return false
          }
          k += 1
        }
        return true
      }
      guard plain else { return nil }
      var hostEnd = colon >= 0 ? colon : i
      guard hostEnd > hostStart else { return nil }
      if hostEnd - hostStart > 1, p[hostEnd - 1] == 0x2E { hostEnd -= 1 }
      host = hostStart..<hostEnd
      // The host ends at the first `/`, `?` or `#` after it, so neither `?` nor `#` comes before the path.
      let end = hash >= 0 ? hash : n
      path = i..<(question >= 0 ? question : end)
      query = question >= 0 ? (question + 1)..<end : nil
      fragment = hash >= 0 ? (hash + 1)..<n : nil
    }

    /// The bytes of `range`, ASCII letters lower-cased.
    func lowercased(_ range: Range<Int>, in b: UnsafeBufferPointer<UInt8>) -> String {
      String(unsafeUninitializedCapacity: range.count) { out in
        for (k, c) in b[range].enumerated() { out[k] = c >= 0x41 && c <= 0x5A ? c | 0x20 : c }
        return range.count
      }
    }

    /// Whether the scheme is `http` or `https`, in any case.
    func isWeb(in b: UnsafeBufferPointer<UInt8>) -> Bool {
      // The scheme starts the string. `| 0x20` lower-cases a letter and maps no other scheme byte to one.
      guard scheme.count == 4 || scheme.count == 5 else { return false }
      guard b[0] | 0x20 == 0x68, b[1] | 0x20 == 0x74, b[2] | 0x20 == 0x74, b[3] | 0x20 == 0x70 else { return false }
      return scheme.count == 4 || b[4] | 0x20 == 0x73
    }

    /// Whether the host is `domain`, compared as ``UniversalLinkURL/normalizeHost(_:)`` would compare them.
    func hasHost(_ domain: String, in b: UnsafeBufferPointer<UInt8>) -> Bool {
      // The common case, a domain already in normal form, costs no string.
      var domain = domain
      let same = domain.withUTF8 { d in
        guard d.count == host.count else { return false }
        var k = 0
        for c in b[host] {
          if (c >= 0x41 && c <= 0x5A ? c | 0x20 : c) != d[k] { return false }
          k += 1
        }
        return true
      }
      return same || UniversalLinkURL.normalizeHost(domain) == lowercased(host, in: b)
    }
  }

  /// Per byte, what ``parsePlain(_:)`` does with it: 0 keeps it, 1 is `/` and 2 is `:` (kept, but they end the
  /// host or its name), 4 is `#`, 5 is `%`, 6 is `?`, and 7 declines the string (a control byte, a space,
  /// non-ASCII, a character that needs escaping, and `@` or `[` of user info and IP literals). A table, because a
  /// branch per character was the parser's main cost.
  private static let plainBytes: [UInt8] = (0..<256).map { byte in
    switch byte {
    case 0x2F: 1
    case 0x3A: 2
    case 0x23: 4
    case 0x25: 5
    case 0x3F: 6
    case 0x22, 0x3C, 0x3E, 0x5C, 0x5E, 0x60, 0x7B, 0x7C, 0x7D, 0x40, 0x5B: 7
    case 0x21...0x7E: 0
    default: 7
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
