import Foundation
import IPALinksKit
import Testing
import UniversalLinks

/// The HTML report opened from disk in the real WebKit engine (WebKitGTK under Xvfb): hostile strings from the
/// inspected files must show up as text and never run, the page must load nothing, the CSP must let exactly the
/// sorting script run, and the page must look like a report (a screenshot is kept for people to check).
@Suite(.serialized, .enabled(if: Engines.available, "needs xvfb-run and WebKitGTK (make test installs them)"))
struct ReportEngineTests {
  static let pageHarness = CLI.repo.appendingPathComponent("Tests/WebKit/page_harness.py")
  static let artifacts = CLI.repo.appendingPathComponent(".build/test-artifacts")

  /// Markup that would run or load something if it reached the page unescaped; each sets `window.__pwned`.
  static let payloads = [
    "<script>window.__pwned=1</script>",
    "\"><img src=x onerror=\"window.__pwned=1\">",
    "'onmouseover='window.__pwned=1",
    "</style><script>window.__pwned=1</script>",
    "</title><svg onload=window.__pwned=1>",
    "</td></tr></table><iframe src=\"javascript:window.__pwned=1\"></iframe>",
    "<a href=\"https://evil.example/x\">x</a><link rel=stylesheet href=\"https://evil.example/s.css\">",
  ]

  /// Payload `p` in every string of a bundle, with `extra` more plain domains so apps differ in domain count.
  static func hostileBundle(_ p: String, number: Int, extra: Int) -> BundleReport {
    var diagnostics: [Diagnostic] = []
    var bundle = BundleReport(path: "Payload/\(p).app", kind: .app)
    bundle.name = "App\(number) \(p)"
    bundle.bundleId = "com.example.app\(number).\(p)"
    bundle.version = p
    bundle.build = p
    bundle.minimumOSVersion = p
    bundle.executable = p
    bundle.architectures = [p]
    bundle.signingIdentifier = p
    bundle.teamId = p
    bundle.appId = "TEAM\(number).\(p)"
    bundle.encrypted = true
    bundle.distribution = p
    var source = EntitlementSource(
      kind: .codeSignature, detail: p,
      entitlements: ["com.apple.developer.associated-domains": .array([.string("applinks:\(p)")]), p: .string(p)])
    source.effective = true
    bundle.entitlementSourceDetails = [source, EntitlementSource(kind: .xcent, detail: p, entitlements: [:])]

    var shared = AssociatedDomain.parse("applinks:shared.example.com", diagnostics: &diagnostics)
    var aasa = DomainAASA(
      fetch: AASAFetchResult(
        host: "shared.example.com", status: .ok, source: .aasaDir, url: p, contentType: p, location: p,
        appleFailureReason: p, appleFailureDetails: p, appleFrom: p, remoteAddress: p, message: p))
    aasa.appListed = true
    aasa.listedApps = [p]
    aasa.diagnostics = [AASADiagnostic(.invalidAppID, at: "/applinks/\(p)", p)]
    aasa.appLinks = AppLinkRules(
      appID: bundle.appId!, detailIndex: 0, substitutionVariables: [SubstitutionVariable(name: p, values: [p])],
      rules: [
        EffectiveRule(
          reference: MatchedRule(
            detailIndex: 0, componentIndex: 0, kind: .component, pattern: p, exclude: true, pointer: "/\(p)/0"),
          path: "/\(p)", query: .items([QueryItemPattern(name: p, pattern: p)]), fragment: p, caseSensitive: false),
        EffectiveRule(
          reference: MatchedRule(
            detailIndex: 0, componentIndex: 1, kind: .component, pattern: p, exclude: false, pointer: "/\(p)/1"),
          path: "/*", query: .string(p)),
      ])
    shared.aasa = aasa
    var hostile = AssociatedDomain.parse("applinks:\(p)", diagnostics: &diagnostics)
    hostile.aasa = DomainAASA(fetch: AASAFetchResult(host: p, status: .tlsError, source: .cdn, message: p))
    var missing = AssociatedDomain.parse("webcredentials:app\(number).example.com", diagnostics: &diagnostics)
    missing.aasa = DomainAASA(
      fetch: AASAFetchResult(host: "app\(number).example.com", status: .notFound, source: .aasaDir, message: p))
    bundle.associatedDomains = [shared, hostile, missing]
    for index in 0..<extra {
      bundle.associatedDomains.append(
        AssociatedDomain.parse("activitycontinuation:d\(index).app\(number).example.com", diagnostics: &diagnostics))
    }
    bundle.urlSchemes = [p, "app\(number)"]
    bundle.queriedURLSchemes = [p]
    bundle.diagnostics =
      diagnostics + [Diagnostic(.warning, .domainUnknownParameter, p), Diagnostic(.info, .domainUppercase, p)]
    return bundle
  }

