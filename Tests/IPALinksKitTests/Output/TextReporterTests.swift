import Testing
import UniversalLinks

@testable import IPALinksKit

struct TextReporterTests {
  private func report(with aasa: DomainAASA) -> InspectionReport {
    var diagnostics: [Diagnostic] = []
    var domain = AssociatedDomain.parse("applinks:*.example.com", diagnostics: &diagnostics)
    domain.aasa = aasa
    var bundle = BundleReport(path: "Payload/A.app", kind: .app)
    bundle.associatedDomains = [domain]
    return InspectionReport(input: "a.ipa", inputKind: .ipa, diagnostics: [], bundles: [bundle])
  }

  private func aasa(_ status: AASAFetchResult.Status, comparison: [AASAFetchResult] = []) -> DomainAASA {
    var aasa = DomainAASA(
      fetch: AASAFetchResult(
        host: "example.com", status: status, source: .cdn, message: "example.com: gone", comparison: comparison))
    aasa.appListed = status == .ok
    return aasa
  }

  @Test func domainRowShowsStatusSourceAndWhereTheFileCameFrom() {
    let text = TextReporter(useColor: false).render(report(with: aasa(.ok)))
    #expect(text.contains("*.example.com"))
    #expect(text.contains("ok"))
    #expect(text.contains("cdn"))
    #expect(text.contains("    applinks:*.example.com  ok  cdn, 0 rules, file from example.com\n"))
  }

  @Test func longValuesWrapOnTheirOwnLinesWithinTheWidth() {
    var long = aasa(.httpError)
    long.fetch.message = "example.com: " + Array(repeating: "word", count: 40).joined(separator: " ")
    var report = report(with: long)
    report.bundles[0].urlSchemes = (1...30).map { "scheme\($0)" }
    let text = TextReporter(useColor: false, width: 60).render(report)
    let lines = text.split(separator: "\n")
    #expect(lines.allSatisfy { $0.count <= 60 }, "\(lines.filter { $0.count > 60 })")
    // Continuation lines are indented under their value, and no scheme is cut in two.
    #expect(lines.contains { $0.hasPrefix("                  scheme") })
    #expect(!text.contains("sche\n"))
  }

  @Test func bothSourcesAreComparedAndDifferencesFlagged() {
    let direct = AASAFetchResult(host: "example.com", status: .notFound, source: .directWellKnown, message: "x")
    let text = TextReporter(useColor: false).render(report(with: aasa(.ok, comparison: [direct])))
    #expect(text.contains("compared: direct-well-known gave not-found (differs)"))
  }

  /// The origin answering 200 with a login page (a captive portal) beside the CDN's file is `invalid-json`, as it
  /// is read alone: it was said to be `ok`, with no difference from the CDN's copy.
  @Test func anotherSourcesPageThatIsNoFileIsInvalid() {
    let file = Array(#"{"applinks": {"details": [{"appIDs": ["T.a"], "components": [{"/": "/*"}]}]}}"#.utf8)
    var direct = AASAFetchResult(host: "example.com", status: .ok, source: .directWellKnown, message: "x")
    direct.body = Array("<html>Please log in to the Wi-Fi</html>".utf8)
    var cdn = AASAFetchResult(host: "example.com", status: .ok, source: .cdn, message: "ok", comparison: [direct])
    cdn.body = file
    let parsed = ParsedAASA(cdn)
    #expect(parsed.answer.status == .ok && parsed.answer.comparison.first?.status == .invalidJSON)
    let outcome = DomainAASA(fetch: parsed.answer)
    #expect(FetchReporter.text([outcome]).contains("compared: direct-well-known gave invalid-json (differs)"))
  }

  @Test func untrustedTextCannotDriveTheTerminal() {
    var failing = aasa(.httpError)
    failing.fetch.message = "example.com: \u{1B}[2J\u{1B}]0;owned\u{07}"
    let text = TextReporter(useColor: false).render(report(with: failing))
    #expect(!text.contains("\u{1B}"))
    #expect(text.contains("\\u{1b}[2J"))
  }
}
