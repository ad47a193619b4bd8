import Foundation
import Testing
import UniversalLinks

@testable import IPALinksKit

/// The HTML report is read by auditors on files attackers wrote, so most of these tests feed hostile strings
/// through every field and check the markup that comes out: only the renderer's own tags and attributes, no
/// event handler, no external reference, one script, the one the CSP hash allows.
struct HTMLReporterTests {
  /// `#expect(html.contains(…))` would print the whole page on failure; this prints only what is missing.
  private func expect(
    _ html: String, contains needles: String..., sourceLocation: SourceLocation = #_sourceLocation
  ) {
    for needle in needles {
      let found = html.contains(needle)
      #expect(found, "missing: \(needle)", sourceLocation: sourceLocation)
    }
  }

  private func expect(
    _ html: String, lacks needles: String..., sourceLocation: SourceLocation = #_sourceLocation
  ) {
    for needle in needles {
      let found = html.contains(needle)
      #expect(!found, "present: \(needle)", sourceLocation: sourceLocation)
    }
  }

  /// Markup that would run, load or restyle something if it reached the page unescaped.
  static let payloads = [
    "<script>window.__pwned=1</script>",
    "\"><img src=x onerror=\"window.__pwned=1\">",
    "'onmouseover='window.__pwned=1",
    "</style><script>window.__pwned=1</script>",
    "</title><svg onload=window.__pwned=1>",
    "</code></td></tr></table><iframe src=\"javascript:window.__pwned=1\">",
    "<a href=\"https://evil.example/x\">click</a><link rel=stylesheet href=//evil.example/s.css>",
    "&lt;already-escaped&gt; & <!-- comment -->",
  ]

  /// Each payload as the page must show it, written out by hand: `& < > " '` as entities, nothing else changed.
  static let escapedPayloads = [
    "&lt;script&gt;window.__pwned=1&lt;/script&gt;",
    "&quot;&gt;&lt;img src=x onerror=&quot;window.__pwned=1&quot;&gt;",
    "&#39;onmouseover=&#39;window.__pwned=1",
    "&lt;/style&gt;&lt;script&gt;window.__pwned=1&lt;/script&gt;",
    "&lt;/title&gt;&lt;svg onload=window.__pwned=1&gt;",
    "&lt;/code&gt;&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;&lt;iframe src=&quot;javascript:window.__pwned=1&quot;&gt;",
    "&lt;a href=&quot;https://evil.example/x&quot;&gt;click&lt;/a&gt;"
      + "&lt;link rel=stylesheet href=//evil.example/s.css&gt;",
    "&amp;lt;already-escaped&amp;gt; &amp; &lt;!-- comment --&gt;",
  ]

