import Foundation
import Testing

/// `ipalinks aasa diff` on the built binary: behaviour, not bytes.
struct AASADiffCommandTests {
  static let old = CLI.sample("aasa/shop.example.com.json")
  static let next = CLI.sample("aasa/next/shop.example.com.json")

  @Test func changesNameTheRulesAndAnExampleWhoseVerdictDiffers() throws {
    let run = try CLI.run(["aasa", "diff", Self.old, Self.next, "--domain", "shop.example.com", "--format", "json"])
    #expect(run.status == 1)
    let json = try #require(run.json)
    #expect(json["equivalent"] as? Bool == false)
    let changes = try #require(json["changes"] as? [[String: Any]])
    #expect(changes.map { $0["kind"] as? String } == ["rule changed", "rules reordered"])
    #expect(changes.allSatisfy { $0["appId"] as? String == "ST0REAPP42.com.example.store" })
    // Each example really is decided differently by the two files, as `match` says.
    for change in changes {
      let url = try #require(change["example"] as? String)
      let verdicts = try [Self.old, Self.next].map { file in
        let line = try CLI.run([
          "match", "--aasa", file, "--app-id", "ST0REAPP42.com.example.store", "--format", "jsonl", url,
        ])
        return (try JSONSerialization.jsonObject(with: Data(line.stdout.utf8)) as? [String: Any])?["verdict"]
          as? String
      }
      #expect(verdicts == [change["oldVerdict"] as? String, change["newVerdict"] as? String], "\(url)")
      #expect(verdicts[0] != verdicts[1])
    }
  }

