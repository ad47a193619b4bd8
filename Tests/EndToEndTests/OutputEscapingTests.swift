import Foundation
import IPALinksKit
import Testing
import UniversalLinks

/// Every generated format fed strings that end a literal, a comment, a line, a raw string or a `<script>` element.
/// This suite holds the hostile fixtures and the checks that need no engine: the header comment, the plain lists
/// line by line, the content-rule and inventory JSON through `JSONSerialization`, and the HTML report's source. The
/// same fixtures go through the Swift guard compiled by `swiftc` (`SwiftGuardCompileTests`) and through
/// JavaScriptCore and WebKit (`OutputEscapingEngineTests`). Each output must still parse, give the hostile strings
/// back exactly (or, in the HTML, as escaped text), and run none of the code the payloads carry.
struct OutputEscapingTests {
  // MARK: - Fixtures

  /// Strings that close or open something in one of the formats. Those that would run code if they got out set
  /// `__pwned` (JavaScript) or call `fatalError("INJECTED")` (Swift); the rest break the syntax.
  static let payloads: [String] = [
    "\"", "'", "`", "\\", "\\\\\"", "*/", "/*", "</script>", "<!--", "]]>", "${x}", "\"); fatalError(\"INJECTED",
    "\\\"}); alert(1); ({\\\"", "\n", "\r", "\r\n", "\u{2028}", "\u{2029}", "\u{0}", "\u{7F}\u{85}\u{FEFF}\u{202E}",
    "🦄𝄞", "\"#\"\"\"#", "\\#(fatalError(\"INJECTED\"))", "\\(fatalError(\"INJECTED\"))", "\"\"\"##)",
    "*/ globalThis.__pwned = 1; /*", "\nglobalThis.__pwned = 1; //", "\u{2028}globalThis.__pwned = 1; //",
    "\"});globalThis.__pwned = 1;({\"", "</SCRIPT><script>globalThis.__pwned = 1</script>", "<!--<script>",
    "\nfatalError(\"INJECTED\")\n//",
  ]

  /// A host that fits in a URL authority (no `/ ? # @ :`) but carries quotes, escapes and line breaks.
  static let hostileHost = "evil\"'`\\<>{}$(x)\n\r\t\u{2028}\u{2029}\u{0}🦄.example"
  /// A wildcard host that could end a comment or a script if it were written as is.
  static let hostileWildcard = "*/ </script><!--<script> /*\n\u{2028}.example"
  static let generator = "ipalinks */ </script>\n\u{2028}globalThis.__pwned = 1; //"

  /// Every byte but the unreserved ones as `%XX`, which every parser in play (the library's, the Swift guard's,
  /// WebKit's) keeps as it is.
  static func encoded(_ text: String) -> String {
    var out = ""
    for byte in text.utf8 {
      let c = Character(Unicode.Scalar(byte))
      if c.isASCII && (c.isLetter || c.isNumber || "-._~".contains(c)) {
        out.append(c)
      } else {
        out += String(format: "%%%02X", byte)
      }
    }
    return out
  }

  static func appID(_ number: Int, _ p: String) -> String { "TEAM\(number).com.example." + p }

  /// App `number` with payload `p` in its id, name and input, and in each rule's pattern, pointer and path, query,
  /// query item or fragment. Rules read decoded text, so a URL that spells the payload with `%XX` matches it.
  static func app(_ number: Int, _ p: String) -> LinkingApp {
    let id = appID(number, p)
    func rule(
      _ index: Int, _ pointer: String, path: String, query: QueryPattern? = nil, fragment: String? = nil,
      exclude: Bool = false, caseSensitive: Bool = true
    ) -> EffectiveRule {
      EffectiveRule(
        reference: MatchedRule(
          detailIndex: 0, componentIndex: index, kind: .component, pattern: p, exclude: exclude, pointer: pointer + p),
        path: path, query: query, fragment: fragment, caseSensitive: caseSensitive, percentEncoded: false)
    }
    let rules = [
      rule(0, "/x", path: "/x/" + p, exclude: true),
      rule(1, "/p", path: "/p/" + p),
      rule(2, "/items", path: "/items", query: .items([QueryItemPattern(name: "n" + p, pattern: p)])),
      rule(3, "/frag", path: "/frag", fragment: p),
      rule(4, "/qs", path: "/qs", query: .string(p)),
      rule(5, "/ci", path: "/ci/Aa" + p, caseSensitive: false),
    ]
    return LinkingApp(
      appID: id, name: "App \(number) " + p, input: p + ".ipa",
      scopes: [
        RuleScope(
          host: "a\(number).example", wildcard: false,
          rules: AppLinkRules(appID: id, detailIndex: 0, rules: rules))
      ])
  }

