import Foundation
import Testing

/// `match --explain` on the built binary: the trace in text and in JSON Lines, and nothing extra without it.
struct MatchExplainTests {
  static let arguments = [
    "match", "--aasa", CLI.sample("aasa/shop.example.com.json"), "--app-id", "ST0REAPP42.com.example.store",
  ]

  @Test func jsonLinesCarryEveryRuleTriedWithTheKeysThatFailed() throws {
    let run = try CLI.run(
      Self.arguments + [
        "--explain", "--format", "jsonl", "https://shop.example.com/p/x?ref=home",
        "https://shop.example.com/buy/1",
      ])
    #expect(run.status == 1)
    let lines = run.stdout.split(separator: "\n").map {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
    #expect(lines.count == 2)
    let miss = try #require(lines[0]?["explain"] as? [[String: Any]])
    #expect(miss.map { $0["pointer"] as? String } == (0...3).map { "/applinks/details/0/components/\($0)" })
    #expect(miss.map { $0["failed"] as? [String] ?? ["?"] } == [["/"], ["/"], ["/"], ["/", "#"]])
    let hit = try #require(lines[1]?["explain"] as? [[String: Any]])
    #expect(hit.map { $0["failed"] as? [String] ?? ["?"] } == [["/"], []])
    let plain = try CLI.run(Self.arguments + ["--format", "jsonl", "https://shop.example.com/buy/1"])
    #expect(plain.status == 0)
    #expect(!plain.stdout.contains("explain"))
    // `json` is one document holding the same records.
    let document = try CLI.run(
      Self.arguments + ["--explain", "--format", "json", "https://shop.example.com/p/x?ref=home"])
    let results = try #require(document.json?["results"] as? [[String: Any]])
    #expect((results.first?["explain"] as? [[String: Any]])?.count == 4)
    #expect((document.json?["generator"] as? String)?.hasPrefix("ipalinks ") == true)
  }
}
