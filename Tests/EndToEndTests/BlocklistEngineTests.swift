import Foundation
import IPALinksKit
import Testing
import UniversalLinks

/// The generated blocklists checked in real engines: WebKit's content-rule compiler and loader (WebKitGTK) and the
/// JavaScript guard in the same engine. Each must agree with the library's matcher on a corpus built to hit
/// excludes, wildcards, `?`, query items, fragments and case. (The Swift guard, which needs only `swiftc`, is
/// checked on the same blocklist and corpus in `SwiftGuardCompileTests`.)
@Suite(.serialized, .enabled(if: Engines.available, "needs xvfb-run and WebKitGTK (make test installs them)"))
struct BlocklistEngineTests {
  /// Three apps: Alpha (excludes, nested wildcards, variables, query items), Gamma (shares Alpha's host, blocks
  /// only) and Beta (legacy paths).
  static let blocklist: Blocklist = {
    func rules(_ json: String, _ appID: String) -> AppLinkRules {
      AppLinkRules(file: try! AASAFile(json: json), appID: appID)
    }
    let alpha = "AAAAAAAAAA.com.example.alpha"
    let alphaFile = """
      {"applinks": {"substitutionVariables": {"campaign": ["spring", "summer-sale"], "hex": ["a", "b", "c", "-", "_"],
          "amp": ["&", "x"]},
        "details": [{"appIDs": ["\(alpha)"], "components": [
          {"/": "/buy/gift/*", "exclude": true, "caseSensitive": false},
          {"/": "/buy/*", "caseSensitive": false},
          {"/": "/p/???", "?": {"ref": "?*"}},
          {"/": "/help/*", "#": "app"},
          {"/": "/promo/$(campaign)/*"},
          {"/": "/q/*", "?": "id=*"},
          {"/": "/a/*/c"},
          {"/": "/x?y"},
          {"/": "/d/$(digit)*"},
          {"/": "/Case/*"},
          {"/": "*.pdf"},
          {"/": "*/t/*.html"},
          {"/": "/o/$(digit)$(digit)/$(alpha)"},
          {"/": "/v/$(hex)-*"},
          {"/": "/l/$(lang)/*"},
          {"/": "/pipe%7Cx/*"},
          {"/": "/qb/*", "?": "k=%7Bv%7D"},
          {"/": "/qx/*", "?": {"no": "1"}, "exclude": true},
          {"/": "/qx/*"},
          {"/": "/lq/*", "?": {"hl": "$(lang)"}},
          {"/": "/t2/*C"},
          {"/": "/qa/*", "?": {"a": "$(amp)"}, "exclude": true},
          {"/": "/qa/*"},
          {"/": "/sp/*", "?": {"a b": ""}}
        ]}]}}
      """
    // A rule that reads decoded text, on a host of its own: the list blocks every URL of that host with an escape.
    let raw =
      #"{"applinks": {"details": [{"appIDs": ["\#(alpha)"], "components": "#
      + #"[{"/": "/raw/a|b/*", "percentEncoded": false}]}]}}"#
    let wild = #"{"applinks": {"details": [{"appIDs": ["\#(alpha)"], "components": [{"/": "/w/*"}]}]}}"#
    let deep = #"{"applinks": {"details": [{"appIDs": ["\#(alpha)"], "components": [{"/": "/w/keep/*"}]}]}}"#
    let beta = "BBBBBBBBBB.com.example.beta"
    let betaFile = #"{"applinks": {"apps": [], "details": {"\#(beta)": {"paths": ["NOT /private/*", "/*"]}}}}"#
    let gamma = "CCCCCCCCCC.com.example.gamma"
    let gammaFile = #"{"applinks": {"details": [{"appIDs": ["\#(gamma)"], "components": [{"/": "/gamma/*"}]}]}}"#
    return Blocklist(apps: [
      LinkingApp(
        appID: alpha, name: "Alpha", input: "alpha.ipa",
        scopes: [
          RuleScope(host: "alpha.example", wildcard: false, rules: rules(alphaFile, alpha)),
          RuleScope(host: "alpha.example", wildcard: true, rules: rules(wild, alpha)),
          RuleScope(host: "deep.alpha.example", wildcard: true, rules: rules(deep, alpha)),
          RuleScope(host: "raw.example", wildcard: false, rules: rules(raw, alpha)),
        ]),
      LinkingApp(
        appID: gamma, name: "Gamma", input: "gamma.ipa",
        scopes: [RuleScope(host: "alpha.example", wildcard: false, rules: rules(gammaFile, gamma))]),
      LinkingApp(
        appID: beta, name: "Beta", input: "beta.ipa",
        scopes: [RuleScope(host: "beta.example", wildcard: false, rules: rules(betaFile, beta))]),
    ])
  }()