  /// An app ID neither file lists (a typo, a case slip) compares nothing: a usage error naming the listed app it
  /// was probably meant to be. It said "behave the same for 1 app" and exited 0, which passed a CI gate.
  @Test func anAppIDNeitherFileListsIsAUsageError() throws {
    let run = try CLI.run(["aasa", "diff", Self.old, Self.next, "--app-id", "st0reapp42.com.example.store"])
    #expect(run.status == 64 && run.stdout.isEmpty, "\(run.stdout)")
    #expect(
      run.stderr
        == "ipalinks: --app-id st0reapp42.com.example.store is listed in the applinks of neither \(Self.old) nor "
        + "\(Self.next), so nothing of it can be compared; did you mean ST0REAPP42.com.example.store?\n")
    let listed = try CLI.run(["aasa", "diff", Self.old, Self.next, "--app-id", "ST0REAPP42.com.example.store"])
    #expect(listed.status == 1, "\(listed.stderr)")
  }

  /// A rule that spells out what a left-out key means (`"?": "*"`, `"#": "*"`, `"?": {}`, a query item of `*`, a
  /// legacy `paths` entry written as a component) behaves the same: no change, exit 0. Each was "rule changed … no
  /// example URL found", exit 1; `fetch --source both` and `refresh` read such a rewrite as a change too.
  @Test func spellingOutADefaultIsNoChange() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("aasa-diff-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    func file(_ name: String, _ rules: String) throws -> String {
      let url = folder.appendingPathComponent(name)
      try Data(#"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.ex.app"], \#(rules)}]}}"#.utf8).write(to: url)
      return url.path
    }
    let plain = try file("plain.json", #""components": [{"/": "/a/*"}]"#)
    for (name, rules) in [
      ("both.json", ##""components": [{"/": "/a/*", "#": "*", "?": "*"}]"##),
      ("empty.json", #""components": [{"/": "/a/*", "?": {}}]"#),
      ("item.json", #""components": [{"/": "/a/*", "?": {"x": "*"}}]"#),
      ("legacy.json", #""paths": ["/a/*"]"#),
    ] {
      let run = try CLI.run(["aasa", "diff", plain, try file(name, rules)])
      #expect(run.status == 0 && run.stdout.hasSuffix("behave the same for 1 app\n"), "\(name): \(run.stdout)")
    }
    // A constraint that does narrow is still a change, with its example.
    let narrower = try CLI.run([
      "aasa", "diff", plain, try file("ref.json", #""components": [{"/": "/a/*", "?": {"x": "?*"}}]"#),
    ])
    #expect(narrower.status == 1 && narrower.stdout.contains("e.g. "), "\(narrower.stdout)")
  }

  @Test func hoistingDefaultsAndEditingCommentsIsNoChange() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("aasa-diff-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let same = folder.appendingPathComponent("same.json")
    try Data(
      #"""
      {"applinks": {"details": [{"appIDs": ["ST0REAPP42.com.example.store"], "components": [
        {"/": "/buy/gift/*", "exclude": true, "caseSensitive": false, "comment": "edited"},
        {"/": "/buy/*", "caseSensitive": false},
        {"/": "/p/$(digit)*", "?": {"ref": "?*"}, "caseSensitive": false},
        {"/": "/help/*", "#": "app", "caseSensitive": false}]}]},
       "webcredentials": {"apps": ["ST0REAPP42.com.example.store"]}}
      """#.utf8
    ).write(to: same)
    let run = try CLI.run(["aasa", "diff", Self.old, same.path])
    #expect(run.status == 0, "\(run.stdout)")
    #expect(run.stdout.hasSuffix("behave the same for 1 app\n"))
    let bad = try CLI.run(["aasa", "diff", Self.old, folder.appendingPathComponent("missing.json").path])
    #expect(bad.status == 66)
  }

  /// One `details` entry lists five apps and loses a rule: the text tells the change once, naming the five; the
  /// JSON keeps a record per app.
  @Test func aChangeSharedByFiveAppsIsToldOnce() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("aasa-diff-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let apps = ["one", "two", "three", "four", "five"].map { "ABCDE12345.com.example." + $0 }
    func file(_ components: String) throws -> String {
      let url = folder.appendingPathComponent("\(UUID().uuidString).json")
      let ids = apps.map { "\"\($0)\"" }.joined(separator: ", ")
      try Data(#"{"applinks": {"details": [{"appIDs": [\#(ids)], "components": [\#(components)]}]}}"#.utf8)
        .write(to: url)
      return url.path
    }
    let (old, new) = (try file(#"{"/": "/buy/*"}, {"/": "/help/*"}"#), try file(#"{"/": "/buy/*"}"#))
    let text = try CLI.run(["aasa", "diff", old, new], environment: ["COLUMNS": "80"])
    #expect(text.status == 1)
    #expect(text.stdout.components(separatedBy: "rule removed").count == 2, "\(text.stdout)")
    #expect(text.stdout.hasPrefix("rule removed for 5 apps: ABCDE12345.com.example.one,"), "\(text.stdout)")
    #expect(apps.allSatisfy(text.stdout.contains), "\(text.stdout)")
    #expect(text.stdout.contains("\n1 change between"), "\(text.stdout)")
    // The heading fits 80 columns (the summary holds the temporary files' paths, which do not break).
    let heading = text.stdout.split(separator: "\n").prefix { !$0.hasPrefix("  old") }
    #expect(heading.count == 3 && heading.allSatisfy { $0.count <= 80 }, "\(text.stdout)")
    let json = try CLI.run(["aasa", "diff", old, new, "--format", "json"])
    let changes = try #require(json.json?["changes"] as? [[String: Any]])
    #expect(changes.compactMap { $0["appId"] as? String } == apps)
    #expect(changes.allSatisfy { $0["kind"] as? String == "rule removed" })
  }

  /// The text shows each rule as `aasa show` writes it, so a dropped `"#": "app"` is seen, and the example URLs are
  /// on the host the files are named after, unless `--domain` says otherwise.
  @Test func theTextShowsTheRulesAndTheHostTheFilesAreNamedAfter() throws {
    let run = try CLI.run(["aasa", "diff", Self.old, Self.next], environment: ["COLUMNS": "80"])
    #expect(run.status == 1)
    #expect(
      run.stdout.contains(
        """
          old  /applinks/details/0/components/3
                 match    {"/": "/help/*", "#": "app", "caseSensitive": false}
          new  /applinks/details/0/components/3
                 match    {"/": "/help/*", "caseSensitive": false}
          e.g. https://shop.example.com/help/  no-match → match
        """), "\(run.stdout)")
    let other = try CLI.run(["aasa", "diff", Self.old, Self.next, "--domain", "m.example.org"])
    #expect(other.stdout.contains("e.g. https://m.example.org/help/"), "\(other.stdout)")
  }
}
