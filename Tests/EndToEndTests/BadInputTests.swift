import Foundation
import Testing

/// Hostile and broken inputs: a one-line error naming the file, the documented exit code, no crash,
/// and whatever could still be read is still reported.
struct BadInputTests {
  struct Case: Sendable, CustomStringConvertible {
    var fixture: String
    var status: Int32
    var stderr: String
    /// A fact that must survive the damage (e.g. the Info.plist bundle id), when there is one.
    var stillReported: String? = nil
    var description: String { fixture }
  }

  static let cases: [Case] = [
    Case(fixture: "bad/not-a-zip.ipa", status: 2, stderr: "not-a-zip.ipa: not a zip archive"),
    Case(fixture: "bad/truncated.ipa", status: 2, stderr: "truncated.ipa: truncated or corrupt zip archive"),
    Case(
      fixture: "bad/no-payload.ipa", status: 2, stderr: "no-payload.ipa: no Payload/<Name>.app/ at the archive root"),
    Case(
      fixture: "bad/bomb.ipa", status: 1, stderr: "Info.plist: entry inflates past the 8 MiB limit",
      stillReported: "applinks:bomb.fixture.example.com"),
    Case(
      fixture: "bad/encrypted-entry.ipa", status: 1, stderr: "Info.plist: entry is encrypted",
      stillReported: "applinks:locked.fixture.example.com"),
    Case(
      fixture: "bad/absurd-superblob-count.ipa", status: 1, stderr: "SuperBlob claims 4294967295 blobs",
      stillReported: "com.example.fixture.count"),
    Case(
      fixture: "bad/sig-offset-past-eof.ipa", status: 1, stderr: "lies outside the file",
      stillReported: "com.example.fixture.pasteof"),
    Case(
      fixture: "bad/der-length-overflow.ipa", status: 1, stderr: "DER entitlements: a length runs past the end",
      stillReported: "com.example.fixture.deroverflow"),
    Case(
      fixture: "bad/broken-signature.ipa", status: 1, stderr: "SuperBlob has bad magic 0xdeadbeef",
      stillReported: "com.example.fixture.broken"),
    Case(fixture: "macho/truncated.bin", status: 1, stderr: "truncated.bin: truncated Mach-O"),
    Case(fixture: "macho/java.class", status: 2, stderr: "java.class: cannot be read"),
    Case(fixture: "plists/deep-nesting.plist", status: 2, stderr: "nests deeper than 64 levels"),
    Case(fixture: "plists/not-a-plist.plist", status: 2, stderr: "not-a-plist.plist: cannot be read"),
  ]

  @Test(arguments: cases) func failsClearlyAndKeepsTheRest(_ c: Case) throws {
    let result = try CLI.run(["inspect", "--no-fetch", CLI.fixture(c.fixture), "--format", "json"])
    #expect(result.exited, "crashed")
    #expect(result.status == c.status)
    #expect(result.stderr.contains(c.stderr), "stderr was: \(result.stderr)")
    #expect(result.stderr.split(separator: "\n").allSatisfy { $0.hasPrefix("ipalinks: ") })
    let json = try #require(result.json, "stdout must still be a JSON report")
    #expect(json["status"] as? String == (c.status == 1 ? "partial" : "unreadable"))
    if let fact = c.stillReported {
      #expect(result.stdout.contains(fact), "\(fact) was lost")
    }
  }

