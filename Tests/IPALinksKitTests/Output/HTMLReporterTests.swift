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
    "dd", "details", "summary", "b", "svg", "g", "rect", "line", "text", "script", "small", "br", "input", "select",
    "option", "label", "noscript",
  ]
  static let allowedAttributes: Set<String> = [
    "lang", "charset", "http-equiv", "content", "name", "class", "id", "href", "data-type", "data-col", "data-sort",
    "width", "height", "viewbox", "role", "aria-label", "x", "y", "x1", "x2", "y1", "y2", "text-anchor", "data-st",
    "data-sv", "data-sh", "data-h", "hidden", "type", "placeholder", "aria-live", "value", "aria-hidden",
    "preserveaspectratio",
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
    #expect(hrefs.allSatisfy { $0.wholeMatch(of: /#(app|input|h)-\d+/) != nil })
    let ids = tags.flatMap { $0.attributes.filter { $0.0 == "id" }.map(\.1) }
    #expect(
      ids.allSatisfy {
        $0.wholeMatch(
          of:
            /(app|input|h)-\d+|overview|apps|hosts(-1)?|single-hosts|domains|summary|details|chart|filters|q|f-(st|sv|sh|count)/
        )
          != nil
      }, "\(ids.filter { !$0.hasPrefix("app-") && !$0.hasPrefix("h-") })")
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
    #expect(HTML.esc(#"<a b="c">'&'</a> d"#) == "&lt;a b=&quot;c&quot;&gt;&#39;&amp;&#39;&lt;/a&gt; d")
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
    #expect(HTML.esc("a\u{202E}b") == "a\\u{202e}b")
  }

  @Test func onlyTheHashedScriptRunsAndNothingIsFetched() throws {
    let html = HTMLReporter.render(Self.hostileReports())
    let opening = try #require(html.range(of: "<script>"))
    let closing = try #require(html.range(of: "</script>"))
    #expect(String(html[opening.upperBound..<closing.lowerBound]) == HTMLReporter.script)
    let scripts = html.components(separatedBy: "<script").count - 1
    #expect(scripts == 1)
    let hash = Data(LinkRuntime.sha256(Array(HTMLReporter.script.utf8))).base64EncodedString()
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
    func hex(_ s: String) -> String { LinkRuntime.sha256(Array(s.utf8)).map { String(format: "%02x", $0) }.joined() }
    #expect(hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    #expect(hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(
      hex(String(repeating: "a", count: 1000))
        == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
  }

  @Test func overviewCountsSharedHostsAndChart() throws {
    let html = HTMLReporter.render(Self.hostileReports())
    expect(html, contains: "<section id=\"overview\">")
    expect(html, contains: "<table class=\"sortable filterable\" id=\"apps\">")
    expect(html, contains: "<th data-type=\"num\" data-col=\"domains\">Domains</th>")
    // App 1: 6 domains, 4 of them applinks; 1 ok (read, and it lists the app), 3 failed (a timeout, a not-found,
    // and a file read that does not list the app: as definite a "no" as a 404); 2 schemes.
    expect(html, contains: "<td>6</td><td>4</td><td>1</td><td>3</td><td>2</td></tr>")
    // shop.example.com is claimed by every bundle that has domains; the app-specific wildcards are not shared.
    let hosts = try #require(html.components(separatedBy: "id=\"hosts\"").dropFirst().first)
    expect(hosts, contains: "<code>shop.example.com</code></td><td>\(Self.payloads.count - 1)</td>")
    expect(hosts, contains: "<code>*.app1.example.com</code></td><td>1</td>")
    expect(hosts, contains: "applinks, webcredentials")
    let chart = html.components(separatedBy: "<section id=\"summary\">")[1].components(separatedBy: "</section>")[0]
    for outcome in ["ok", "unknown", "definite", "none"] { expect(chart, contains: "class=\"seg-\(outcome)\"") }
    // One bar per shared host, not one per app: only shop.example.com is shared here.
    #expect(chart.components(separatedBy: "<g>").count - 1 == 1)
    expect(chart, contains: ">shop.example.com</text>")
    // The unreadable input still has a row, linking to its heading.
    expect(html, contains: "<a href=\"#input-\(Self.payloads.count)\">(nothing read)</a>")
    expect(html, contains: "<span class=\"badge st-unreadable\">unreadable</span>")
  }

  @Test func domainsShowStatusBadgesListingAndRulesInOrder() throws {
    let html = HTMLReporter.render([Self.hostileReports()[2]])
    expect(html, lacks: "id=\"overview\"")
    expect(html, contains: "<span class=\"badge ok\">ok, listed</span>")
    expect(html, contains: "<span class=\"badge unknown\">timeout</span>")
    expect(html, contains: "<span class=\"badge definite\">not-found</span>")
    expect(html, contains: "<span class=\"badge none\">not fetched</span>")
    expect(html, contains: "<span class=\"badge definite\">not listed</span>")
    // The rules are shown once, in the host's row, in file order with excludes marked.
    let exclude = try #require(html.range(of: "<tr class=\"exclude\"><td>exclude</td>"))
    let match = try #require(html.range(of: "<tr><td>match</td>"))
    #expect(exclude.lowerBound < match.lowerBound)
    expect(html, contains: "case-insensitive")
    expect(html, contains: "legacy paths</span>, <span class=\"nw\">not percent-encoded</span>")
    expect(html, contains: "over 128 KB")
    expect(html, contains: "<span class=\"badge ok\">✓ effective</span>")
    expect(html, contains: "<span class=\"badge definite\">inactive</span>")
    expect(html, contains: "compared</span> direct-well-known gave not-found <span class=\"no\">(differs)</span>")
    // A single app has no apps table, so its details carry the filter attributes themselves.
    expect(html, contains: "<details class=\"app\" id=\"app-1\" data-st=\"ok definite unknown none\"")
  }

  @Test func emptyInputStillRendersAPage() {
    let html = HTMLReporter.render([])
    expect(html, contains: "0 inputs")
    #expect(html.hasSuffix("</html>\n") as Bool)
  }
}