  /// Three inputs, the first with two bundles: 12, 3, 3 and 5 domains, so a numeric sort differs from a text sort
  /// ("12" < "3"). Bundles take payloads 0–3, inputs 4–6, so every payload is on the page.
  static func hostileBatch() -> [InspectionReport] {
    let shapes = [[9, 0], [0], [2]]
    var next = 0
    return shapes.enumerated().map { index, extras in
      let bundles = extras.map { extra in
        next += 1
        return hostileBundle(payloads[next - 1], number: next, extra: extra)
      }
      let p = payloads[4 + index]
      return InspectionReport(
        input: "inputs/\(index + 1)/\(p).ipa", inputKind: .ipa,
        diagnostics: [Diagnostic(.error, .inputUnreadable, p)], bundles: bundles)
    }
  }

  /// Runs the page harness on `html`, keeping the screenshot under `.build/test-artifacts/<name>`.
  static func load(
    _ html: String, name: String, evals: [String], width: Int = 1280
  ) throws -> (result: [String: Any], png: URL) {
    let folder = try Engines.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let page = folder.appendingPathComponent("report.html")
    let shot = folder.appendingPathComponent("report.png")
    try Data(html.utf8).write(to: page)
    let run = try CLI.run(
      ["-a", "/usr/bin/python3", pageHarness.path, "load", page.path, "--screenshot", shot.path, "--width", "\(width)"]
        + evals.flatMap { ["--eval", $0] },
      executable: URL(fileURLWithPath: "/usr/bin/xvfb-run"))
    #expect(run.status == 0, "harness: \(run.stderr)")
    let result = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
    let kept = artifacts.appendingPathComponent(name)
    try? FileManager.default.removeItem(at: kept)
    try FileManager.default.copyItem(at: shot, to: kept)
    print("ReportEngineTests: screenshot at \(kept.path)")
    return (result, kept)
  }

  static func value(_ result: [String: Any], _ expression: String) -> Any? {
    ((result["evals"] as? [String: Any])?[expression] as? [String: Any])?["value"]
  }

  /// Opens every `<details>` as a reader clicking each would, twice (a body, once built, may hold more), waiting
  /// for the toggle events that build the bodies; then returns how many are open.
  static let openAll = """
    (async () => {
      for (let pass = 0; pass < 2; pass++) {
        for (const d of document.querySelectorAll('details')) d.open = true;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return document.querySelectorAll('details[open]').length;
    })()
    """
  static let pwned = "window.__pwned"
  static let scripts = "document.scripts.length"
  static let loaders =
    "document.querySelectorAll('img, iframe, object, embed, link, base, audio, video, source, form, frame').length"
  /// Event-handler attributes, and attributes whose value is a URL that leaves the page.
  static let handlers =
    "Array.from(document.querySelectorAll('*')).flatMap((e) => Array.from(e.attributes))"
    + ".filter((a) => /^on/i.test(a.name) || /^\\s*(javascript|data|https?):|^\\s*\\/\\//i.test(a.value)).length"
  static let shown = "document.body.innerText"
  static let allText = "document.body.textContent"
  static let badgeColour = "getComputedStyle(document.querySelector('.badge.ok')).backgroundColor"
  /// Clicks the Domains header twice (a real DOM click event) and reads the `#` column and the counts each time.
  static let sortByDomains = """
    (() => {
      const table = document.getElementById('apps');
      const heads = Array.from(table.tHead.rows[0].cells);
      const th = heads.find((h) => h.dataset.col === 'domains');
      const column = heads.indexOf(th);
      const read = () => Array.from(table.tBodies[0].rows, (r) => [r.cells[0].textContent, +r.cells[column].textContent]);
      const before = read();
      th.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true }));
      const ascending = read();
      const firstSort = th.getAttribute('aria-sort');
      th.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true }));
      return { before, ascending, firstSort, descending: read(), secondSort: th.getAttribute('aria-sort') };
    })()
    """

