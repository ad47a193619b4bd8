import Foundation
import IPALinksKit
import Testing
import UniversalLinks

/// The hostile strings of `OutputEscapingTests` in the formats a browser engine reads: the JavaScript guard in
/// JavaScriptCore and inlined in a WebKit page, the content-rule list compiled and applied by WebKit, and the HTML
/// report in WebKit. Each must parse, give the hostile strings back exactly (or, in the HTML, as text), and run
/// none of the code the payloads carry.
@Suite(.serialized, .enabled(if: Engines.available, "needs xvfb-run and WebKitGTK (make test installs them)"))
struct OutputEscapingEngineTests {
  static let jsEval = CLI.repo.appendingPathComponent("Tests/WebKit/js_eval.py")

  // MARK: - JavaScript

  /// The full list, and one holding only the payloads that leave valid JavaScript setting `__pwned` if a line
  /// break got out of the header comment (elsewhere the first stray line would be a syntax error and hide it).
  static let javaScriptLists: [String: Blocklist] = [
    "every payload": OutputEscapingTests.blocklist,
    "runnable payloads": Blocklist(
      apps: OutputEscapingTests.payloads.enumerated().filter { $0.element.contains("__pwned = 1; //") }.map {
        OutputEscapingTests.app($0.offset, $0.element)
      }),
  ]

  @Test(arguments: ["every payload", "runnable payloads"])
  func javaScriptGuardParsesInJavaScriptCoreAndRunsNoPayload(_ list: String) throws {
    let blocklist = try #require(Self.javaScriptLists[list])
    let script = BlocklistRenderer(blocklist).javaScriptGuard(generator: OutputEscapingTests.generator)
    #expect(script.hasPrefix(BlocklistRenderer(blocklist).header(generator: OutputEscapingTests.generator)))
    OutputEscapingTests.expectInlineSafe(script)
    let evals = ["typeof __pwned", "typeof ipalinksGuard.verdict", "ipalinksGuard.version"]
    let run = try CLI.run(
      [Self.jsEval.path, Engines.write(script, ext: "js")] + evals.flatMap { ["--eval", $0] },
      executable: URL(fileURLWithPath: "/usr/bin/python3"))
    #expect(run.status == 0, "js_eval: \(run.stderr)")
    let result = try #require(try OutputEscapingTests.json(run.stdout) as? [String: Any])
    #expect(result["syntaxError"] is NSNull, "\(result["syntaxError"] ?? "")")
    #expect(result["exception"] is NSNull, "\(result["exception"] ?? "")")
    let values = try #require(result["evals"] as? [String: [String: Any]])
    #expect(values[evals[0]]?["value"] as? String == "undefined", "a payload ran: \(values[evals[0]] ?? [:])")
    #expect(values[evals[1]]?["value"] as? String == "function")
    #expect(values[evals[2]]?["value"] as? Int == 2)
  }

  /// The guard inlined in a page the way its usage notes suggest: WebKit's HTML parser must see one script that
  /// ends where the guard ends, and its verdicts must carry the hostile app ids and pointers exactly.
  @Test func javaScriptGuardInlinedInAPageGivesHostileStringsBackExactly() throws {
    let start = ContinuousClock.now
    let script = BlocklistRenderer(OutputEscapingTests.blocklist).javaScriptGuard(
      generator: OutputEscapingTests.generator)
    let page =
      "<!doctype html><meta charset=utf-8><title>guard</title>\n<script>\(script)</script>\n<p id=after>after</p>\n"
    let urls = String(
      decoding: try JSONSerialization.data(withJSONObject: OutputEscapingTests.corpus.map(\.url)), as: UTF8.self)
    let verdicts =
      "\(urls).map((u) => { const v = window.ipalinksGuard.verdict(u); return [v.verdict, v.appID, v.pointer]; })"
    let evals = [
      "typeof window.__pwned", "document.scripts.length", "document.scripts[0].text",
      "document.getElementById('after')?.textContent", verdicts,
    ]
    let (result, _) = try ReportEngineTests.load(page, name: "escaping-guard.png", evals: evals)
    #expect((result["consoleErrors"] as? [Any])?.isEmpty == true, "console: \(result["consoleErrors"] ?? "none")")
    #expect(ReportEngineTests.value(result, evals[0]) as? String == "undefined")
    #expect(ReportEngineTests.value(result, evals[1]) as? Int == 1)
    #expect(ReportEngineTests.value(result, evals[2]) as? String == script)
    #expect(ReportEngineTests.value(result, evals[3]) as? String == "after")
    let rows = try #require(ReportEngineTests.value(result, verdicts) as? [[Any]])
    try #require(rows.count == OutputEscapingTests.corpus.count)
    for ((url, expected), row) in zip(OutputEscapingTests.corpus, rows) {
      #expect(row.first as? String == expected.verdict.rawValue, "\(url)")
      #expect(row.dropFirst().first as? String == expected.appID, "\(url)")
      #expect(row.last as? String == expected.pointer, "\(url)")
    }
    print("OutputEscapingEngineTests: inlined JavaScript guard checked in \(ContinuousClock.now - start)")
  }

  // MARK: - Content rules

