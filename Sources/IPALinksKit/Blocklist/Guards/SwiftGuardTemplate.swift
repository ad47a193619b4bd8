/// Writes `UniversalLinkGuard.swift`: a self-contained Swift file that embeds a rules document and a port of the
/// `UniversalLinks` matcher, so an app can tell which URLs would leave its web view for another app.
///
/// The generated file depends on Foundation only (plus WebKit where it exists, for the navigation-policy helper), so
/// it compiles on Linux as well as on Apple platforms. Its matcher must stay in step with
/// `Sources/UniversalLinks/Match` (`AASAMatcher`, `Subject`, `UniversalLinkURL`) and with ``JSGuardTemplate``.
enum SwiftGuardTemplate {
  /// The complete Swift source: `header` (comment lines, verbatim), `import Foundation`, the guard, then
  /// `rulesJSON` embedded in a raw string literal that nothing inside the JSON can close or interpolate into.
  static func render(rulesJSON: String, header: String) -> String {
    let json = sourceSafe(rulesJSON)
    let hashes = String(repeating: "#", count: rawStringHashCount(for: json))
    var out = header
    if !out.isEmpty && !out.hasSuffix("\n") { out += "\n" }
    if !out.isEmpty { out += "\n" }
    out += "import Foundation\n\n"
    out += body
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
      /// The rules document written by ipalinks: per app, the hosts it claims and its rules in the order iOS tries
      /// them, patterns already prepared (paths normalized, variables expanded, lower-cased when case-insensitive).
      /// A raw string, so nothing in it is an escape or an interpolation.
      fileprivate static let embeddedRulesJSON =
    """#

  private static let embeddingClosing = #"""
    }

    """#

  // The guard itself. Keep it in step with `Sources/UniversalLinks/Match` and with the JavaScript guard.
  private static let body = #"""
    // MARK: - How to use
    //
    // UniversalLinkGuard answers one question: would iOS hand this URL to one of the apps below instead of loading
    // it? In a WKWebView such a link leaves your app for the other app. Ask before a navigation and keep it here.
    //
    //     let linkGuard = UniversalLinkGuard.shared          // decodes the embedded rules on first use
    //     switch linkGuard.verdict(for: url) {
    //     case .opensApp(let appID, let rule): print("would open \(appID), rule \(rule)")
    //     case .excluded(let appID, let rule): print("\(appID) excludes it, rule \(rule)")
    //     case .staysInWebView: break
    //     }
    //     linkGuard.opensApp(url)                             // the same as a Bool
    //     linkGuard.verdict(for: "https://example.com/buy/42") // strings too; unparsable ones stay in the web view
    //
    // In your WKNavigationDelegate (Apple platforms, where WebKit exists):
    //
    //     func webView(
    //       _ webView: WKWebView, decidePolicyFor navigationAction: WKNavigationAction,
    //       decisionHandler: @escaping @MainActor @Sendable (WKNavigationActionPolicy) -> Void
    //     ) {
    //       UniversalLinkGuard.shared.decidePolicy(for: navigationAction, decisionHandler: decisionHandler)
    //     }
    //
    //     // or, with the async form of the delegate method:
    //     func webView(
    //       _ webView: WKWebView, decidePolicyFor navigationAction: WKNavigationAction
    //     ) async -> WKNavigationActionPolicy {
    //       UniversalLinkGuard.shared.navigationPolicy(for: navigationAction)
    //     }
    //
    // How a URL is decided (rules match as in `ipalinks match`): only http and https URLs; for each app, the entry
    // for the URL's exact host, else the longest wildcard (`*.example.com`) entry covering it; in that entry the
    // rules are tried in order and the first that matches decides (exclude or open). The first app that opens the
    // URL wins; an exclusion only reports which app excluded it.

