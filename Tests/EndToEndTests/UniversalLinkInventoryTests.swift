import Foundation
import Testing

/// The full inventory, offline: `inspect --aasa-dir samples/aasa` joins each domain with its AASA file.
struct UniversalLinkInventoryTests {
  private func inventory(_ sample: String, _ extra: [String] = []) throws -> (CLI.Result, [[String: Any]]) {
    let result = try CLI.run(
      [
        "inspect", CLI.sample(sample), "--format", "json", "--aasa-dir",
        CLI.samples.appendingPathComponent("aasa").path,
      ]
        + extra)
    #expect(result.exited)
    let bundles = result.json?["bundles"] as? [[String: Any]] ?? []
    return (result, bundles)
  }

  private func domain(_ bundle: [String: Any], _ raw: String) -> [String: Any]? {
    (bundle["associatedDomains"] as? [[String: Any]])?.first { $0["raw"] as? String == raw }?["aasa"] as? [String: Any]
  }

  /// The text tells an AASA file's findings under the entry that uses it, as `fetch` does and the JSON has them:
  /// the shop's next file leaves its gift-card exclude dead, which the text never said. A file of many findings
  /// gives the first five and how many more.
  @Test func theTextTellsTheFilesFindingsUnderItsEntry() throws {
    let next = [
      "inspect", CLI.sample("Store.ipa"), "--aasa-dir", CLI.sample("aasa/next"), "--aasa-dir", CLI.sample("aasa"),
    ]
    let text = try CLI.run(next, environment: ["COLUMNS": "80"])
    #expect(text.status == 0, "\(text.stderr)")
    #expect(
      text.stdout.contains(
        "        3  match    {\"/\": \"/help/*\", \"caseSensitive\": false}\n"
          + "      warning[shadowed-rule] /applinks/details/0/components/1: this exclude\n"
          + "          never applies: /applinks/details/0/components/0 {\"/\": \"/buy/*\",\n"), "\(text.stdout)")

    let folder = try Engines.folder()
    let rules = (0..<12).map { #"{"/": "/x/*", "exclude": true}, {"/": "/x/\#($0)"}"# }.joined(separator: ", ")
    try Data(
      #"{"applinks": {"details": [{"appIDs": ["ST0REAPP42.com.example.store"], "components": [\#(rules)]}]}}"#.utf8
    ).write(to: folder.appendingPathComponent("shop.example.com.json"))
    let many = try CLI.run(
      ["inspect", CLI.sample("Store.ipa"), "--aasa-dir", folder.path, "--aasa-dir", CLI.sample("aasa")],
      environment: ["COLUMNS": "200"])
    let lines = many.stdout.split(separator: "\n").map(String.init)
    let found = lines.filter { $0.hasPrefix("      warning[") || $0.hasPrefix("      error[") }
    #expect(found.count == 5, "\(many.stdout)")
    let json = try CLI.run(
      ["inspect", CLI.sample("Store.ipa"), "--aasa-dir", folder.path, "--aasa-dir", CLI.sample("aasa"), "-f", "json"])
    let shop = (json.json?["bundles"] as? [[String: Any]])?.first.flatMap { domain($0, "applinks:shop.example.com") }
    let all = (shop?["diagnostics"] as? [[String: Any]] ?? []).filter { $0["severity"] as? String != "info" }
    #expect(all.count > 5 && lines.contains("      … \(all.count - 5) more about this file (--format json lists all)"))
  }

  @Test func storeDomainsCarryTheirRulesAndStatuses() throws {
    let (result, bundles) = try inventory("Store.ipa")
    #expect(result.status == 0, "\(result.stderr)")
    let app = try #require(bundles.first)
    let shop = try #require(domain(app, "applinks:shop.example.com"))
    #expect(shop["status"] as? String == "ok")
    #expect(shop["source"] as? String == "aasa-dir")
    #expect(shop["appListed"] as? Bool == true)
    let rules = shop["rules"] as? [[String: Any]] ?? []
    #expect(rules.count == 4)
    #expect(rules.first?["exclude"] as? Bool == true, "the exclusion comes first, as in the file")
    let wildcard = try #require(domain(app, "applinks:*.example.com"))
    #expect(wildcard["host"] as? String == "example.com", "a wildcard takes its file from the apex")
    #expect((wildcard["rules"] as? [Any])?.count == 2)
    let developer = try #require(domain(app, "applinks:dev.example.com?mode=developer"))
    #expect(developer["status"] as? String == "not-found")
    #expect(domain(app, "webcredentials:example.com")?["appListed"] as? Bool == true)
    #expect(domain(app, "activitycontinuation:example.com")?["appListed"] as? Bool == true)
  }

  @Test func legacyPathsAppClipsAndAnUnlistedApp() throws {
    let (nested, bundles) = try inventory("Nested.ipa")
    #expect(nested.status == 0)
    let app = try #require(bundles.first { $0["kind"] as? String == "app" })
    let legacy = try #require(domain(app, "applinks:nested.example.com"))
    #expect((legacy["rules"] as? [[String: Any]])?.map { $0["exclude"] as? Bool } == [true, false, false])
    let clip = try #require(bundles.first { $0["kind"] as? String == "app-clip" })
    #expect(domain(clip, "appclips:clip.nested.example.com")?["appListed"] as? Bool == true)

    let (enterprise, eBundles) = try inventory("Enterprise.ipa")
    #expect(enterprise.status == 0, "an unlisted app is a finding, not a failure")
    let e = try #require(eBundles.first)
    #expect(domain(e, "applinks:enterprise.example.com")?["appListed"] as? Bool == false)
    let codes = (e["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
    #expect(codes.contains("aasa.app-not-listed"))
  }

  @Test func fileWithoutJsonSuffixAndTheHumanTable() throws {
    let (_, bundles) = try inventory("Fat.ipa")
    #expect(domain(try #require(bundles.first), "applinks:fat.example.com")?["status"] as? String == "ok")
    let text = try CLI.run([
      "inspect", CLI.sample("Store.ipa"), "--aasa-dir", CLI.samples.appendingPathComponent("aasa").path,
    ])
    #expect(text.stdout.contains("shop.example.com"))
    #expect(text.stdout.contains("4 rules"))
    #expect(text.stdout.contains(", file from example.com"))
    #expect(text.stdout.contains("not-found"))
  }

  @Test func offlineWithAnEmptyCacheIsPartial() throws {
    let cache = FileManager.default.temporaryDirectory.appendingPathComponent("empty-cache-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: cache) }
    let result = try CLI.run([
      "inspect", CLI.sample("Fat.ipa"), "--format", "json", "--offline", "--cache-dir", cache.path,
    ])
    #expect(result.status == 1, "nothing is known about the domain, so the inventory is partial")
    let bundle = try #require((result.json?["bundles"] as? [[String: Any]])?.first)
    #expect(domain(bundle, "applinks:fat.example.com")?["status"] as? String == "skipped-offline")
    // The folder named is not there (a mistyped --cache-dir): said with each host, which is otherwise "not in the
    // cache" as if a cache had not seen it. A folder that is there, and empty, is a cache that has not.
    #expect(
      result.stderr.contains(
        "fat.example.com: skipped (offline) and not in the cache: the cache folder \(cache.path) does not exist"),
      "\(result.stderr)")
    try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
    let empty = try CLI.run([
      "inspect", CLI.sample("Fat.ipa"), "--format", "json", "--offline", "--cache-dir", cache.path,
    ])
    #expect(empty.status == 1 && empty.stderr.hasSuffix("fat.example.com: skipped (offline) and not in the cache\n"))
  }
}
