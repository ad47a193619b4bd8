import Foundation
import Testing

/// What new users tripped on: each command's exit code on bad inputs, messages that name the next step, wildcard
/// hosts, `match` without `--app-id`, and truncated AASA files.
struct NewUserTests {
  static let aasa = CLI.sample("aasa")

  /// A folder of its own for one test's files.
  static func folder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("new-user-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
  }

  /// Every command on a missing file and on a file that is not a zip (or not JSON), with the code docs/output.md's
  /// table gives: 2 where "nothing could be read" (the commands that inspect), 66 and 65 for the commands that read
  /// an AASA file, 1 for `aasa validate`, where invalid JSON is an error.
  @Test func everyCommandGivesTheDocumentedCodeOnInputsThatCannotBeRead() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let missing = folder.appendingPathComponent("missing.ipa").path
    let notZip = CLI.fixture("bad/not-a-zip.ipa")
    let notJSON = folder.appendingPathComponent("not.json")
    try Data("not json".utf8).write(to: notJSON)
    let report = folder.appendingPathComponent("r.html").path
    let cases: [(arguments: [String], status: Int32)] = [
      (["inspect", missing], 2), (["inspect", notZip], 2),
      (["blocklist", missing], 2), (["blocklist", notZip], 2),
      (["report", missing, "-o", report], 2), (["report", notZip, "-o", report], 2),
      (["diff", missing, notZip], 2), (["diff", notZip, notZip], 2),
      (["who-claims", "example.com", missing], 2), (["who-claims", "example.com", notZip], 2),
      (["match", "--aasa", missing, "--app-id", "A.b", "https://example.com/"], 66),
      (["match", "--aasa", notJSON.path, "--app-id", "A.b", "https://example.com/"], 65),
      (["aasa", "validate", missing], 66), (["aasa", "validate", notJSON.path], 1),
      (["aasa", "show", missing], 66), (["aasa", "show", notJSON.path], 65),
      (["aasa", "diff", missing, notJSON.path], 66), (["aasa", "diff", notJSON.path, notJSON.path], 65),
    ]
    let table = try String(contentsOf: CLI.repo.appendingPathComponent("docs/output.md"), encoding: .utf8)
    for (arguments, status) in cases {
      let run = try CLI.run(arguments)
      #expect(run.exited && run.status == status, "\(arguments): \(run.status) \(run.stderr)")
      // The table has a cell for that code on the command's row.
      let command = arguments[0] == "aasa" ? "aasa " + arguments[1] : arguments[0]
      let row = try #require(table.split(separator: "\n").first { $0.hasPrefix("| `\(command)` |") }, "\(command)")
      let header = try #require(table.split(separator: "\n").first { $0.hasPrefix("| command | 0 |") })
      let columns = header.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
      let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
      let cell = cells[try #require(columns.firstIndex(of: String(status)), "no column for \(status)")]
      #expect(cell != "—", "docs/output.md gives no meaning to \(status) for \(command)")
    }
  }