  static let hostApp: LinkingApp = {
    let id = "TEAMHOSTS0.com.example.hosts"
    func rules(_ pointer: String) -> AppLinkRules {
      let reference = MatchedRule(
        detailIndex: 0, componentIndex: 0, kind: .component, pattern: "/*", exclude: false, pointer: pointer)
      return AppLinkRules(appID: id, detailIndex: 0, rules: [EffectiveRule(reference: reference, path: "/*")])
    }
    return LinkingApp(
      appID: id, name: "Hosts " + hostileWildcard, input: hostileHost,
      scopes: [
        RuleScope(host: hostileHost, wildcard: false, rules: rules("/host")),
        RuleScope(host: hostileWildcard, wildcard: true, rules: rules("/wildcard")),
      ])
  }()

  static let blocklist = Blocklist(apps: payloads.enumerated().map { app($0.offset, $0.element) } + [hostApp])

  /// The URLs of app `number` and the verdict each must get: every rule decides one, one URL matches none.
  static func cases(_ number: Int, _ p: String) -> [(url: String, expected: BlocklistVerdict)] {
    let base = "https://a\(number).example"
    let e = encoded(p)
    func match(_ pointer: String) -> BlocklistVerdict {
      BlocklistVerdict(verdict: .match, appID: appID(number, p), pointer: pointer + p)
    }
    return [
      (base + "/x/" + e, BlocklistVerdict(verdict: .exclude, appID: appID(number, p), pointer: "/x" + p)),
      (base + "/p/" + e, match("/p")),
      (base + "/items?a=1&" + encoded("n" + p) + "=" + e, match("/items")),
      (base + "/frag#" + e, match("/frag")),
      (base + "/qs?" + e, match("/qs")),
      (base + "/CI/AA" + e, match("/ci")),
      (base + "/none/" + e, BlocklistVerdict(verdict: .noMatch)),
    ]
  }

  /// URLs every engine parses the same way.
  static let corpus = payloads.enumerated().flatMap { cases($0.offset, $0.element) }

  /// The payloads, eight at a time, in every string of a bundle (the report tests' hostile bundle), over two
  /// inputs that carry them too. (One bundle per payload makes a page too tall for the harness's screenshot.)
  static let reports: [InspectionReport] = {
    let groups = stride(from: 0, to: payloads.count, by: 8).map { payloads[$0..<min($0 + 8, payloads.count)] }
    let bundles = groups.enumerated().map { number, group in
      ReportEngineTests.hostileBundle(group.joined(separator: " "), number: number, extra: 0)
    }
    let half = bundles.count / 2
    return [
      InspectionReport(
        input: "inputs/" + payloads.joined() + ".ipa", inputKind: .ipa,
        diagnostics: payloads.map { Diagnostic(.warning, .inputUnreadable, $0) }, bundles: Array(bundles[..<half])),
      InspectionReport(input: payloads.reversed().joined(), inputKind: .appFolder, bundles: Array(bundles[half...])),
    ]
  }()

  /// How the HTML report shows the hidden characters of the payloads: as visible `\u{…}` text.
  static let shownAs: [Unicode.Scalar: String] = [
    "\n": "\\u{a}", "\r": "\\u{d}", "\t": "\\u{9}", "\u{0}": "\\u{0}", "\u{7F}": "\\u{7f}", "\u{85}": "\\u{85}",
    "\u{FEFF}": "\\u{feff}", "\u{202E}": "\\u{202e}", "\u{2028}": "\\u{2028}", "\u{2029}": "\\u{2029}",
  ]

  static func shown(_ text: String) -> String { text.unicodeScalars.map { shownAs[$0] ?? String($0) }.joined() }

  static func json(_ text: String) throws -> Any {
    try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
  }

  /// The text may go into an inline `<script>`: nothing in it may close the element, start an HTML comment that
  /// changes how the element ends, or be a line terminator only JavaScript knows.
  static func expectInlineSafe(_ script: String) {
    let lower = script.lowercased()
    #expect(!lower.contains("</script"))
    #expect(!lower.contains("<script"))
    #expect(!lower.contains("<!--"))
    #expect(!script.unicodeScalars.contains { $0 == "\u{2028}" || $0 == "\u{2029}" })
  }