  /// One bundle with payload `p` in every string the report carries, and every AASA shape the page draws.
  static func hostileBundle(_ p: String, number: Int) -> BundleReport {
    var diagnostics: [Diagnostic] = []
    var bundle = BundleReport(path: "Payload/\(p).app", kind: .app)
    bundle.name = "App\(number) \(p)"
    bundle.bundleId = "com.example.\(number).\(p)"
    bundle.version = p
    bundle.build = p
    bundle.minimumOSVersion = p
    bundle.executable = p
    bundle.architectures = [p]
    bundle.signingIdentifier = p
    bundle.teamId = p
    bundle.appId = "TEAM.\(p)"
    bundle.encrypted = number % 2 == 0
    bundle.distribution = p
    var source = EntitlementSource(
      kind: .codeSignature, detail: p,
      entitlements: [EntitlementResolver.associatedDomainsKey: .array([.string("applinks:\(p)")]), p: .string(p)])
    source.effective = true
    bundle.entitlementSourceDetails = [
      source, EntitlementSource(kind: .provisioningProfile, detail: p, entitlements: ["x": .string(p)]),
    ]
    bundle.entitlementSources = ["code-signature"]
    bundle.provisioningProfile = try? JSONDecoder().decode(
      ProvisioningProfile.self,
      from: JSONSerialization.data(withJSONObject: ["name": p, "teamIdentifiers": [p], "kind": "development"]))

    var shop = AssociatedDomain.parse("applinks:shop.example.com", diagnostics: &diagnostics)
    var aasa = DomainAASA(
      fetch: AASAFetchResult(
        host: "shop.example.com", status: .ok, source: .cdn, url: p, httpStatus: 200, contentType: p, bytes: 10,
        appleFrom: p, remoteAddress: p, message: p,
        comparison: [AASAFetchResult(host: "shop.example.com", status: .notFound, source: .directWellKnown, message: p)]
      ))
    aasa.appListed = true
    aasa.signed = true
    aasa.listedApps = [p, "TEAM.\(p)"]
    aasa.diagnostics = [AASADiagnostic(.invalidAppID, at: "/applinks/\(p)", p)]
    aasa.appLinks = AppLinkRules(
      appID: "TEAM.\(p)", detailIndex: 0, substitutionVariables: [SubstitutionVariable(name: p, values: [p, p])],
      rules: [
        EffectiveRule(
          reference: MatchedRule(
            detailIndex: 0, componentIndex: 0, kind: .component, pattern: p, exclude: true,
            pointer: "/applinks/details/0/components/0/\(p)"),
          path: "/private/\(p)", query: .items([QueryItemPattern(name: p, pattern: p)]), fragment: p,
          caseSensitive: false),
        EffectiveRule(
          reference: MatchedRule(
            detailIndex: 0, componentIndex: 1, kind: .path, pattern: p, exclude: false, pointer: "/x/\(p)"),
          path: "/\(p)", query: .string(p), percentEncoded: false),
      ], exceedsDeviceSizeLimit: true)
    shop.aasa = aasa

    var hostile = AssociatedDomain.parse("applinks:\(p)", diagnostics: &diagnostics)
    var timeout = DomainAASA(
      fetch: AASAFetchResult(
        host: p, status: .timeout, source: .directWellKnown, location: p, appleFailureReason: p,
        appleFailureDetails: p, message: p))
    timeout.diagnostics = [AASADiagnostic(.missingApplinks, at: "", p)]
    hostile.aasa = timeout

    var unlisted = AssociatedDomain.parse("webcredentials:shop.example.com", diagnostics: &diagnostics)
    unlisted.aasa = DomainAASA(
      fetch: AASAFetchResult(host: "shop.example.com", status: .ok, source: .cache, message: p))
    var missing = AssociatedDomain.parse("applinks:*.app\(number).example.com", diagnostics: &diagnostics)
    missing.aasa = DomainAASA(
      fetch: AASAFetchResult(host: "app\(number).example.com", status: .notFound, source: .aasaDir, message: p))
    let unfetched = AssociatedDomain.parse("activitycontinuation:\(p)?mode=\(p)", diagnostics: &diagnostics)
    let inactive = AssociatedDomain.parse("applinks:10.0.0.\(number)", diagnostics: &diagnostics)
    bundle.associatedDomains = [shop, hostile, unlisted, missing, unfetched, inactive]
    bundle.urlSchemes = [p, "scheme\(number)"]
    bundle.queriedURLSchemes = [p]
    bundle.diagnostics =
      diagnostics + [Diagnostic(.warning, .domainUnknownParameter, p), Diagnostic(.info, .domainUppercase, p)]
    return bundle
  }

  static func hostileReports() -> [InspectionReport] {
    payloads.enumerated().map { index, p in
      var bundles = [hostileBundle(p, number: index + 1)]
      if index == 0 {
        var share = BundleReport(path: "Payload/\(p).app/PlugIns/\(p).appex", kind: .appExtension)
        share.name = p
        bundles.append(share)
      }
      return InspectionReport(
        input: "inputs/\(p).ipa", inputKind: .ipa, diagnostics: [Diagnostic(.error, .inputUnreadable, p)],
        bundles: index == payloads.count - 1 ? [] : bundles)
    }
  }