  static let corpus: [String] = [
    "https://alpha.example/buy/shoes", "https://alpha.example/buy", "https://alpha.example/BUY/x",
    "https://alpha.example/buy/gift/card", "https://alpha.example/Buy/Gift/x", "https://alpha.example/buyer",
    "https://alpha.example//buy//shoes", "https://alpha.example/buy/gift", "https://alpha.example/p/abc?ref=x",
    "https://alpha.example/p/abc?a=1&ref=x&b=2", "https://alpha.example/p/abc?ref=", "https://alpha.example/p/abc",
    "https://alpha.example/p/abcd?ref=x", "https://alpha.example/p/ab?ref=x", "https://alpha.example/help/x#app",
    "https://alpha.example/promo/spring/1", "https://alpha.example/promo/summer-sale",
    "https://alpha.example/promo/winter/1",
    "https://alpha.example/q/1?id=7", "https://alpha.example/q/1?x=1&id=7", "https://alpha.example/q/1",
    "https://alpha.example/a/b/c", "https://alpha.example/a/c", "https://alpha.example/a//c",
    "https://alpha.example/a/b/d/c",
    "https://alpha.example/xzy", "https://alpha.example/x/y", "https://alpha.example/x//y", "https://alpha.example/xy",
    "https://alpha.example/d/7abc", "https://alpha.example/d/x7", "https://alpha.example/Case/1",
    "https://alpha.example/case/1", "https://alpha.example/gamma/1", "https://alpha.example:8443/buy/1",
    "https://user@alpha.example/buy/1", "http://alpha.example/buy/1", "https://alpha.example.evil.example/buy/1",
    "https://evil.example/alpha.example/buy/1", "https://www.alpha.example/w/1", "https://www.alpha.example/buy/1",
    "https://a.b.alpha.example/w/x", "https://x.deep.alpha.example/w/1", "https://x.deep.alpha.example/w/keep/1",
    "https://deep.alpha.example/w/1", "https://alpha.example/w/1", "https://beta.example/",
    "https://beta.example/any/thing",
    "https://beta.example/private/x", "https://beta.example/private", "https://beta.example/Private/x",
    "https://gamma.example/gamma/1",
    // Patterns that start with `*`: the path's own `/` must follow the host, so look-alike hosts stay allowed.
    "https://alpha.example/a/b.pdf", "https://alpha.example/b.pdf", "https://alpha.examplex/doc.pdf",
    "https://alpha.example.evil.example/doc.pdf", "https://alpha.example/t/a.html", "https://alpha.example/x/t/a.html",
    "https://alpha.examplet/t/a.html", "https://alpha.example/xt/a.html",
    // Single-character variables become character classes: exact, where widening to `*` blocked all of these.
    "https://alpha.example/o/12/a", "https://alpha.example/o/12/Z", "https://alpha.example/o/1a/a",
    "https://alpha.example/o/12/1", "https://alpha.example/o/12/ab", "https://alpha.example/o/123/a",
    "https://alpha.example/v/b-1", "https://alpha.example/v/--1", "https://alpha.example/v/_-1",
    "https://alpha.example/v/d-1", "https://alpha.example/v/B-1",
    // A multi-character variable expands into one filter per value while the app's budget lasts.
    "https://alpha.example/l/fr/1", "https://alpha.example/l/FR/1", "https://alpha.example/l/zzz9/1",
    "https://alpha.example/l/f/1",
    // What WebKit leaves plain and iOS reads escaped (`|` in a path, `{}` in a query), and a host's trailing dot: the
    // list missed these, though the app opens them.
    "https://alpha.example/pipe|x/1", "https://alpha.example/pipe%7Cx/1", "https://alpha.example/pipe%7cx/1",
    "https://alpha.example/pipe/x/1", "https://alpha.example/qb/1?k={v}", "https://alpha.example/qb/1?k=%7Bv%7D",
    "https://alpha.example/qb/1?k=v", "https://raw.example/raw/a|b/1", "https://raw.example/raw/a%7Cb/1",
    "https://alpha.example./buy/shoes", "https://alpha.example.:443/buy/shoes", "https://alpha.example./buy/gift/x",
    // `percentEncoded: false` compares decoded text: a URL may escape what the pattern spells plainly, a `/` too.
    // The list let these through. (`%7C`, not `|`, beside another escape: `URL(string:)` in the Swift guard's test
    // driver would write that `%` as `%25`.) The last opens no app, and is blocked as the list says.
    "https://raw.example/r%61w/a%7Cb/1", "https://raw.example/raw/%61%7Cb/1", "https://raw.example/raw%2Fa%7Cb/1",
    "https://raw.example/raw/a%7Cb%2F1", "https://raw.example/other/%41",
    // An exception's query item must match in every occurrence: the list spared the repeated ones, which iOS opens.
    // The last, where every occurrence matches, is blocked as the `wider` note says.
    "https://alpha.example/qx/a?no=1", "https://alpha.example/qx/a?x=2&no=1", "https://alpha.example/qx/a?no=2",
    "https://alpha.example/qx/a", "https://alpha.example/qx/a?no=1&no=2", "https://alpha.example/qx/a?no&no=1",
    "https://alpha.example/qx/a?no=1&no=1",
    // Found by a tour, each a URL the app opens that the list let through: a query item whose values are too many to
    // spell (`$(lang)`, left out whole), a wildcard that iOS matches against part of the `%7C` it reads for a `|`
    // WebKit leaves plain, an exception whose one-character variable holds `&` (`?a=&` is an empty value to iOS),
    // and a query item whose name no URL carries (absent, so empty, which its pattern takes).
    "https://alpha.example/lq/1?hl=en", "https://alpha.example/lq/1?x=1&hl=pt-BR", "https://alpha.example/p/|?ref=x",
    "https://alpha.example/t2/x|", "https://alpha.example/t2/xC", "https://alpha.example/qa/1?a=&",
    "https://alpha.example/qa/1?a=&&b=1", "https://alpha.example/qa/1?a=x", "https://alpha.example/sp/1",
  ]