  // MARK: - Comments and plain lists

  /// JSON output escapes every character a terminal acts on, and U+FEFF, and nothing else, whether the text around
  /// it is ASCII or not. The check first looks for the bytes that can begin such a character (C2, D8, E2, EF among
  /// them), so every character from U+0000 to U+2FFF and from U+F000 to U+FFFF, and a few beyond, goes through it,
  /// alone and among other text.
  /// Colour on a terminal that has it, and none on one that says it has none (`TERM=dumb`), as clig.dev asks:
  /// the text report run in a pseudo-terminal (Python's `pty`).
  @Test func colourOnlyOnATerminalThatHasIt() throws {
    func colours(term: String) throws -> Bool {
      let run = try CLI.run(
        [
          "-c", "import os, pty, sys; os.environ['TERM'] = sys.argv[1]; pty.spawn(sys.argv[2:])", term,
          CLI.binary.path, "inspect", CLI.sample("Store.ipa"), "--no-fetch",
        ], environment: ["NO_COLOR": ""], executable: URL(fileURLWithPath: "/usr/bin/python3"))
      #expect(run.status == 0 && run.stdout.contains("Payload/Store.app"), "\(run.stdout)\(run.stderr)")
      return run.stdout.contains("\u{1B}[")
    }
    #expect(try colours(term: "xterm-256color"))
    #expect(try !colours(term: "dumb"))
  }

  @Test func jsonEscapesWhatATerminalActsOnAndNothingElse() throws {
    let values: [UInt32] = Array(0..<0x3000) + Array(0xF000...0xFFFF) + [0x1_0000, 0x1_F984, 0x10_FFFF]
    let scalars = values.compactMap { Unicode.Scalar($0) }
    for scalar in scalars {
      let text = String(scalar)
      for value in [[text], ["ascii " + text + " é"]] {
        let json = JSONReporter.render(value, pretty: false)
        let raw = json.unicodeScalars.filter { $0 == "\u{FEFF}" || TerminalText.actsOnTerminal($0, true) }
        #expect(raw.isEmpty, "U+\(String(scalar.value, radix: 16)) is left raw in \(json)")
        #expect(try JSONDecoder().decode([String].self, from: Data(json.utf8)) == value)
        let escaped = scalar == "\u{FEFF}" || TerminalText.actsOnTerminal(scalar, true)
        // Escaped where it must be (JSONEncoder escapes the other C0 controls its own way), and written as it is
        // everywhere else.
        if escaped && scalar.value >= 0x7F {
          #expect(json.contains(String(format: "\\u%04x", scalar.value)), "\(json)")
        } else if !escaped && scalar.value >= 0x20 && scalar != "\"" && scalar != "\\" {
          #expect(json.unicodeScalars.contains(scalar), "U+\(String(scalar.value, radix: 16)) is escaped in \(json)")
        }
      }
    }
  }