  /// A device has no size: `/dev/zero` was "empty file (0 bytes)".
  /// A team's signature without entitlements grants the app none on a device: the `.xcent` still stands in (a list
  /// then blocks more, never less), and a warning says so; it stood in without a word.
  /// A folder the walk cannot read (mode 000: an rsync that left the wrong owner) is an unreadable input, exit 1:
  /// it was passed over without a word, exit 0, the apps in it missing. A file behind it is said to be out of reach,
  /// not missing. Root reads any folder, so there the command runs as `nobody` (setpriv).
  @Test func aFolderTheWalkCannotReadIsAnUnreadableInput() throws {
    let root = getuid() == 0
    if root { try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "util-linux's setpriv") }
    let folder = URL(fileURLWithPath: "/tmp").appendingPathComponent("ipalinks-locked-\(UUID().uuidString)")
    let (ok, locked) = (folder.appendingPathComponent("corpus/ok"), folder.appendingPathComponent("corpus/locked"))
    for made in [ok, locked] { try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true) }
    defer {
      chmod(locked.path, 0o755)
      try? FileManager.default.removeItem(at: folder)
    }
    for open in [folder, folder.appendingPathComponent("corpus"), ok] { #expect(chmod(open.path, 0o777) == 0) }
    let binary = folder.appendingPathComponent("ipalinks")
    try FileManager.default.copyItem(at: CLI.binary, to: binary)
    for into in [ok, locked] {
      try FileManager.default.copyItem(
        at: URL(fileURLWithPath: CLI.sample("Store.ipa")), to: into.appendingPathComponent("Store.ipa"))
    }
    #expect(chmod(locked.path, 0) == 0)
    func run(_ arguments: [String]) throws -> CLI.Result {
      let arguments = ["inspect"] + arguments + ["--no-fetch", "--format", "jsonl", "--no-progress"]
      return root
        ? try CLI.run(
          ["--reuid=65534", "--regid=65534", "--clear-groups", binary.path] + arguments,
          executable: URL(fileURLWithPath: "/usr/bin/setpriv"))
        : try CLI.run(arguments, executable: binary)
    }
    let walked = try run([folder.appendingPathComponent("corpus").path])
    #expect(walked.status == 1, "\(walked.stdout)\(walked.stderr)")
    #expect(walked.stdout.split(separator: "\n").count == 2, "\(walked.stdout)")
    #expect(
      walked.stderr.contains(
        "corpus/locked: cannot read this folder: Permission denied; what it holds is not inspected"),
      "\(walked.stderr)")
    let behind = try run([locked.appendingPathComponent("Store.ipa").path])
    #expect(behind.status == 2, "\(behind.stderr)")
    #expect(behind.stdout.contains(#""code":"input.unreadable""#), "\(behind.stdout)")
    #expect(behind.stdout.contains("cannot be reached: a folder on its path cannot be searched"), "\(behind.stdout)")
  }

  /// `sample` rewritten by `body`, Python run for each entry with `item` (its `ZipInfo`) and `data` (its bytes),
  /// into a new IPA in a scratch folder.
  static func rewritten(_ sample: String, _ body: String, check: String = "") throws -> URL {
    let ipa = try ArgumentEdgeTests.folder().appendingPathComponent(sample)
    let script = """
      import plistlib, sys, zipfile
      with zipfile.ZipFile(sys.argv[1]) as zin, zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED) as zout:
          for item in zin.infolist():
              data = zin.read(item.filename)
      \(body.split(separator: "\n").map { "        " + $0 }.joined(separator: "\n"))
              zout.writestr(item, data)
      with zipfile.ZipFile(sys.argv[2]) as z:
          assert all(True for i in z.infolist())\(check)
      """
    let built = try CLI.run(
      ["python3", "-c", script, CLI.sample(sample), ipa.path], executable: URL(fileURLWithPath: "/usr/bin/env"))
    #expect(built.status == 0, "\(built.stderr)")
    return ipa
  }

  /// An entry name with a control byte and no UTF-8 flag is read as its bytes: libzip's guess read it as CP437, so
  /// the executable `Store\u{1b}` that Info.plist names was "not found" (`Store←` in the archive), its signature was
  /// never read, and the app claimed no domain.
  @Test func anEntryNameWithAControlByteIsReadAsItsBytes() throws {
    let ipa = try Self.rewritten(
      "Store.ipa",
      #"""
      if item.filename == "Payload/Store.app/Info.plist":
          info = plistlib.loads(data)
          info["CFBundleExecutable"] = "Store\x1b"
          data = plistlib.dumps(info, fmt=plistlib.FMT_BINARY)
      elif item.filename == "Payload/Store.app/Store":
          item.filename = "Payload/Store.app/Store\x1b"
      """#,
      check: #" and any(i.filename.endswith("\x1b") and not i.flag_bits & 0x800 for i in z.infolist())"#)
    let result = try CLI.run(["inspect", ipa.path, "--no-fetch"])
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    #expect(result.stdout.contains("Executable      Store\\u{1b}\n"), "\(result.stdout)")
    #expect(result.stdout.contains("applinks:shop.example.com"), "\(result.stdout)")
    #expect(!result.stdout.contains("executable.missing") && !result.stdout.contains("←"), "\(result.stdout)")
  }

  /// An entry iOS ignores (a port, no dot) is a warning about an app read whole, not a part that could not be read:
  /// it made the app partial, so `inspect` exited 1 and `diff` warned that differences "may come from what could
  /// not be read".
  @Test func anEntryIOSIgnoresLeavesTheAppComplete() throws {
    let ipa = try Self.rewritten(
      "XcentOnly.ipa",
      #"""
      if item.filename.endswith("archived-expanded-entitlements.xcent"):
          entitlements = plistlib.loads(data)
          entitlements["com.apple.developer.associated-domains"] += [
              "applinks:xcent.example.com:8443", "applinks:localhost"]
          data = plistlib.dumps(entitlements)
      """#)
    let folder = ipa.deletingLastPathComponent()
    let result = try CLI.run(["inspect", ipa.path, "--no-fetch", "--format", "json"])
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    #expect(result.json?["status"] as? String == "complete", "\(result.stdout)")
    let text = try CLI.run(["inspect", ipa.path, "--no-fetch"])
    #expect(text.stdout.contains("warning[domain.port]") && text.stdout.contains("warning[domain.no-dot]"))
    let inventory = folder.appendingPathComponent("sloppy.jsonl")
    try Data(result.stdout.utf8).write(to: inventory)
    let diff = try CLI.run(["diff", inventory.path, inventory.path])
    #expect(diff.status == 0 && !diff.stderr.contains("partial"), "\(diff.stdout)\(diff.stderr)")
  }

  @Test func aTeamSignatureWithoutEntitlementsIsSaid() throws {
    let result = try CLI.run(
      ["inspect", "--no-fetch", CLI.fixture("bad/signed-without-entitlements.ipa"), "--format", "json"])
    #expect(result.status == 0, "\(result.stderr)")
    let bundle = try #require((result.json?["bundles"] as? [[String: Any]])?.first, "\(result.stdout)")
    let sources = try #require(bundle["entitlementSourceDetails"] as? [[String: Any]])
    #expect(sources.first { $0["effective"] as? Bool == true }?["kind"] as? String == "xcent", "\(sources)")
    let found = (bundle["diagnostics"] as? [[String: Any]] ?? []).first {
      $0["code"] as? String == "signature.no-entitlements"
    }
    #expect(
      (found?["message"] as? String)?.hasSuffix(
        "signed by team F1XTURE000 with no entitlements in its code signature, so iOS grants it none and opens no link "
          + "in it; the .xcent's, read instead, are what the build was meant to have") == true, "\(bundle)")
    #expect(result.stdout.contains("applinks:noentitlements.fixture.example.com"))
  }

  @Test func aDeviceIsSaidToBeOne() throws {
    let zero = try CLI.run(["inspect", "/dev/zero", "--no-fetch", "-q"])
    #expect(zero.status == 2 && zero.stderr.contains("/dev/zero: a character device, not a file"), "\(zero.stderr)")
  }

  /// An app whose entitlements could not be read (its signature broken) may claim any host: `who-claims` said
  /// "claimed by 0 apps", exit 1, a definite no. The answer is now unknown (exit 2), with the bundle named; an app
  /// that does claim the host still answers yes.
  @Test func anAppWhoseEntitlementsCannotBeReadMayClaimAnyHost() throws {
    let broken = CLI.fixture("bad/broken-signature.ipa")
    for query in ["shop.example.com", "https://shop.example.com/x"] {
      let no = try CLI.run(["who-claims", query, broken, "--no-fetch"])
      #expect(no.status == 2, "\(query): \(no.stdout)\(no.stderr)")
      #expect(
        no.stderr.contains(
          "ipalinks: 1 bundle whose entitlements could not be read may claim it too: \(broken) Payload/Broken.app"),
        "\(no.stderr)")
    }
    let yes = try CLI.run(["who-claims", "shop.example.com", broken, CLI.sample("Store.ipa"), "--no-fetch", "-q"])
    #expect(yes.status == 0 && yes.stdout.contains("com.example.store"), "\(yes.stdout)\(yes.stderr)")
    // Nor does `blocklist` replace a list with one that blocks nothing: it wrote one, exit 1.
    let list = FileManager.default.temporaryDirectory.appendingPathComponent("unread-\(UUID().uuidString).txt")
    try Data("kept\n".utf8).write(to: list)
    defer { try? FileManager.default.removeItem(at: list) }
    let blocklist = try CLI.run(["blocklist", broken, "--no-fetch", "-f", "domains", "-o", list.path, "-q"])
    #expect(blocklist.status == 2, "\(blocklist.stderr)")
    #expect(
      blocklist.stderr.contains(
        "no rule is known and the entitlements of 1 bundle could not be read, so no list was made; \(list.path) is "
          + "left as it was"), "\(blocklist.stderr)")
    #expect(try String(contentsOf: list, encoding: .utf8) == "kept\n")
  }

  /// Standard output that cannot be written (a full disk, here Linux's `/dev/full`): one line that says so, exit 2,
  /// not a crash.
  @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/full")))
  func aFullDiskIsToldOnce() throws {
    // Help and the version too: argument-parser printed them and exited 0, with nothing written.
    for arguments in [
      ["inspect", CLI.sample("Store.ipa"), "--no-fetch"], ["--help"], ["inspect", "--help"], ["--version"],
    ] {
      let process = Process()
      process.executableURL = CLI.binary
      process.arguments = arguments
      let errors = Pipe()
      process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full"))
      process.standardError = errors
      try process.run()
      let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      process.waitUntilExit()
      #expect(process.terminationReason == .exit && process.terminationStatus == 2, "\(arguments): \(stderr)")
      #expect(stderr == "ipalinks: cannot write to standard output: No space left on device\n", "\(arguments)")
    }
  }

  /// A usage error echoes what was typed, which may hold a terminal's control sequence: argument-parser's messages
  /// are escaped as every other line on stderr; and a misspelled command is named, with the one it likely means.
  @Test func usageErrorsEscapeWhatTheyEchoAndNameAMisspelledCommand() throws {
    for arguments in [
      ["inspect", "--format", "x\u{1B}[2J", CLI.sample("Store.ipa")], ["inspect", "--jobs", "\u{1B}[2J"],
      ["inspect", "--q\u{1B}[2J", CLI.sample("Store.ipa")],
      ["match", "https://a.example/q\u{1B}[2J", "--aasa", CLI.sample("aasa/shop.example.com.json")],
    ] {
      let result = try CLI.run(arguments)
      #expect(result.status == 64, "\(arguments)")
      #expect(!result.stderr.contains("\u{1B}") && result.stderr.contains("\\u{1b}[2J"), "\(result.stderr)")
    }
    let typo = try CLI.run(["inspct", CLI.sample("Store.ipa")])
    #expect(typo.status == 64)
    #expect(typo.stderr.hasPrefix("Error: 'inspct' is not an ipalinks command; did you mean 'inspect'? The commands: "))
    let unknown = try CLI.run(["app.ipa"])
    #expect(unknown.status == 64 && unknown.stderr.hasPrefix("Error: 'app.ipa' is not an ipalinks command. "))
    #expect(try CLI.run(["help", "inspect"]).status == 0)
  }

  @Test func pathTraversalNamesAreIgnoredAndNothingIsWritten() throws {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("trav-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let before = try FileManager.default.contentsOfDirectory(atPath: scratch.path)
    let result = try CLI.run(["inspect", "--no-fetch", CLI.fixture("bad/path-traversal.ipa"), "--format", "json"])
    #expect(result.status == 0)
    #expect(result.stdout.contains("applinks:trav.fixture.example.com"))
    let codes = (result.json?["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
    #expect(codes.filter { $0 == "archive.unsafe-entry-name" }.count == 3)
    #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == before)
    #expect(!FileManager.default.fileExists(atPath: "/abs/path.txt"))
  }

  /// A file name is as hostile as the file: a line break in it must not forge a second stderr line for the scripts
  /// that read one problem per line, and an escape sequence must not reach the terminal, alone or in a batch.
  @Test func hostileFileNamesStayOnOneEscapedLine() throws {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("names-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let name = "evil\nipalinks: forged\u{1B}[2J\u{2028}.ipa"
    let file = scratch.appendingPathComponent(name)
    try Data("not a zip".utf8).write(to: file)
    for arguments in [[file.path], [scratch.path, "--format", "jsonl", "--no-progress"]] {
      let result = try CLI.run(["inspect", "--no-fetch"] + arguments)
      #expect(result.exited && result.status == 2, "\(arguments): \(result.status)")
      #expect(!result.stderr.contains("\u{1B}") && !result.stderr.contains("\u{2028}"))
      #expect(!result.stderr.contains("\nipalinks: forged"), "a forged line: \(result.stderr)")
      #expect(result.stderr.contains("evil\\u{a}ipalinks: forged\\u{1b}[2J\\u{2028}.ipa: not a zip archive"))
      #expect(result.stderr.split(separator: "\n").allSatisfy { $0.hasPrefix("ipalinks: ") })
    }
  }

  @Test func missingInputAndUsageErrors() throws {
    let missing = try CLI.run(["inspect", "--no-fetch", "/nonexistent/app.ipa"])
    #expect(missing.status == 2)
    #expect(missing.stderr == "ipalinks: /nonexistent/app.ipa: no such file or folder\n")
    #expect(try CLI.run(["inspect"]).status == 64)
    #expect(try CLI.run(["inspect", "--no-fetch", CLI.sample("Store.ipa"), "--format", "yaml"]).status == 64)
  }
}
