import Foundation
import Testing
import UniversalLinks

@testable import IPALinksKit

/// What a small AASA file of `$(…)` references, within the expansion limit, can make the blocklists cost.
///
/// WebKit lists: such a file asks for far more rules than a list holds. Leaving its app out would let a file's
/// author escape the blocklist by making the file big, so the app's hosts are blocked whole instead, and the other
/// apps keep their exact rules; WebKit itself loads the result in
/// `BlocklistEngineTests.anAppTooBigForOneListHasItsHostsBlockedWhole`. Guards: each variable's values are written
/// once, not at every reference; the engine suites check the guards' verdicts.
@Suite struct BlocklistBudgetTests {
  static let hostileID = "HHHHHHHHHH.com.example.hostile"
  static let plainID = "PPPPPPPPPP.com.example.plain"

  /// `references` rules `/$(v)/pN/*`, `v` with `values` values: each rule needs `values` WebKit filters.
  static func hostileFile(references: Int, values: Int) -> AASAFile {
    let components = (0..<references).map { #"{"/": "/$(v)/p\#($0)/*"}"# }.joined(separator: ",")
    let list = (0..<values).map { "\"v\($0)\"" }.joined(separator: ",")
    let json = """
      {"applinks": {"substitutionVariables": {"v": [\(list)]},
        "details": [{"appIDs": ["\(hostileID)"], "components": [\(components)]}]}}
      """
    return try! AASAFile(json: json)
  }

  static func blocklist(_ hostile: AASAFile) -> Blocklist {
    let plain = try! AASAFile(
      json: #"{"applinks": {"details": [{"appIDs": ["\#(plainID)"], "components": [{"/": "/plain/*"}]}]}}"#)
    return Blocklist(apps: [
      LinkingApp(
        appID: hostileID, name: "Hostile", input: "hostile.ipa",
        scopes: [
          RuleScope(host: "hostile.example", wildcard: false, rules: AppLinkRules(file: hostile, appID: hostileID)),
          RuleScope(host: "hostile.example", wildcard: true, rules: AppLinkRules(file: hostile, appID: hostileID)),
        ]),
      LinkingApp(
        appID: plainID, name: "Plain", input: "plain.ipa",
        scopes: [RuleScope(host: "plain.example", wildcard: false, rules: AppLinkRules(file: plain, appID: plainID))]),
    ])
  }

  @Test func anAppOverTheBudgetBlocksItsHostsWholeAndTheOthersStayExact() throws {
    let list = Self.blocklist(Self.hostileFile(references: 40, values: 10))
    // With room, every alternative is its own filter: 2 scopes × 40 rules × 10 values, and the plain rule.
    let (roomy, roomyNotes) = BlocklistRenderer(list).contentRules(maxRules: 1_000)
    #expect(roomy.count == 1 && roomy[0].count == 801)
    #expect(!roomyNotes.contains { $0.kind == .wider || $0.kind == .dropped })

    let (lists, notes) = BlocklistRenderer(list).contentRules(maxRules: 100)
    #expect(lists.count == 1)
    let rules = lists[0]
    let hostWide = Set(rules.filter { $0.urlFilter.contains("hostile") }.map(\.urlFilter))
    #expect(
      hostWide == [
        "^https?://([^/@]*@)?hostile\\.example\\.?(:[0-9]+)?/",
        "^https?://([^/@]*@)?[^/:@]+\\.hostile\\.example\\.?(:[0-9]+)?/",
      ])
    #expect(rules.allSatisfy { $0.action == .block })
    #expect(rules.filter { $0.urlFilter.contains("plain") }.count == 1)
    let hostileNotes = notes.filter { $0.appID == Self.hostileID }
    #expect(hostileNotes.count == 1, "one note for the app, not one per rule: \(hostileNotes)")
    #expect(hostileNotes.first?.kind == .wider)
    #expect(hostileNotes.first?.message.contains("more than 100 WebKit rules") == true)
    #expect(hostileNotes.first?.host == "hostile.example,*.hostile.example")
    // Before, such an app was left out of the list with a `dropped` note.
    #expect(!notes.contains { $0.kind == .dropped })
    // The regex list is built from the same rules.
    let (regexes, _) = BlocklistRenderer(list).regexes(maxRules: 100)
    #expect(regexes.contains("block\tcase-insensitive\t^https?://([^/@]*@)?hostile\\.example\\.?(:[0-9]+)?/\n"))
  }

  /// The scale the budget is for: about 90 KB of JSON, under the 128 KB devices accept and within the expansion
  /// limit, asks for a million filters. Translation stops at the budget, so this is a small list, not a large one.
  @Test func aDeviceSizedFileOfReferencesGivesASmallList() throws {
    let file = Self.hostileFile(references: 3_906, values: 256)
    #expect(!file.exceedsDeviceSizeLimit)
    let (lists, notes) = BlocklistRenderer(Self.blocklist(file)).contentRules(maxRules: 1_000)
    #expect(lists.count == 1 && lists[0].count == 3)
    #expect(notes.contains { $0.appID == Self.hostileID && $0.kind == .wider })
  }

  /// A device-sized file of 3,906 such references gave a 9 MB Swift guard when every reference carried its 256
  /// values (`make bench-expansion`); a quarter of it here, to keep the test quick.
  @Test func guardsWriteEachVariablesValuesOnce() throws {
    let file = Self.hostileFile(references: 1_000, values: 256)
    let document = BlocklistRenderer(Self.blocklist(file)).guardDocument(generator: "test")
    // About 190 bytes per rule (pointer, flags, pattern) for 2 × 1,000 rules; inline, 2,000 × 256 values.
    #expect(document.utf8.count < 500_000, "\(document.utf8.count) bytes")
    let json = try #require(try JSONSerialization.jsonObject(with: Data(document.utf8)) as? [String: Any])
    let choices = try #require(json["choices"] as? [[Any]])
    #expect(choices.count == 1 && choices[0].count == 256)
    #expect(document.components(separatedBy: "\"v255\"").count - 1 == 1)
    #expect(document.components(separatedBy: #"{"choice":0}"#).count - 1 == 2 * 1_000)
  }
}
