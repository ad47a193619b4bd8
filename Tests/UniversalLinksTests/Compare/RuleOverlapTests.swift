import Testing
import UniversalLinks

/// The report's "whose rules win": where two `details` entries of one file open the same URL, the earlier wins.
struct RuleOverlapTests {
  static let first = "ABCDE12345.com.example.first"
  static let second = "ABCDE12345.com.example.second"

  /// The rules each entry gives its app, keyed by the entry's index, as the report passes them.
  static func entries(_ json: String) throws -> (file: AASAFile, entries: [Int: AppLinkRules]) {
    let file = try AASAFile(json: json)
    var entries: [Int: AppLinkRules] = [:]
    for app in [first, second] {
      let rules = AppLinkRules(file: file, appID: app)
      if let index = rules.detailIndex { entries[index] = rules }
    }
    return (file, entries)
  }

  static func file(_ firstRules: String, _ secondRules: String) -> String {
    #"{"applinks": {"details": [{"appIDs": ["\#(first)"], "components": \#(firstRules)}, "#
      + #"{"appIDs": ["\#(second)"], "components": \#(secondRules)}]}}"#
  }

  @Test func theEarlierEntryWinsWhereBothOpenAURL() throws {
    let (file, entries) = try Self.entries(Self.file(#"[{"/": "/shop/*"}]"#, #"[{"/": "/w/*"}, {"/": "/*"}]"#))
    let overlaps = RuleOverlap.find(entries: entries, host: "www.example.com")
    let overlap = try #require(overlaps.first)
    #expect(overlaps.count == 1)
    #expect(overlap.winner == 0 && overlap.shadowed == [1])
    #expect(overlap.winnerPointer == "/applinks/details/0/components/0")
    #expect(overlap.shadowedPointers == ["/applinks/details/1/components/1"])
    #expect(overlap.example.hasPrefix("https://www.example.com/shop"))
    // Honest: both apps' own matchers open the example.
    for app in [Self.first, Self.second] {
      let verdict = file.matcher(appID: app).verdict(for: try #require(UniversalLinkURL(string: overlap.example)))
      #expect(verdict.verdict == .match, "\(app) on \(overlap.example)")
    }
  }

  @Test func disjointEntriesAndAnEarlierExcludeClaimNothing() throws {
    let disjoint = try Self.entries(Self.file(#"[{"/": "/a/*"}]"#, #"[{"/": "/b/*"}]"#))
    #expect(RuleOverlap.find(entries: disjoint.entries, host: "example.com").isEmpty)
    // The first entry excludes /a/: whether iOS then asks the second is not documented, so no winner is claimed.
    let excluded = try Self.entries(Self.file(#"[{"/": "/a/*", "exclude": true}]"#, #"[{"/": "/*"}]"#))
    #expect(RuleOverlap.find(entries: excluded.entries, host: "example.com").isEmpty)
    // One entry alone overlaps with nothing.
    let alone = try Self.entries(
      #"{"applinks": {"details": [{"appIDs": ["\#(Self.first)"], "components": [{"/": "/*"}]}]}}"#)
    #expect(RuleOverlap.find(entries: alone.entries, host: "example.com").isEmpty)
  }

  @Test func theLimitBoundsTheExamples() throws {
    // Three entries all claiming everything: pairs (0, 1) and (0, 2) would both be examples; the limit keeps one.
    let json =
      #"{"applinks": {"details": [{"appIDs": ["A.a"], "components": [{"/": "/*"}]}, "#
      + #"{"appIDs": ["A.b"], "components": [{"/": "/x/*"}]}, {"appIDs": ["A.c"], "components": [{"/": "/y/*"}]}]}}"#
    let file = try AASAFile(json: json)
    var entries: [Int: AppLinkRules] = [:]
    for (index, app) in ["A.a", "A.b", "A.c"].enumerated() { entries[index] = AppLinkRules(file: file, appID: app) }
    let all = RuleOverlap.find(entries: entries, host: "example.com")
    #expect(all.map(\.winner) == [0, 0] && all.map { $0.shadowed.first } == [1, 2])
    #expect(RuleOverlap.find(entries: entries, host: "example.com", limit: 1).count == 1)
  }
}