  /// Found at every place in the eight bytes the scan reads at a time, and in the bytes after the last eight.
  @Test func jsonEscapesAtEveryOffset() {
    for scalar: Unicode.Scalar in ["\u{1}", "\u{7F}", "\u{85}", "\u{61C}", "\u{202E}", "\u{2028}", "\u{FEFF}"] {
      for offset in 0..<24 {
        let text = String(repeating: "a", count: offset) + String(scalar) + String(repeating: "b", count: 24 - offset)
        let json = JSONReporter.render([text], pretty: false)
        #expect(!json.unicodeScalars.contains(scalar), "U+\(String(scalar.value, radix: 16)) at \(offset): \(json)")
      }
    }
    let plain = (0..<40).map { String(repeating: "x", count: $0) + "é\t\n~ " }
    for text in plain { #expect(JSONReporter.render([text], pretty: false).contains("é")) }
  }

  @Test func headerIsCommentLinesOnly() {
    let renderer = BlocklistRenderer(Self.blocklist)
    let header = renderer.header(generator: Self.generator)
    let lines = header.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
    #expect(lines.count == 2 + Self.blocklist.apps.count + 1, "one line per app, plus two, plus the final empty one")
    #expect(lines.dropLast().allSatisfy { $0.hasPrefix("// ") })
    #expect(!header.contains("*/"))
    #expect(!header.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
    Self.expectInlineSafe(header)
    // Names and ids are kept, apart from what had to change.
    #expect(header.contains(Self.appID(2, "`")))
    #expect(header.contains("App 10 ${x}"))
  }

  @Test func plainListsHoldOneEntryPerLine() throws {
    let renderer = BlocklistRenderer(Self.blocklist)
    let rules = Self.blocklist.apps.flatMap(\.scopes).flatMap(\.rules.rules)

    let patterns = renderer.patterns()
    let patternLines = patterns.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
    #expect(patterns.hasSuffix("\n"))
    #expect(patternLines.count == 1 + rules.count)
    #expect(patterns.split(whereSeparator: \.isNewline).count == patternLines.count)
    #expect(patternLines.allSatisfy { $0.split(separator: "\t", omittingEmptySubsequences: false).count == 5 })
    // A payload without control characters is written as it is; one with them, with each escaped as `aasa show`
    // writes it (they were spaces, so `/p\u{2028}` read as `/p `).
    #expect(patternLines.contains { $0.hasSuffix("\tmatch\t</script>\t/p</script>") })
    #expect(patternLines.contains { $0.contains("\tmatch\t\\u{2028}\t/p\\u{2028}") }, "\(patternLines)")
    #expect(patternLines.contains { $0.contains("\\u{a}fatalError(") }, "\(patternLines)")

    let domains = renderer.domains()
    let domainLines = domains.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
    #expect(domains.hasSuffix("\n"))
    #expect(domainLines.count == Self.payloads.count + 2)
    #expect(domains.split(whereSeparator: \.isNewline).count == domainLines.count)
    #expect(domainLines.allSatisfy { !$0.unicodeScalars.contains { $0.value < 0x20 } })

    let (regexes, _) = renderer.regexes()
    let (lists, _) = renderer.contentRules()
    let filters = lists.joined().map(\.urlFilter)
    let regexLines = regexes.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
    #expect(regexes.hasSuffix("\n"))
    #expect(regexLines.count == 1 + filters.count)
    #expect(regexes.split(whereSeparator: \.isNewline).count == regexLines.count)
    let fields = regexLines.dropFirst().map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
    #expect(fields.allSatisfy { $0.count == 3 })
    // The filters are the content rules' own: hosts are escaped there already (see the JSON test).
    #expect(fields.map { $0.last.map(String.init) } == filters)
  }

  // MARK: - JSON

  @Test func contentRuleJSONParsesAndKeepsEveryFilter() throws {
    let (lists, notes) = BlocklistRenderer(Self.blocklist).contentRules()
    try #require(lists.count == 1)
    let text = BlocklistRenderer.json(lists[0])
    let parsed = try #require(try Self.json(text) as? [[String: Any]])
    try #require(parsed.count == lists[0].count)
    for (object, rule) in zip(parsed, lists[0]) {
      let trigger = object["trigger"] as? [String: Any]
      #expect(trigger?["url-filter"] as? String == rule.urlFilter)
      #expect(trigger?["url-filter-is-case-sensitive"] as? Bool == rule.caseSensitive)
      #expect((object["action"] as? [String: Any])?["type"] as? String == rule.action.rawValue)
    }
    // The hostile hosts are in it as `%XX` escapes, which no URL host holds, and a note says they block nothing.
    #expect(lists[0].contains { $0.urlFilter.contains("%0A%0D%09%E2%80%A8%E2%80%A9%00%F0%9F%A6%84") })
    #expect(lists[0].allSatisfy { $0.urlFilter.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F } })
    #expect(notes.contains { $0.kind == .narrower && $0.host == Self.hostApp.scopes[1].label })

  }

  @Test func inventoryJSONParsesAndGivesEveryStringBack() throws {
    for pretty in [true, false] {
      let text = JSONReporter.render(Self.reports, pretty: pretty)
      if !pretty {
        // One report per line (`--format jsonl`): no raw line break may split it.
        #expect(!text.contains("\n") && !text.contains("\r"))
      }
      let parsed = try #require(try Self.json(text) as? [[String: Any]])
      try #require(parsed.count == Self.reports.count)
      for (object, report) in zip(parsed, Self.reports) {
        #expect(object["input"] as? String == report.input)
        let diagnostics = object["diagnostics"] as? [[String: Any]] ?? []
        #expect(diagnostics.map { $0["code"] as? String } == report.diagnostics.map(\.code.rawValue))
        #expect(diagnostics.map { $0["message"] as? String } == report.diagnostics.map(\.message))
        let bundles = try #require(object["bundles"] as? [[String: Any]])
        try #require(bundles.count == report.bundles.count)
        for (saved, bundle) in zip(bundles, report.bundles) {
          for (key, value) in [
            ("name", bundle.name), ("bundleId", bundle.bundleId), ("appId", bundle.appId), ("path", bundle.path),
            ("version", bundle.version), ("teamId", bundle.teamId),
          ] {
            #expect(saved[key] as? String == value, "\(key)")
          }
          #expect(saved["urlSchemes"] as? [String] == bundle.urlSchemes)
          #expect(saved["queriedURLSchemes"] as? [String] == bundle.queriedURLSchemes)
          let messages = (saved["diagnostics"] as? [[String: Any]] ?? []).map { $0["message"] as? String }
          #expect(messages == bundle.diagnostics.map(\.message))
          let sources = saved["entitlementSourceDetails"] as? [[String: Any]] ?? []
          let keys = (sources.first?["entitlements"] as? [String: Any]).map { Set($0.keys) }
          #expect(keys == Set(bundle.entitlementSourceDetails[0].entitlements.keys))
          let domains = saved["associatedDomains"] as? [[String: Any]] ?? []
          #expect(domains.map { $0["raw"] as? String } == bundle.associatedDomains.map(\.raw))
          #expect(domains.map { $0["host"] as? String } == bundle.associatedDomains.map(\.host))
          let aasa = domains.map { $0["aasa"] as? [String: Any] }
          #expect(aasa.map { $0?["message"] as? String } == bundle.associatedDomains.map { $0.aasa?.fetch.message })
          let rules = ((aasa.first ?? nil)?["rules"] as? [[String: Any]]) ?? []
          let expected = bundle.associatedDomains.first?.aasa?.rules ?? []
          #expect(rules.map { $0["pointer"] as? String } == expected.map(\.reference.pointer))
          #expect(rules.map { $0["pattern"] as? String } == expected.map(\.reference.pattern))
          #expect(rules.map { $0["path"] as? String } == expected.map(\.path))
          #expect(rules.map { $0["fragment"] as? String } == expected.map(\.fragment))
        }
      }
    }
  }

  // MARK: - HTML

  /// The part of `html` between `open` and the next `close`.
  static func between(_ html: String, _ open: String, _ close: String) -> String? {
    guard let a = html.range(of: open), let b = html.range(of: close, range: a.upperBound..<html.endIndex) else {
      return nil
    }
    return String(html[a.upperBound..<b.lowerBound])
  }

  /// The report of every payload, under a title carrying them all, and the policy and sorting script a benign
  /// report has: a hostile one must have exactly the same.
  static func hostileReport() throws -> (html: String, title: String, policy: String, sorter: String) {
    let title = "Audit " + payloads.joined(separator: " ")
    let html = HTMLReporter.render(reports, title: title)
    let benign = HTMLReporter.render([InspectionReport(input: "x.ipa", inputKind: .ipa)])
    let policy = try #require(between(benign, "http-equiv=\"Content-Security-Policy\" content=\"", "\""))
    let sorter = try #require(between(benign, "<script>", "</script>"))
    return (html, title, policy, sorter)
  }

  @Test func htmlReportSourceHasOnlyItsOwnScriptAndNoRawPayload() throws {
    let (html, _, policy, sorter) = try Self.hostileReport()
    let benign = HTMLReporter.render([InspectionReport(input: "x.ipa", inputKind: .ipa)])

    // In the source: one script element, the report's own; no comment; no payload that needed escaping is left.
    let lower = html.lowercased()
    #expect(lower.components(separatedBy: "<script").count == 2)
    #expect(lower.components(separatedBy: "</script").count == 2)
    #expect(!html.contains("<!--"))
    #expect(Self.between(html, "<script>", "</script>") == sorter)
    #expect(html.contains("content=\"\(policy)\""))
    // (A lone quote or line feed is in any page, and `</script>` ends the report's own script.)
    let raw = Self.payloads.filter { p in
      p != "\"" && p != "\n" && html.components(separatedBy: p).count != benign.components(separatedBy: p).count
        && p.unicodeScalars.contains { "<\"".unicodeScalars.contains($0) || Self.shownAs[$0] != nil }
    }
    #expect(raw.isEmpty, "payloads in the page source as they are: \(raw.map(\.debugDescription))")
  }
}