  @Test func aWildcardHostListsItsClaimersAndTheHostsBelowIt() throws {
    let run = try CLI.run(["who-claims", "*.nested.example.com", CLI.samples.path, "--aasa-dir", Self.aasa, "-q"])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.hasPrefix("*.nested.example.com: claimed by 2 apps"), "\(run.stdout)")
    #expect(run.stdout.contains("applinks:*.nested.example.com") && run.stdout.contains("applinks:*.example.com"))
    #expect(run.stdout.hasSuffix("1 host below *.nested.example.com that apps claim:\n  clip.nested.example.com\n"))
    let json = try CLI.run(
      ["who-claims", "*.nested.example.com", CLI.samples.path, "--aasa-dir", Self.aasa, "--format", "json", "-q"])
    #expect(json.json?["hostsBelow"] as? [String] == ["clip.nested.example.com"])
    #expect((json.json?["claims"] as? [Any])?.count == 2)
    let bad = try CLI.run(["who-claims", "*.", CLI.samples.path])
    #expect(bad.status == 64 && bad.stderr.contains("is not a wildcard entry"), "\(bad.stderr)")
  }

  @Test func matchUsesTheOneListedAppAndOtherwiseListsThem() throws {
    let one = try CLI.run([
      "match", "--aasa", CLI.sample("aasa/shop.example.com.json"), "https://shop.example.com/buy/1",
    ])
    #expect(one.status == 0)
    #expect(one.stderr.contains("deciding for ST0REAPP42.com.example.store, the one app"), "\(one.stderr)")
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let two = folder.appendingPathComponent("two.json")
    try Data(
      #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.a", "ABCDE12345.com.example.b"], "components": []}]}}"#
        .utf8
    ).write(to: two)
    let several = try CLI.run(["match", "--aasa", two.path, "https://example.com/"])
    #expect(several.status == 64)
    #expect(several.stderr.contains("lists 2 apps (ABCDE12345.com.example.a, ABCDE12345.com.example.b)"))
    #expect(several.stderr.contains("Usage: ipalinks match"), "\(several.stderr)")
    // A file of 400 apps: the first five, and how many more, not one error line of 12,000 characters.
    let many = folder.appendingPathComponent("many.json")
    let ids = (0..<400).map { "\"ABCDE12345.com.example.app\($0)\"" }.joined(separator: ", ")
    try Data(#"{"applinks": {"details": [{"appIDs": [\#(ids)], "components": []}]}}"#.utf8).write(to: many)
    let crowd = try CLI.run(["match", "--aasa", many.path, "https://example.com/"])
    #expect(crowd.status == 64)
    #expect(
      crowd.stderr.contains("lists 400 apps (ABCDE12345.com.example.app0, ")
        && crowd.stderr.contains(
          "ABCDE12345.com.example.app4 and 395 more; aasa show lists them)"),
      "\(crowd.stderr)")
    #expect(crowd.stderr.split(separator: "\n").allSatisfy { $0.count < 400 }, "\(crowd.stderr)")
    for wrong in ["ST0REAPP42.COM.EXAMPLE.STORE", "com.example.store.ST0REAPP42"] {
      let near = try CLI.run([
        "match", "--aasa", CLI.sample("aasa/shop.example.com.json"), "--app-id", wrong,
        "https://shop.example.com/buy/1",
      ])
      #expect(near.stderr.contains("did you mean ST0REAPP42.com.example.store?"), "\(wrong): \(near.stderr)")
    }
  }

  @Test func aTruncatedFileSaysItEndsEarlyAndWhere() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let cut = folder.appendingPathComponent("cut.json")
    try Data("{\"applinks\": {\n".utf8).write(to: cut)
    let run = try CLI.run(["aasa", "validate", cut.path, "--format", "jsonl"])
    #expect(run.status == 1)
    #expect(
      run.stdout.contains(
        "the file ends early, at line 2, column 1, before the JSON document does (expected a string key)"),
      "\(run.stdout)")
    // Cut inside a string: the end, and where the string began.
    try Data("{\"applinks\": {\"details\": [{\"appIDs\": [\"A.b\"], \"paths\": [\"/ab".utf8).write(to: cut)
    let string = try CLI.run(["aasa", "validate", cut.path, "--format", "jsonl"])
    #expect(string.status == 1)
    #expect(
      string.stdout.contains("the file ends early, at line 1, column 61, inside the string begun at line 1, column 57"),
      "\(string.stdout)")
    #expect(!string.stdout.contains("unterminated"), "\(string.stdout)")
  }

  @Test func retrievalOptionsSayWhenASavedInventoryCannotUseThem() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let inventory = folder.appendingPathComponent("inv.jsonl")
    let saved = try CLI.run(["inspect", CLI.sample("Store.ipa"), "--aasa-dir", Self.aasa, "--format", "jsonl", "-q"])
    try Data(saved.stdout.utf8).write(to: inventory)
    let run = try CLI.run([
      "blocklist", "--inventory", inventory.path, "--aasa-dir", CLI.sample("aasa/next"), "--format", "domains",
    ])
    #expect(
      run.stderr.contains("--aasa-dir does not apply to \(inventory.path): a saved inventory keeps the AASA files"),
      "\(run.stderr)")
    #expect(run.stderr.contains("inspect the apps again"))
    let plain = try CLI.run(["blocklist", "--inventory", inventory.path, "--format", "domains"])
    #expect(!plain.stderr.contains("does not apply"))
  }

  @Test func anEmptyListSaysWhatWasLeftOutAndAWrittenListSaysWhatItHolds() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let rules = folder.appendingPathComponent("live.json").path
    let offline = try CLI.run(
      [
        "blocklist", CLI.sample("Store.ipa"), "--offline", "--cache-dir", folder.path, "-o", rules, "-f",
        "wkcontentrules", "--uncovered", "skip",
      ])
    // Every file unknown and left out, no rule known: no list is made, rather than one that blocks nothing.
    #expect(offline.status == 2)
    #expect(!FileManager.default.fileExists(atPath: rules))
    #expect(offline.stderr.contains("so no list was made; \(rules) is left as it was"), "\(offline.stderr)")
    #expect(offline.stderr.contains("left out of the list"), "\(offline.stderr)")
    #expect(
      offline.stderr.contains(
        "domains left out of the list, as their AASA files are unknown: read the files with --aasa-dir DIR, or from "
          + "the cache with --offline, or block their hosts whole with --uncovered block"), "\(offline.stderr)")
    let written = try CLI.run(
      ["blocklist", CLI.sample("Store.ipa"), "--aasa-dir", Self.aasa, "-o", rules, "-f", "wkcontentrules"])
    #expect(written.stderr.contains("ipalinks: wrote "), "\(written.stderr)")
    let count = try #require(
      (try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: rules))) as? [Any])?.count)
    #expect(written.stderr.contains("ipalinks: wrote \(count) rules for 1 app to \(rules)"), "\(written.stderr)")
    let quiet = try CLI.run(
      ["blocklist", CLI.sample("Store.ipa"), "--aasa-dir", Self.aasa, "-o", rules, "-q", "-f", "wkcontentrules"])
    #expect(!quiet.stderr.contains("wrote"))
  }

  /// Past five failing hosts of one status the summary counts the rest; `-v` names every one, and `--report`
  /// carries them all.
  @Test func verboseAndTheReportNameEveryFailingHost() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let empty = folder.appendingPathComponent("empty")
    try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
    let report = folder.appendingPathComponent("report.json")
    let arguments = ["blocklist", CLI.samples.path, "--aasa-dir", empty.path, "--format", "domains", "--no-progress"]
    let short = try CLI.run(arguments)
    #expect(short.stderr.contains("more host") && short.stderr.contains("(-v lists every host)"), "\(short.stderr)")
    let verbose = try CLI.run(arguments + ["-v", "--report", report.path])
    #expect(!verbose.stderr.contains("more host"), "\(verbose.stderr)")
    let listed = verbose.stderr.split(separator: "\n").filter { $0.contains("(not-found, ") }
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
    // Stamped as every JSON document is.
    #expect((json["generator"] as? String)?.hasPrefix("ipalinks ") == true)
    let lookups = try #require(json["failedLookups"] as? [[String: Any]])
    #expect(lookups.count == listed.count && lookups.count > 6, "\(lookups.count) \(listed.count)")
    #expect(lookups.allSatisfy { $0["status"] as? String == "not-found" && $0["host"] is String })
  }

  /// `--jobs` reads the same in every command that has it, and names no option the command lacks.
  @Test func jobsHelpNamesNoOptionTheCommandLacks() throws {
    for command in ["blocklist", "report", "inspect", "diff", "who-claims"] {
      let help = try CLI.run([command, "--help"], environment: ["COLUMNS": "200"])
      let line = try #require(help.stdout.split(separator: "\n").first { $0.contains("--jobs <n>") }, "\(command)")
      #expect(!line.contains("--urls"), "\(command): \(line)")
      #expect(line.contains("How many inputs to inspect, and threads to use, at once"), "\(command): \(line)")
    }
  }

  /// Every command's `--help`, nested ones too (found from each SUBCOMMANDS list), fits 80 columns, its usage line
  /// included: argument-parser prints that line whole, and seven commands' ran past 80, up to 137 characters.
  @Test func everyHelpFitsEightyColumns() throws {
    var commands: [[String]] = [[]]
    var seen = 0
    while let command = commands.popLast() {
      let help = try CLI.run(command + ["--help"], environment: ["COLUMNS": "80"])
      #expect(help.status == 0, "\(command): \(help.stderr)")
      let lines = help.stdout.split(separator: "\n", omittingEmptySubsequences: false)
      #expect(lines.allSatisfy { $0.count <= 80 }, "\(command): \(lines.filter { $0.count > 80 })")
      seen += 1
      // A subcommand's line is two spaces, its name, and its abstract after more spaces.
      let list = lines.drop { $0 != "SUBCOMMANDS:" }.dropFirst().prefix { !$0.isEmpty }
      commands += list.compactMap { line in
        guard line.hasPrefix("  "), !line.hasPrefix("   ") else { return nil }
        return line.split(separator: " ").first.map { command + [String($0)] }
      }
    }
    #expect(seen == 18, "\(seen) commands")
  }

  /// A command line of thousands of paths (a shell's glob over a folder of IPAs) is read by swift-argument-parser in
  /// time that grows with the square of their count, seconds before any work can show: said first, with the folder
  /// to give instead. A few hundred paths are read at once, and nothing is said.
  @Test func thousandsOfArgumentsAreSaidBeforeTheyAreRead() throws {
    let store = CLI.sample("Store.ipa")
    let many = try CLI.run(["inspect", "--no-fetch", "--no-progress"] + Array(repeating: store, count: 4_000))
    #expect(many.status == 0, "\(many.stderr)")
    #expect(
      many.stderr.hasPrefix(
        "ipalinks: 4003 arguments take seconds to read before any work starts; give their folder instead (it is "
          + "walked for *.ipa), or for URLs --urls FILE\nipalinks: "), "\(many.stderr)")
    let quiet = try CLI.run(["inspect", "--no-fetch", "-q"] + Array(repeating: store, count: 4_000))
    #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
    let few = try CLI.run(["inspect", "--no-fetch", "--no-progress"] + Array(repeating: store, count: 300))
    #expect(few.status == 0 && !few.stderr.contains("arguments take"), "\(few.stderr)")
  }

  /// `--format table`: a line per bundle that fits the width, sortable by a column.
  @Test func aBatchReadsAsATableThatFitsTheWidth() throws {
    for columns in [60, 80, 120] {
      let run = try CLI.run(
        ["inspect", CLI.samples.path, "--aasa-dir", Self.aasa, "--format", "table", "--sort", "failed", "-q"],
        environment: ["COLUMNS": "\(columns)"])
      #expect(run.status == 0, "\(run.stderr)")
      let lines = run.stdout.split(separator: "\n")
      #expect(lines.first?.hasPrefix("APP ") == true && lines.count == 13, "\(run.stdout)")
      #expect(lines.allSatisfy { $0.count <= columns }, "\(columns): \(run.stdout)")
    }
    let wide = try CLI.run(
      ["inspect", CLI.samples.path, "--aasa-dir", Self.aasa, "--format", "table", "--sort", "failed", "-q"],
      environment: ["COLUMNS": "200"])
    // Wide enough for every cell: the three counts are the numbers of each line, and FAILED, the last, goes down.
    let failed = wide.stdout.split(separator: "\n").dropFirst().map { line in
      line.split(separator: " ").compactMap { Int($0) }.last ?? -1
    }
    #expect(failed.count == 12 && failed == failed.sorted(by: >) && failed.first == 2, "\(wide.stdout)")
    #expect(wide.stdout.contains("ST0REAPP42.com.example.store") && !wide.stdout.contains("…"))
    let misplaced = try CLI.run(["inspect", CLI.samples.path, "--sort", "name"])
    #expect(misplaced.status == 64 && misplaced.stderr.contains("--sort orders --format table only"))
  }
}
