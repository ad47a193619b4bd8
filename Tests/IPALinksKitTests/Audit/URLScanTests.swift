import Foundation
import IPALinksKit
import Testing
import UniversalLinks

/// `who-claims --urls`: many URLs against every app of the inputs, with bad lines named and skipped.
@Suite struct URLScanTests {
  @Test func eachURLNamesEveryAppThatOpensOrExcludesIt() async throws {
    let reports = try await InspectedSamples.reports(["Store.ipa", "Nested.ipa"])
    let scan = URLScan(reports: reports)
    let store = "ST0REAPP42.com.example.store"
    #expect(
      try scan.decide("https://shop.example.com/buy/1", line: 1).get()
        == URLScan.Line(
          url: "https://shop.example.com/buy/1",
          apps: [URLScan.Claim(appId: store, pointer: "/applinks/details/0/components/1")], excludedBy: []))
    #expect(
      try scan.decide("  https://shop.example.com/buy/gift/card \r", line: 2).get()
        == URLScan.Line(
          url: "https://shop.example.com/buy/gift/card", apps: [],
          excludedBy: [URLScan.Claim(appId: store, pointer: "/applinks/details/0/components/0")]))
    #expect(try scan.decide("https://nowhere.example/x", line: 3).get().apps.isEmpty)
    // Every scanned URL agrees with the blocklist's reference verdict.
    let blocklist = Blocklist(reports: reports)
    for url in [
      "https://shop.example.com/help/x#app", "https://www.example.com/promo/spring/1",
      "https://nested.example.com/menu/1",
    ] {
      let line = try scan.decide(url, line: 1).get()
      let verdict = blocklist.verdict(for: url)
      #expect((verdict.verdict == .match) == !line.apps.isEmpty, "\(url)")
      if verdict.verdict == .match { #expect(line.apps.first?.appId == verdict.appID, "\(url)") }
    }
  }

  @Test func badLinesAreNamedByNumber() async throws {
    let scan = URLScan(reports: try await InspectedSamples.reports(["Store.ipa"]))
    #expect(throws: URLScan.Problem(line: 7, message: #""not a url" is not an absolute URL with a host"#)) {
      try scan.decide("not a url", line: 7).get()
    }
    #expect(throws: URLScan.Problem(line: 8, message: #""ftp://shop.example.com/x" is not an http(s) URL"#)) {
      try scan.decide("ftp://shop.example.com/x", line: 8).get()
    }
  }
}
