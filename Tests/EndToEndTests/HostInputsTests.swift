import Foundation
import Testing

/// Answers from hosts alone (`blocklist --host/--hosts`, `who-claims HOST` with no inputs): every app a host's AASA
/// file lists is taken to claim it, decided by the first entry that lists it, and the claim is said to be assumed.
struct HostInputsTests {
  static let aasa = ["--aasa-dir", CLI.sample("aasa")]

  /// The rows of a `patterns` list, without its heading.
  static func rows(_ text: String) -> [String] {
    text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
  }

  @Test func aHostsFileGivesTheRulesItsAppsWouldHaveFromTheirIPAs() throws {
    let folder = try Engines.folder()
    let report = folder.appendingPathComponent("report.json").path
    let hosts = try Engines.write("# the shop\nshop.example.com  # and its apex\n\nexample.com\n")
    let fromHosts = try CLI.run(["blocklist", "--hosts", hosts, "-f", "patterns", "--report", report] + Self.aasa)
    #expect(fromHosts.status == 0, "\(fromHosts.stderr)")
    #expect(fromHosts.stderr.contains("claims assumed from the AASA files of 2 hosts for 1 app"), "\(fromHosts.stderr)")
    // The Store app claims shop.example.com and *.example.com (whose file is example.com's): the same rules.
    let fromIPA = try CLI.run(["blocklist", CLI.sample("Store.ipa"), "-f", "patterns", "-q"] + Self.aasa)
    let shop = Self.rows(fromIPA.stdout).filter { $0.contains("\tshop.example.com\t") }
    #expect(!shop.isEmpty)
    #expect(Self.rows(fromHosts.stdout).filter { $0.contains("\tshop.example.com\t") } == shop)
    let document = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
    let assumed = try #require(document["assumedClaims"] as? [[String: Any]])
    #expect(assumed.map { $0["host"] as? String } == ["shop.example.com", "example.com"])
    #expect(assumed.first?["appIds"] as? [String] == ["ST0REAPP42.com.example.store"])

    // Beside the app's own IPA, its entitlements decide: the app is not added twice.
    let mixed = try CLI.run(
      ["blocklist", CLI.sample("Store.ipa"), "--host", "shop.example.com", "-f", "patterns", "-q"] + Self.aasa)
    #expect(Self.rows(mixed.stdout) == Self.rows(fromIPA.stdout))

    let bad = try Engines.write("shop.example.com\nhttps://example.com/\n")
    let refused = try CLI.run(["blocklist", "--hosts", bad] + Self.aasa)
    #expect(refused.status == 64 && refused.stderr.contains("\(bad):2: "), "\(refused.stderr)")
  }

  /// The first `details` entry that lists an app decides for it, as iOS does; a host with no file lists no app.
  @Test func whoClaimsAHostAloneReadsItsFile() throws {
    let folder = try Engines.folder()
    try Data(
      #"""
      {"applinks": {"details": [
        {"appIDs": ["TEAMAAAAAA.com.example.a"], "components": [{"/": "/a/*"}]},
        {"appIDs": ["TEAMAAAAAA.com.example.a", "TEAMBBBBBB.com.example.b"], "components": [{"/": "/b/*"}]}
      ]}, "webcredentials": {"apps": ["TEAMBBBBBB.com.example.b", "TEAMCCCCCC.com.example.c"]}}
      """#.utf8
    ).write(to: folder.appendingPathComponent("two.example.com.json"))
    let run = try CLI.run(
      ["who-claims", "https://two.example.com/b/1", "--aasa-dir", folder.path, "--format", "json"])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stderr.contains("claims assumed"), "\(run.stderr)")
    let claims = try #require(run.json?["claims"] as? [[String: Any]])
    let verdicts = Dictionary(
      uniqueKeysWithValues: claims.map {
        ($0["appId"] as? String ?? "", ($0["verdict"] as? [String: Any])?["verdict"] as? String ?? "")
      })
    #expect(
      verdicts == [
        "TEAMAAAAAA.com.example.a": "no-match", "TEAMBBBBBB.com.example.b": "match",
        // Listed for password sharing only: no universal link opens it.
        "TEAMCCCCCC.com.example.c": "no-match",
      ])

    // Per service: the host alone lists the password-sharing app too.
    let host = try CLI.run(["who-claims", "two.example.com", "--aasa-dir", folder.path, "--format", "json"])
    let entries = try #require(host.json?["claims"] as? [[String: Any]]).map { claim in
      (
        claim["appId"] as? String ?? "",
        ((claim["entries"] as? [[String: Any]]) ?? []).compactMap { $0["service"] as? String }
      )
    }
    #expect(entries.map(\.0) == ["TEAMAAAAAA.com.example.a", "TEAMBBBBBB.com.example.b", "TEAMCCCCCC.com.example.c"])
    #expect(entries.map(\.1) == [["applinks"], ["applinks", "webcredentials"], ["webcredentials"]], "\(host.stdout)")

    let none = try CLI.run(["who-claims", "nothing.example.com", "--aasa-dir", folder.path])
    #expect(none.status == 1, "\(none.stdout)\(none.stderr)")
    #expect(none.stderr.contains("nothing.example.com: its AASA file lists no app"), "\(none.stderr)")
  }
}
