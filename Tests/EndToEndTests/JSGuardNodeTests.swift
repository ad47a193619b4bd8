import Foundation
import IPALinksKit
import Testing
import UniversalLinks

/// The JavaScript guard (`Sources/IPALinksKit/Resources/ipalinks-guard.js` with rules in it) run in Node, its
/// verdicts checked one by one against the runtime core's (`Blocklist.table()`): on hand-made tables and on
/// thousands of random AASA files and URLs. No WebKit needed, only `node`.
///
/// The guard reads URLs through the WHATWG URL parser (as pages and WebKit do), so each URL is compared with the
/// core's verdict for the URL as that parser writes it (`href`); most generated URLs come out unchanged, and the
/// summary says how many did not.
@Suite(.serialized, .enabled(if: NodeJS.available, "needs node on PATH (make setup installs it)"))
struct JSGuardNodeTests {
  /// The seed of the random files and URLs; `IPALINKS_RANDOM_SEED` tries another.
  static let seed: UInt64 =
    ProcessInfo.processInfo.environment["IPALINKS_RANDOM_SEED"].flatMap { UInt64($0) } ?? 0x1A7A_11C5

  @Test func templateRunsAsIsAndEveryURLStaysInTheWebView() throws {
    let template = CLI.repo.appendingPathComponent("Sources/IPALinksKit/Resources/ipalinks-guard.js")
    let urls = ["https://example.com/buy/1", "http://a.example/", "not a URL", ""]
    let rows = try NodeJS.verdicts(guardFile: template, urls: urls)
    #expect(rows.map(\.verdict) == Array(repeating: "no-match", count: urls.count))
    #expect(rows.map(\.href) == ["https://example.com/buy/1", "http://a.example/", nil, nil])
  }

  @Test func writerReplacesThePlaceholderAndKeepsTheHeader() {
    let renderer = BlocklistRenderer(BlocklistEngineTests.blocklist)
    let script = renderer.javaScriptGuard(generator: "test")
    #expect(script.hasPrefix(renderer.header(generator: "test") + "//\n// What it does:"))
    #expect(!script.contains("ipalinks:rules") && !script.contains("ipalinks:end"))
    #expect(script.contains("  var RULES = {\"apps\":[{\"appID\":\"AAAAAAAAAA.com.example.alpha\""))
  }

  @Test func engineCorpusGivesTheRuntimeCoresVerdicts() throws {
    var random = RandomAASA(seed: Self.seed)
    let blocklist = BlocklistEngineTests.blocklist
    let urls = BlocklistEngineTests.corpus + random.urls(for: blocklist, count: 1_000)
    let tally = try Self.crossCheck(blocklist, urls, context: "BlocklistEngineTests.blocklist, seed \(Self.seed)")
    #expect(tally.match > 100 && tally.exclude > 20)
  }

  @Test func appleDocumentationExamplesGiveTheRuntimeCoresVerdicts() throws {
    var random = RandomAASA(seed: Self.seed)
    let blocklist = try AppleExamples.blocklist()
    let urls = AppleExamples.urls + random.urls(for: blocklist, count: 1_000)
    let tally = try Self.crossCheck(blocklist, urls, context: "Apple's examples, seed \(Self.seed)")
    #expect(tally.match > 100 && tally.exclude > 20)
  }

