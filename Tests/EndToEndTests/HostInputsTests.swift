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

    // One app that both hosts' files list is one app with a scope per host, as its IPA gives: it was two apps of
    // one app ID, each with one host.
    let rules = folder.appendingPathComponent("rules.json")
    let written = try CLI.run(["blocklist", "--hosts", hosts, "-f", "rules", "-o", rules.path] + Self.aasa)
    #expect(written.stderr.contains(" for 1 app to \(rules.path)"), "\(written.stderr)")
    let apps = try #require(
      (try JSONSerialization.jsonObject(with: Data(contentsOf: rules)) as? [String: Any])?["apps"] as? [[String: Any]])
    #expect(apps.map { $0["appID"] as? String } == ["ST0REAPP42.com.example.store"])
    let scopes = (apps.first?["scopes"] as? [[String: Any]] ?? []).map { $0["host"] as? String ?? "" }
    #expect(scopes == ["shop.example.com", "example.com"], "\(scopes)")

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
    // The real reason: no file at all, not a file that lists no app.
    #expect(none.stderr.contains("nothing.example.com: no AASA file: no nothing.example.com or"), "\(none.stderr)")
    #expect(none.stderr.contains("(aasa.not-found)"), "\(none.stderr)")
  }

  /// A host whose file is unknown (offline, nothing cached) fails closed: with `--uncovered block` (the default)
  /// every URL of it is blocked and it is named, exit 1; with `skip` and nothing else read, no list is made and an
  /// existing one is left as it was, exit 2.
  @Test func hostsWhoseFilesAreUnknownFailClosed() throws {
    let folder = try Engines.folder()
    let offline = ["--offline", "--cache-dir", folder.path, "--host", "yelp.com", "--host", "bsky.app"]
    let blocked = try CLI.run(["blocklist", "--uncovered", "block", "--format", "domains"] + offline)
    #expect(blocked.status == 1, "\(blocked.stderr)")
    #expect(blocked.stdout == "bsky.app\nyelp.com\n")
    for host in ["yelp.com", "bsky.app"] {
      #expect(
        blocked.stderr.contains("uncovered: * \(host): its AASA file is unknown: skipped (offline)"),
        "\(blocked.stderr)")
    }
    #expect(blocked.stderr.contains("every URL of the host is blocked instead"))
    // The rules document blocks them too, for the guards.
    let rules = try CLI.run(["blocklist", "--uncovered", "block", "--format", "rules"] + offline)
    #expect(rules.status == 1 && rules.stdout.contains(#""appID":"*""#) && rules.stdout.contains(#""host":"yelp.com""#))
    let published = folder.appendingPathComponent("published.json").path
    try Data("[]".utf8).write(to: URL(fileURLWithPath: published))
    let skipped = try CLI.run(
      ["blocklist", "--format", "wkcontentrules", "-o", published, "--uncovered", "skip"] + offline)
    #expect(skipped.status == 2, "\(skipped.stderr)")
    #expect(skipped.stderr.contains("nothing could be read, so no list was made; \(published) is left as it was"))
    #expect(try String(contentsOfFile: published, encoding: .utf8) == "[]")
    // --no-fetch looks no file up: the hosts are unknown too, and named (they were left out unsaid, exit 2).
    let unfetched = try CLI.run(
      ["blocklist", "--no-fetch", "--host", "yelp.com", "--uncovered", "block", "--format", "domains"])
    #expect(unfetched.status == 1 && unfetched.stdout == "yelp.com\n", "\(unfetched.stderr)")
    #expect(unfetched.stderr.contains("yelp.com: its AASA file is unknown: not looked up (--no-fetch)"))
  }

  /// A file our limits refuse (its variables expand past a million alternatives) is `over-limit`, which iOS might
  /// still read: the host's apps are unknown, so `--uncovered block` blocks it, as from an IPA. (It was read as a
  /// file that could not be read, a definite answer, and the host left the list.)
  @Test func aFileOurLimitsRefuseLeavesTheHostUnknown() throws {
    let folder = try Engines.folder()
    let aasa = folder.appendingPathComponent("aasa")
    try FileManager.default.createDirectory(at: aasa, withIntermediateDirectories: true)
    // Each reference counts its variable's values: 600 references to 2,000 values are 1,200,000.
    let values = (0..<2_000).map { "\"v\($0)\"" }.joined(separator: ",")
    let components = (0..<600).map { #"{"/": "/p\#($0)/$(a)/*"}"# }.joined(separator: ",")
    let file =
      #"{"applinks": {"substitutionVariables": {"a": [\#(values)]}, "#
      + #""details": [{"appIDs": ["TEAMHUGE01.com.t.huge"], "components": [\#(components)]}]}}"#
    try Data(file.utf8).write(to: aasa.appendingPathComponent("huge.example.json"))
    let run = try CLI.run(
      ["blocklist", "--host", "huge.example", "--aasa-dir", aasa.path, "--format", "domains", "--uncovered", "block"])
    #expect(run.status == 1, "\(run.stderr)")
    #expect(run.stdout == "huge.example\n")
    #expect(run.stderr.contains("(aasa.over-limit)"), "\(run.stderr)")
    #expect(run.stderr.contains("uncovered: * huge.example: its AASA file is unknown: "), "\(run.stderr)")
  }

  /// Each host that gives no rule is told why in its own words, and host lists that name no host are refused
  /// plainly; a byte-order mark before the first host is not part of it.
  @Test func hostsThatGiveNoRulesAreToldWhy() throws {
    let folder = try Engines.folder()
    try Data("{not json".utf8).write(to: folder.appendingPathComponent("broken.example.json"))
    try Data(#"{"webcredentials": {"apps": []}}"#.utf8).write(to: folder.appendingPathComponent("none.example.json"))
    let run = try CLI.run([
      "blocklist", "--host", "missing.example", "--host", "broken.example", "--host", "none.example", "--aasa-dir",
      folder.path, "--format", "domains",
    ])
    #expect(run.stderr.contains("missing.example: no AASA file: no missing.example or"), "\(run.stderr)")
    #expect(run.stderr.contains("broken.example: its AASA file could not be read: "), "\(run.stderr)")
    #expect(run.stderr.contains("none.example: its AASA file lists no app (aasa.lists-no-app)"), "\(run.stderr)")
    for (name, text, message) in [
      ("empty.txt", "", "names no host (the file is empty)"),
      ("comments.txt", "\n# only a comment\n   \n", "names no host (only blank lines and # comments)"),
    ] {
      let file = folder.appendingPathComponent(name).path
      try Data(text.utf8).write(to: URL(fileURLWithPath: file))
      let refused = try CLI.run(["blocklist", "--hosts", file] + Self.aasa)
      #expect(refused.status == 64 && refused.stderr.contains("\(file): \(message)"), "\(refused.stderr)")
    }
    let bom = folder.appendingPathComponent("bom.txt").path
    try Data([0xEF, 0xBB, 0xBF] + Array("shop.example.com\n".utf8)).write(to: URL(fileURLWithPath: bom))
    let read = try CLI.run(["blocklist", "--hosts", bom, "--format", "domains"] + Self.aasa)
    #expect(read.status == 0 && read.stdout.contains("shop.example.com"), "\(read.stderr)")
    // Elsewhere on a line it is shown, not hidden.
    let inside = folder.appendingPathComponent("inside.txt").path
    try Data(Array("shop".utf8) + [0xEF, 0xBB, 0xBF] + Array(".example.com\n".utf8)).write(
      to: URL(fileURLWithPath: inside))
    let shown = try CLI.run(["blocklist", "--hosts", inside] + Self.aasa)
    #expect(
      shown.status == 64 && shown.stderr.contains("'shop\\u{feff}.example.com' is not a host name"), "\(shown.stderr)")
  }
}