/// The shared-domains table on the bundled samples: a wildcard claim counts, named by its entry.
@Suite struct HTMLSharedDomainsTests {
  @Test func wildcardClaimersAreListedBesideDirectOnes() async throws {
    let reports = try await InspectedSamples.reports(InventoryReaderTests.names)
    let html = HTMLReporter.render(reports)
    let hosts = try #require(html.components(separatedBy: "id=\"hosts\"").dropFirst().first)
      .components(separatedBy: "</table>\n</section>")[0]
    let row = try #require(
      hosts.components(separatedBy: "<tr id=").first { $0.contains("><td><code>nested.example.com</code>") })
    // Café claims nested.example.com itself; Store's *.example.com covers it.
    #expect(row.contains("Store Sample"), "\(row)")
    #expect(row.contains("via <code>*.example.com</code>"), "\(row)")
    #expect(row.contains("</code></td><td>2</td>"), "\(row)")
    // The claimers column says what a bare name means.
    #expect(html.contains("In <b>Claimed by</b>, a name alone claims the host for <code>applinks</code>"))
    let model = ReportModel(ClaimsIndex(reports: reports))
    let nested = try #require(model.hosts.first { $0.name == "nested.example.com" })
    #expect(nested.claims.map(\.via) == [nil, "*.example.com"])
    #expect(nested.listedClaimers == 1 && nested.entries.count == 1)
  }

  /// Store.ipa's `dev.example.com?mode=developer` is inactive in its release build, so `*.example.com` decides the
  /// host, as `who-claims` says. The row showed the entry's own 404 ("not-found", "0 of 1", no rules): the app
  /// seemed to open nothing there.
  @Test func aHostWhoseOwnEntryIsInactiveIsClaimedThroughTheWildcard() async throws {
    let reports = try await InspectedSamples.reports(["Store.ipa"])
    let model = ReportModel(ClaimsIndex(reports: reports))
    let dev = try #require(model.hosts.first { $0.name == "dev.example.com" })
    #expect(dev.claims.map(\.via) == ["*.example.com"] && dev.claims.map(\.ownInactive) == [true])
    #expect(dev.claims.map(\.outcome) == [.ok] && dev.aasa == nil && dev.direct.isEmpty)
    let html = HTMLReporter.render(reports)
    let row = try #require(
      html.components(separatedBy: "<tr id=").first { $0.contains("><td><code>dev.example.com</code>") })
    #expect(row.contains("via <code>*.example.com</code> (its own entry is inactive)"), "\(row)")
    #expect(row.contains("via wildcard</span>") && row.contains("the wildcard's rules"), "\(row)")
    #expect(!row.contains("not-found") && !row.contains("class=\"no\""), "\(row)")
  }

  /// An entry of another service naming the host stays the app's own claim, though a wildcard opens its links: only
  /// an inactive applinks entry gives way to the wildcard.
  @Test func anotherServicesEntryStaysTheAppsOwnClaim() {
    var diagnostics: [Diagnostic] = []
    var bundle = BundleReport(path: "Payload/Web.app", kind: .app)
    (bundle.name, bundle.bundleId, bundle.appId) = ("Web", "com.example.web", "TEAMWEB123.com.example.web")
    bundle.associatedDomains = ["webcredentials:shared.example.com", "applinks:*.example.com"].map {
      AssociatedDomain.parse($0, diagnostics: &diagnostics)
    }
    let model = ReportModel(
      ClaimsIndex(reports: [InspectionReport(input: "web.ipa", inputKind: .ipa, bundles: [bundle])]))
    let shared = model.hosts.first { $0.name == "shared.example.com" }
    #expect(shared?.claims.map(\.via) == [nil] && shared?.claims.map(\.ownInactive) == [false])
    #expect(shared?.claims.first?.services == [Service("webcredentials")])
  }

  /// Bundles that claim nothing fold into one line; the others are collapsed details.
  @Test func bundlesWithNothingToShowFoldIntoOneLine() async throws {
    let html = HTMLReporter.render(try await InspectedSamples.reports(["Nested.ipa"]))
    let folded = html.components(separatedBy: "<p class=\"app folded\"").count - 1
    let full = html.components(separatedBy: "<details class=\"app\"").count - 1
    // Café and its App Clip claim domains; the share extension, the watch app and its extension claim nothing.
    #expect(folded == 3 && full == 2, "folded \(folded), full \(full)")
    #expect(html.contains("no associated domains, no URL schemes"))
    // Collapsed by default: no details element is open.
    #expect(!html.contains("<details open"))
  }

  /// A file's rules and its list of other app ids appear once per host, however many apps share it.
  @Test func aHostsFileIsShownOnceHoweverManyAppsClaimIt() async throws {
    // Store's files list Store and carry its rules; Enterprise's file lists another team's app.
    let store = try await InspectedSamples.report("Store.ipa")
    let enterprise = try await InspectedSamples.report("Enterprise.ipa")
    func count(_ html: String, _ needle: String) -> Int { html.components(separatedBy: needle).count - 1 }
    let once = HTMLReporter.render([store, enterprise])
    let thrice = HTMLReporter.render([store, enterprise, store, enterprise, store, enterprise])
    #expect(count(once, "<table class=\"rules\">") >= 2)
    #expect(count(thrice, "<table class=\"rules\">") == count(once, "<table class=\"rules\">"))
    #expect(count(thrice, "other app id") == count(once, "other app id"))
    #expect(count(once, "other app id") >= 1)
  }
}