  @Test func hostileBatchRendersAsTextLoadsNothingAndSorts() throws {
    let start = ContinuousClock.now
    let reports = Self.hostileBatch()
    let html = HTMLReporter.render(reports, title: "Audit " + Self.payloads[3])
    let (result, png) = try Self.load(
      html, name: "report.png",
      evals: [
        Self.openAll, Self.pwned, Self.scripts, Self.loaders, Self.handlers, Self.shown, Self.allText,
        Self.badgeColour, Self.sortByDomains, "document.title", "document.querySelectorAll('svg rect').length",
      ])
    #expect(result["harnessError"] == nil)
    #expect((result["consoleErrors"] as? [Any])?.isEmpty == true, "console: \(result["consoleErrors"] ?? "none")")
    #expect((result["requests"] as? [Any])?.isEmpty == true, "requests: \(result["requests"] ?? "none")")
    let evals = try #require(result["evals"] as? [String: [String: Any]])
    #expect(evals[Self.pwned]?["type"] as? String == "undefined")
    #expect(Self.value(result, Self.scripts) as? Int == 1)
    #expect(Self.value(result, Self.loaders) as? Int == 0)
    #expect(Self.value(result, Self.handlers) as? Int == 0)
    #expect(Self.value(result, Self.badgeColour) as? String == "rgb(30, 126, 52)")
    #expect((Self.value(result, "document.querySelectorAll('svg rect').length") as? Int ?? 0) > 4)
    #expect(Self.value(result, "document.title") as? String == "Audit " + Self.payloads[3])

    // Every payload is on the page as text; the names (in headings) are rendered, not only in the DOM.
    let text = try #require(Self.value(result, Self.allText) as? String)
    let visible = try #require(Self.value(result, Self.shown) as? String)
    let dropped = Self.payloads.filter { !text.contains($0) }
    #expect(dropped.isEmpty, "payloads missing from the page text: \(dropped)")
    let hidden = reports.flatMap(\.bundles).compactMap(\.name).filter { !visible.contains($0) }
    #expect(hidden.isEmpty, "names not displayed: \(hidden)")

    // Numeric sort: "12" after "5", which a text sort would get wrong; then descending on a second click.
    let sort = try #require(Self.value(result, Self.sortByDomains) as? [String: Any])
    func rows(_ key: String) -> [(String, Int)] {
      (sort[key] as? [[Any]] ?? []).map { ($0.first as? String ?? "?", $0.last as? Int ?? -1) }
    }
    #expect(rows("before").map(\.0) == ["1", "2", "3", "4"])
    #expect(rows("ascending").map(\.1) == [3, 3, 5, 12])
    #expect(rows("ascending").map(\.0) == ["2", "3", "4", "1"])
    #expect(rows("descending").map(\.0) == ["1", "4", "2", "3"])
    #expect(sort["firstSort"] as? String == "ascending")
    #expect(sort["secondSort"] as? String == "descending")

    let size = try FileManager.default.attributesOfItem(atPath: png.path)[.size] as? Int ?? 0
    #expect(size > 10_000)
    let shot = result["screenshotSize"] as? [Int] ?? []
    #expect(shot.first == 1280 && (shot.last ?? 0) > 900)
    print("ReportEngineTests: hostile batch checked in \(ContinuousClock.now - start)")
  }

