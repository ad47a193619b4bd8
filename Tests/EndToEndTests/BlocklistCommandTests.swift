import Foundation
import Testing

/// `ipalinks blocklist` as a user runs it: formats, saved inventories, split lists, reports and exit codes.
@Suite struct BlocklistCommandTests {
  static let inputs = [CLI.sample("Store.ipa"), CLI.sample("Nested.ipa"), "--aasa-dir", CLI.sample("aasa")]
  /// The WebKit list, which most of these tests are about; it is no longer the default.
  static let webKit = ["--format", "wkcontentrules"]

  @Test(arguments: ["wkcontentrules", "swift", "js", "domains", "patterns", "regex"])
  func savedInventoryGivesTheSameOutputAsTheIPAs(format: String) throws {
    let folder = try Engines.folder()
    var saved: [String] = []
    for ipa in ["Store.ipa", "Nested.ipa"] {
      let inspect = try CLI.run(["inspect", CLI.sample(ipa), "--aasa-dir", CLI.sample("aasa"), "--format", "json"])
      #expect(inspect.status == 0)
      saved.append(
        String(
          decoding: try JSONSerialization.data(withJSONObject: try #require(inspect.json), options: [.sortedKeys]),
          as: UTF8.self))
    }
    let jsonl = folder.appendingPathComponent("inventory.jsonl")
    try Data(saved.joined(separator: "\n").utf8).write(to: jsonl)
    // One time for both: the lists are stamped with it.
    let time = ["SOURCE_DATE_EPOCH": "1795683600"]
    let direct = try CLI.run(["blocklist"] + Self.inputs + ["--format", format], environment: time)
    let later = try CLI.run(["blocklist", "--inventory", jsonl.path, "--format", format], environment: time)
    #expect(direct.status == 0, "\(direct.stderr)")
    #expect(later.status == 0, "\(later.stderr)")
    #expect(!direct.stdout.isEmpty)
    #expect(direct.stdout == later.stdout)
  }

  /// A signed list the command cannot read is not taken for an unsigned one: an unsigned list replaced it, exit 0,
  /// and every app that takes signed lists only then refused it. Root reads any file, so there the command runs as
  /// `nobody` (setpriv), from a folder of its own that `nobody` can reach.
  @Test func aSignedListThatCannotBeReadIsLeftAsItWas() throws {
    let root = getuid() == 0
    if root { try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "util-linux's setpriv") }
    let folder = URL(fileURLWithPath: "/tmp").appendingPathComponent("ipalinks-unreadable-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
    defer { try? FileManager.default.removeItem(at: folder) }
    #expect(chmod(folder.path, 0o777) == 0)
    let (binary, aasa) = (folder.appendingPathComponent("ipalinks"), folder.appendingPathComponent("aasa"))
    try FileManager.default.copyItem(at: CLI.binary, to: binary)
    try FileManager.default.copyItem(at: CLI.samples.appendingPathComponent("aasa"), to: aasa)
    let (key, output) = (
      folder.appendingPathComponent("key.pem").path, folder.appendingPathComponent("rules.json").path
    )
    _ = try CLI.run(
      ["openssl", "genpkey", "-algorithm", "ed25519", "-out", key], executable: URL(fileURLWithPath: "/usr/bin/env"))
    let list = ["blocklist", "--host", "shop.example.com", "--aasa-dir", aasa.path, "-f", "rules", "-o", output]
    let signed = try CLI.run(list + ["--sign", key], executable: binary)
    #expect(signed.status == 0, "\(signed.stderr)")
    let before = try Data(contentsOf: URL(fileURLWithPath: output))
    #expect(chmod(output, 0o200) == 0)
    let unsigned =
      root
      ? try CLI.run(
        ["--reuid=65534", "--regid=65534", "--clear-groups", binary.path] + list,
        executable: URL(fileURLWithPath: "/usr/bin/setpriv"))
      : try CLI.run(list, executable: binary)
    #expect(unsigned.status == 2, "\(unsigned.stdout)\(unsigned.stderr)")
    #expect(
      unsigned.stderr.contains("rules.json: cannot read this file to tell whether it holds a signed list: "),
      "\(unsigned.stderr)")
    #expect(chmod(output, 0o600) == 0)
    #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == before)
  }