  /// Every tag of the page, as (name, [(attribute, value)]). Escaped text holds no `<`, so each `<` starts a tag the
  /// renderer wrote; a payload that got through unescaped shows up here as a tag or attribute it never writes.
  static func tags(_ html: String) -> [(name: String, attributes: [(String, String)])] {
    var out: [(String, [(String, String)])] = []
    var rest = Substring(html)
    while let open = rest.firstIndex(of: "<") {
      rest = rest[rest.index(after: open)...]
      if rest.hasPrefix("!") {
        rest = rest.drop { $0 != ">" }
        continue
      }
      let body = rest.prefix { $0 != ">" }
      rest = rest.dropFirst(body.count)
      if body.hasPrefix("/") { continue }
      var scanner = Substring(body.trimmingCharacters(in: CharacterSet(charactersIn: "/")))
      let name = String(scanner.prefix { !$0.isWhitespace }).lowercased()
      scanner = scanner.dropFirst(name.count)
      var attributes: [(String, String)] = []
      while true {
        scanner = scanner.drop { $0.isWhitespace }
        guard !scanner.isEmpty else { break }
        let attribute = String(scanner.prefix { $0 != "=" && !$0.isWhitespace }).lowercased()
        scanner = scanner.dropFirst(attribute.count)
        var value = ""
        if scanner.first == "=" {
          scanner = scanner.dropFirst()
          if scanner.first == "\"" {
            scanner = scanner.dropFirst()
            value = String(scanner.prefix { $0 != "\"" })
            scanner = scanner.dropFirst(value.count + 1)
          } else {
            value = String(scanner.prefix { !$0.isWhitespace })
            scanner = scanner.dropFirst(value.count)
          }
        }
        attributes.append((attribute, value))
      }
      out.append((name, attributes))
    }
    return out
  }

  static let allowedTags: Set<String> = [
    "html", "head", "meta", "title", "style", "body", "header", "main", "h1", "h2", "h3", "h4", "h5", "p", "span",
    "section", "article", "div", "table", "thead", "tbody", "tr", "th", "td", "a", "code", "ul", "li", "dl", "dt",
    "dd", "details", "summary", "b", "svg", "g", "rect", "line", "text", "script",
  ]
  static let allowedAttributes: Set<String> = [
    "lang", "charset", "http-equiv", "content", "name", "class", "id", "href", "data-type", "data-col", "data-sort",
    "width", "height", "viewbox", "role", "aria-label", "x", "y", "x1", "x2", "y1", "y2", "text-anchor",
  ]

  @Test func hostileStringsNeverBecomeMarkup() {
    let html = HTMLReporter.render(Self.hostileReports(), title: Self.payloads[3])
    let tags = Self.tags(html)
    #expect(tags.count > 500)
    var problems: [String] = []
    for tag in tags {
      if !Self.allowedTags.contains(tag.name) { problems.append("<\(tag.name)>") }
      for (attribute, value) in tag.attributes {
        // No event handlers, no attribute the renderer does not write, no URL scheme in any value.
        if !Self.allowedAttributes.contains(attribute) || attribute.hasPrefix("on")
          || (value.contains(":") && attribute != "content")
        {
          problems.append("<\(tag.name) \(attribute)=\"\(value)\">")
        }
      }
    }
    #expect(problems.isEmpty, "\(problems.count) problems, first: \(problems.prefix(5))")
    // Links only jump within the page, to generated anchors; ids are generated too.
    let hrefs = tags.flatMap { $0.attributes.filter { $0.0 == "href" }.map(\.1) }
    #expect(!hrefs.isEmpty)
    #expect(hrefs.allSatisfy { $0.wholeMatch(of: /#(app|input)-\d+/) != nil })
    let ids = tags.flatMap { $0.attributes.filter { $0.0 == "id" }.map(\.1) }
    #expect(ids.allSatisfy { $0.wholeMatch(of: /(app|input)-\d+|overview|apps|shared|chart/) != nil })
    #expect(Set(ids).count == ids.count)
    #expect(tags.filter { $0.name == "script" }.count == 1)
    #expect(tags.filter { $0.name == "meta" }.count == 4)
  }

