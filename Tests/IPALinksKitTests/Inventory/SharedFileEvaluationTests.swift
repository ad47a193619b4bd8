import Testing
import UniversalLinks

@testable import IPALinksKit

/// A file parsed once and evaluated for each app that claims its domain (``ParsedAASA``) gives each app what the
/// file says of it alone: the first detail listing it, else the finding that it is not listed.
struct SharedFileEvaluationTests {
  static let body = Array(
    """
    {"applinks": {"details": [
      {"appIDs": ["TEAM123456.com.example.b"], "components": [{"/": "/b/*"}]},
      {"appIDs": ["TEAM123456.com.example.a", "TEAM123456.com.example.c"], "components": [{"/": "/first/*"}]},
      {"appIDs": ["TEAM123456.com.example.a"], "components": [{"/": "/second/*", "exclude": true}]}
    ]}, "webcredentials": {"apps": ["TEAM123456.com.example.w"]}}
    """.utf8)

  @Test func eachAppGetsTheFirstDetailListingIt() throws {
    let file = try AASAFile(bytes: Self.body)
    let parsed = ParsedAASA(
      AASAFetchResult(host: "e.com", status: .ok, source: .aasaDir, message: "", body: Self.body))
    for (app, detail) in [("a", 1), ("b", 0), ("c", 1)] {
      let appID = "TEAM123456.com.example." + app
      let aasa = DomainAASA.evaluate(parsed, appID: appID)
      #expect(aasa.appListed)
      #expect(aasa.appLinks?.detailIndex == detail)
      // The same rules as the file gives the app when it is looked up on its own.
      #expect(aasa.appLinks == AppLinkRules(file: file, appID: appID))
      #expect(!aasa.diagnostics.contains { $0.code == .appNotListed })
    }
  }

  @Test func anAppTheFileDoesNotListIsToldSo() throws {
    let parsed = ParsedAASA(
      AASAFetchResult(host: "e.com", status: .ok, source: .aasaDir, message: "", body: Self.body))
    let aasa = DomainAASA.evaluate(parsed, appID: "TEAM123456.com.example.w")
    #expect(!aasa.appListed)
    #expect(aasa.appLinks == nil)
    let finding = try #require(aasa.diagnostics.first { $0.code == .appNotListed })
    #expect(finding.message.contains("listed in webcredentials only"))
  }
}