    /// Tells whether iOS would open an app, rather than the web view, for a URL, from the universal-link rules
    /// embedded in this file.
    public struct UniversalLinkGuard: Sendable {
      /// What iOS would do with a URL.
      public enum Verdict: Equatable, Sendable {
        /// The URL opens `appID`; `rule` is the JSON pointer of the deciding rule in the domain's AASA file.
        case opensApp(appID: String, rule: String)
        /// A rule of `appID` excludes the URL (and no app opens it); `rule` is that rule's JSON pointer.
        case excluded(appID: String, rule: String)
        /// No app claims the URL, or it is not an http(s) URL.
        case staysInWebView
      }

      /// The guard for the rules embedded in this file, decoded on first use.
      public static let shared = UniversalLinkGuard(rulesJSON: embeddedRulesJSON)

      private let apps: [App]

      /// A guard for another rules document in the same format (for tests; apps use ``shared``).
      init(rulesJSON: String) {
        do {
          let data = Data(rulesJSON.utf8)
          // Two passes: references to a variable's alternatives (`{"choice": n}`) read the shared table while the
          // rules decode, so each variable's values are held once however many rules use it.
          let decoder = JSONDecoder()
          decoder.userInfo[Pattern.choicesKey] = try JSONDecoder().decode(ChoiceTable.self, from: data).choices
          apps = try decoder.decode(RulesDocument.self, from: data).apps
        } catch {
          // The document is written by ipalinks, so this is a bug; without rules every URL stays allowed.
          assertionFailure("UniversalLinkGuard: the embedded rules do not decode: \(error)")
          apps = []
        }
      }

      /// What iOS would do with `url`.
      public func verdict(for url: URL) -> Verdict { verdict(for: TargetURL(url)) }

      /// What iOS would do with the URL `string`; a string that is not an absolute URL stays in the web view.
      ///
      /// The string is split the way `ipalinks match` splits it (not with `URL(string:)`, which re-encodes every
      /// `%` of a part that also holds a character needing encoding), so both give the same verdict.
      public func verdict(for string: String) -> Verdict { verdict(for: TargetURL(string: string)) }

      /// Whether iOS would open an app for `url`.
      public func opensApp(_ url: URL) -> Bool {
        if case .opensApp = verdict(for: url) { return true }
        return false
      }

      private func verdict(for target: TargetURL?) -> Verdict {
        guard let target else { return .staysInWebView }
        var firstExclusion: Verdict? = nil
        for app in apps {
          guard let scope = app.scope(for: target.host),
            let rule = scope.rules.first(where: { $0.matches(target) })
          else { continue }
          // Any app that opens the URL wins over an earlier app that excludes it.
          if !rule.exclude { return .opensApp(appID: app.appID, rule: rule.pointer) }
          if firstExclusion == nil { firstExclusion = .excluded(appID: app.appID, rule: rule.pointer) }
        }
        return firstExclusion ?? .staysInWebView
      }
    }

    // MARK: - Rules

    extension UniversalLinkGuard {
      private struct RulesDocument: Decodable {
        let apps: [App]
      }

      /// The document's shared alternatives: `choices[n]` is what `{"choice": n}` in a pattern stands for.
      private struct ChoiceTable: Decodable {
        let choices: [[[Pattern.Piece]]]

        init(from decoder: any Decoder) throws {
          let c = try decoder.container(keyedBy: CodingKeys.self)
          choices = try c.decodeIfPresent([[[Pattern.Piece]]].self, forKey: .choices) ?? []
        }

        private enum CodingKeys: String, CodingKey { case choices }
      }

      /// One app and the hosts it claims (`applinks:` entries of its entitlements).
      fileprivate struct App: Decodable, Sendable {
        let appID: String
        let scopes: [Scope]

        /// The entry that governs `host`: the exact one, else the longest wildcard entry covering a subdomain.
        func scope(for host: String) -> Scope? {
          if let exact = scopes.first(where: { !$0.wildcard && $0.host == host }) { return exact }
          var best: Scope? = nil
          // `*.example.com` covers `a.example.com`, not `example.com` itself.
          for scope in scopes where scope.wildcard && host.hasSuffix("." + scope.host) {
            if scope.host.utf8.count > best?.host.utf8.count ?? -1 { best = scope }
          }
          return best
        }
      }

