import Foundation
import Testing

/// `--aasa-dir` given more than once: every folder is searched, in the order given.
struct AASADirectoryCommandTests {
  @Test func everyFolderIsSearchedInTheOrderGiven() throws {
    let run = try CLI.run([
      "inspect", CLI.sample("Store.ipa"), "--aasa-dir", CLI.sample("aasa/next"), "--aasa-dir", CLI.sample("aasa"),
      "--format", "json",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    let domains = try #require(
      (run.json?["bundles"] as? [[String: Any]])?.first?["associatedDomains"] as? [[String: Any]])
    func file(_ raw: String) -> String? {
      (domains.first { $0["raw"] as? String == raw }?["aasa"] as? [String: Any])?["url"] as? String
    }
    // The first folder's file wins; a host only the second folder has is still found there.
    #expect(file("applinks:shop.example.com") == CLI.sample("aasa/next") + "/shop.example.com.json")
    #expect(file("applinks:*.example.com") == CLI.sample("aasa") + "/example.com.json")
    // Reversed, the older file wins.
    let reversed = try CLI.run([
      "fetch", "shop.example.com", "--aasa-dir", CLI.sample("aasa"), "--aasa-dir", CLI.sample("aasa/next"),
      "--format", "json",
    ])
    #expect(reversed.stdout.contains(CLI.sample("aasa") + "/shop.example.com.json"), "\(reversed.stdout)")
    // A host in neither is named with both folders.
    let missing = try CLI.run([
      "fetch", "nothere.example.com", "--aasa-dir", CLI.sample("aasa/next"), "--aasa-dir", CLI.sample("aasa"),
    ])
    #expect(missing.status == 1)
    #expect(missing.stderr.contains("in \(CLI.sample("aasa/next")), \(CLI.sample("aasa"))"), "\(missing.stderr)")
  }
}