  @Test func contentRulesBlockExactlyWhatOpensTheApp() throws {
    let (lists, notes) = BlocklistRenderer(Self.blocklist).contentRules()
    #expect(lists.count == 1)
    #expect(notes.contains { $0.pointer == "/applinks/details/0/components/3" && $0.kind == .wider })
    // Variables are exact now: a class for single characters, one filter per value for `$(lang)`.
    for index in 12...14 {
      #expect(!notes.contains { $0.pointer == "/applinks/details/0/components/\(index)" }, "component \(index)")
    }
    // The list as `blocklist` writes it, stamped in its first rule's `ipalinks` key, which WebKit must ignore.
    let written = BlocklistOutput(Self.blocklist, format: .wkcontentrules, maxRules: 150_000, generator: "test")
    #expect(written.files.count == 1 && written.files[0].text.contains(#""ipalinks" : {"#))
    let results = try Engines.harness(["rules", Engines.write(written.files[0].text), Engines.write(Self.corpus)])
    let rows = try #require(results["results"] as? [[String: Any]])
    #expect(rows.count == Self.corpus.count)
    var blocked = 0
    for row in rows {
      let url = try #require(row["url"] as? String)
      let loaded = (row["uri"] as? String) ?? url
      // Besides what opens the app, every URL of raw.example with an escape, as the list's `wider` note says.
      let escapedRaw = loaded.hasPrefix("https://raw.example/") && loaded.contains("%")
      // And every URL of the exception's path that repeats its query item.
      let repeatedItem = loaded.hasSuffix("/qx/a?no=1&no=1")
      // And, as their notes say, every URL of the path whose item has too many values, and every path of the host
      // with `|` where a rule's wildcard may stand for part of `%7C`.
      let widened = loaded.contains("/lq/") || (loaded.hasPrefix("https://alpha.example/") && loaded.contains("|"))
      let expected =
        Self.blocklist.verdict(for: loaded).verdict == .match || escapedRaw || repeatedItem || widened
      let actual = row["blocked"] as? Bool == true
      if actual { blocked += 1 }
      #expect(actual == expected, "\(url) (WebKit: \(loaded)): WebKit \(actual ? "blocked" : "allowed") it")
    }
    #expect(blocked > 15 && blocked < Self.corpus.count - 15)
  }

