import Foundation
import Testing
import UniversalLinks

@testable import IPALinksKit

/// The renderers `aasa`, `match` and `fetch` print, without the CLI.
struct AASAReporterTests {
  static let file = try! AASAFile(
    json: """
      {"applinks": {"substitutionVariables": {"id": ["4?", "5?"]}, "details": [
        {"appIDs": ["T.a", "T.b"], "components": [{"/": "/x/*", "exclude": true}, {"/": "/$(id)"}]},
        {"appIDs": ["T.b", "T.c"], "paths": ["/legacy/*"]},
        {"appIDs": ["T.a"], "components": []},
        {"appIDs": [], "components": [{"/": "*"}]}
      ]}, "webcredentials": {"apps": []}}
      """)

  @Test func showGivesEachAppItsFirstDetailOnly() {
    let text = AASAShowReporter.text(Self.file, name: "aasa.json")
    #expect(
      text == """
        aasa.json: \(Self.file.byteCount) bytes
        applinks
          $(id) = "4?", "5?"
          T.a, T.b
            /applinks/details/0/components
              0  exclude  {"/": "/x/*", "exclude": true}
              1  match    {"/": "/$(id)"}
          T.c
            /applinks/details/1/paths (legacy)
              0  match    /legacy/*
          /applinks/details/2  never used (its apps use an earlier entry)
          /applinks/details/3  never used (lists no app)
        webcredentials: (no apps)

        """)
  }

  @Test func validationTextCountsAndJSONLinesNameTheFile() throws {
    let diagnostics = AASAValidator.validate(Array(#"{"applinks": {"details": [{"appIDs": ["x"]}]}}"#.utf8))
    try #require(!diagnostics.isEmpty)
    let text = AASAValidationReporter.text(diagnostics, file: "f.json", style: TextStyle(useColor: false, width: 500))
    let lines = text.split(separator: "\n")
    #expect(lines.count == diagnostics.count + 1)
    #expect(lines.dropLast().allSatisfy { $0.hasPrefix("f.json: error[") || $0.hasPrefix("f.json: warning[") })
    #expect(lines.last?.hasPrefix("f.json: ") == true && lines.last?.contains(" error") == true)
    #expect(!text.contains("(s)"), "counts use the noun's number: 1 error, 2 warnings")
    // At 80 columns a long finding wraps under its first line instead of running past the edge.
    let narrow = AASAValidationReporter.text(diagnostics, file: "f.json", style: TextStyle(useColor: false, width: 80))
    #expect(narrow.split(separator: "\n").allSatisfy { $0.count <= 80 })
    #expect(AASAValidationReporter.text([], file: "f.json") == "f.json: no problems found\n")

    let json = AASAValidationReporter.jsonLines(diagnostics, file: "f.json")
    #expect(json.hasSuffix("\n"))
    for (line, d) in zip(json.split(separator: "\n"), diagnostics) {
      let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
      #expect(
        object == [
          "file": "f.json", "code": d.code.rawValue, "severity": d.severity.rawValue, "pointer": d.pointer,
          "message": d.message,
        ])
    }
    #expect(AASAValidationReporter.jsonLines([], file: "f.json").isEmpty)
  }

  @Test func matchLinesNameTheRuleOrTheReason() throws {
    let reporter = MatchReporter(appID: "T.a", domain: nil)
    let matcher = Self.file.matcher(appID: "T.a")
    let url = "https://e.com/42"
    #expect(
      reporter.text(url, matcher.verdict(for: url))
        == #"match     https://e.com/42  /applinks/details/0/components/1  {"/": "/$(id)"}"# + "\n")
    #expect(
      reporter.text("https://e.com/none", matcher.verdict(for: "https://e.com/none"))
        == "no-match  https://e.com/none  (no rule matched)\n")
    let json = reporter.json(url, matcher.verdict(for: url))
    #expect(json.hasSuffix("}\n") && !json.dropLast().contains("\n"))
    let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    #expect(object["domain"] as? String == "e.com")
    #expect(object["appId"] as? String == "T.a")
    #expect((object["rule"] as? [String: Any])?["pointer"] as? String == "/applinks/details/0/components/1")
    #expect(object["reason"] == nil)
    let pinned = MatchReporter(appID: "T.a", domain: "other.com").json(url, matcher.verdict(for: url))
    #expect(pinned.contains(#""domain":"other.com""#))
  }

  /// `match --format jsonl` quotes each URL into a line encoded once per verdict, domain and rule: every line must
  /// be the bytes encoding it alone gives, whatever the URL holds.
  @Test(arguments: [nil, "e.com"])
  func matchLinesWrittenFromATemplateAreTheEncodedLines(domain: String?) {
    let reporter = MatchReporter(appID: "T.a", domain: domain)
    let matcher = Self.file.matcher(appID: "T.a")
    let urls = [
      "https://e.com/42", "https://e.com/51", "https://e.com/x/1", "https://e.com/x/2", "https://e.com/none",
      "https://E.com/42", "https://other.com/42", "https://other.com/x/y", "ftp://e.com/42", "http://e.com/42",
      #"https://e.com/x/"q"\"#, "https://e.com/caf\u{E9}", "https://e.com/\u{2028}", "https://e.com/\u{1B}[2J",
      "https://e.com/\u{7F}", "https://xn--caf-dma.com/42", "https://e.com/42?a=\"b\"#\u{0}",
    ]
    var lines = MatchReporter.JSONLines()
    var out = ""
    // Twice over: the first time a template is made for each kind of line, the second it is found.
    for url in urls + urls {
      let result = matcher.verdict(for: url, domain: domain)
      lines.append(
        url, result, domain: domain ?? UniversalLinkURL(string: url)?.host ?? "", reporter: reporter, to: &out)
    }
    let encoded = (urls + urls).map { reporter.json($0, matcher.verdict(for: $0, domain: domain)) }
    #expect(out.split(separator: "\n", omittingEmptySubsequences: false).count == urls.count * 2 + 1)
    #expect(out == encoded.joined())
  }

  /// `match --format text` writes a line that fits from its verdict's and rule's parts, laid out once: every line
  /// must be what laying it out alone gives, at every width (a line that fits, one that wraps, a URL longer than
  /// the line), with colour or without, whatever the URL holds.
  @Test func matchTextWrittenFromATemplateIsTheLaidOutText() {
    let reporter = MatchReporter(appID: "T.a", domain: nil)
    let matcher = Self.file.matcher(appID: "T.a")
    let urls = [
      "https://e.com/42", "https://e.com/51", "https://e.com/x/1", "https://e.com/none", "https://other.com/42",
      "ftp://e.com/42", #"https://e.com/x/"q"\"#, "https://e.com/caf\u{E9}", "https://e.com/\u{2028}",
      "https://e.com/\u{1B}[2J", "https://e.com/\u{7F}", "https://e.com/42?a=\"b\"#\u{0}", "",
      "https://e.com/" + String(repeating: "long/", count: 30), "https://e.com/a, b, c",
    ]
    for width in [20, 40, 52, 53, 60, 80, 200] {
      for style in [TextStyle(useColor: false, width: width), TextStyle(useColor: true, width: width)] {
        var lines = MatchReporter.TextLines()
        var out = ""
        // Twice over: the first time a template is made for each kind of line, the second it is found.
        for url in urls + urls {
          lines.append(url, matcher.verdict(for: url), style: style, reporter: reporter, to: &out)
        }
        let laidOut = (urls + urls).map { reporter.text($0, matcher.verdict(for: $0), style: style) }
        #expect(out == laidOut.joined(), "width \(width), colour \(style.useColor)")
      }
    }
  }

  @Test func matchWarnsWhenNoURLCanOpenTheApp() {
    #expect(MatchReporter(appID: "T.a", domain: nil).warning(Self.file, name: "f") == nil)
    #expect(
      MatchReporter(appID: "T.z", domain: nil).warning(Self.file, name: "f")
        == "warning: T.z is not listed in the applinks section of f")
  }

  @Test func fetchTextCleansWhatTheServerSentAndAddsBodiesOnRequest() {
    var outcome = DomainAASA(
      fetch: AASAFetchResult(
        host: "e.com", status: .notFound, source: .cdn, url: "https://e.com/\u{1B}[2J", message: "e.com: gone\r\n"))
    outcome.listedApps = ["T.a"]
    let text = FetchReporter.text([outcome], bodies: ["e.com": Array("{\n\t}\u{1B}".utf8)])
    #expect(
      text == """
        e.com  not-found  cdn  https://e.com/\\u{1b}[2J
          e.com: gone\\u{d}\\u{a}
          applinks apps: T.a
        {
        \t}\\u{1b}

        """)
    #expect(FetchReporter.text([outcome]).split(separator: "\n").count == 3)
  }

  /// A file's list of apps fits the width: `applinks apps:` and `webcredentials:` were each one line of 247 columns
  /// at 80, the terminal cutting app IDs in two.
  @Test func listsOfAppsFitTheWidth() throws {
    let apps = (0..<8).map { "ABCDE0000\($0).com.example.app\($0)" }
    var outcome = DomainAASA(fetch: AASAFetchResult(host: "e.com", status: .ok, source: .cdn, message: "e.com: ok"))
    outcome.listedApps = apps
    let list = apps.map { "\"\($0)\"" }.joined(separator: ", ")
    let file = try AASAFile(
      json:
        #"{"applinks": {"details": [{"appIDs": [\#(list)], "components": []}]}, "webcredentials": {"apps": [\#(list)]}}"#
    )
    // A variable's values too: 121 columns for twenty countries.
    let countries = (0..<20).map { "\"c\($0)\"" }.joined(separator: ", ")
    let variables = try AASAFile(
      json: #"{"applinks": {"substitutionVariables": {"country": [\#(countries)]}, "details": []}}"#)
    let shown = AASAShowReporter.text(variables, name: "v.json")
    #expect(shown.split(separator: "\n").allSatisfy { $0.count <= 80 } && shown.contains("  $(country) = \"c0\""))
    for text in [FetchReporter.text([outcome]), AASAShowReporter.text(file, name: "aasa.json")] {
      let lines = text.split(separator: "\n")
      #expect(lines.allSatisfy { $0.count <= 80 }, "\(text)")
      #expect(apps.allSatisfy { app in lines.contains { $0.contains(app) } }, "each ID whole on a line: \(text)")
    }
  }
}

