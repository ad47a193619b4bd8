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

  /// A later `details` entry that lists the app too is never used for it: the explanation says so, and names the
  /// rule there that would have decided, the usual cause of "my rule is right but never matches".
  @Test func aLaterEntryListingTheAppIsNamed() throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("two-entries-\(UUID().uuidString).json")
    defer { try? FileManager.default.removeItem(at: file) }
    try Data(
      #"""
      {"applinks": {"details": [
        {"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/buy/*"}]},
        {"appIDs": ["ABCDE12345.com.example.other", "ABCDE12345.com.example.app"], "components": [{"/": "/sell/*"}]}
      ]}}
      """#.utf8
    ).write(to: file)
    let base = ["match", "--explain", "--aasa", file.path, "--app-id", "ABCDE12345.com.example.app"]
    let text = try CLI.run(base + ["https://example.com/sell/1"], environment: ["COLUMNS": "80"])
    #expect(text.status == 1)
    let note = text.stdout.components(separatedBy: "note: ").last ?? ""
    let words = note.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    #expect(
      words == "/applinks/details/1 lists the app too, but iOS uses only the first entry that lists it "
        + "(/applinks/details/0); there, /applinks/details/1/components/0 would match this URL", "\(text.stdout)")
    let json = try CLI.run(base + ["--format", "jsonl", "https://example.com/buy/1"])
    let line = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
    let ignored = try #require(line["ignoredEntries"] as? [[String: Any]])
    #expect(ignored.map { $0["pointer"] as? String } == ["/applinks/details/1"])
    #expect(ignored[0]["wouldDecide"] == nil, "/buy/1 is decided by no rule of the later entry")
    // The other app, listed first only in the second entry, has no such note.
    let other = try CLI.run(
      [
        "match", "--explain", "--aasa", file.path, "--app-id", "ABCDE12345.com.example.other",
        "https://example.com/sell/1",
      ])
    #expect(other.status == 0 && !other.stdout.contains("note:"), "\(other.stdout)")
  }

  /// The path as written and as compared, a reason for every key that fails, and the closest rule: the one whose
  /// path the URL follows furthest (`/p/$(digit)*` for `/p/x`, not the earlier `/buy/gift/*`).
  @Test func failingKeysSayWhyAndTheClosestRuleIsTheOneThePathFollowsFurthest() throws {
    let text = try CLI.run(
      Self.arguments + ["--explain", "https://shop.example.com/p/x"], environment: ["COLUMNS": "80"])
    let closest = try #require(text.stdout.split(separator: "\n").first { $0.contains("(closest)") })
    #expect(closest.contains("/applinks/details/0/components/2"), "\(text.stdout)")
    let flat = text.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    #expect(
      flat.contains(
        #"✗ / /p/$(digit)* does not match "/p/x", compared as "/p/x/": a trailing / is implied; after "/p/" the "#
          + #"pattern needs one of "0"–"9", not "x/""#), "\(text.stdout)")
    let json = try CLI.run(Self.arguments + ["--explain", "--format", "jsonl", "https://shop.example.com/p/x"])
    let line = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
    let keys = try #require(line["explain"] as? [[String: Any]]).flatMap { $0["keys"] as? [[String: Any]] ?? [] }
    let failing = keys.filter { $0["matched"] as? Bool == false }
    #expect(failing.count == 6 && failing.allSatisfy { ($0["reason"] as? String)?.isEmpty == false }, "\(failing)")
    let path = try #require(keys.first { $0["key"] as? String == "/" })
    #expect(path["written"] as? String == "/p/x" && path["value"] as? String == "/p/x/")
    #expect(path["adjustments"] as? [String] == ["a trailing / is implied"])
  }

  /// When the deciding rule shadows a later rule that matches the URL too, the explanation names it.
  @Test func aShadowedRuleIsNamedUnderAURLBothMatch() throws {
    let run = try CLI.run(
      [
        "match", "--explain", "--aasa", CLI.sample("aasa/next/shop.example.com.json"), "--app-id",
        "ST0REAPP42.com.example.store", "https://shop.example.com/buy/gift/card",
      ], environment: ["COLUMNS": "80"])
    #expect(run.status == 0)
    let words = run.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    #expect(
      words.contains(
        #"note: the deciding rule shadows /applinks/details/0/components/1 {"/": "/buy/gift/*", "exclude": true, "#
          + #""caseSensitive": false}, which matches this URL too but never decides (shadowed-rule)"#), "\(run.stdout)")
    let other = try CLI.run(
      [
        "match", "--explain", "--aasa", CLI.sample("aasa/next/shop.example.com.json"), "--app-id",
        "ST0REAPP42.com.example.store", "https://shop.example.com/buy/1",
      ])
    #expect(!other.stdout.contains("shadows"), "/buy/1 is not matched by the gift-card rule")
  }
}