  @Test func webKitCompilesTheContentRulesAndBlocksOnlyURLsThatOpenAnApp() throws {
    let (lists, _) = BlocklistRenderer(OutputEscapingTests.blocklist).contentRules()
    try #require(lists.count == 1)
    let text = BlocklistRenderer.json(lists[0])

    // WebKit compiles the list: one non-ASCII pattern would make it refuse the whole list. It blocks only URLs that
    // open an app, and all of them whose payload every URL percent-encodes; the others are the narrowing that
    // `percentEncoded: false` rules note (a URL may escape what the pattern spells plainly).
    let results = try Engines.harness([
      "rules", Engines.write(text), Engines.write(OutputEscapingTests.corpus.map(\.url)),
    ])
    let rows = try #require(results["results"] as? [[String: Any]])
    try #require(rows.count == OutputEscapingTests.corpus.count)
    var blockedCount = 0
    for ((url, expected), row) in zip(OutputEscapingTests.corpus, rows) {
      let blocked = row["blocked"] as? Bool == true
      if blocked { blockedCount += 1 }
      // Every rule here reads decoded text, so a URL of its host with a `%` before the fragment is blocked too.
      let escaped = url.split(separator: "#", maxSplits: 1).first?.contains("%") == true
      #expect(!blocked || expected.verdict == .match || escaped, "\(url) is blocked but opens no app")
      #expect(blocked || expected.verdict != .match, "\(url) opens an app but is not blocked")
    }
    #expect(blockedCount > 60)
  }

  // MARK: - HTML

  @Test func htmlReportShowsHostileStringsAsTextOnly() throws {
    let start = ContinuousClock.now
    let (html, title, policy, sorter) = try OutputEscapingTests.hostileReport()

    // In WebKit: the same one script, every attribute the report's own, every payload as text.
    let attributes =
      "Array.from(document.querySelectorAll('*')).flatMap((e) => Array.from(e.attributes, (a) => [a.name, a.value]))"
    // The domain view and the search field, typed into with every payload as a person might paste one.
    let typed = String(decoding: try JSONEncoder().encode(OutputEscapingTests.payloads), as: UTF8.self)
    let search = """
      (() => {
        const q = document.getElementById('q');
        const counts = [];
        for (const p of \(typed)) {
          q.value = p;
          q.dispatchEvent(new InputEvent('input', { bubbles: true, data: p, inputType: 'insertText' }));
          counts.push(document.getElementById('f-count').textContent);
        }
        q.value = '';
        q.dispatchEvent(new InputEvent('input', { bubbles: true }));
        return { counts, pwned: typeof window.__pwned, rows: document.querySelectorAll('table.hosts > tbody > tr').length };
      })()
      """
    // Every body built first, so the checks below see all of the page's elements and text.
    let evals = [
      ReportEngineTests.openAll, ReportEngineTests.pwned, "Array.from(document.scripts, (s) => s.text)", attributes,
      ReportEngineTests.allText, "document.title", "document.querySelector('meta[http-equiv]').content",
      "document.getElementById('hosts').textContent", search,
    ]
    let (result, _) = try ReportEngineTests.load(html, name: "escaping-report.png", evals: evals)
    #expect((result["consoleErrors"] as? [Any])?.isEmpty == true, "console: \(result["consoleErrors"] ?? "none")")
    #expect((result["requests"] as? [Any])?.isEmpty == true, "requests: \(result["requests"] ?? "none")")
    let pwned = (result["evals"] as? [String: [String: Any]])?[evals[1]]
    #expect(pwned?["type"] as? String == "undefined", "a payload ran: \(pwned ?? [:])")
    #expect(ReportEngineTests.value(result, evals[2]) as? [String] == [sorter])
    let pairs = try #require(ReportEngineTests.value(result, evals[3]) as? [[String]])
    let forbidden = ["\"", "<", ">", "\\", "`", "\n", "\r", "\u{2028}", "\u{2029}", "__pwned", "INJECTED", "${"]
    let odd = pairs.filter { pair in
      let (name, value) = (pair.first ?? "", pair.last ?? "")
      return name.lowercased().hasPrefix("on") || name.contains { !$0.isLetter && !$0.isNumber && $0 != "-" }
        || forbidden.contains { value.contains($0) } || (name == "href" && !value.hasPrefix("#"))
    }
    #expect(odd.isEmpty, "attributes that carry page data: \(odd)")
    let text = try #require(ReportEngineTests.value(result, evals[4]) as? String)
    let missing = OutputEscapingTests.payloads.filter { !text.contains(OutputEscapingTests.shown($0)) }
    #expect(missing.isEmpty, "payloads not shown as text: \(missing.map(\.debugDescription))")
    #expect(text.contains(OutputEscapingTests.shown(OutputEscapingTests.reports[0].input)))
    #expect(ReportEngineTests.value(result, evals[5]) as? String == OutputEscapingTests.shown(title))
    #expect(ReportEngineTests.value(result, evals[6]) as? String == policy)
    // The domain view names every hostile app among the claimers of the host they share, as text.
    let hosts = try #require(ReportEngineTests.value(result, evals[7]) as? String)
    let unnamed = OutputEscapingTests.reports.flatMap(\.bundles).compactMap(\.name).filter {
      !hosts.contains(OutputEscapingTests.shown($0))
    }
    #expect(unnamed.isEmpty, "apps missing from the domain view: \(unnamed.map(\.debugDescription))")
    let searched = try #require(ReportEngineTests.value(result, evals[8]) as? [String: Any])
    #expect(searched["pwned"] as? String == "undefined")
    #expect((searched["counts"] as? [String])?.count == OutputEscapingTests.payloads.count)
    #expect((searched["rows"] as? Int ?? 0) > 1)
    print("OutputEscapingEngineTests: HTML report checked in \(ContinuousClock.now - start)")
  }
}
