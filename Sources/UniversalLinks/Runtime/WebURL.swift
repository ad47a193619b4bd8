extension LinkRuntime {
  /// An http or https URL read as WebKit reads it: the WHATWG URL Standard's basic URL parser, which WebKit's
  /// `URLParser` follows. The navigation rule compares hosts in this form (``Navigation``), because it is the form
  /// WebKit compares: `URL::host()` of the page and of the request, string for string.
  ///
  /// What differs from ``UniversalLinkURL`` (which splits a URL as iOS's matcher reads it): a backslash ends the
  /// host and separates path segments, the host is percent-decoded and converted to ASCII (IDNA), an IPv4 address
  /// written in hex, octal or fewer than four parts is written in dotted decimal, `.` and `..` segments are resolved,
  /// the default port is dropped, and a trailing dot on the host is kept.
  ///
  /// Non-ASCII hosts: fullwidth forms and ideographic full stops are mapped to ASCII and letters are lower-cased, as
  /// UTS #46 does; a label that is still not ASCII is written in Punycode, but without UTS #46's other mappings and
  /// normalization, so ``hostIsExact`` is false and the navigation rule treats the host as unknown (fail closed).
  /// URLs that WebKit hands to a navigation delegate are already in this form and always read exactly.
  public struct WebURL: Sendable, Equatable {
    /// `http` or `https`.
    public var scheme: String
    /// The host as WebKit compares it: lower-cased ASCII, Punycode for international names, IPv4 in dotted
    /// decimal, IPv6 in brackets, a trailing dot kept; never the user info or the port.
    public var host: String
    /// The port, nil when it is the scheme's default (80 or 443) or absent.
    public var port: Int?
    /// The path, percent-encoded, starting with `/`.
    public var path: String
    /// The query without `?`, percent-encoded; nil without `?`.
    public var query: String?
    /// The fragment without `#`, percent-encoded; nil without `#`.
    public var fragment: String?
    /// False when the host held text outside ASCII that this reader cannot map exactly as UTS #46 does.
    public var hostIsExact: Bool

    /// The URL written out: what WebKit's `URL::string()` gives, without user info.
    public var href: String {
      var out = scheme + "://" + host
      if let port { out += ":" + String(port) }
      out += path
      if let query { out += "?" + query }
      if let fragment { out += "#" + fragment }
      return out
    }

    /// Reads `string` as WebKit would; nil for a URL that is not http or https, or that WebKit refuses.
    public init?(_ string: String) {
      // Leading and trailing C0 controls and spaces go, and so do tabs and newlines anywhere.
      var input = Array(string.unicodeScalars)
      while let first = input.first, first.value <= 0x20 { input.removeFirst() }
      while let last = input.last, last.value <= 0x20 { input.removeLast() }
      input.removeAll { $0 == "\t" || $0 == "\n" || $0 == "\r" }

      guard let colon = input.firstIndex(of: ":"), colon > 0, Self.isAlpha(input[0]),
        input[1..<colon].allSatisfy({ Self.isAlpha($0) || Self.isDigit($0) || "+-.".unicodeScalars.contains($0) })
      else { return nil }
      let scheme = String(String.UnicodeScalarView(input[..<colon])).lowercased()
      guard scheme == "http" || scheme == "https" else { return nil }
      self.scheme = scheme

      // A special scheme takes any run of slashes and backslashes before its authority.
      var i = colon + 1
      while i < input.count, input[i] == "/" || input[i] == "\\" { i += 1 }
      let authorityStart = i
      while i < input.count, !"/\\?#".unicodeScalars.contains(input[i]) { i += 1 }
      var authority = input[authorityStart..<i]
      if let at = authority.lastIndex(of: "@") {
        authority = authority[(at + 1)...]
        guard !authority.isEmpty else { return nil }
      }
      // The port follows the last colon outside brackets.
      var hostPart = authority
      var portPart: ArraySlice<Unicode.Scalar>? = nil
      var depth = 0
      for k in authority.indices {
        if authority[k] == "[" { depth += 1 } else if authority[k] == "]" { depth -= 1 }
        if authority[k] == ":", depth == 0 {
          hostPart = authority[authority.startIndex..<k]
          portPart = authority[(k + 1)...]
          break
        }
      }
      guard !hostPart.isEmpty, let (host, exact) = Self.parseHost(hostPart) else { return nil }
      self.host = host
      hostIsExact = exact
      port = nil
      if let portPart, !portPart.isEmpty {
        guard portPart.allSatisfy(Self.isDigit) else { return nil }
        var value = 0
        for digit in portPart {
          value = value * 10 + Int(digit.value - 0x30)
          guard value <= 65535 else { return nil }
        }
        if value != (scheme == "https" ? 443 : 80) { port = value }
      }

      // The path: segments split on `/` and `\`, `.` and `..` resolved.
      var segments: [String] = []
      if i < input.count, input[i] == "/" || input[i] == "\\" {
        i += 1
        var segment: [Unicode.Scalar] = []
        while true {
          let end = i >= input.count || input[i] == "?" || input[i] == "#"
          if end || input[i] == "/" || input[i] == "\\" {
            let text = String(String.UnicodeScalarView(segment)).lowercased()
            if text == ".." || text == ".%2e" || text == "%2e." || text == "%2e%2e" {
              if !segments.isEmpty { segments.removeLast() }
              if end { segments.append("") }
            } else if text == "." || text == "%2e" {
              if end { segments.append("") }
            } else {
              segments.append(Self.encode(segment, Self.inPathSet))
            }
            segment = []
            if end { break }
          } else {
            segment.append(input[i])
          }
          i += 1
        }
      }
      path = "/" + segments.joined(separator: "/")
      query = nil
      fragment = nil
      if i < input.count, input[i] == "?" {
        let start = i + 1
        i = start
        while i < input.count, input[i] != "#" { i += 1 }
        query = Self.encode(input[start..<i], Self.inSpecialQuerySet)
      }
      if i < input.count, input[i] == "#" {
        fragment = Self.encode(input[(i + 1)...], Self.inFragmentSet)
      }
    }

    /// Whether two URLs have the same host as WebKit compares them: false when either host is not read exactly.
    public func hasSameHost(as other: WebURL) -> Bool { hostIsExact && other.hostIsExact && host == other.host }

    // MARK: - Hosts

    /// A host as the URL parser leaves it, and whether it is exact; nil when WebKit would refuse it.
    static func parseHost(_ text: ArraySlice<Unicode.Scalar>) -> (String, Bool)? {
      if text.first == "[" {
        guard text.last == "]", let address = parseIPv6(text.dropFirst().dropLast()) else { return nil }
        return ("[" + address + "]", true)
      }
      // Percent-decoded as bytes, then read as UTF-8 (WebKit refuses what is not).
      var bytes: [UInt8] = []
      var k = text.startIndex
      while k < text.endIndex {
        let c = text[k]
        if c == "%", k + 2 < text.endIndex, let high = hex(text[k + 1]), let low = hex(text[k + 2]) {
          bytes.append(high << 4 | low)
          k += 3
          continue
        }
        bytes.append(contentsOf: Array(String(Character(c)).utf8))
        k += 1
      }
      guard let decoded = LinkRuntime.decodeUTF8(bytes) else { return nil }
      var exact = true
      var ascii = ""
      if decoded.unicodeScalars.allSatisfy(\.isASCII) {
        ascii = decoded.lowercased()
      } else {
        // UTS #46's mappings that matter for hosts people type: fullwidth ASCII and the ideographic full stops.
        var mapped = String.UnicodeScalarView()
        for s in decoded.unicodeScalars {
          switch s.value {
          case 0x3002, 0xFF0E, 0xFF61: mapped.append(".")
          case 0xFF01...0xFF5E: mapped.append(Unicode.Scalar(s.value - 0xFEE0)!)
          default: mapped.append(s)
          }
        }
        let lowered = String(mapped).lowercased()
        var labels: [String] = []
        for label in lowered.split(separator: ".", omittingEmptySubsequences: false) {
          if label.unicodeScalars.allSatisfy(\.isASCII) {
            labels.append(String(label))
          } else {
            guard let encoded = punycode(Array(label.unicodeScalars)) else { return nil }
            labels.append("xn--" + encoded)
            exact = false
          }
        }
        ascii = labels.joined(separator: ".")
      }
      guard !ascii.isEmpty,
        !ascii.unicodeScalars.contains(where: {
          $0.value <= 0x20 || $0.value == 0x7F || "#%/:<>?@[\\]^|".unicodeScalars.contains($0)
        })
      else { return nil }
      if endsInNumber(ascii) {
        guard let address = parseIPv4(ascii) else { return nil }
        return (address, exact)
      }
      return (ascii, exact)
    }

    /// Whether the last label (before a trailing dot) is a number, so the host must be an IPv4 address.
    static func endsInNumber(_ host: String) -> Bool {
      var labels = host.split(separator: ".", omittingEmptySubsequences: false)
      if labels.last == "", labels.count > 1 { labels.removeLast() }
      guard let last = labels.last, !last.isEmpty else { return false }
      if last.allSatisfy({ $0.isASCII && $0.isNumber }) { return true }
      let lower = last.lowercased()
      return lower.hasPrefix("0x") && lower.dropFirst(2).allSatisfy(\.isHexDigit)
    }

    /// The WHATWG IPv4 parser: up to four parts, each decimal, `0x` hex or `0` octal; dotted decimal out.
    static func parseIPv4(_ host: String) -> String? {
      var parts = host.split(separator: ".", omittingEmptySubsequences: false)
      if parts.last == "", parts.count > 1 { parts.removeLast() }
      guard parts.count <= 4 else { return nil }
      var numbers: [UInt64] = []
      for part in parts {
        var text = Substring(part)
        var radix: UInt64 = 10
        if text.count >= 2, text.hasPrefix("0x") || text.hasPrefix("0X") {
          text = text.dropFirst(2)
          radix = 16
        } else if text.count >= 2, text.hasPrefix("0") {
          text = text.dropFirst()
          radix = 8
        }
        guard !part.isEmpty else { return nil }
        var value: UInt64 = 0
        for c in text {
          guard let digit = c.hexDigitValue, UInt64(digit) < radix else { return nil }
          value = value * radix + UInt64(digit)
          if value > 0xFFFF_FFFF { value = 0x1_0000_0000 }  // too big; kept past the limit without overflowing
        }
        numbers.append(value)
      }
      guard numbers.dropLast().allSatisfy({ $0 <= 255 }), let last = numbers.last,
        last < (1 as UInt64) << (8 * UInt64(5 - numbers.count))
      else { return nil }
      var address = last
      for (index, n) in numbers.dropLast().enumerated() { address += n << (8 * UInt64(3 - index)) }
      return (0..<4).map { String((address >> (8 * UInt64(3 - $0))) & 0xFF) }.joined(separator: ".")
    }

    /// The WHATWG IPv6 parser and serializer (the longest run of zero pieces compressed to `::`).
    static func parseIPv6(_ text: ArraySlice<Unicode.Scalar>) -> String? {
      let s = Array(text)
      var pieces = [UInt16](repeating: 0, count: 8)
      var index = 0
      var compress: Int? = nil
      var p = 0
      if p < s.count, s[p] == ":" {
        guard p + 1 < s.count, s[p + 1] == ":" else { return nil }
        p += 2
        index += 1
        compress = index
      }
      while p < s.count {
        guard index < 8 else { return nil }
        if s[p] == ":" {
          guard compress == nil else { return nil }
          p += 1
          index += 1
          compress = index
          continue
        }
        var value: UInt16 = 0
        var length = 0
        while length < 4, p < s.count, let digit = hex(s[p]) {
          value = value << 4 | UInt16(digit)
          p += 1
          length += 1
        }
        if p < s.count, s[p] == "." {
          // An IPv4 address in the last two pieces.
          guard length > 0, index <= 6 else { return nil }
          p -= length
          var seen = 0
          while p < s.count {
            var octet: Int? = nil
            if seen > 0 {
              guard s[p] == ".", seen < 4 else { return nil }
              p += 1
            }
            guard p < s.count, isDigit(s[p]) else { return nil }
            while p < s.count, isDigit(s[p]) {
              let digit = Int(s[p].value - 0x30)
              if octet == 0 { return nil }
              octet = (octet ?? 0) * 10 + digit
              guard octet! <= 255 else { return nil }
              p += 1
            }
            pieces[index] = pieces[index] << 8 | UInt16(octet!)
            seen += 1
            if seen == 2 || seen == 4 { index += 1 }
          }
          guard seen == 4 else { return nil }
          break
        }
        if p < s.count, s[p] == ":" {
          p += 1
          guard p < s.count else { return nil }
        } else if p < s.count {
          return nil
        }
        pieces[index] = value
        index += 1
      }
      if let compress {
        var swaps = index - compress
        index = 7
        while index != 0, swaps > 0 {
          pieces.swapAt(index, compress + swaps - 1)
          index -= 1
          swaps -= 1
        }
      } else if index != 8 {
        return nil
      }
      // The first longest run of two or more zero pieces becomes `::`.
      var best: (start: Int, length: Int)? = nil
      var k = 0
      while k < 8 {
        var end = k
        while end < 8, pieces[end] == 0 { end += 1 }
        if end - k >= 2, end - k > (best?.length ?? 0) { best = (k, end - k) }
        k = end == k ? k + 1 : end
      }
      var out = ""
      var skipping = false
      for (n, piece) in pieces.enumerated() {
        if let best, n >= best.start, n < best.start + best.length {
          if !skipping { out += n == 0 ? "::" : ":" }
          skipping = true
          continue
        }
        skipping = false
        out += String(piece, radix: 16)
        if n < 7 { out += ":" }
      }
      return out
    }

    /// RFC 3492 Punycode of one label's scalars; nil on overflow.
    static func punycode(_ input: [Unicode.Scalar]) -> String? {
      let base = 36
      let (tMin, tMax, skew, damp) = (1, 26, 38, 700)
      func digit(_ d: Int) -> Character { Character(Unicode.Scalar(UInt8(d < 26 ? 0x61 + d : 0x16 + d))) }
      func adapt(_ delta: Int, _ count: Int, _ first: Bool) -> Int {
        var delta = first ? delta / damp : delta / 2
        delta += delta / count
        var k = 0
        while delta > ((base - tMin) * tMax) / 2 {
          delta /= base - tMin
          k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
      }
      var output = ""
      for s in input where s.isASCII { output.append(Character(s)) }
      let basic = output.count
      var handled = basic
      if basic > 0 { output.append("-") }
      var n = 0x80
      var delta = 0
      var bias = 72
      while handled < input.count {
        let m = input.map { Int($0.value) }.filter { $0 >= n }.min()!
        let (product, overflow) = (m - n).multipliedReportingOverflow(by: handled + 1)
        guard !overflow, delta <= Int(Int32.max) - product else { return nil }
        delta += product
        n = m
        for s in input {
          let c = Int(s.value)
          if c < n {
            delta += 1
            guard delta <= Int(Int32.max) else { return nil }
          }
          if c == n {
            var q = delta
            var k = base
            while true {
              let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
              if q < t { break }
              output.append(digit(t + (q - t) % (base - t)))
              q = (q - t) / (base - t)
              k += base
            }
            output.append(digit(q))
            bias = adapt(delta, handled + 1, handled == basic)
            delta = 0
            handled += 1
          }
        }
        delta += 1
        n += 1
      }
      return output
    }

    // MARK: - Percent-encoding

    /// The path percent-encode set (beyond C0 controls and non-ASCII, which every set holds).
    static func inPathSet(_ s: Unicode.Scalar) -> Bool { " \"#<>?`{}".unicodeScalars.contains(s) }
    /// The special-query percent-encode set, for http(s) queries.
    static func inSpecialQuerySet(_ s: Unicode.Scalar) -> Bool { " \"#<>'".unicodeScalars.contains(s) }
    /// The fragment percent-encode set.
    static func inFragmentSet(_ s: Unicode.Scalar) -> Bool { " \"<>`".unicodeScalars.contains(s) }

    /// Percent-encodes C0 controls, non-ASCII (as UTF-8) and the scalars `set` holds; a `%` stays as it is.
    static func encode(_ scalars: some Collection<Unicode.Scalar>, _ set: (Unicode.Scalar) -> Bool) -> String {
      var out = ""
      for s in scalars {
        if s.value < 0x20 || s.value > 0x7E || set(s) {
          for byte in String(Character(s)).utf8 {
            out += "%" + String(byte >> 4, radix: 16).uppercased() + String(byte & 0xF, radix: 16).uppercased()
          }
        } else {
          out.unicodeScalars.append(s)
        }
      }
      return out
    }

    static func isAlpha(_ s: Unicode.Scalar) -> Bool { ("a"..."z").contains(s) || ("A"..."Z").contains(s) }
    static func isDigit(_ s: Unicode.Scalar) -> Bool { ("0"..."9").contains(s) }
    static func hex(_ s: Unicode.Scalar) -> UInt8? { s.isASCII ? LinkRuntime.hexValue(UInt8(s.value)) : nil }
  }
}
