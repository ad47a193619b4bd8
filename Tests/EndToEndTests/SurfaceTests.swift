import Foundation
import Testing

/// The command line as one tool: text fits 80 columns, the same words and numbering everywhere, `json` one document
/// and `jsonl` one object per line, and mistakes in arguments told as usage errors that name them.
struct SurfaceTests {
  static let aasa = CLI.sample("aasa")
  static let store = "ST0REAPP42.com.example.store"

  /// Every command's text on the bundled samples, at `COLUMNS=80`.
  static let textCommands: [[String]] = [
    ["inspect", CLI.sample("Store.ipa"), "--aasa-dir", aasa],
    ["inspect", CLI.sample("Store.ipa"), "--offline", "--cache-dir", NSTemporaryDirectory() + "ipalinks-empty-cache"],
    ["inspect", CLI.samples.path, "--aasa-dir", aasa],
    ["aasa", "show", CLI.sample("aasa/shop.example.com.json")],
    ["aasa", "validate", CLI.sample("aasa/shop.example.com.json"), "--app-id", "NOTLISTED0.com.example.x"],
    [
      "match", "--explain", "--aasa", CLI.sample("aasa/shop.example.com.json"), "--app-id", store,
      "https://shop.example.com/buy/gift/card", "https://shop.example.com/p/x?ref=home",
    ],
    ["who-claims", "https://www.example.com/promo/spring/1", CLI.samples.path, "--aasa-dir", aasa],
    ["diff", CLI.sample("Store.ipa"), CLI.sample("Nested.ipa"), "--aasa-dir", aasa],
    ["fetch", "shop.example.com", "--aasa-dir", aasa, "--app-id", store],
  ]

  @Test(arguments: textCommands)
  func textFitsEightyColumns(_ arguments: [String]) throws {
    let run = try CLI.run(arguments, environment: ["NO_COLOR": "1", "XDG_CACHE_HOME": NSTemporaryDirectory()])
    #expect(run.exited && [0, 1].contains(run.status), "\(arguments.joined(separator: " ")): \(run.stderr)")
    #expect(!run.stdout.isEmpty)
    let long = run.stdout.split(separator: "\n").filter { $0.count > 80 }
    #expect(long.isEmpty, "\(arguments.prefix(2).joined(separator: " ")): \(long)")
    // One vocabulary: no rule is called `open` or `include`, and rules are numbered by pointer only.
    for word in ["  open  ", " include ", "[0.", "details[0]", "error [", "warning ["] {
      #expect(!run.stdout.contains(word), "\(arguments.prefix(2).joined(separator: " ")) says \"\(word)\"")
    }
  }