  /// A name, bundle ID and host far longer than the screen wrap or scroll inside their boxes: the page itself is no
  /// wider than the window, on a desktop and on a phone. A 400-character name made it 3,673 pixels wide at 1,400.
  @Test func aLongNameDoesNotWidenThePage() throws {
    var diagnostics: [Diagnostic] = []
    var bundle = BundleReport(path: "Payload/Long.app", kind: .app)
    bundle.name = String(repeating: "L", count: 400)
    bundle.bundleId = "com." + String(repeating: "verylong", count: 60)
    bundle.appId = "TEAMLONG12." + bundle.bundleId!
    let host = String(repeating: "c", count: 60) + "." + String(repeating: "d", count: 60) + ".example.com"
    var domain = AssociatedDomain.parse("applinks:\(host)", diagnostics: &diagnostics)
    domain.aasa = DomainAASA(fetch: AASAFetchResult(host: host, status: .notFound, source: .aasaDir, message: host))
    bundle.associatedDomains = [domain]
    var other = BundleReport(path: "Payload/Short.app", kind: .app)
    other.name = "Short"
    let reports = [
      InspectionReport(
        input: "long-" + String(repeating: "x", count: 300) + ".ipa", inputKind: .ipa, bundles: [bundle]),
      InspectionReport(input: "short.ipa", inputKind: .ipa, bundles: [other]),
    ]
    let html = HTMLReporter.render(reports)
    let overflow = "document.documentElement.scrollWidth - window.innerWidth"
    // The long host kept on one line pushed the AASA and Listed columns of every row off the screen.
    let columns =
      "Array.from(document.querySelectorAll('table.hosts thead th')).filter((th) => /AASA|Listed/.test(th.textContent))"
      + ".map((th) => Math.round(th.getBoundingClientRect().right - window.innerWidth))"
    // A link to an app landed under the sticky filter bar, on a closed summary. (The harness lets the page navigate
    // nowhere, a fragment included: the fragment is set without navigating, and the page told as a link would.)
    let anchor = """
      (async () => {
        history.replaceState(null, '', '#app-1');
        window.dispatchEvent(new HashChangeEvent('hashchange'));
        const target = document.getElementById('app-1');
        target.scrollIntoView();
        await new Promise((resolve) => setTimeout(resolve, 100));
        return [target.open, target.getBoundingClientRect().top >= document.getElementById('filters').offsetHeight];
      })()
      """
    for width in [1280, 390] {
      let (result, _) = try Self.load(
        html, name: "long-\(width).png", evals: [anchor, Self.openAll, overflow, columns], width: width)
      #expect(result["harnessError"] == nil)
      let wider = try #require(Self.value(result, overflow) as? Int, "\(result)")
      #expect(wider <= 0, "the page is \(wider) px wider than a \(width) px window")
      #expect(Self.value(result, anchor) as? [Bool] == [true, true], "\(result)")
      if width == 1280 {
        let past = try #require(Self.value(result, columns) as? [Int], "\(result)")
        #expect(past.count == 2 && past.allSatisfy { $0 <= 0 }, "AASA and Listed end past the window by \(past) px")
      }
    }
  }