  /// Apps that share a host keep their exceptions in WebKit when their rules for it are the same (wikipedia.org
  /// lists five app IDs in one `details` entry); where two apps' rules really differ, the report names the host and
  /// a URL the list blocks though no app opens it, and WebKit blocks exactly that URL.
  @Test func sharedExclusionsStayAndRealConflictsAreReportedWithAnExample() throws {
    let folder = try Engines.folder()
    let ids = [
      "AAAAAAAAAA.org.wikimedia.wikipedia", "AAAAAAAAAA.org.wikimedia.wikipedia.tfbeta",
      "AAAAAAAAAA.org.wikimedia.wikipedia.tfalpha", "AAAAAAAAAA.org.wikimedia.wikipedia.dev",
      "AAAAAAAAAA.org.wikimedia.wikipedia.staging",
    ]
    let wikipedia = """
      {"applinks": {"details": [{"appIDs": [\(ids.map { "\"\($0)\"" }.joined(separator: ", "))], "components": [
        {"/": "/wiki/Main_Page", "exclude": true}, {"/": "/wiki/Special:*", "exclude": true},
        {"/": "/w/*", "exclude": true}, {"/": "/wiki/*"}]}]}}
      """
    let shared = """
      {"applinks": {"details": [
        {"appIDs": ["XXXXXXXXXX.com.example.x"], "components": [{"/": "/a/private/*", "exclude": true}, {"/": "/a/*"}]},
        {"appIDs": ["YYYYYYYYYY.com.example.y"], "components": [{"/": "/b/private/*", "exclude": true}, {"/": "/b/*"}]}
      ]}}
      """
    // Y's own host, which no other app claims: its exceptions go with those on the shared host (an app's rules stay
    // together), and were left out without a note.
    let own = """
      {"applinks": {"details": [
        {"appIDs": ["YYYYYYYYYY.com.example.y"], "components": [{"/": "/c/private/*", "exclude": true}, {"/": "/c/*"}]}
      ]}}
      """
    try Data(wikipedia.utf8).write(to: folder.appendingPathComponent("wikipedia.org.json"))
    try Data(shared.utf8).write(to: folder.appendingPathComponent("shared.example.json"))
    try Data(own.utf8).write(to: folder.appendingPathComponent("own.example.json"))
    let report = folder.appendingPathComponent("report.json")
    let result = try CLI.run([
      "blocklist", "--host", "wikipedia.org", "--host", "shared.example", "--host", "own.example", "--aasa-dir",
      folder.path, "--format", "wkcontentrules", "--report", report.path,
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(!result.stderr.contains("wikipedia"), "\(result.stderr)")
    let document = try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any]
    let notes = try #require(document?["notes"] as? [[String: Any]])
    let conflict = try #require(
      notes.first { $0["kind"] as? String == "wider" && $0["host"] as? String == "shared.example" }, "\(notes)")
    let wider = notes.filter { $0["kind"] as? String == "wider" }
    #expect(wider.count == 2, "\(notes)")
    let alone = try #require(wider.first { $0["host"] as? String == "own.example" }, "\(notes)")
    #expect(alone["appID"] as? String == "YYYYYYYYYY.com.example.y")
    #expect((alone["message"] as? String)?.contains("left out with those for shared.example") == true, "\(alone)")
    let ownExample = try #require(alone["example"] as? String)
    #expect(ownExample.hasPrefix("https://own.example/c/private"), "\(ownExample)")
    #expect(
      conflict["host"] as? String == "shared.example" && conflict["appID"] as? String == "YYYYYYYYYY.com.example.y")
    let example = try #require(conflict["example"] as? String)
    #expect(example.hasPrefix("https://shared.example/b/private"), "\(example)")
    #expect((conflict["message"] as? String)?.contains(example) == true)
    #expect(result.stderr.contains("such as \(example)"), "\(result.stderr)")
    try Engines.expectWebKit(
      result.stdout,
      blocking: [
        ("https://wikipedia.org/wiki/Main_Page", false), ("https://wikipedia.org/wiki/Special:Search", false),
        ("https://wikipedia.org/w/index.php", false), ("https://wikipedia.org/wiki/Cat", true),
        ("https://wikipedia.org/", false), ("https://shared.example/a/1", true),
        ("https://shared.example/a/private/1", false), ("https://shared.example/b/1", true),
        ("https://own.example/c/1", true),
        // The URL classes the list over-blocks, as the report says.
        (example, true), (ownExample, true),
      ])
  }

  /// A list for hosts that give no rule (a typo, a host without a file) is still one WebKit compiles, and it blocks
  /// nothing: WebKit refuses `[]` ("Empty extension"), which would break the app's update.
  @Test func aListWithNoRuleCompilesInWebKitAndBlocksNothing() throws {
    let folder = try Engines.folder()
    let run = try CLI.run([
      "blocklist", "--host", "typo.example", "--aasa-dir", folder.path, "--format", "wkcontentrules",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stderr.contains("typo.example: no AASA file"), "\(run.stderr)")
    let list = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
    #expect(list.count == 1 && list[0]["ipalinks"] != nil)
    try Engines.expectWebKit(
      run.stdout,
      blocking: [
        ("https://typo.example/", false), ("https://typo.example/anything?q=1", false),
        ("https://example.com/ipalinks-blocks-nothing:", false),
      ])
  }

  /// An app whose `$(…)` references need more rules than one list holds has its hosts blocked whole, and WebKit,
  /// not just our JSON, must agree: every URL on its hosts is blocked, the other app keeps its exact rules.
  @Test func anAppTooBigForOneListHasItsHostsBlockedWhole() throws {
    let components = (0..<40).map { #"{"/": "/$(v)/p\#($0)/*"}"# }.joined(separator: ",")
    let values = (0..<10).map { "\"v\($0)\"" }.joined(separator: ",")
    let hostileID = "HHHHHHHHHH.com.example.hostile"
    let hostile = try AASAFile(
      json: """
        {"applinks": {"substitutionVariables": {"v": [\(values)]},
          "details": [{"appIDs": ["\(hostileID)"], "components": [\(components)]}]}}
        """)
    let beta = Self.blocklist.apps[2]
    let list = Blocklist(apps: [
      LinkingApp(
        appID: hostileID, name: "Hostile", input: "hostile.ipa",
        scopes: [
          RuleScope(host: "hostile.example", wildcard: true, rules: AppLinkRules(file: hostile, appID: hostileID))
        ]
      ),
      beta,
    ])
    let (lists, notes) = BlocklistRenderer(list).contentRules(maxRules: 100)
    #expect(lists.count == 1 && lists[0].count < 10)
    #expect(notes.contains { $0.appID == hostileID && $0.kind == .wider })
    try Engines.expectWebKit(
      BlocklistRenderer.json(lists[0]),
      blocking: [
        ("https://www.hostile.example/", true), ("https://a.b.hostile.example/v3/p7/x", true),
        ("https://m.hostile.example/anything?q=1", true), ("https://hostile.example/v3/p7/x", false),
        ("https://hostile.example.evil.example/x", false), ("https://beta.example/any/thing", true),
        ("https://beta.example/private/x", false),
      ])
  }

  /// `--uncovered block` through the whole pipeline, as a user runs it offline with no cached files: WebKit blocks
  /// every URL of the Store's hosts (both the exact and the wildcard entry) and nothing else.
  @Test func uncoveredDomainsBlockedWholeInWebKit() throws {
    let result = try CLI.run([
      "blocklist", CLI.sample("Store.ipa"), "--offline", "--cache-dir", try Engines.folder().path, "--uncovered",
      "block", "--format", "wkcontentrules",
    ])
    #expect(result.status == 1, "\(result.stderr)")
    try Engines.expectWebKit(
      result.stdout,
      blocking: [
        ("https://shop.example.com/", true), ("https://shop.example.com/any/path?q=1#f", true),
        ("https://www.example.com/x", true), ("https://a.b.example.com/", true), ("https://example.com/x", false),
        ("https://shop.example.com.evil.example/", false), ("https://other.example/shop.example.com/", false),
      ])
  }

  @Test func javascriptGuardGivesTheMatchersVerdicts() throws {
    let script = BlocklistRenderer(Self.blocklist).javaScriptGuard(generator: "test")
    let results = try Engines.harness(["eval", Engines.write(script), Engines.write(Self.corpus)])
    let errors = try #require(results["consoleErrors"] as? [Any], "the harness always reports consoleErrors")
    #expect(errors.isEmpty, "console: \(errors)")
    let rows = try #require(results["results"] as? [[String: Any]])
    #expect(rows.count == Self.corpus.count)
    for row in rows {
      let url = try #require(row["url"] as? String)
      let expected = Self.blocklist.verdict(for: url)
      #expect(row["verdict"] as? String == expected.verdict.rawValue, "\(url)")
      #expect(row["pointer"] as? String == expected.pointer, "\(url)")
    }
  }

  /// Real pointer clicks (GDK events under Xvfb) on a page: the guard stops the taps iOS would hand to an app and
  /// makes the same navigation without the tap's user gesture (WebKit's `is_user_gesture` in `decide-policy`), from
  /// its iframe; it leaves alone taps on the page's own host, excluded and unclaimed links, and the page's own script.
  /// A form whose method HTML does not know submits as GET, and a link to another origin navigates whatever its
  /// `download` says: both are guarded. So are an SVG link (`xlink:href`), a link in a closed shadow root, a server
  /// map's position (`<img ismap>`: only the URL with it opens the app) and a GET form in windows-1252 (only its
  /// query in that encoding opens the app), each of which got through with the gesture; a link whose target names an
  /// iframe of the page loads there, as without the guard (it loaded in the whole page). A page that works against
  /// the guard, its listener before the guard's or `MessageChannel` replaced, gets no tap through either.
  @Test func javascriptGuardRenavigatesWithoutTheUsersGesture() throws {
    let page = """
      <!doctype html><meta charset=utf-8><title>links</title>
      <a id=app href="https://alpha.example/buy/shoes" data-click>app</a>
      <a id=web href="https://alpha.example/buy/gift/card" data-click>gift</a>
      <a id=other href="https://elsewhere.example/buy/1" data-click>other</a>
      <a id=span href="https://beta.example/any"><span id=inner data-click>inner span</span></a>
      <a id=blank target=_blank href="https://alpha.example/buy/x" data-click>blank</a>
      <a id=modified href="https://alpha.example/buy/y" data-click data-modifiers=ctrl>ctrl</a>
      <a id=own href="https://page.example/buy/z" data-click>the page's own host</a>
      <a id=script href="#" onclick="location.href = 'https://alpha.example/buy/script'; return false" data-click>script</a>
      <form method=post action="https://alpha.example/buy/form"><input name=q value="a b">
        <button id=submit data-click>submit</button></form>
      <form action="https://beta.example/search"><input name=q value=x><button id=get data-click>get</button></form>
      <form method=PUT action="https://alpha.example/buy/put"><input name=q value=x>
        <button id=put data-click>a method HTML does not know submits as GET</button></form>
      <a id=download download href="https://alpha.example/buy/file" data-click>another origin's download</a>
      <form action="https://alpha.example/buy/gift/card"><input name=q value=x>
        <button id=excluded data-click>excluded</button></form>
      <svg width=240 height=30><a id=svg data-click xlink:href="https://alpha.example/buy/svg">
        <rect width=240 height=30 fill="#39f"></rect></a></svg>
      <x-closed id=closed data-click style="display:block;width:240px;height:30px"></x-closed>
      <a href="https://extra.example/m/1"><img id=ismap ismap data-click width=120 height=40 alt=map
        src="data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///ywAAAAAAQABAAACAUwAOw=="></a>
      <form action="https://extra.example/s/" accept-charset=windows-1252><input name=q value="café">
        <button id=charset data-click>café</button></form>
      <iframe name=f width=240 height=40></iframe>
      <a id=named target=f href="https://alpha.example/buy/framed" data-click>in the iframe named f</a>
      <div id=later></div>
      <script>
      customElements.define('x-closed', class extends HTMLElement {
        constructor() {
          super();
          this.attachShadow({mode: 'closed'}).innerHTML =
            '<a href="https://alpha.example/buy/closed" style="display:block;height:30px">closed</a>';
        }
      });
      addEventListener('load', () => {
        const a = document.createElement('a'); a.id = 'added'; a.href = 'https://alpha.example/buy/later';
        a.textContent = 'added later'; a.setAttribute('data-click', ''); document.getElementById('later').append(a);
      });
      </script>
      """
    // The page.example host is claimed too, so that a tap on the page's own host would open the app elsewhere.
    let claimedOwnHost = """
      {"applinks": {"details": [{"appIDs": ["PPPPPPPPPP.com.example.page"], "components": [{"/": "/buy/*"}]}]}}
      """
    var blocklist = Self.blocklist
    func add(_ appID: String, on host: String, _ json: String) throws {
      let rules = AppLinkRules(file: try AASAFile(json: json), appID: appID)
      blocklist.apps.append(
        LinkingApp(
          appID: appID, name: host, input: host + ".ipa",
          scopes: [RuleScope(host: host, wildcard: false, rules: rules)]))
    }
    try add("PPPPPPPPPP.com.example.page", on: "page.example", claimedOwnHost)
    // extra.example opens its app for /m/ with a query only, and for /s/ unless `q` is "café" in UTF-8.
    let extra = """
      {"applinks": {"details": [{"appIDs": ["EEEEEEEEEE.com.example.extra"], "components": [
        {"/": "/m/*", "?": "?*"}, {"/": "/s/*", "?": {"q": "café"}, "percentEncoded": false, "exclude": true},
        {"/": "/s/*"}]}]}}
      """
    try add("EEEEEEEEEE.com.example.extra", on: "extra.example", extra)
    #expect(blocklist.verdict(for: "https://extra.example/m/1").verdict == .noMatch)
    #expect(blocklist.verdict(for: "https://extra.example/s/?q=caf%C3%A9").verdict == .exclude)
    let guardScript = BlocklistRenderer(blocklist).javaScriptGuard(generator: "test")
    let file = try Engines.write(page, ext: "html")
    let guarded = try Engines.harness(["click", Engines.write(guardScript), file])
    let bare = try Engines.harness(["click", "-", file])
    let errors = try #require(guarded["consoleErrors"] as? [Any], "the harness always reports consoleErrors")
    #expect(errors.isEmpty, "console: \(errors)")
    #expect(guarded["clickMethod"] as? String == "gdk")
    func navigations(_ result: [String: Any]) -> [String: [[String: Any]]] {
      var out: [String: [[String: Any]]] = [:]
      for row in result["results"] as? [[String: Any]] ?? [] {
        #expect(row["error"] is NSNull, "\(row)")
        out[row["id"] as? String ?? "?"] = row["navigations"] as? [[String: Any]] ?? []
      }
      return out
    }
    let with = navigations(guarded)
    let without = navigations(bare)
    let gesture = { (nav: [String: Any]) in nav["userGesture"] as? Bool == true }
    let leaving = { (nav: [String: Any]) in (nav["uri"] as? String ?? "").hasPrefix("https://") }
    for id in [
      "app", "inner", "blank", "modified", "added", "submit", "get", "put", "download", "svg", "closed", "ismap",
      "charset",
    ] {
      // Without the guard the user's tap starts the navigation, with its gesture: iOS would open the app.
      #expect(without[id]?.contains { leaving($0) && gesture($0) } == true, "\(id) baseline: \(without[id] ?? [])")
      // With it the same URL loads, carrying no gesture, after the guard's iframe (about:blank) appears.
      let nav = with[id] ?? []
      let away = nav.filter(leaving)
      #expect(away.count == 1, "\(id): \(nav)")
      #expect(away.allSatisfy { !gesture($0) && $0["kind"] as? String == "navigation" }, "\(id): \(nav)")
      #expect(nav.first?["uri"] as? String == "about:blank", "\(id): \(nav)")
      #expect(away.first?["uri"] as? String == without[id]?.first(where: leaving)?["uri"] as? String, "\(id)")
    }
    #expect(with["submit"]?.first(where: leaving)?["navigationType"] as? String == "form-submitted")
    #expect(with["get"]?.first(where: leaving)?["uri"] as? String == "https://beta.example/search?q=x")
    #expect(with["put"]?.first(where: leaving)?["uri"] as? String == "https://alpha.example/buy/put?q=x")
    #expect(with["ismap"]?.first(where: leaving)?["uri"] as? String == "https://extra.example/m/1?60,20")
    #expect(with["charset"]?.first(where: leaving)?["uri"] as? String == "https://extra.example/s/?q=caf%E9")
    // Left alone: each navigates as without the guard, with the user's gesture.
    for id in ["web", "other", "own", "script", "excluded", "named"] {
      let nav = with[id] ?? []
      #expect(nav.count == 1 && gesture(nav[0]), "\(id) left alone: \(nav)")
      #expect(nav.first?["uri"] as? String == without[id]?.first?["uri"] as? String, "\(id)")
    }
    // A page against the guard: a capture listener on the window (after the guard's) stopping every click, the
    // guard's mark claimed for every element, and a MessageChannel that calls back at once, inside the tap.
    let hostile = """
      <!doctype html><meta charset=utf-8><title>hostile</title>
      <script>
      addEventListener('click', e => e.stopPropagation(), true);
      const has = Element.prototype.hasAttribute;
      Element.prototype.hasAttribute = function (n) { return n === 'data-ipalinks-guard' || has.call(this, n); };
      window.MessageChannel = function () {
        const port = {close() {}};
        this.port1 = port;
        this.port2 = {postMessage() { port.onmessage({}); }};
      };
      </script>
      <a id=hostile href="https://alpha.example/buy/hostile" data-click>hostile</a>
      """
    let hostileFile = try Engines.write(hostile, ext: "html")
    let attacked = navigations(try Engines.harness(["click", Engines.write(guardScript), hostileFile]))
    let away = (attacked["hostile"] ?? []).filter(leaving)
    #expect(away.count == 1 && !gesture(away[0]), "\(attacked)")
    #expect(away.first?["uri"] as? String == "https://alpha.example/buy/hostile")
  }
}