      /// One host: `example.com`, or `*.example.com` with `wildcard` set and `host` without the `*.`.
      fileprivate struct Scope: Decodable, Sendable {
        let host: String
        let wildcard: Bool
        let rules: [Rule]

        init(from decoder: any Decoder) throws {
          let c = try decoder.container(keyedBy: CodingKeys.self)
          // URL hosts are compared lower-cased.
          host = try c.decode(String.self, forKey: .host).lowercased()
          wildcard = try c.decodeIfPresent(Bool.self, forKey: .wildcard) ?? false
          rules = try c.decodeIfPresent([Rule].self, forKey: .rules) ?? []
        }

        private enum CodingKeys: String, CodingKey { case host, wildcard, rules }
      }

      /// One AASA component with its defaults merged in. A nil pattern constrains nothing.
      fileprivate struct Rule: Decodable, Sendable {
        let pointer: String
        let exclude: Bool
        let caseSensitive: Bool
        let percentEncoded: Bool
        let path: Pattern?
        let query: Pattern?
        let items: [Item]?
        let fragment: Pattern?

        struct Item: Decodable, Sendable {
          let name: String
          let value: Pattern
        }

        init(from decoder: any Decoder) throws {
          let c = try decoder.container(keyedBy: CodingKeys.self)
          pointer = try c.decodeIfPresent(String.self, forKey: .pointer) ?? ""
          exclude = try c.decodeIfPresent(Bool.self, forKey: .exclude) ?? false
          caseSensitive = try c.decodeIfPresent(Bool.self, forKey: .caseSensitive) ?? true
          percentEncoded = try c.decodeIfPresent(Bool.self, forKey: .percentEncoded) ?? true
          path = try c.decodeIfPresent(Pattern.self, forKey: .path)
          query = try c.decodeIfPresent(Pattern.self, forKey: .query)
          items = try c.decodeIfPresent([Item].self, forKey: .items)
          fragment = try c.decodeIfPresent(Pattern.self, forKey: .fragment)
        }

        private enum CodingKeys: String, CodingKey {
          case pointer, exclude, caseSensitive, percentEncoded, path, query, items, fragment
        }

        /// Whether every part the rule constrains matches, each read the way the rule asks.
        func matches(_ target: TargetURL) -> Bool {
          let reading = target.reading(percentEncoded: percentEncoded, caseSensitive: caseSensitive)
          if let path, !path.matches(reading.path) { return false }
          if let query, !query.matches(reading.query) { return false }
          if let fragment, !fragment.matches(reading.fragment) { return false }
          for item in items ?? [] {
            // Every occurrence of the name must match; a missing item reads as "".
            var seen = false
            for pair in reading.items where pair.name == item.name {
              seen = true
              if !item.value.matches(pair.value) { return false }
            }
            if !seen && !item.value.matches([]) { return false }
          }
          return true
        }
      }

      /// A prepared AASA pattern; it must match the whole text.
      ///
      /// JSON: an array of pieces, each a string (literal text), 0 (`?`, one Unicode scalar), 1 (`*`, any run of
      /// scalars), or a multi-valued `$(variable)`: `{"choice": n}`, the document's `choices[n]`, or an inline array
      /// of alternatives; each alternative is an array of pieces.
      fileprivate struct Pattern: Decodable, Sendable {
        static let choicesKey = CodingUserInfoKey(rawValue: "UniversalLinkGuard.choices")!

        private struct ChoiceReference: Decodable {
          let choice: Int
        }

        enum Piece: Decodable, Sendable {
          case literal([Unicode.Scalar])
          case any
          case star
          case choice([[Piece]])
          /// Anything this file does not understand; matches nothing, as an undefined variable does.
          case never

          init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let text = try? c.decode(String.self) {
              self = .literal(Array(text.unicodeScalars))
            } else if let code = try? c.decode(Int.self) {
              self = code == 0 ? .any : code == 1 ? .star : .never
            } else if let alternatives = try? c.decode([[Piece]].self) {
              self = .choice(alternatives)
            } else if let reference = try? c.decode(ChoiceReference.self) {
              let table = decoder.userInfo[Pattern.choicesKey] as? [[[Piece]]] ?? []
              self = table.indices.contains(reference.choice) ? .choice(table[reference.choice]) : .never
            } else {
              self = .never
            }
          }
        }