  @Test func payloadsAreShownEscapedNotDropped() {
    let html = HTMLReporter.render(Self.hostileReports(), title: Self.payloads[3])
    #expect(Self.escapedPayloads.count == Self.payloads.count)
    for (p, escaped) in zip(Self.payloads, Self.escapedPayloads) {
      expect(html, lacks: p)
      expect(html, contains: escaped)
    }
    expect(html, contains: "<title>&lt;/style&gt;&lt;script&gt;window.__pwned=1&lt;/script&gt;</title>")
    // The five characters markup needs, each once, and text around them kept as it is.
    #expect(HTMLReporter.esc(#"<a b="c">'&'</a> d"#) == "&lt;a b=&quot;c&quot;&gt;&#39;&amp;&#39;&lt;/a&gt; d")
    for needle in ["<img", "<iframe", "<svg onload", "<link", "<script>w", "<a href=\"h", "url(", "@import"] {
      expect(html.lowercased(), lacks: needle)
    }
  }

  @Test func invisibleAndBidiCharactersAreMadeVisible() {
    var bundle = BundleReport(path: "Payload/A.app", kind: .app)
    bundle.name = "safe\u{202E}gpj.exe\u{0}\u{1B}[2J\u{200B}"
    let html = HTMLReporter.render([
      InspectionReport(input: "a.ipa", inputKind: .ipa, diagnostics: [], bundles: [bundle])
    ])
    expect(html, lacks: "\u{202E}", "\u{0}", "\u{1B}", "\u{200B}")
    expect(html, contains: "safe<span class=\"ctl\">\\u{202e}</span>gpj.exe<span class=\"ctl\">\\u{0}</span>")
    #expect(HTMLReporter.esc("a\u{202E}b") == "a\\u{202e}b")
  }