  /// A benign single input built the way `inspect` builds it: the AASA file is evaluated from real JSON, so the
  /// rules table shows the matcher's effective rules; excluded rules are marked, not struck through.
  @Test func singleReportFromARealAASAFile() throws {
    let start = ContinuousClock.now
    let appID = "ST0REAPP42.com.example.store"
    let file = """
      {"applinks": {"substitutionVariables": {"lang": ["en", "fr"]}, "details": [{"appIDs": ["\(appID)",
        "OTHERTEAM1.com.example.other"], "components": [
        {"/": "/account/*", "exclude": true},
        {"/": "/$(lang)/product/*", "?": {"ref": "?*"}, "caseSensitive": false},
        {"/": "/help/*", "#": "app", "percentEncoded": false},
        {"/": "/*"}
      ]}]}}
      """
    var diagnostics: [Diagnostic] = []
    var bundle = BundleReport(path: "Payload/Store.app", kind: .app)
    bundle.name = "Store"
    bundle.bundleId = "com.example.store"
    bundle.teamId = "ST0REAPP42"
    bundle.appId = appID
    bundle.version = "2.1"
    bundle.build = "210"
    bundle.encrypted = true
    bundle.distribution = "app-store"
    bundle.architectures = ["arm64"]
    let raws = ["applinks:shop.example.com", "applinks:*.example.com", "webcredentials:example.com"]
    var source = EntitlementSource(
      kind: .codeSignature, detail: "arm64 der-application16",
      entitlements: ["com.apple.developer.associated-domains": .array(raws.map { .string($0) })])
    source.effective = true
    bundle.entitlementSourceDetails = [
      source,
      EntitlementSource(
        kind: .codeSignature, detail: "arm64 xml",
        entitlements: ["com.apple.developer.associated-domains": .array(raws.map { .string($0) })]),
    ]
    bundle.associatedDomains = raws.map { AssociatedDomain.parse($0, diagnostics: &diagnostics) }
    bundle.associatedDomains[0].aasa = DomainAASA.evaluate(
      AASAFetchResult(
        host: "shop.example.com", status: .ok, source: .aasaDir, url: "aasa/shop.example.com", message: "ok",
        body: Array(file.utf8)), appID: appID)
    bundle.associatedDomains[1].aasa = DomainAASA.evaluate(
      AASAFetchResult(
        host: "example.com", status: .redirect, source: .cdn, httpStatus: 301, location: "https://www.example.com/",
        message: "example.com: 301 redirect"), appID: appID)
    bundle.associatedDomains[2].aasa = DomainAASA.evaluate(
      AASAFetchResult(host: "example.com", status: .dnsError, source: .cdn, message: "example.com: no such host"),
      service: .webcredentials, appID: appID)
    bundle.urlSchemes = ["storeapp", "fb1234567890"]
    bundle.queriedURLSchemes = ["twitter"]
    bundle.diagnostics = diagnostics
    let report = InspectionReport(input: "samples/Store.ipa", inputKind: .ipa, diagnostics: [], bundles: [bundle])
    let rules = try #require(report.bundles[0].associatedDomains[0].aasa?.rules)
    #expect(rules.count == 4)

    let html = HTMLReporter.render([report])
    let strike =
      "getComputedStyle(document.querySelector('tr.exclude td:nth-child(2) code')).textDecorationLine"
    let rows = "Array.from(document.querySelectorAll('table.rules tbody tr'), (r) => r.className)"
    let collapsed = "Array.from(document.querySelectorAll('details')).filter((d) => d.open).length"
    // Collapsed bodies are text until opened: no rules table is built yet.
    let unbuilt = "document.querySelectorAll('table.rules').length"
    // Details are collapsed; opened (as a reader or printing does), every fact is on screen.
    let (result, png) = try Self.load(
      html, name: "report-single.png",
      evals: [collapsed, unbuilt, Self.openAll, Self.scripts, Self.loaders, strike, rows, Self.shown])
    #expect((result["consoleErrors"] as? [Any])?.isEmpty == true, "console: \(result["consoleErrors"] ?? "none")")
    #expect((result["requests"] as? [Any])?.isEmpty == true)
    #expect(Self.value(result, Self.scripts) as? Int == 1)
    #expect(Self.value(result, Self.loaders) as? Int == 0)
    // An exclude rule is marked as one (a red ✗ and the word), not struck through as if it were removed.
    #expect(Self.value(result, strike) as? String == "none")
    #expect(Self.value(result, rows) as? [String] == ["exclude", "", "", ""])
    #expect(Self.value(result, collapsed) as? Int == 0)
    #expect(Self.value(result, unbuilt) as? Int == 0)
    #expect((Self.value(result, Self.openAll) as? Int ?? 0) >= 2)
    let visible = try #require(Self.value(result, Self.shown) as? String)
    let missing = ["ST0REAPP42.com.example.store", "/account/*", "redirect", "dns-error", "$(lang)", "storeapp"]
      .filter { !visible.contains($0) }
    #expect(missing.isEmpty, "not displayed: \(missing)")
    let size = try FileManager.default.attributesOfItem(atPath: png.path)[.size] as? Int ?? 0
    #expect(size > 10_000)
    print("ReportEngineTests: single report checked in \(ContinuousClock.now - start)")
  }