/// What `inspect` writes around its reports, and the lines it gives stderr.
struct InspectReporterTests {
  static let broken = InspectionReport(
    input: "in/a.ipa", inputKind: .ipa,
    diagnostics: [
      Diagnostic(.error, .archiveCorrupt, "in/a.ipa: corrupt"), Diagnostic(.warning, .archiveMultipleApps, "w"),
    ],
    bundles: [
      {
        var b = BundleReport(path: "Payload/A.app", kind: .app)
        b.diagnostics = [Diagnostic(.error, .executableMissing, "Payload/A.app/A: missing")]
        return b
      }()
    ])

  @Test func aJSONBatchIsOneArrayWhateverItHolds() throws {
    let empty = InspectReporter(format: .json, useColor: false)
    #expect(empty.begin() + empty.end() == "[\n]\n")

    var reporter = InspectReporter(format: .json, useColor: false)
    let text = reporter.begin() + reporter.next(Self.broken) + reporter.next(Self.broken) + reporter.end()
    let array = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
    #expect(array.count == 2 && array[0]["input"] as? String == "in/a.ipa")
  }

  @Test func jsonLinesAndTextNeedNoFrame() {
    var lines = InspectReporter(format: .jsonl, useColor: false)
    #expect(lines.begin().isEmpty && lines.end().isEmpty)
    let one = lines.next(Self.broken)
    #expect(one.hasSuffix("}\n") && one.filter { $0 == "\n" }.count == 1)
    #expect(InspectReporter(format: .jsonl, useColor: false).single(Self.broken) == one)
    var text = InspectReporter(format: .text, useColor: false)
    let first = text.next(Self.broken)
    #expect(text.next(Self.broken) == "\n" + first)
  }