  /// CI checks out the repository under a deeper path than a developer does; a file name that leaves no room for
  /// the counts beside it moves them to a line of their own instead of overflowing.
  @Test func aLongFileNameKeepsTheValidationSummaryWithinEightyColumns() throws {
    // A path of 72 characters, whatever the temporary directory's own length (TMPDIR differs between machines and
    // runs): padded up to it, or under /tmp when the temporary directory leaves no room.
    var root = FileManager.default.temporaryDirectory
    if root.path.count > 32 { root = URL(fileURLWithPath: "/tmp") }
    let base = root.appendingPathComponent("ipalinks-surface-\(UUID().uuidString.prefix(8))")
    let padding = 72 - base.path.count - "/a/shop.example.com.json".count
    let folder = base.appendingPathComponent("a" + String(repeating: "b", count: max(padding, 0)))
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: base) }
    let file = folder.appendingPathComponent("shop.example.com.json")
    try FileManager.default.copyItem(atPath: CLI.sample("aasa/shop.example.com.json"), toPath: file.path)
    #expect(file.path.count < 80 && file.path.count + 36 > 80, "\(file.path) does not test the wrap")
    for appId in ["NOTLISTED0.com.example.x", Self.store] {
      let run = try CLI.run(["aasa", "validate", file.path, "--app-id", appId], environment: ["NO_COLOR": "1"])
      let lines = run.stdout.split(separator: "\n")
      #expect(lines.allSatisfy { $0.count <= 80 }, "\(lines)")
      #expect(lines.last == "    1 error, 0 warnings, 0 notes" || lines.last == "    no problems found", "\(lines)")
    }
  }

  @Test func aWiderTerminalGetsLongerLines() throws {
    let arguments = ["inspect", CLI.sample("Store.ipa"), "--aasa-dir", Self.aasa]
    let wide = try CLI.run(arguments, environment: ["COLUMNS": "200"])
    #expect(wide.stdout.split(separator: "\n").contains { $0.count > 80 })
    #expect(wide.stdout.contains(#"0  exclude  {"/": "/buy/gift/*", "exclude": true, "caseSensitive": false}"#))
  }

  @Test func jsonIsOneDocumentWithTheGeneratorAndJsonlOneObjectPerLine() throws {
    let match = [
      "match", "--aasa", CLI.sample("aasa/shop.example.com.json"), "--app-id", Self.store,
      "https://shop.example.com/buy/1", "https://shop.example.com/about",
    ]
    for arguments in [
      match, ["aasa", "validate", CLI.sample("aasa/shop.example.com.json")],
      ["aasa", "show", CLI.sample("aasa/shop.example.com.json")],
      ["fetch", "shop.example.com", "--aasa-dir", Self.aasa],
      ["who-claims", "shop.example.com", CLI.sample("Store.ipa"), "--aasa-dir", Self.aasa],
      ["inspect", CLI.sample("Store.ipa"), "--aasa-dir", Self.aasa],
      ["diff", CLI.sample("Store.ipa"), CLI.sample("Fat.ipa"), "--no-fetch"],
    ] {
      let run = try CLI.run(arguments + ["--format", "json"])
      let generator = run.json?["generator"] as? String
      #expect(generator?.hasPrefix("ipalinks ") == true, "\(arguments.prefix(2)): \(run.stdout.prefix(200))")
    }
    for arguments in [
      match, ["fetch", "shop.example.com", "example.com", "--aasa-dir", Self.aasa],
      ["who-claims", "menu.nested.example.com", CLI.samples.path, "--aasa-dir", Self.aasa],
      ["inspect", CLI.sample("Store.ipa"), CLI.sample("Fat.ipa"), "--aasa-dir", Self.aasa],
    ] {
      let run = try CLI.run(arguments + ["--format", "jsonl"])
      let lines = run.stdout.split(separator: "\n")
      #expect(lines.count == 2, "\(arguments.prefix(2)): \(lines.count) lines")
      #expect(
        lines.allSatisfy { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) is [String: Any] },
        "\(arguments.prefix(2))")
    }
    let version = try CLI.run(["--version"])
    #expect(version.status == 0 && version.stdout.range(of: #"^\d+\.\d+\.\d+\n$"#, options: .regularExpression) != nil)
  }

  @Test func mistakenArgumentsAreUsageErrorsThatNameTheProblem() throws {
    let cases: [([String], String)] = [
      (["who-claims", CLI.sample("Store.ipa"), "shop.example.com"], "is a file, not a host"),
      (["who-claims", "not a host!", CLI.sample("Store.ipa")], "'not a host!' is not a host name"),
      (["match", "--aasa", CLI.sample("aasa/shop.example.com.json"), "--app-id", "T.x", "http://[::1"], "http://[::1"),
      (["fetch", "https://example.com/"], "is a URL; give the host alone, example.com"),
      (["inspect", "-", CLI.sample("Store.ipa")], "cannot be combined"),
    ]
    for (arguments, message) in cases {
      let run = try CLI.run(arguments)
      #expect(run.status == 64, "\(arguments): \(run.status) \(run.stderr)")
      #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
    }
    let warned = try CLI.run([
      "match", "--aasa", CLI.sample("aasa/shop.example.com.json"), "--app-id", Self.store,
      "https://shop.example.com/buy/1", "https://other.example.com/buy/1",
    ])
    #expect(warned.stderr.contains("the URLs name 2 hosts and no --domain was given"))
  }

  @Test func anEmptyFileSaysItIsEmpty() throws {
    let empty = FileManager.default.temporaryDirectory.appendingPathComponent("empty-\(UUID().uuidString).ipa")
    _ = FileManager.default.createFile(atPath: empty.path, contents: Data())
    defer { try? FileManager.default.removeItem(at: empty) }
    let run = try CLI.run(["inspect", empty.path, "--no-fetch"])
    #expect(run.status == 2)
    #expect(run.stdout.contains("empty file (0 bytes)"))
  }

  @Test func anIPAOnStandardInputIsInspectedAsDash() throws {
    let run = try CLI.run(
      ["inspect", "-", "--no-fetch", "--format", "json"],
      stdin: try FileHandle(forReadingFrom: CLI.samples.appendingPathComponent("Store.ipa")))
    let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    #expect(report["input"] as? String == "-")
    #expect((report["bundles"] as? [[String: Any]])?.first?["bundleId"] as? String == "com.example.store")
  }

  /// Nothing on standard input is said as an empty file is, not as an archive without its `Payload/`.
  @Test func anEmptyStandardInputIsSaidToBeEmpty() throws {
    let run = try CLI.run(["inspect", "-", "--no-fetch"], stdin: FileHandle.nullDevice)
    #expect(run.status == 2)
    #expect(run.stdout == "-  (ipa, unreadable)\n  error[input.unreadable] -: empty (0 bytes)\n", "\(run.stdout)")
  }

  /// Like grep: an input that cannot be read makes who-claims exit 2, and what was read is still answered.
  @Test func whoClaimsWithAMissingInputIsTroubleButStillAnswers() throws {
    let missing = NSTemporaryDirectory() + "ipalinks-missing-\(UUID().uuidString).ipa"
    let arguments = ["who-claims", "shop.example.com", missing, CLI.sample("Store.ipa"), "--aasa-dir", Self.aasa]
    let run = try CLI.run(arguments)
    #expect(run.status == 2, "\(run.stderr)")
    #expect(run.stdout.contains("claimed by 1 app"))
    #expect(run.stderr.contains("no such file or folder"))
    let list = NSTemporaryDirectory() + "ipalinks-urls-\(UUID().uuidString).txt"
    try "https://shop.example.com/buy/1\n".write(toFile: list, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: list) }
    let urls = try CLI.run(
      ["who-claims", "--urls", list, missing, CLI.sample("Store.ipa"), "--aasa-dir", Self.aasa])
    #expect(urls.status == 2, "\(urls.stderr)")
    #expect(urls.stdout.contains("https://shop.example.com/buy/1"))
  }

  /// A URL list with an overlong line (a binary file, say): that line is named and skipped, the URLs around it are
  /// still answered in order, and the lines after it keep their numbers.
  @Test func anOverlongURLLineIsNamedAndTheRestAnswered() throws {
    let list = NSTemporaryDirectory() + "ipalinks-urls-\(UUID().uuidString).txt"
    let long = "https://shop.example.com/" + String(repeating: "\u{1B}x", count: 600_000)
    try ["https://shop.example.com/buy/1", long, "not a url", "https://shop.example.com/buy/2", ""]
      .joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: list) }
    let run = try CLI.run(
      ["who-claims", "--urls", list, CLI.sample("Store.ipa"), "--aasa-dir", Self.aasa, "--format", "jsonl"])
    #expect(run.status == 0, "\(run.stderr)")
    let urls = run.stdout.split(separator: "\n").compactMap { line in
      (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["url"] as? String
    }
    #expect(urls == ["https://shop.example.com/buy/1", "https://shop.example.com/buy/2"])
    #expect(run.stderr.contains("line 2: longer than 1 MiB; not a URL"))
    #expect(run.stderr.contains(#"line 3: "not a url" is not an absolute URL with a host"#))
    #expect(run.stderr.contains("2 URLs: 2 open an app, 0 excluded, 0 open none; 2 lines skipped"))
    #expect(!run.stderr.contains("\u{1B}"))
  }

  @Test func diffShowsWhatAnAddedBundleBrings() throws {
    let run = try CLI.run(["diff", CLI.sample("Store.ipa"), CLI.sample("Fat.ipa"), "--no-fetch"])
    #expect(run.status == 1)
    // The input's path follows on the same line, or on its own when the checkout's path makes it too long.
    #expect(run.stdout.contains("+ bundle com.example.fat (Fat Binary) in"))
    #expect(run.stdout.contains(CLI.sample("Fat.ipa") + "\n"))
    #expect(run.stdout.contains("  + applinks:fat.example.com\n"))
    #expect(run.stdout.contains("  - URL scheme storeapp\n"))
  }

  @Test func batchesTellAFailingHostOnceAndQuietKeepsOnlyErrors() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("copies-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    for n in 0..<6 {
      try FileManager.default.copyItem(
        at: CLI.samples.appendingPathComponent("Store.ipa"), to: folder.appendingPathComponent("copy\(n).ipa"))
    }
    let cache = FileManager.default.temporaryDirectory.appendingPathComponent("empty-cache-\(UUID().uuidString)")
    let run = try CLI.run(["inspect", folder.path, "--offline", "--cache-dir", cache.path])
    #expect(run.status == 1)
    let mentions = run.stderr.split(separator: "\n").filter { $0.contains("shop.example.com") }
    #expect(mentions.count == 1, "\(run.stderr)")
    #expect(mentions.first?.contains("(skipped-offline, 6 inputs)") == true)
    #expect(run.stderr.contains("6 inputs in "))
    let quiet = try CLI.run(["inspect", folder.path, "--offline", "--cache-dir", cache.path, "-q"])
    #expect(!quiet.stderr.contains(" inputs in "), "no summary with --quiet")
    #expect(quiet.stderr.contains("shop.example.com"), "errors still show with --quiet")
  }
}