  /// `--list-name` names the list in the rules document's stamp, and a document of another list (or of none) is not
  /// written over it: apps that update that list would refuse it while the job said it published. With the same
  /// name it is, and `--if-changed` holds it.
  @Test func aRulesDocumentOfAnotherListIsNotWrittenOverOne() throws {
    let folder = try Engines.folder()
    let output = folder.appendingPathComponent("rules.json").path
    let list = [
      "blocklist", "--host", "shop.example.com", "--aasa-dir", CLI.sample("aasa"), "-f", "rules", "-o", output,
    ]
    let time = ["SOURCE_DATE_EPOCH": "1900000000"]
    let named = try CLI.run(list + ["--list-name", "browser/prod"], environment: time)
    #expect(named.status == 0, "\(named.stderr)")
    let written = try String(contentsOfFile: output, encoding: .utf8)
    #expect(written.contains(#""generator":"ipalinks "#) && written.contains(#","list":"browser/prod","sha256":""#))
    for (other, says) in [
      (
        ["--list-name", "mail"],
        #"holds the rules document of the list "browser/prod", and this one is of the list "mail""#
      ),
      ([], #"holds the rules document of the list "browser/prod", and this one is of a list with no name"#),
    ] {
      let refused = try CLI.run(list + other, environment: time)
      #expect(refused.status == 2, "\(other): \(refused.stderr)")
      #expect(refused.stderr.contains(says), "\(refused.stderr)")
      #expect(refused.stderr.contains("give --list-name browser/prod"), "\(refused.stderr)")
      #expect(try String(contentsOfFile: output, encoding: .utf8) == written)
    }
    let held = try CLI.run(list + ["--list-name", "browser/prod", "--if-changed"])
    #expect(held.status == 3, "\(held.stderr)")
    // A document of no named list is not replaced by a named one either: its apps would refuse that.
    try FileManager.default.removeItem(atPath: output)
    #expect(try CLI.run(list).status == 0)
    let toNamed = try CLI.run(list + ["--list-name", "browser/prod"])
    #expect(toNamed.status == 2, "\(toNamed.stderr)")
    #expect(toNamed.stderr.contains("a list with no name, and this one is of the list"), "\(toNamed.stderr)")
    #expect(toNamed.stderr.contains("leave out --list-name"), "\(toNamed.stderr)")
    for bad in ["", "a b", "x\u{1B}[31m", String(repeating: "n", count: 101)] {
      let usage = try CLI.run(list + ["--list-name", bad])
      #expect(usage.status == 64, "\(usage.stderr)")
      #expect(usage.stderr.contains("1 to 100 letters, digits and . _ - : / only"), "\(usage.stderr)")
      #expect(!usage.stderr.contains("\u{1B}"))
    }
  }

  @Test func contentRulesAreWebKitJSONAndApproximationsAreReported() throws {
    let folder = try Engines.folder()
    let report = folder.appendingPathComponent("report.json")
    let result = try CLI.run(["blocklist"] + Self.inputs + Self.webKit + ["--report", report.path])
    #expect(result.status == 0)
    let rules = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
    #expect(rules.count > 10)
    let actions = rules.compactMap { ($0["action"] as? [String: Any])?["type"] as? String }
    #expect(Set(actions) == ["block", "ignore-previous-rules"])
    // The Store's fragment rule cannot be checked by WebKit: said on stderr and in the report.
    #expect(result.stderr.contains("/applinks/details/0/components/3: the # pattern cannot be seen by WebKit"))
    let notes = try #require(
      (try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])?["notes"] as? [[String: Any]]
    )
    #expect(
      notes.contains {
        $0["pointer"] as? String == "/applinks/details/0/components/3" && $0["kind"] as? String == "wider"
      })
  }

  @Test func tooManyRulesSplitIntoSeveralListsOnlyWithAnOutputFile() throws {
    let refused = try CLI.run(["blocklist"] + Self.inputs + Self.webKit + ["--max-rules", "10"])
    #expect(refused.status == 1)
    #expect(refused.stderr.contains("give -o FILE"))
    #expect(refused.stdout.isEmpty)
    let folder = try Engines.folder()
    let output = folder.appendingPathComponent("rules.json")
    let split = try CLI.run(["blocklist"] + Self.inputs + Self.webKit + ["--max-rules", "10", "-o", output.path])
    #expect(split.status == 0, "\(split.stderr)")
    let whole = try CLI.run(["blocklist"] + Self.inputs + Self.webKit)
    let all = try #require(try JSONSerialization.jsonObject(with: Data(whole.stdout.utf8)) as? [Any])
    var total = 0
    for name in ["rules.json", "rules-2.json"] {
      let list = try #require(
        try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent(name))) as? [Any])
      #expect(list.count <= 10 && !list.isEmpty)
      total += list.count
    }
    #expect(total == all.count)
  }

  @Test func plainListsNameHostsAndRules() throws {
    let domains = try CLI.run(["blocklist"] + Self.inputs + ["--format", "domains"])
    #expect(domains.stdout == "*.example.com\n*.nested.example.com\nnested.example.com\nshop.example.com\n")
    let patterns = try CLI.run(["blocklist"] + Self.inputs + ["--format", "patterns"])
    #expect(patterns.stdout.contains("ST0REAPP42.com.example.store\tshop.example.com\texclude\t"))
    let regex = try CLI.run(["blocklist"] + Self.inputs + ["--format", "regex"])
    #expect(regex.stdout.contains("ignore-previous-rules\tcase-insensitive\t^https?://([^/@]*@)?shop\\.example\\.com"))
  }

  @Test func badInventoryIsNamedAndNothingElseIsLost() throws {
    let folder = try Engines.folder()
    let bad = folder.appendingPathComponent("bad.json")
    try Data("{\"bundles\": 12}\nnot json\n".utf8).write(to: bad)
    let alone = try CLI.run(["blocklist", "--inventory", bad.path])
    #expect(alone.status == 2)
    #expect(alone.stderr.contains(bad.path))
    let mixed = try CLI.run(
      [
        "blocklist", "--inventory", bad.path, CLI.sample("Store.ipa"), "--aasa-dir", CLI.sample("aasa"),
      ] + Self.webKit)
    #expect(mixed.status == 1)
    #expect(mixed.stdout.contains("shop\\\\.example\\\\.com"))
  }

  /// `-o` naming an input, by its name or another (a link), is refused before anything is read, and the input is
  /// left as it was: `report week.jsonl -o week.jsonl` replaced the inventory with the page.
  @Test func anOutputThatIsAnInputIsRefused() throws {
    let folder = try Engines.folder()
    let inventory = folder.appendingPathComponent("week.jsonl")
    let saved = try CLI.run(["inspect", CLI.sample("Store.ipa"), "--no-fetch", "--format", "jsonl"])
    try Data(saved.stdout.utf8).write(to: inventory)
    let link = folder.appendingPathComponent("link.jsonl")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: inventory)
    for arguments in [
      ["report", inventory.path, "-o", inventory.path], ["report", inventory.path, "-o", link.path],
      ["blocklist", "--inventory", inventory.path, "-f", "domains", "-o", inventory.path],
      ["blocklist", "--inventory", link.path, "-f", "domains", "--report", inventory.path, "-o", "-"],
    ] {
      let refused = try CLI.run(arguments)
      #expect(refused.status == 2 && refused.stderr.contains("is an input too"), "\(arguments): \(refused.stderr)")
      #expect(try String(contentsOf: inventory, encoding: .utf8) == saved.stdout)
    }
  }

  /// An inventory or a store that holds only inputs that could not be read makes no list and no page, as the inputs
  /// themselves do: exit 2, the published list left as it was. Each was counted as one input read, and the list
  /// written over the good one blocked nothing (exit 1).
  @Test func anInventoryOrStoreOfUnreadableInputsMakesNoList() throws {
    let folder = try Engines.folder()
    let broken = CLI.fixture("bad/truncated.ipa")
    let inventory = folder.appendingPathComponent("broken.jsonl")
    let store = folder.appendingPathComponent("broken.db").path
    let inspected = try CLI.run(["inspect", broken, "--no-fetch", "--format", "jsonl", "--store", store])
    #expect(inspected.status == 2, "\(inspected.stderr)")
    try Data(inspected.stdout.utf8).write(to: inventory)
    let published = folder.appendingPathComponent("published.txt").path
    // `report` takes an inventory as an input.
    for (source, reportSource) in [
      (["--inventory", inventory.path], [inventory.path]), (["--store", store], ["--store", store]),
    ] {
      try Data("good.example.com\n".utf8).write(to: URL(fileURLWithPath: published))
      let list = try CLI.run(["blocklist", "--format", "domains", "-o", published] + source)
      #expect(list.status == 2, "\(source): \(list.stderr)")
      #expect(list.stderr.hasSuffix("nothing could be read, so no list was made; \(published) is left as it was\n"))
      #expect(try String(contentsOfFile: published, encoding: .utf8) == "good.example.com\n")
      let page = try CLI.run(["report", "-o", folder.appendingPathComponent("r.html").path] + reportSource)
      #expect(page.status == 2, "\(source): \(page.stderr)")
    }
  }

  /// An output file that cannot be written (its folder is a file, so this holds as root too) is named, with exit 2,
  /// for `blocklist -o` and `report -o` alike, and nothing is left beside it.
  @Test func anOutputThatCannotBeWrittenIsNamed() throws {
    let folder = try Engines.folder()
    let notAFolder = folder.appendingPathComponent("plain-file")
    try Data("x".utf8).write(to: notAFolder)
    for (command, name) in [("blocklist", "rules.json"), ("report", "report.html")] {
      let output = notAFolder.appendingPathComponent(name).path
      let run = try CLI.run([command] + Self.inputs + (command == "blocklist" ? Self.webKit : []) + ["-o", output])
      #expect(run.status == 2, "\(command): \(run.status) \(run.stderr)")
      #expect(run.stderr.contains(output), "\(command): \(run.stderr)")
      #expect(run.stdout.isEmpty, "\(command): \(run.stdout)")
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["plain-file"])
  }

  /// An app whose rules, even its hosts blocked whole, do not fit in one list is left out, and its links get
  /// through: the exit code says the list is partial (it was 0).
  @Test func anAppLeftOutOfEveryListMakesItPartial() throws {
    let output = try Engines.folder().appendingPathComponent("rules.json").path
    let run = try CLI.run([
      "blocklist", CLI.sample("Store.ipa"), "--aasa-dir", CLI.samples.appendingPathComponent("aasa").path,
      "-f", "wkcontentrules", "--max-rules", "1", "-o", output,
    ])
    #expect(run.status == 1, "\(run.stderr)")
    #expect(run.stderr.contains("the app is left out"), "\(run.stderr)")
  }

  /// Unknown files are named as uncovered, and their hosts blocked whole by default (fail closed): an outage made
  /// a list without them, exit 1. With `--uncovered skip`, when no rule is known and some file is unknown (an
  /// outage, offline with nothing cached), no list is made and the one `-o` names stays, exit 2, said even with
  /// `-q`: it was replaced by one that blocks nothing, exit 1, and `-q` said nothing of it.
  @Test func unknownAASAFilesAreReportedAsUncovered() throws {
    let folder = try Engines.folder()
    let offline = [CLI.sample("Store.ipa"), "--offline", "--cache-dir", folder.path]
    let blocked = try CLI.run(["blocklist"] + offline + ["-f", "domains"])
    #expect(blocked.status == 1 && blocked.stdout == "*.example.com\nshop.example.com\n", "\(blocked.stdout)")
    #expect(blocked.stderr.contains("every URL of the host is blocked instead"), "\(blocked.stderr)")
    #expect(
      blocked.stderr.contains(
        "2 domains blocked whole, as their AASA files are unknown: read the files with --aasa-dir DIR, or from the "
          + "cache with --offline, for their own rules"), "\(blocked.stderr)")
    let result = try CLI.run(["blocklist", "--uncovered", "skip"] + offline)
    #expect(result.status == 2 && result.stdout.isEmpty)
    #expect(result.stderr.contains("uncovered: ST0REAPP42.com.example.store shop.example.com"))
    let list = folder.appendingPathComponent("list.json").path
    let good = try CLI.run(
      [
        "blocklist", CLI.sample("Store.ipa"), "--aasa-dir", CLI.samples.appendingPathComponent("aasa").path, "-o", list,
        "-f", "wkcontentrules",
      ])
    #expect(good.status == 0, "\(good.stderr)")
    let written = try String(contentsOfFile: list, encoding: .utf8)
    let outage = try CLI.run(["blocklist", "-o", list, "-f", "wkcontentrules", "-q", "--uncovered", "skip"] + offline)
    #expect(outage.status == 2)
    #expect(
      outage.stderr.contains(
        "no rule is known and the AASA files of 2 domains are unknown, so no list was made; \(list) is left as it was"),
      "\(outage.stderr)")
    #expect(try String(contentsOfFile: list, encoding: .utf8) == written)
    // A partial list made again, unchanged: exit 3 says it was left alone, and one line, even with -q, that it is
    // still partial (exit 3 alone hid it from a job that made lists while a site was down).
    let partial = folder.appendingPathComponent("partial.json").path
    let first = try CLI.run(["blocklist", "-o", partial, "-f", "rules", "-q"] + offline)
    #expect(first.status == 1 && !first.stderr.contains("partial"), "\(first.stderr)")
    let again = try CLI.run(["blocklist", "-o", partial, "-f", "rules", "-q", "--if-changed"] + offline)
    #expect(again.status == 3, "\(again.stderr)")
    #expect(
      again.stderr.hasSuffix(
        "\nipalinks: \(partial) is still partial: the AASA files of 2 domains are unknown (blocked whole)\n"),
      "\(again.stderr)")
  }

  /// An answer that is no AASA file (a captive portal's login page, a firewall's challenge) is no proof that nothing
  /// opens: it counted as the site's "no file", so a list made behind a portal blocked nothing, exit 0, and replaced
  /// a good one. The domain is now uncovered, as for a timeout: named, a partial exit, blocked whole (unless
  /// `--uncovered skip`, and then no list at all when no rule is known). The same for a host given alone.
  @Test func anAnswerThatIsNoAASAFileLeavesItsDomainUncovered() throws {
    let folder = try Engines.folder()
    let aasa = folder.appendingPathComponent("aasa")
    try FileManager.default.copyItem(at: CLI.samples.appendingPathComponent("aasa"), to: aasa)
    let page = Data("<html><body>Log in to the network</body></html>\n".utf8)
    try page.write(to: aasa.appendingPathComponent("shop.example.com.json"))
    let inputs = [CLI.sample("Store.ipa"), "--aasa-dir", aasa.path]
    let skipped = try CLI.run(["blocklist"] + inputs + ["-f", "domains", "--uncovered", "skip"])
    #expect(skipped.status == 1, "\(skipped.stderr)")
    #expect(skipped.stdout == "*.example.com\n", "\(skipped.stdout)")
    #expect(
      skipped.stderr.contains(
        "uncovered: ST0REAPP42.com.example.store shop.example.com: shop.example.com: not a valid "
          + "AASA file"), "\(skipped.stderr)")
    let blocked = try CLI.run(["blocklist"] + inputs + ["-f", "domains"])
    #expect(blocked.status == 1 && blocked.stdout == "*.example.com\nshop.example.com\n", "\(blocked.stdout)")
    // Both of the app's files answered so: no rule is known, and the list -o names stays.
    try page.write(to: aasa.appendingPathComponent("example.com.json"))
    let list = folder.appendingPathComponent("list.txt")
    try Data("kept\n".utf8).write(to: list)
    let none = try CLI.run(["blocklist"] + inputs + ["-f", "domains", "-o", list.path, "-q", "--uncovered", "skip"])
    #expect(none.status == 2, "\(none.stderr)")
    #expect(none.stderr.contains("no rule is known"), "\(none.stderr)")
    #expect(try String(contentsOf: list, encoding: .utf8) == "kept\n")
    // A host given alone whose answer is no AASA file: its apps are unknown, blocked whole.
    let host = try CLI.run(["blocklist", "--host", "shop.example.com", "--aasa-dir", aasa.path, "-f", "domains"])
    #expect(host.status == 1 && host.stdout == "shop.example.com\n", "\(host.stdout)\(host.stderr)")
    // So does a host a store watches whose only answer was such a page (`refresh` says it has no answer from it):
    // `blocklist --store --uncovered block` left it out, exit 0. Blocked whole by default.
    let store = folder.appendingPathComponent("hosts.db").path
    let refresh = try CLI.run(["refresh", "--store", store, "--host", "shop.example.com", "--aasa-dir", aasa.path])
    #expect(refresh.stdout.contains("the store has no answer from it"), "\(refresh.stdout)\(refresh.stderr)")
    let stored = try CLI.run(["blocklist", "--store", store, "-f", "domains"])
    #expect(stored.status == 1 && stored.stdout == "shop.example.com\n", "\(stored.stdout)\(stored.stderr)")
  }

  /// `--uncovered block`, the default, fails closed: a domain whose file could not be read is blocked whole in
  /// every format, still named on stderr and still a partial exit, so a server that stalls keeps nothing out of the
  /// list.
  @Test func uncoveredDomainsCanBeBlockedWhole() throws {
    let cache = try Engines.folder().path
    let offline =
      ["blocklist", CLI.sample("Store.ipa"), "--offline", "--cache-dir", cache, "--uncovered", "block"]
      + Self.webKit
    let domains = try CLI.run(offline + ["--format", "domains"])
    #expect(domains.status == 1)
    #expect(domains.stdout == "*.example.com\nshop.example.com\n")
    #expect(
      domains.stderr.contains(
        "uncovered: ST0REAPP42.com.example.store shop.example.com: "),
      "\(domains.stderr)")
    #expect(domains.stderr.contains("every URL of the host is blocked instead"))
    let rules = try CLI.run(offline)
    #expect(rules.status == 1)
    let list = try #require(try JSONSerialization.jsonObject(with: Data(rules.stdout.utf8)) as? [[String: Any]])
    // One block per entry, any path, query and fragment (the exact entry also resets the wildcard's rules first).
    let blocks = list.filter { ($0["action"] as? [String: Any])?["type"] as? String == "block" }
    let filters = blocks.compactMap { ($0["trigger"] as? [String: Any])?["url-filter"] as? String }
    #expect(
      filters.count == 2 && filters.allSatisfy { $0.hasSuffix("(:[0-9]+)?(/[^?#]*)?(\\?[^#]*)?(#.*)?$") }, "\(filters)")
    #expect(filters.contains { $0.contains("shop\\.example\\.com") })
    // The default is the same list.
    let plain = ["blocklist", CLI.sample("Store.ipa"), "--offline", "--cache-dir", cache]
    #expect(try CLI.run(plain + ["--format", "domains"]).stdout == domains.stdout)
    // Skipped, nothing is known: no list (exit 2), rather than one that blocks nothing.
    let skipped = try CLI.run(plain + ["--format", "domains", "--uncovered", "skip"])
    #expect(skipped.status == 2 && skipped.stdout.isEmpty)
    #expect(try CLI.run(offline + ["--uncovered", "maybe"]).status == 64)
  }

  @Test func usageErrors() throws {
    #expect(try CLI.run(["blocklist"]).status == 64)
    #expect(try CLI.run(["blocklist", CLI.sample("Store.ipa"), "--format", "pdf"]).status == 64)
  }

  /// Without --format the output is the Swift guard, or what -o's extension names; a name that could be two
  /// formats (`rules.json`, the WebKit list's name before the guard became the default) is refused, naming both.
  @Test func theDefaultIsTheSwiftGuardAndANameThatCouldBeTwoFormatsIsRefused() throws {
    let folder = try Engines.folder()
    let plain = try CLI.run(["blocklist"] + Self.inputs)
    #expect(plain.status == 0 && plain.stdout.contains("public struct UniversalLinkGuard"), "\(plain.stderr)")
    for (name, marker) in [("Guard.swift", "public struct UniversalLinkGuard"), ("guard.js", "window.ipalinksGuard")] {
      let path = folder.appendingPathComponent(name).path
      let run = try CLI.run(["blocklist"] + Self.inputs + ["-o", path, "-q"])
      #expect(run.status == 0, "\(name): \(run.stderr)")
      #expect(try String(contentsOfFile: path, encoding: .utf8).contains(marker), "\(name)")
    }
    for name in ["rules.json", "hosts.txt"] {
      let path = folder.appendingPathComponent(name).path
      let run = try CLI.run(["blocklist"] + Self.inputs + ["-o", path])
      #expect(run.status == 64, "\(name): \(run.stderr)")
      #expect(run.stderr.contains("--format"), "\(name): \(run.stderr)")
      #expect(!FileManager.default.fileExists(atPath: path))
    }
    let json = try CLI.run(["blocklist"] + Self.inputs + ["-o", folder.appendingPathComponent("rules.json").path])
    #expect(json.stderr.contains("--format wkcontentrules") && json.stderr.contains("--format rules"), "\(json.stderr)")
  }

  /// `-o` replaces the file by a rename (a reader opening it meanwhile keeps a whole old file), keeps its
  /// permissions, leaves no temporary file behind; `--if-changed` leaves an unchanged list alone with exit 3.
  @Test func listsAreReplacedWholeAndOnlyWhenChanged() throws {
    let folder = try Engines.folder()
    let rules = folder.appendingPathComponent("rules.json").path
    let base = ["blocklist", CLI.sample("Store.ipa"), "-o", rules, "--if-changed", "-q"] + Self.webKit
    let first = try CLI.run(base + ["--aasa-dir", CLI.sample("aasa")])
    #expect(first.status == 0, "\(first.stderr)")
    #expect(chmod(rules, 0o640) == 0)
    let before = try FileManager.default.attributesOfItem(atPath: rules)
    let reader = try #require(FileHandle(forReadingAtPath: rules))
    defer { try? reader.close() }

    let same = try CLI.run(base + ["--aasa-dir", CLI.sample("aasa")])
    #expect(same.status == 3, "\(same.stderr)")
    let unchanged = try FileManager.default.attributesOfItem(atPath: rules)
    #expect(unchanged[.systemFileNumber] as? Int == before[.systemFileNumber] as? Int)

    let changed = try CLI.run(base + ["--aasa-dir", CLI.sample("aasa/next"), "--aasa-dir", CLI.sample("aasa")])
    #expect(changed.status == 0, "\(changed.stderr)")
    let after = try FileManager.default.attributesOfItem(atPath: rules)
    #expect(after[.systemFileNumber] as? Int != before[.systemFileNumber] as? Int)
    #expect((after[.posixPermissions] as? Int) == 0o640)
    // The reader that opened the old file still reads all of it.
    let old = try #require(try reader.readToEnd())
    #expect(old.count == before[.size] as? Int)
    #expect(try JSONSerialization.jsonObject(with: old) is [Any])
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["rules.json"])
    #expect(try CLI.run(["blocklist", CLI.sample("Store.ipa"), "--if-changed"]).status == 64)
  }

  /// An inventory of no app (`[]`, what an upstream step that found nothing may save) makes a list, which blocks
  /// nothing: said on stderr whether it goes to `-o` or to standard output, where it was said nowhere before.
  @Test func aListOfNoAppSaysItBlocksNothing() throws {
    let folder = try Engines.folder()
    let empty = folder.appendingPathComponent("empty.json").path
    try Data("[]".utf8).write(to: URL(fileURLWithPath: empty))
    let out = try CLI.run(["blocklist", "--inventory", empty, "-f", "domains"])
    #expect(out.status == 0 && out.stdout.isEmpty)
    #expect(out.stderr == "ipalinks: wrote a list that blocks nothing (no app's rules) to standard output\n")
    let file = folder.appendingPathComponent("list.txt").path
    let written = try CLI.run(["blocklist", "--inventory", empty, "-f", "domains", "-o", file])
    #expect(written.stderr == "ipalinks: wrote a list that blocks nothing (no app's rules) to \(file)\n")
    #expect(try CLI.run(["blocklist", "--inventory", empty, "-f", "domains", "-q"]).stderr.isEmpty)
  }

  /// `-o -` is standard output, for `blocklist` and `report`, as `-` is standard input for an inventory: it wrote a
  /// file named `-` in the working folder, and said `wrote … to -`. `--report -` goes there too when the list goes
  /// to a file, and is refused when both would.
  @Test func aDashAsTheOutputIsStandardOutput() throws {
    let folder = try Engines.folder()
    let base = ["blocklist", CLI.sample("Store.ipa"), "--aasa-dir", CLI.sample("aasa"), "-f", "domains", "-q"]
    let list = try CLI.run(base)
    try #require(list.status == 0 && !list.stdout.isEmpty, "\(list.stderr)")
    let dash = try CLI.run(base + ["-o", "-"], currentDirectory: folder)
    #expect(dash.status == 0 && dash.stdout == list.stdout, "\(dash.stderr)")
    let page = try CLI.run(
      ["report", CLI.sample("Store.ipa"), "--aasa-dir", CLI.sample("aasa"), "-o", "-", "-q"], currentDirectory: folder)
    #expect(page.status == 0 && page.stdout.hasPrefix("<!doctype html>"), "\(page.stderr)")
    let file = folder.appendingPathComponent("list.txt").path
    let notes = try CLI.run(base + ["-o", file, "--report", "-"], currentDirectory: folder)
    #expect(notes.status == 0, "\(notes.stderr)")
    #expect(try JSONSerialization.jsonObject(with: Data(notes.stdout.utf8)) is [String: Any], "\(notes.stdout)")
    #expect(try String(contentsOfFile: file, encoding: .utf8) == list.stdout)
    let both = try CLI.run(base + ["--report", "-"], currentDirectory: folder)
    #expect(both.status == 64 && both.stderr.contains("--report - and the list would both go to standard output"))
    #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("-").path), "a file named -")
  }

  /// An output that cannot be written (a missing folder, a folder, a path under a file), a `.json` name that could
  /// be two formats, and a key that cannot be read are said before any input is read, with nothing else: they were
  /// found once the inputs were inspected or read, seconds for a corpus's inventory (5.7 s for `make bench-store`'s)
  /// and minutes for a batch of IPAs from the web. A missing input here would be said if it were read.
  @Test func whatCannotBeWrittenIsSaidBeforeTheInputsAreRead() throws {
    let folder = try Engines.folder()
    let file = try Engines.write("a file")
    let inputs = [
      CLI.sample("Store.ipa"), "--aasa-dir", CLI.sample("aasa"), folder.appendingPathComponent("gone.ipa").path,
    ]
    let missing = folder.appendingPathComponent("no/such/folder").path
    for (arguments, said) in [
      (
        ["blocklist"] + inputs + ["-o", missing + "/list.swift"],
        "\(missing)/list.swift: cannot write: No such file or directory"
      ),
      (["blocklist"] + inputs + ["-o", folder.path, "-f", "domains"], "\(folder.path): cannot write: Is a directory"),
      (["report"] + inputs + ["-o", file + "/page.html"], "\(file)/page.html: cannot write: Not a directory"),
      (
        ["blocklist"] + inputs + [
          "-o", folder.appendingPathComponent("list.swift").path, "--report", missing + "/n.json",
        ],
        "\(missing)/n.json: cannot write: No such file or directory"
      ),
    ] {
      let run = try CLI.run(arguments)
      #expect(run.status == 2 && run.stdout.isEmpty, "\(arguments): \(run.stderr)")
      #expect(run.stderr == "ipalinks: \(said)\n", "\(arguments)")
    }
    #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("list.swift").path))
    for arguments in [
      ["blocklist"] + inputs + ["-o", folder.appendingPathComponent("list.json").path],
      ["blocklist"] + inputs + ["-f", "rules", "--sign", missing + "/key.pem"],
    ] {
      let run = try CLI.run(arguments)
      #expect(run.status == 64 && run.stderr.hasPrefix("Error: "), "\(arguments): \(run.stderr)")
      #expect(!run.stderr.contains("gone.ipa"), "\(arguments): \(run.stderr)")
    }
  }

  /// `-o` naming something other than a regular file writes to it and leaves it what it was: a pipe stays a pipe
  /// (read whole by `cat`), a link stays a link (the file it points at is replaced, keeping its permissions), a
  /// dangling link makes its file, `/dev/full` says the disk is full (exit 2), and `/dev/stdout` is the command's
  /// standard output. Before, the rename that replaces a list put a regular file in place of each: as root, of
  /// `/dev/null` too, for every program on the machine.
  @Test func anOutputThatIsNotAFileIsWrittenToNotReplaced() throws {
    let folder = try Engines.folder()
    let base = ["blocklist", CLI.sample("Store.ipa"), "--aasa-dir", CLI.sample("aasa"), "-f", "domains", "-q"]
    let list = try CLI.run(base)
    try #require(list.status == 0 && !list.stdout.isEmpty, "\(list.stderr)")
    func kind(_ path: String) -> mode_t {
      var info = stat()
      return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
    }

    let pipe = folder.appendingPathComponent("pipe").path
    try #require(mkfifo(pipe, 0o600) == 0)
    let reader = try CLI.start(["cat", pipe], executable: URL(fileURLWithPath: "/usr/bin/env"))
    let toPipe = try CLI.run(base + ["-o", pipe])
    #expect(toPipe.status == 0, "\(toPipe.stderr)")
    // Whatever follows writes to devices: it must not run where a pipe was replaced (nor wait for `cat`, which a
    // replaced pipe leaves waiting for a writer).
    if kind(pipe) != S_IFIFO { reader.process.terminate() }
    try #require(kind(pipe) == S_IFIFO)
    #expect(try reader.wait().stdout == list.stdout)

    let real = folder.appendingPathComponent("real.txt").path
    let link = folder.appendingPathComponent("link.txt").path
    try Data("old\n".utf8).write(to: URL(fileURLWithPath: real))
    #expect(chmod(real, 0o640) == 0)
    #expect(symlink("real.txt", link) == 0)
    #expect(try CLI.run(base + ["-o", link]).status == 0)
    #expect(kind(link) == S_IFLNK)
    #expect(try String(contentsOfFile: real, encoding: .utf8) == list.stdout)
    #expect((try FileManager.default.attributesOfItem(atPath: real)[.posixPermissions] as? Int) == 0o640)
    let dangling = folder.appendingPathComponent("dangling.txt").path
    #expect(symlink("made.txt", dangling) == 0)
    #expect(try CLI.run(base + ["-o", dangling]).status == 0)
    #expect(kind(dangling) == S_IFLNK)
    #expect(try String(contentsOfFile: folder.appendingPathComponent("made.txt").path, encoding: .utf8) == list.stdout)
    #expect(
      Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
        == ["pipe", "real.txt", "link.txt", "dangling.txt", "made.txt"])

    let full = try CLI.run(base + ["-o", "/dev/full"])
    #expect(full.status == 2)
    #expect(full.stderr == "ipalinks: /dev/full: cannot write: No space left on device\n")
    #expect(kind("/dev/full") == S_IFCHR)
    let stdout = try CLI.run(base + ["-o", "/dev/stdout"])
    #expect(stdout.status == 0 && stdout.stdout == list.stdout, "\(stdout.stderr)")
    let page = try CLI.run(["report", CLI.sample("Store.ipa"), "--aasa-dir", CLI.sample("aasa"), "-o", "/dev/stdout"])
    #expect(page.status == 0 && page.stdout.hasPrefix("<!doctype html>"), "\(page.stderr)")
    // Several lists need several files, which are not made beside a device.
    let split = try CLI.run(
      ["blocklist"] + Self.inputs + ["-q", "-f", "wkcontentrules", "--max-rules", "2", "-o", "/dev/null"])
    #expect(split.status == 2)
    #expect(
      split.stderr
        == "ipalinks: /dev/null is not a file, and the rules need 2 lists of at most 2 rules; give -o FILE to write "
        + "them all\n")
    #expect(kind("/dev/null") == S_IFCHR)
  }

  /// `--if-changed` judges the file on disk by its content, in every stamped format: the same list made at another
  /// time is left alone (exit 3), while one cut short or edited by hand is replaced (exit 0).
  @Test func ifChangedReplacesAListCutShortOrEditedByHand() throws {
    let folder = try Engines.folder()
    for format in ["wkcontentrules", "rules", "swift", "js"] {
      let path = folder.appendingPathComponent("list-\(format)").path
      let base = [
        "blocklist", CLI.sample("Store.ipa"), "-o", path, "-f", format, "-q", "--aasa-dir", CLI.sample("aasa"),
      ]
      #expect(try CLI.run(base).status == 0)
      let written = try String(contentsOfFile: path, encoding: .utf8)
      let later = try CLI.run(base + ["--if-changed"], environment: ["SOURCE_DATE_EPOCH": "1900000000"])
      #expect(later.status == 3, "\(format): \(later.stderr)")
      for damaged in [
        String(written.prefix(written.count / 2)), written.replacingOccurrences(of: "shop", with: "shxp"),
      ] {
        try Data(damaged.utf8).write(to: URL(fileURLWithPath: path))
        let repaired = try CLI.run(base + ["--if-changed"])
        #expect(repaired.status == 0, "\(format): \(repaired.stderr)")
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains("shop"))
      }
    }
  }

  /// `--sign KEY` signs the rules document with an Ed25519 key made by OpenSSL, and OpenSSL verifies the signature
  /// over the document's rules (the bytes before its stamp); it says the public key to give the app, refuses a key
  /// that is not Ed25519, and a format without a rules document.
  @Test func signedListsVerifyWithOpenSSL() throws {
    let folder = try Engines.folder()
    let key = folder.appendingPathComponent("key.pem").path
    let made = try CLI.run(
      ["openssl", "genpkey", "-algorithm", "ed25519", "-out", key], executable: URL(fileURLWithPath: "/usr/bin/env"))
    try #require(made.status == 0, "openssl: \(made.stderr)")
    let output = folder.appendingPathComponent("rules.json").path
    let run = try CLI.run(["blocklist"] + Self.inputs + ["-f", "rules", "--sign", key, "-o", output])
    #expect(run.status == 0, "\(run.stderr)")
    let text = try String(contentsOfFile: output, encoding: .utf8)
    let document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    let encoded = try #require(document["signature"] as? String)
    let signature = try #require(Data(base64Encoded: encoded))
    // What is signed: the rules, and when and by what they were made (the bytes before the digest).
    let stamp = try #require(text.range(of: #","sha256":""#))
    #expect(text[..<stamp.lowerBound].contains(#","generatedAt":""#))
    try Data(Array(text[..<stamp.lowerBound].utf8) + [UInt8(ascii: "}")]).write(
      to: folder.appendingPathComponent("rules.bin"))
    try signature.write(to: folder.appendingPathComponent("rules.sig"))
    let publicKey = folder.appendingPathComponent("public.pem").path
    _ = try CLI.run(
      ["openssl", "pkey", "-in", key, "-pubout", "-out", publicKey], executable: URL(fileURLWithPath: "/usr/bin/env"))
    let verify = try CLI.run(
      [
        "openssl", "pkeyutl", "-verify", "-pubin", "-inkey", publicKey, "-rawin", "-in",
        folder.appendingPathComponent("rules.bin").path, "-sigfile", folder.appendingPathComponent("rules.sig").path,
      ], executable: URL(fileURLWithPath: "/usr/bin/env"))
    #expect(
      verify.status == 0 && verify.stdout.contains("Signature Verified Successfully"),
      "\(verify.stdout)\(verify.stderr)")
    // The public key to give UpdatingLinkGuard(…, publicKey:): the last 32 bytes of OpenSSL's DER, in base64.
    let der = folder.appendingPathComponent("public.der").path
    _ = try CLI.run(
      ["openssl", "pkey", "-in", key, "-pubout", "-outform", "DER", "-out", der],
      executable: URL(fileURLWithPath: "/usr/bin/env"))
    let raw = try Data(contentsOf: URL(fileURLWithPath: der)).suffix(32).base64EncodedString()
    #expect(
      run.stderr.contains("signed with the Ed25519 key whose public key (raw, base64) is \(raw)"), "\(run.stderr)")
    // The same rules later are still the same file: its signature, which covers its time, verifies.
    let again = try CLI.run(
      ["blocklist"] + Self.inputs + ["-f", "rules", "--sign", key, "-o", output, "--if-changed"],
      environment: ["SOURCE_DATE_EPOCH": "1900000000"])
    #expect(again.status == 3, "\(again.stderr)")
    // Another key, to sign with.
    let otherKey = folder.appendingPathComponent("other.pem").path
    _ = try CLI.run(
      ["openssl", "genpkey", "-algorithm", "ed25519", "-out", otherKey],
      executable: URL(fileURLWithPath: "/usr/bin/env"))
    // An unsigned list over a signed one (a job whose key went missing) is refused, the signed file left as it was:
    // it was replaced, exit 0, and every app that takes signed lists only then refused it. Removed first, it is
    // written.
    let signed = try String(contentsOfFile: output, encoding: .utf8)
    let unsigned = try CLI.run(["blocklist"] + Self.inputs + ["-f", "rules", "-o", output])
    #expect(unsigned.status == 2, "\(unsigned.stderr)")
    #expect(unsigned.stderr.contains("holds a signed list and this one is not signed"), "\(unsigned.stderr)")
    #expect(try String(contentsOfFile: output, encoding: .utf8) == signed)
    // Signed with another key (a CI secret replaced by mistake), likewise: it was replaced, exit 0, and every app
    // that takes documents signed with the first key refused it.
    let otherSigned = try CLI.run(["blocklist"] + Self.inputs + ["-f", "rules", "--sign", otherKey, "-o", output])
    #expect(otherSigned.status == 2, "\(otherSigned.stderr)")
    #expect(otherSigned.stderr.contains("holds a rules document signed with another key"), "\(otherSigned.stderr)")
    #expect(try String(contentsOfFile: output, encoding: .utf8) == signed)
    // Removed first, a list signed with the other key is written; then one signed with the first key is refused
    // over it. An unsigned list is replaced by a signed one, which is then held.
    for signing in [["--sign", otherKey], []] {
      try FileManager.default.removeItem(atPath: output)
      #expect(try CLI.run(["blocklist"] + Self.inputs + ["-f", "rules", "-o", output] + signing).status == 0)
      let remade = try CLI.run(
        ["blocklist"] + Self.inputs + ["-f", "rules", "--sign", key, "-o", output, "--if-changed"],
        environment: ["SOURCE_DATE_EPOCH": "1900000000"])
      #expect(remade.status == (signing.isEmpty ? 0 : 2), "\(signing): \(remade.stderr)")
      guard signing.isEmpty else { continue }
      let held = try CLI.run(
        ["blocklist"] + Self.inputs + ["-f", "rules", "--sign", key, "-o", output, "--if-changed"])
      #expect(held.status == 3, "\(signing): \(held.stderr)")
    }
    let notAKey = try Engines.write("not a key")
    #expect(try CLI.run(["blocklist"] + Self.inputs + ["-f", "rules", "--sign", notAKey]).status == 64)
    // A key that cannot be read is found as the command runs, before the inputs are read: said with the system's
    // reason and blocklist's usage, where argument-parser had given the root's (`Usage: ipalinks <subcommand>`).
    let keyFolder = try Engines.folder().path
    let notFile = try CLI.run(["blocklist"] + Self.inputs + ["-f", "rules", "--sign", keyFolder])
    #expect(notFile.status == 64)
    #expect(
      notFile.stderr
        == ("Error: --sign: cannot read \(keyFolder): Is a directory\n"
          + "Usage: ipalinks blocklist [<options>] [<inputs> ...]\n"
          + "  See 'ipalinks blocklist --help' for more information.\n"),
      "\(notFile.stderr)")
    let listOnly = try CLI.run(["blocklist"] + Self.inputs + ["-f", "wkcontentrules", "--sign", key])
    #expect(listOnly.status == 64 && listOnly.stderr.contains("--sign signs the guards' rules document"))
  }
}