  @Test func errorLinesNameTheInputOnce() {
    #expect(
      InspectReporter.errorLines(Self.broken) == ["in/a.ipa: corrupt", "in/a.ipa: Payload/A.app/A: missing"])
    #expect(InspectReporter.problemLine(Self.broken) == "partial: in/a.ipa: corrupt (and 1 more)")
    #expect(InspectReporter.problemLine(InspectionReport(input: "x", inputKind: .ipa)) == nil)
  }

  @Test func summaryLineCountsAndNamesTheShard() {
    var summary = BatchSummary()
    summary.add(Self.broken)
    let line = InspectReporter.summaryLine(
      summary, shard: Shard(index: 2, count: 3), of: 7, seconds: 2, jobs: 4, lookups: (fetched: 1, requested: 5))
    #expect(
      line
        == "1 input (shard 2/3 of 7) in 2.0 s (0.5/s, 4 jobs): 0 complete, 1 partial, 0 unreadable; 1 bundle, "
        + "0 associated domains; 1 AASA host looked up for 5 domain requests")
  }
}

/// What `blocklist` writes, apart from the lists themselves (tested with the renderer).
struct BlocklistOutputTests {
  @Test func moreListsGoBesideTheFirstFile() {
    #expect(BlocklistOutput.path("out/rules.json", suffix: "") == "out/rules.json")
    #expect(BlocklistOutput.path("out/rules.json", suffix: "-2") == "out/rules-2.json")
    #expect(BlocklistOutput.path("out/rules", suffix: "-3") == "out/rules-3")
  }

  @Test func listsSplitAtTheRuleBudgetAndTheReportCountsApps() throws {
    func app(_ number: Int) -> LinkingApp {
      let reference = MatchedRule(
        detailIndex: 0, componentIndex: 0, kind: .component, pattern: "/p", exclude: false,
        pointer: "/applinks/details/0/components/0")
      let rules = AppLinkRules(
        appID: "T.a\(number)", detailIndex: 0, rules: [EffectiveRule(reference: reference, path: "/p")])
      return LinkingApp(
        appID: "T.a\(number)", name: "A", input: "a.ipa",
        scopes: [RuleScope(host: "e\(number).com", wildcard: false, rules: rules)])
    }
    let blocklist = Blocklist(apps: (1...3).map(app))
    let split = BlocklistOutput(blocklist, format: .wkcontentrules, maxRules: 1, generator: "test")
    #expect(split.files.map(\.suffix) == ["", "-2", "-3"])
    let domains = BlocklistOutput(blocklist, format: .domains, maxRules: 1, generator: "test")
    #expect(domains.files == [BlocklistOutput.File(suffix: "", text: "e1.com\ne2.com\ne3.com\n")])
    let report = try #require(
      try JSONSerialization.jsonObject(with: Data(domains.report(apps: 3).utf8)) as? [String: Any])
    #expect(report["apps"] as? Int == 3 && (report["notes"] as? [Any])?.isEmpty == true)
  }
}