  /// Text where JavaScript's string functions and Swift's differ unless the guard is careful: case mappings with
  /// context (final sigma) or of other lengths, canonically equivalent query item names (NFC and NFD), escapes.
  @Test func unicodeCaseAndNormalizationGiveTheRuntimeCoresVerdicts() throws {
    let appID = "UUUUUUUUUU.com.example.unicode"
    let file = try AASAFile(
      json: #"""
        {"applinks": {"defaults": {"caseSensitive": false, "percentEncoded": false}, "details": [{"appIDs": ["\#(appID)"],
          "components": [
            {"/": "/ΣΑΣ/*"}, {"/": "/straße/*"}, {"/": "/İd/*"}, {"/": "/Café/*", "caseSensitive": true},
            {"/": "/enc/caf%C3%A9/*", "percentEncoded": true}, {"/": "/Ω?/*"}, {"/": "/e\u0301/*", "exclude": true},
            {"/": "/q/*", "?": {"café": "?*"}}, {"/": "/n/*", "?": {"cafe\u0301": "1"}},
            {"/": "/f/*", "#": "ǅ*"}, {"/": "/x/*", "?": "ΣΑΣ=*"}
          ]}]}}
        """#)
    let blocklist = Blocklist(apps: [
      LinkingApp(
        appID: appID, name: "Unicode", input: "unicode.ipa",
        scopes: [RuleScope(host: "unicode.example", wildcard: false, rules: AppLinkRules(file: file, appID: appID))])
    ])
    let paths = [
      "/ΣΑΣ/x", "/σας/x", "/σασ/x", "/%CE%A3%CE%91%CE%A3/x", "/ΣΑΣ", "/STRASSE/x", "/Straße/x", "/STRAẞE/x",
      "/i̇d/x", "/İD/x", "/id/x", "/Café/x", "/café/x", "/CAFÉ/x", "/Cafe\u{301}/x", "/enc/caf%C3%A9/x",
      "/enc/café/x", "/enc/CAF%C3%A9/x", "/ω1/x", "/Ωé/x", "/e\u{301}/x", "/é/x", "/q/1?café=1", "/q/1?cafe\u{301}=1",
      "/q/1?CAF%C3%89=1", "/q/1?caf%C3%A9=", "/n/1?café=1", "/n/1?cafe%CC%81=1", "/n/1?CAFE%CC%81=1", "/f/1#ǆx",
      "/f/1#ǅx", "/f/1#Ǆx", "/f/1#dž", "/x/1?ΣΑΣ=1", "/x/1?σας=1", "/x/1?σασ=1",
    ]
    var random = RandomAASA(seed: Self.seed)
    let urls = paths.map { "https://unicode.example" + $0 } + random.urls(for: blocklist, count: 1_000)
    let tally = try Self.crossCheck(blocklist, urls, context: "Unicode table, seed \(Self.seed)")
    #expect(tally.match > 100 && tally.exclude > 5)
  }

  /// 12,000 URLs over 50 worlds of random files (about 150 apps and 100 files).
  @Test func randomFilesAndURLsGiveTheRuntimeCoresVerdicts() throws {
    var random = RandomAASA(seed: Self.seed)
    let (blocklist, files) = random.blocklist(worlds: 50)
    let urls = random.urls(for: blocklist, count: 12_000)
    let tally = try Self.crossCheck(blocklist, urls, context: "random files, seed \(Self.seed)", files: files)
    print(
      "JSGuardNodeTests: seed \(Self.seed): \(urls.count) URLs, \(blocklist.apps.count) apps, \(files.count) files: "
        + tally.summary)
    // A corpus that mostly misses would prove little: most URLs must open an app, and excludes must decide some.
    #expect(tally.match * 100 >= urls.count * 20, "seed \(Self.seed): \(tally.summary)")
    #expect(tally.exclude * 100 >= urls.count * 5, "seed \(Self.seed): \(tally.summary)")
    #expect(tally.noMatch * 100 >= urls.count * 10, "seed \(Self.seed): \(tally.summary)")
  }

  /// The navigation rule in the JavaScript guard and in the Swift core give the same answer for every fact, and
  /// the Swift core reads every destination as Node's WHATWG parser does (WebKit follows the same standard): on the
  /// engine corpus and on hostile spellings of its URLs (user info, backslashes, percent-encoded or fullwidth host
  /// letters, ports, a trailing dot, dot segments), against pages on the same host and on others.
  @Test func navigationRuleIsTheSwiftCoresOnHostileURLs() throws {
    let blocklist = BlocklistEngineTests.blocklist
    let table = blocklist.table()
    var destinations: [String] = []
    for url in BlocklistEngineTests.corpus {
      guard let parts = UniversalLinkURL(string: url), url.hasPrefix("https://") else { continue }
      let host = parts.host
      let rest = String(url.dropFirst("https://".count + host.count))
      let encoded = host.unicodeScalars.map { $0 == "." ? "%2E" : String($0) }.joined()
      let fullwidth = String(
        String.UnicodeScalarView(
          host.unicodeScalars.map { s in
            ("a"..."z").contains(s) ? Unicode.Scalar(s.value + 0xFEE0)! : s
          }))
      destinations += [
        url, "https://evil.example@\(host)\(rest)", "https://\(host)@evil.example\(rest)",
        "https://\(host)\\@evil.example\(rest)", "https://evil.example\\@\(host)\(rest)", "https:\\\\\(host)\(rest)",
        "https://\(encoded)\(rest)", "https://\(fullwidth)\(rest)", "https://\(host.uppercased()):8443\(rest)",
        "https://\(host).\(rest)", "https://\(host)/x/..\(rest)", "https://\(host)/%2e%2E\(rest)",
      ]
    }
    destinations += [
      "https://bücher.example/buy/1", "https://[::1]/buy", "https://0x7f.1/buy", "mailto:x@alpha.example",
    ]
    let pages: [String?] = [
      nil, "https://news.example/", "https://alpha.example/", "https://ALPHA.example:8443/x", "https://alpha.example./",
      "https://www.alpha.example/", "about:blank", "https://beta.example/p",
    ]
    var facts: [LinkRuntime.Navigation] = []
    for (n, destination) in destinations.enumerated() {
      for page in pages {
        facts.append(
          .init(destination: destination, page: page, frame: .main, kind: .linkActivated, userInitiated: true))
      }
      // Every frame, kind and user fact, on one page each.
      let frame = LinkRuntime.Navigation.Frame.allCases[n % 3]
      let kind = LinkRuntime.Navigation.Kind.allCases[n % 6]
      let user: Bool? = [true, false, nil][n % 3]
      facts.append(
        .init(destination: destination, page: pages[n % pages.count], frame: frame, kind: kind, userInitiated: user))
    }
    let folder = try Engines.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let guardFile = folder.appendingPathComponent("ipalinks-guard.js")
    try Data(BlocklistRenderer(blocklist).javaScriptGuard(generator: "JSGuardNodeTests").utf8).write(to: guardFile)
    let lines = facts.map { fact -> String in
      let object: [String: Any] = [
        "destination": fact.destination, "page": fact.page ?? NSNull(), "frame": fact.frame.rawValue,
        "kind": fact.kind.rawValue, "userInitiated": fact.userInitiated ?? NSNull(),
      ]
      return String(decoding: try! JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }
    let input = folder.appendingPathComponent("facts.jsonl")
    try Data(lines.joined(separator: "\n").utf8).write(to: input)
    let node = try #require(NodeJS.executable)
    let run = try CLI.run(
      [CLI.repo.appendingPathComponent("Tests/Node/guard-navigations.js").path, guardFile.path, input.path],
      executable: node)
    try #require(run.status == 0, "node: \(run.stderr)")
    struct Answer: Decodable {
      var host: String?
      var href: String?
      var opensApp: Bool
      var reason: String
      var appID: String?
    }
    let answers = try run.stdout.split(separator: "\n").map {
      try JSONDecoder().decode(Answer.self, from: Data($0.utf8))
    }
    try #require(answers.count == facts.count)
    var opened = 0
    var sameHost = 0
    var failures = 0
    for (fact, js) in zip(facts, answers) {
      let swift = table.decide(fact)
      let url = LinkRuntime.WebURL(fact.destination)
      // Hosts outside ASCII: Swift reads them inexactly and counts them as opening an app (fail closed).
      let exact = url?.hostIsExact ?? true
      var agree = swift.opensApp == js.opensApp && swift.reason.rawValue == js.reason
      if !exact { agree = swift.opensApp && (swift.reason == .unreadableHost || swift.reason.rawValue == js.reason) }
      if exact { agree = agree && url?.host == js.host && url?.href == js.href }
      if swift.opensApp { opened += 1 }
      if swift.reason == .sameHost { sameHost += 1 }
      if !agree {
        failures += 1
        if failures <= 10 {
          let message =
            "\(fact): Swift \(swift.opensApp) \(swift.reason.rawValue) \(url?.host ?? "-") \(url?.href ?? "-"); "
            + "JavaScript \(js.opensApp) \(js.reason) \(js.host ?? "-") \(js.href ?? "-")"
          Issue.record(Comment(rawValue: message))
        }
      }
    }
    #expect(failures == 0, "\(failures) of \(facts.count) navigations differ")
    // Both answers occur often: agreeing is more than both saying no.
    #expect(opened > facts.count / 10 && sameHost > facts.count / 20, "opened \(opened), same host \(sameHost)")
  }

  // MARK: - Cross-check

  /// Whether the path of `url` has a `.` or `..` segment (`%2e` counts as `.`), which the WHATWG parser removes.
  static func hasDotSegment(_ url: String) -> Bool {
    guard let path = UniversalLinkURL(string: url)?.percentEncodedPath else { return false }
    return path.split(separator: "/", omittingEmptySubsequences: false).contains {
      let segment = $0.lowercased().replacingOccurrences(of: "%2e", with: ".")
      return segment == "." || segment == ".."
    }
  }

  /// How a corpus came out.
  struct Tally {
    var match = 0
    var exclude = 0
    var noMatch = 0
    /// URLs the WHATWG parser rewrote, and how many of those the core decides differently as written.
    var rewritten = 0
    var rewrittenVerdictChanged = 0
    /// URLs the WHATWG parser rejects (the guard leaves them alone).
    var rejected = 0

    var summary: String {
      let total = max(match + exclude + noMatch, 1)
      func share(_ n: Int) -> String { "\(n) (\(n * 100 / total)%)" }
      return "match \(share(match)), exclude \(share(exclude)), no-match \(share(noMatch)); \(rewritten) rewritten "
        + "by the URL parser (\(rewrittenVerdictChanged) with another verdict as written), \(rejected) rejected"
    }
  }

  /// Runs the guard for `blocklist` in Node on `urls` and expects every verdict, app ID and pointer to be the
  /// runtime core's. `files` (by host) go into failure messages.
  static func crossCheck(
    _ blocklist: Blocklist, _ urls: [String], context: String, files: [String: String] = [:]
  ) throws -> Tally {
    let script = BlocklistRenderer(blocklist).javaScriptGuard(generator: "JSGuardNodeTests")
    let folder = try Engines.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let guardFile = folder.appendingPathComponent("ipalinks-guard.js")
    try Data(script.utf8).write(to: guardFile)
    let rows = try NodeJS.verdicts(guardFile: guardFile, urls: urls)
    try #require(rows.count == urls.count, "\(context): \(rows.count) verdicts for \(urls.count) URLs")
    let table = blocklist.table()
    var tally = Tally()
    var failures = 0
    for (url, row) in zip(urls, rows) {
      let actual = LinkRuntime.Table.Decision(
        verdict: LinkRuntime.Verdict(rawValue: row.verdict) ?? .noMatch, appID: row.appID, pointer: row.pointer)
      var expected = LinkRuntime.Table.Decision(verdict: .noMatch)
      if let href = row.href {
        expected = table.decide(href)
        if href != url {
          tally.rewritten += 1
          if table.decide(url) != expected {
            // The one known cause: the WHATWG parser removes `.` and `..` segments, ipalinks' parser keeps them.
            tally.rewrittenVerdictChanged += 1
            #expect(
              Self.hasDotSegment(url), "\(context): the URL parser changed the verdict of \(url.debugDescription)")
          }
        }
      } else {
        tally.rejected += 1
      }
      switch expected.verdict {
      case .match: tally.match += 1
      case .exclude: tally.exclude += 1
      case .noMatch: tally.noMatch += 1
      }
      guard actual != expected || LinkRuntime.Verdict(rawValue: row.verdict) == nil else { continue }
      failures += 1
      // The first few in full; the count says how many more.
      guard failures <= 10 else { continue }
      let host = UniversalLinkURL(string: row.href ?? url)?.host ?? ""
      let relevant = files.filter { host == $0.key || host.hasSuffix("." + $0.key) }.sorted { $0.key < $1.key }
      Issue.record(
        """
        \(context): \(url.debugDescription) (WHATWG: \(row.href.debugDescription))
          JavaScript guard: \(row.verdict) \(row.appID ?? "-") \(row.pointer ?? "-")
          runtime core:     \(expected.verdict.rawValue) \(expected.appID ?? "-") \(expected.pointer ?? "-")
        \(relevant.map { "  file of \($0.key): \($0.value)" }.joined(separator: "\n"))
        """)
    }
    #expect(failures == 0, "\(context): \(failures) of \(urls.count) verdicts differ")
    return tally
  }
}

/// Apple's documentation examples: the files and URLs of `AppleDocumentationTests`, which lives in another test
/// target, so they are copied here. Each file is served by its own host, listing the apps its examples name.
enum AppleExamples {
  static let app = "ABCDE12345.com.example.app"
  static let app2 = "ABCDE12345.com.example.app2"
  static let clip = "ABCDE12345.com.example.MyApp.Clip"
  static let wwdc = "9JA89QQLNQ.com.apple.wwdc"
  static let everything = "ABCD1234.com.apple.wwdc"

  /// "Supporting associated domains" and the `applinks` reference.
  static let supporting = """
    {"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app", "ABCDE12345.com.example.app2"],
      "components": [
        {"#": "no_universal_links", "exclude": true},
        {"/": "/buy/*"},
        {"/": "/help/website/*", "exclude": true},
        {"/": "/help/*", "?": {"articleNumber": "????"}}]}]},
     "webcredentials": {"apps": ["ABCDE12345.com.example.app"]},
     "appclips": {"apps": ["ABCDE12345.com.example.MyApp.Clip"]}}
    """
  /// The `applinks.Details` reference.
  static let details = """
    {"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app", "ABCDE12345.com.example.app2"],
      "components": [{"/": "/buy/*", "#": "my_great_product_123"}], "defaults": {"caseSensitive": false}}]}}
    """
  /// The `applinks.SubstitutionVariables` reference.
  static let substitution = """
    {"applinks": {"substitutionVariables": {"food": ["burrito", "pizza", "sushi", "samosa"]},
      "details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/$(lang)_$(region)/$(food)/"}]}]}}
    """
  /// The `applinks.Details.Components.Query` reference.
  static let query = """
    {"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"?": {"productID": "12345"}}]}]}}
    """
  /// The legacy "Support Universal Links" example; its second app, which opens every URL, gets its own host.
  static let legacy = """
    {"applinks": {"apps": [], "details": [
      {"appID": "9JA89QQLNQ.com.apple.wwdc", "paths": ["/wwdc/news/", "NOT /videos/wwdc/2010/*", "/videos/wwdc/201?/*"]},
      {"appID": "ABCD1234.com.apple.wwdc", "paths": ["*"]}]}}
    """

  static func blocklist() throws -> Blocklist {
    let files = try [
      "supporting.example": AASAFile(json: supporting), "details.example": AASAFile(json: details),
      "substitution.example": AASAFile(json: substitution), "query.example": AASAFile(json: query),
      "developer.apple.com": AASAFile(json: legacy), "all.apple.example": AASAFile(json: legacy),
    ]
    func entry(_ appID: String, _ hosts: [String]) -> LinkingApp {
      LinkingApp(
        appID: appID, name: appID, input: "apple-docs",
        scopes: hosts.map {
          RuleScope(host: $0, wildcard: false, rules: AppLinkRules(file: files[$0]!, appID: appID))
        })
    }
    return Blocklist(apps: [
      entry(app, ["supporting.example", "details.example", "substitution.example", "query.example"]),
      entry(app2, ["supporting.example", "details.example"]), entry(clip, ["supporting.example"]),
      entry(wwdc, ["developer.apple.com"]), entry(everything, ["all.apple.example"]),
    ])
  }

  /// The examples' URLs, on the host of their file.
  static let urls = [
    "https://supporting.example/buy/42", "https://supporting.example/buy/42#no_universal_links",
    "https://supporting.example/anything#no_universal_links",
    "https://supporting.example/help/website/faq?articleNumber=1234", "https://supporting.example/",
    "https://supporting.example/buy", "https://supporting.example/buyer", "https://supporting.example/help/website",
    "https://supporting.example/help/1?articleNumber=1234", "https://supporting.example/help/1?articleNumber=123",
    "https://supporting.example/help/1?articleNumber=12345", "https://supporting.example/help/1",
    "https://supporting.example/help/1?lang=en&articleNumber=abcd",
    "https://supporting.example/help/1?articleNumber=1234&articleNumber=12",
    "https://supporting.example/help/1?articleNumber=%41%42", "https://supporting.example/BUY/42",
    "https://supporting.example/x#no_universal_links_please", "https://details.example/buy/1#my_great_product_123",
    "https://details.example/BUY/1#MY_Great_Product_123", "https://details.example/Buy/x#my_great_product_123",
    "https://details.example/buy/1", "https://details.example/buy/1#my_great_product_124",
    "https://substitution.example/en_US/pizza/", "https://substitution.example/fr_CA/sushi",
    "https://substitution.example/en_US/taco/", "https://substitution.example/EN_us/samosa",
    "https://substitution.example/haw_US/burrito", "https://substitution.example/xx_US/pizza",
    "https://substitution.example/en_GB/pizza", "https://substitution.example/en_UK/pizza",
    "https://substitution.example/En_US/pizza", "https://substitution.example/en_US/Pizza",
    "https://query.example/p?productID=12345", "https://query.example/p?productID=123456",
    "https://query.example/?utm=x&productID=12345", "https://query.example/p",
    "https://query.example/a/b/c?productID=12345#x", "https://developer.apple.com/wwdc/news/",
    "https://developer.apple.com/wwdc/news", "https://developer.apple.com/wwdc/news/today",
    "https://developer.apple.com/videos/wwdc/2010/101", "https://developer.apple.com/videos/wwdc/2015/101",
    "https://developer.apple.com/videos/wwdc/2020/101", "https://developer.apple.com/videos/wwdc/2016/1?x=1#t=10",
    "https://all.apple.example/anything/at/all?q",
  ]
}

/// Finds and runs Node.
enum NodeJS {
  /// `node` on the PATH, if any.
  static let executable: URL? = {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("node") }
      .first { FileManager.default.isExecutableFile(atPath: $0.path) }
  }()

  /// On when node is on the PATH, and under `IPALINKS_REQUIRE_ENGINES=1` (which `make test` sets on Linux) in any
  /// case, so that a missing node fails there instead of skipping.
  static let available: Bool =
    ProcessInfo.processInfo.environment["IPALINKS_REQUIRE_ENGINES"] == "1" || executable != nil

  static let driver = CLI.repo.appendingPathComponent("Tests/Node/guard-verdicts.js")

  /// One line of the driver's output.
  struct Row: Decodable {
    var href: String?
    var verdict: String
    var appID: String?
    var pointer: String?
  }

  /// The guard's verdict for each URL, in order (see `Tests/Node/guard-verdicts.js`).
  static func verdicts(guardFile: URL, urls: [String]) throws -> [Row] {
    let node = try #require(executable, "node is not on the PATH (make setup installs it)")
    let list = try Engines.folder().appendingPathComponent("urls.txt")
    defer { try? FileManager.default.removeItem(at: list.deletingLastPathComponent()) }
    try Data(urls.map { $0 + "\n" }.joined().utf8).write(to: list)
    let run = try CLI.run([driver.path, guardFile.path, list.path], executable: node)
    try #require(run.status == 0, "node: \(run.stderr)")
    return try run.stdout.split(separator: "\n").map { try JSONDecoder().decode(Row.self, from: Data($0.utf8)) }
  }
}