        let pieces: [Piece]

        init(from decoder: any Decoder) throws {
          pieces = try decoder.singleValueContainer().decode([Piece].self)
        }

        func matches(_ text: [Unicode.Scalar]) -> Bool {
          var start = [Bool](repeating: false, count: text.count + 1)
          start[0] = true
          return Self.advance(pieces, from: start, over: text)[text.count]
        }

        /// A position-set simulation (Thompson NFA): `reach[i]` says the pieces so far can end at offset `i`. Each
        /// piece maps that set to the next in one pass, so the cost grows with pieces × text length and never
        /// explodes the way backtracking does on patterns like `*a*a*a*b`.
        private static func advance(_ pieces: [Piece], from start: [Bool], over text: [Unicode.Scalar]) -> [Bool] {
          let n = text.count
          var reach = start
          for piece in pieces {
            var next = [Bool](repeating: false, count: n + 1)
            switch piece {
            case .literal(let literal):
              let k = literal.count
              if k <= n {
                for i in 0...(n - k) where reach[i] && text[i..<(i + k)].elementsEqual(literal) { next[i + k] = true }
              }
            case .any:
              for i in 0..<n where reach[i] { next[i + 1] = true }
            case .star:
              var seen = false
              for i in 0...n {
                seen = seen || reach[i]
                next[i] = seen
              }
            case .choice(let alternatives):
              // Run every alternative from every reachable offset at once.
              for alternative in alternatives {
                let ends = advance(alternative, from: reach, over: text)
                for i in 0...n where ends[i] { next[i] = true }
              }
            case .never:
              break
            }
            reach = next
            if !reach.contains(true) { break }
          }
          return reach
        }
      }
    }

    // MARK: - URLs

    extension UniversalLinkGuard {
      /// The parts of a URL that rules read, percent-encoded as the URL carries them, and the four ways a rule can
      /// read them (encoded or decoded, case kept or lower-cased), each built on first use.
      fileprivate final class TargetURL {
        struct Reading {
          /// `//` collapsed, with a leading and a trailing `/`; an empty path reads as `/`.
          let path: [Unicode.Scalar]
          /// The whole query without `?`; "" when there is none.
          let query: [Unicode.Scalar]
          /// `name=value` pairs split on `&` and the first `=`; a pair without `=` has the value "".
          let items: [(name: String, value: [Unicode.Scalar])]
          /// Without `#`; "" when there is none.
          let fragment: [Unicode.Scalar]
        }

        /// Lower-cased, without a trailing dot.
        let host: String
        let path: String
        let query: String
        let fragment: String
        private var readings: [Reading?] = [nil, nil, nil, nil]

        /// Nil unless an http(s) URL with a host.
        private init?(scheme: String, host: String, path: String, query: String, fragment: String) {
          guard scheme.lowercased() == "http" || scheme.lowercased() == "https", !host.isEmpty else { return nil }
          var h = host.lowercased()
          if h.hasSuffix("."), h.count > 1 { h.removeLast() }
          self.host = h
          // Encoded the way the ipalinks matcher encodes: every `%` starts an escape, no raw space, `|`, `^`,
          // non-ASCII… (a no-op for what Foundation produces from a valid URL).
          self.path = Self.encode(path, encodeHash: false)
          self.query = Self.encode(query, encodeHash: false)
          self.fragment = Self.encode(fragment, encodeHash: true)
        }

        convenience init?(_ url: URL) {
          guard let parts = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return nil }
          self.init(
            scheme: parts.scheme ?? "", host: parts.host ?? "", path: parts.percentEncodedPath,
            query: parts.percentEncodedQuery ?? "", fragment: parts.percentEncodedFragment ?? "")
        }

        /// Splits `scheme://authority/path?query#fragment` (RFC 3986) as `ipalinks match` does; user info and port
        /// are dropped from the authority.
        convenience init?(string: String) {
          let s = Array(string.unicodeScalars)
          func isAlpha(_ c: Unicode.Scalar) -> Bool { ("a"..."z").contains(c) || ("A"..."Z").contains(c) }
          func text(_ part: ArraySlice<Unicode.Scalar>) -> String { String(String.UnicodeScalarView(part)) }
          guard let first = s.first, isAlpha(first) else { return nil }
          var i = 1
          while i < s.count, isAlpha(s[i]) || ("0"..."9").contains(s[i]) || "+-.".unicodeScalars.contains(s[i]) {
            i += 1
          }
          guard i + 2 < s.count, s[i] == ":", s[i + 1] == "/", s[i + 2] == "/" else { return nil }
          let scheme = text(s[0..<i])
          i += 3
          let authorityStart = i
          while i < s.count, s[i] != "/", s[i] != "?", s[i] != "#" { i += 1 }
          var authority = s[authorityStart..<i]
          if let at = authority.lastIndex(of: "@") { authority = authority[(at + 1)...] }
          if authority.first == "[" {
            if let close = authority.firstIndex(of: "]") { authority = authority[...close] }
          } else if let colon = authority.firstIndex(of: ":") {
            authority = authority[..<colon]
          }
          let pathStart = i
          while i < s.count, s[i] != "?", s[i] != "#" { i += 1 }
          let path = text(s[pathStart..<i])
          var query = ""
          if i < s.count, s[i] == "?" {
            let start = i + 1
            i = start
            while i < s.count, s[i] != "#" { i += 1 }
            query = text(s[start..<i])
          }
          let fragment = i < s.count && s[i] == "#" ? text(s[(i + 1)...]) : ""
          self.init(scheme: scheme, host: text(authority), path: path, query: query, fragment: fragment)
        }

        func reading(percentEncoded: Bool, caseSensitive: Bool) -> Reading {
          let slot = (percentEncoded ? 0 : 1) + (caseSensitive ? 0 : 2)
          if let cached = readings[slot] { return cached }
          func prepare(_ encoded: Substring) -> String {
            let text = percentEncoded ? String(encoded) : Self.percentDecode(String(encoded))
            return caseSensitive ? text : text.lowercased()
          }
          var items: [(name: String, value: [Unicode.Scalar])] = []
          if !query.isEmpty {
            for item in query.split(separator: "&", omittingEmptySubsequences: false) {
              // Name and value are decoded separately, so an escaped `=` or `&` stays inside its value.
              if let eq = item.firstIndex(of: "=") {
                let value = prepare(item[item.index(after: eq)...])
                items.append((prepare(item[..<eq]), Array(value.unicodeScalars)))
              } else {
                items.append((prepare(item), []))
              }
            }
          }
          let reading = Reading(
            path: Self.normalizePath(prepare(Substring(path))),
            query: Array(prepare(Substring(query)).unicodeScalars),
            items: items,
            fragment: Array(prepare(Substring(fragment)).unicodeScalars))
          readings[slot] = reading
          return reading
        }

        private static func normalizePath(_ path: String) -> [Unicode.Scalar] {
          var out: [Unicode.Scalar] = ["/"]
          for c in path.unicodeScalars where !(c == "/" && out.last == "/") { out.append(c) }
          if out.last != "/" { out.append("/") }
          return out
        }

        /// Percent-encodes what may not appear in a URL (controls, space, non-ASCII, `"<>\^`{|}`, a `%` that
        /// starts no escape, and `#` in a fragment); valid `%XX` escapes stay as they are.
        private static func encode(_ text: String, encodeHash: Bool) -> String {
          let scalars = Array(text.unicodeScalars)
          let unsafe = Set("\"<>\\^`{|}".unicodeScalars)
          let hexDigits = Array("0123456789ABCDEF".unicodeScalars)
          func isHex(_ k: Int) -> Bool { k < scalars.count && scalars[k].properties.isASCIIHexDigit }
          var out = String.UnicodeScalarView()
          for (i, c) in scalars.enumerated() {
            if c == "%" && !(isHex(i + 1) && isHex(i + 2)) {
              out.append(contentsOf: "%25".unicodeScalars)
            } else if c.value <= 0x20 || c.value >= 0x7F || unsafe.contains(c) || (c == "#" && encodeHash) {
              for byte in String(c).utf8 {
                out.append("%")
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0xF)])
              }
            } else {
              out.append(c)
            }
          }
          return String(out)
        }

        /// Decodes `%XX` escapes as UTF-8. When the bytes are not valid UTF-8 the text stays encoded, so a broken
        /// escape can only fail to match, never match something else.
        private static func percentDecode(_ text: String) -> String {
          guard text.utf8.contains(UInt8(ascii: "%")) else { return text }
          let bytes = Array(text.utf8)
          var out: [UInt8] = []
          var i = 0
          while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count, let hi = hexValue(bytes[i + 1]),
              let lo = hexValue(bytes[i + 2])
            {
              out.append(hi << 4 | lo)
              i += 3
            } else {
              out.append(bytes[i])
              i += 1
            }
          }
          var iterator = out.makeIterator()
          var decoder = UTF8()
          var decoded = String.UnicodeScalarView()
          while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): decoded.append(scalar)
            case .emptyInput: return String(decoded)
            case .error: return text
            }
          }
        }

        private static func hexValue(_ byte: UInt8) -> UInt8? {
          switch byte {
          case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
          case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
          case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
          default: return nil
          }
        }
      }
    }

    // MARK: - WebKit

    #if canImport(WebKit)
      import WebKit

      /// How ``UniversalLinkGuard/decidePolicy(for:policy:decisionHandler:)`` keeps a universal link in the web view.
      public enum UniversalLinkPolicy: Sendable {
        /// Cancel the navigation: nothing loads. If you want the page, load it yourself with
        /// `webView.load(URLRequest(url: url))`: WebKit does not try app links for loads started from code. That
        /// load comes back through your delegate, so answer `.allow` for it (remember the URL you loaded).
        case cancel
        /// Let the page load in the web view but tell WebKit not to try app links for it. This is WebKit's
        /// private policy `_WKNavigationActionPolicyAllowWithoutTryingAppLink` (`.allow` + 2): undocumented SPI, so a
        /// future iOS may change it and App Review could object. It keeps the navigation as the page made it
        /// (method, body, referrer); if the SPI worries you, use `.cancel` and load the URL yourself.
        case allowWithoutOpeningApp
      }

      extension UniversalLinkGuard {
        /// WebKit's private "allow, but do not try app links" value (`WKNavigationActionPolicyAllow + 2`).
        private static var allowWithoutTryingAppLinks: WKNavigationActionPolicy {
          WKNavigationActionPolicy(rawValue: WKNavigationActionPolicy.allow.rawValue + 2) ?? .cancel
        }

        /// The policy for a navigation: `.allow` unless its URL would open an app, then the one `policy` picks.
        ///
        /// Every navigation is checked, whatever its type or frame: iOS opens apps mainly for main-frame,
        /// link-activated navigations, but page scripts and form submissions can reach a universal link too.
        @MainActor
        public func navigationPolicy(
          for action: WKNavigationAction, policy: UniversalLinkPolicy = .allowWithoutOpeningApp
        ) -> WKNavigationActionPolicy {
          guard let url = action.request.url, opensApp(url) else { return .allow }
          switch policy {
          case .cancel: return .cancel
          case .allowWithoutOpeningApp: return Self.allowWithoutTryingAppLinks
          }
        }

        /// Answers `webView(_:decidePolicyFor:decisionHandler:)` for you; see ``navigationPolicy(for:policy:)``.
        @MainActor
        public func decidePolicy(
          for action: WKNavigationAction, policy: UniversalLinkPolicy = .allowWithoutOpeningApp,
          decisionHandler: @escaping @MainActor @Sendable (WKNavigationActionPolicy) -> Void
        ) {
          decisionHandler(navigationPolicy(for: action, policy: policy))
        }
      }
    #endif

    """#
}