  @Test func onlyTheHashedScriptRunsAndNothingIsFetched() throws {
    let html = HTMLReporter.render(Self.hostileReports())
    let opening = try #require(html.range(of: "<script>"))
    let closing = try #require(html.range(of: "</script>"))
    #expect(String(html[opening.upperBound..<closing.lowerBound]) == HTMLReporter.script)
    let scripts = html.components(separatedBy: "<script").count - 1
    #expect(scripts == 1)
    let hash = Data(Digest.sha256(Array(HTMLReporter.script.utf8))).base64EncodedString()
    #expect(hash == HTMLReporter.scriptHash, "update HTMLReporter.scriptHash to \(hash)")
    let csp =
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
      + "img-src data:; script-src 'sha256-\(hash)'; base-uri 'none'; form-action 'none'\">"
    expect(html, contains: csp)
    let head = html.prefix(100)
    #expect(head.hasPrefix("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta http-equiv"))
    #expect(!HTMLReporter.script.contains("</"))
    for scheme in ["http:", "https:", "//", "url("] { #expect(!HTMLReporter.css.contains(scheme)) }
  }

  @Test func sha256MatchesKnownAnswers() {
    func hex(_ s: String) -> String { Digest.sha256(Array(s.utf8)).map { String(format: "%02x", $0) }.joined() }
    #expect(hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    #expect(hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(
      hex(String(repeating: "a", count: 1000))
        == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
  }

  @Test func overviewCountsSharedHostsAndChart() {
    let html = HTMLReporter.render(Self.hostileReports())
    expect(html, contains: "<section id=\"overview\">")
    expect(html, contains: "<table class=\"sortable\" id=\"apps\">")
    expect(html, contains: "<th data-type=\"num\" data-col=\"domains\">Domains</th>")
    // App 1: 6 domains, 4 of them applinks; 2 ok, 2 failed (timeout and not-found); 2 schemes.
    expect(html, contains: "<td>6</td><td>4</td><td>2</td><td>2</td><td>2</td></tr>")
    // shop.example.com is claimed by every bundle that has domains; the app-specific wildcards are not shared.
    let shared = html.components(separatedBy: "id=\"shared\"")[1].components(separatedBy: "</table>")[0]
    expect(shared, contains: "<code>shop.example.com</code></td><td>\(Self.payloads.count - 1)</td>")
    expect(shared, lacks: "app1.example.com")
    expect(shared, contains: "applinks, webcredentials")
    let chart = html.components(separatedBy: "<svg")[1].components(separatedBy: "</svg>")[0]
    #expect(chart.components(separatedBy: "class=\"seg-ok\"").count - 1 == Self.payloads.count - 1 + 1)
    expect(chart, contains: "class=\"seg-unknown\"")
    expect(chart, contains: "class=\"seg-definite\"")
    expect(chart, contains: "class=\"seg-none\"")
    // The unreadable input still has a row, linking to its section.
    expect(html, contains: "<a href=\"#input-\(Self.payloads.count)\">(nothing read)</a>")
    expect(html, contains: "<span class=\"badge st-unreadable\">unreadable</span>")
  }

  @Test func domainsShowStatusBadgesListingAndRulesInOrder() throws {
    let html = HTMLReporter.render([Self.hostileReports()[2]])
    expect(html, lacks: "id=\"overview\"")
    expect(html, contains: "<span class=\"badge ok\">ok</span>")
    expect(html, contains: "<span class=\"badge unknown\">timeout</span>")
    expect(html, contains: "<span class=\"badge definite\">not-found</span>")
    expect(html, contains: "<span class=\"badge none\">not fetched</span>")
    expect(html, contains: "<span class=\"yes\">yes</span>")
    expect(html, contains: "<span class=\"no\">no</span>")
    let exclude = try #require(html.range(of: "<tr class=\"exclude\"><td>1</td>"))
    let match = try #require(html.range(of: "<tr class=\"match\"><td>2</td>"))
    #expect(exclude.lowerBound < match.lowerBound)
    expect(html, contains: "case-insensitive")
    expect(html, contains: "legacy paths</span>, <span class=\"nw\">not percent-encoded</span>")
    expect(html, contains: "over 128 KB")
    expect(html, contains: "does not list")
    expect(html, contains: "<span class=\"badge ok\">✓ effective</span>")
    expect(html, contains: "<span class=\"badge definite\">inactive</span>")
    expect(html, contains: "compared</span> direct-well-known gave not-found <span class=\"no\">(differs)</span>")
  }

  @Test func emptyInputStillRendersAPage() {
    let html = HTMLReporter.render([])
    expect(html, contains: "0 inputs")
    #expect(html.hasSuffix("</html>\n") as Bool)
  }
}

/// FIPS 180-4 SHA-256, small and slow: the test recomputes the CSP hash without a crypto dependency.
private enum Digest {
  private static let k: [UInt32] = [
    0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
    0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
    0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
    0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
    0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
    0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
    0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
    0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
  ]

  static func sha256(_ message: [UInt8]) -> [UInt8] {
    var h: [UInt32] = [
      0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]
    var data = message + [0x80]
    while data.count % 64 != 56 { data.append(0) }
    let bits = UInt64(message.count) * 8
    data += (0..<8).map { UInt8(truncatingIfNeeded: bits >> (56 - 8 * UInt64($0))) }
    func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }
    for chunk in stride(from: 0, to: data.count, by: 64) {
      var w = (0..<16).map { i in
        (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(data[chunk + 4 * i + $1]) }
      }
      for i in 16..<64 {
        let s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)
        let s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)
        w.append(w[i - 16] &+ s0 &+ w[i - 7] &+ s1)
      }
      var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
      for i in 0..<64 {
        let t1 = hh &+ (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) &+ ((e & f) ^ (~e & g)) &+ k[i] &+ w[i]
        let t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) &+ ((a & b) ^ (a & c) ^ (b & c))
        (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
      }
      for (i, v) in [a, b, c, d, e, f, g, hh].enumerated() { h[i] = h[i] &+ v }
    }
    return h.flatMap { v in (0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * UInt32($0))) } }
  }
}