  /// Typing into the search field, one character at a time as a person does, narrows the apps and hosts tables
  /// at once; the filters narrow by status and by shared hosts; clearing the field brings every row back. The
  /// page is the real `ipalinks report` of the bundled samples.
  @Test func searchAndFiltersNarrowEveryTable() throws {
    let folder = try Engines.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let page = folder.appendingPathComponent("samples.html")
    let run = try CLI.run(["report", CLI.samples.path, "--aasa-dir", CLI.sample("aasa"), "-o", page.path])
    #expect(run.status == 0, "report: \(run.stderr)")
    let html = try String(contentsOf: page, encoding: .utf8)
    func type(_ text: String) -> String {
      """
      (() => {
        const q = document.getElementById('q');
        q.value = '';
        q.dispatchEvent(new InputEvent('input', { bubbles: true }));
        const start = performance.now();
        for (const c of \(String(decoding: try! JSONEncoder().encode(text), as: UTF8.self))) {
          q.value += c;
          q.dispatchEvent(new InputEvent('input', { bubbles: true, data: c, inputType: 'insertText' }));
        }
        const shown = (selector) => Array.from(document.querySelectorAll(selector)).filter((e) => !e.hidden);
        return {
          apps: shown('#apps > tbody > tr').map((r) => r.cells[1].textContent),
          details: shown('.app').map((e) => e.id),
          hosts: shown('table.hosts > tbody > tr').map((r) => r.cells[0].textContent),
          count: document.getElementById('f-count').textContent,
          ms: performance.now() - start,
        };
      })()
      """
    }
    let shared = """
      (() => {
        const q = document.getElementById('q');
        q.value = '';
        q.dispatchEvent(new InputEvent('input', { bubbles: true }));
        const box = document.getElementById('f-sh');
        box.checked = true;
        box.dispatchEvent(new Event('change', { bubbles: true }));
        const hosts = Array.from(document.querySelectorAll('table.hosts > tbody > tr')).filter((r) => !r.hidden).length;
        const apps = Array.from(document.querySelectorAll('#apps > tbody > tr')).filter((r) => !r.hidden).length;
        box.checked = false;
        box.dispatchEvent(new Event('change', { bubbles: true }));
        const all = Array.from(document.querySelectorAll('table.hosts > tbody > tr')).filter((r) => !r.hidden).length;
        return { hosts, apps, all };
      })()
      """
    let bar = "document.getElementById('filters').hidden"
    let (result, _) = try Self.load(
      html, name: "report-search.png", evals: [bar, type("/menu/"), type("com.example.fat"), type("zzz"), shared])
    #expect((result["consoleErrors"] as? [Any])?.isEmpty == true, "console: \(result["consoleErrors"] ?? "none")")
    #expect(Self.value(result, bar) as? Bool == false, "the script shows the filter bar")

    // A path finds the hosts whose file has it and the app those rules belong to, not Store, whose wildcard
    // covers nested.example.com but whose rules there come from another file.
    let menu = try #require(Self.value(result, type("/menu/")) as? [String: Any])
    #expect(menu["apps"] as? [String] == ["Café"], "\(menu)")
    #expect(menu["details"] as? [String] == ["app-3"], "\(menu)")
    #expect(Set(menu["hosts"] as? [String] ?? []) == ["nested.example.com", "*.nested.example.com"], "\(menu)")
    // A bundle id finds its app and the hosts it claims, though host rows name apps without bundle ids.
    let fat = try #require(Self.value(result, type("com.example.fat")) as? [String: Any])
    #expect(fat["apps"] as? [String] == ["Fat Binary"], "\(fat)")
    #expect(fat["hosts"] as? [String] == ["fat.example.com"], "\(fat)")
    #expect(fat["count"] as? String == "1 of 12 apps, 1 of 15 hosts", "\(fat)")
    let none = try #require(Self.value(result, type("zzz")) as? [String: Any])
    #expect((none["apps"] as? [String])?.isEmpty == true && (none["hosts"] as? [String])?.isEmpty == true)
    // Every keystroke re-filters; on the samples a whole word takes well under a second.
    #expect((menu["ms"] as? Double ?? 1e9) < 1000)

    let filters = try #require(Self.value(result, shared) as? [String: Any])
    #expect(filters["hosts"] as? Int == 9, "hosts claimed by two or more apps: \(filters)")
    #expect(filters["all"] as? Int == 15)
    #expect((filters["apps"] as? Int ?? 0) > 0 && (filters["apps"] as? Int ?? 99) < 12)
  }
}
