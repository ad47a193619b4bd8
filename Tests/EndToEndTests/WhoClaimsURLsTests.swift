import Foundation
import Testing

/// `who-claims --urls`: many URLs at once against every app of the inputs, with bad lines named and skipped.
struct WhoClaimsURLsTests {
  static let list = """
    https://shop.example.com/buy/1
    https://shop.example.com/buy/gift/card
    # a comment
    not a url
    https://www.example.com/promo/spring/x
    https://menu.nested.example.com/menu/soup
    https://elsewhere.test/

    """

  static func file() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("urls-\(UUID().uuidString).txt")
    try Data(list.utf8).write(to: url)
    return url
  }

  @Test func jsonLinesDecideEveryURLAgainstEveryApp() throws {
    let urls = try Self.file()
    defer { try? FileManager.default.removeItem(at: urls) }
    let run = try CLI.run([
      "who-claims", "--urls", urls.path, CLI.samples.path, "--aasa-dir", CLI.sample("aasa"), "--format", "jsonl",
    ])
    #expect(run.status == 0)
    let lines = run.stdout.split(separator: "\n").compactMap {
      (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
    }
    #expect(lines.count == 5, "one line per URL, the bad line and the comment skipped")
    let apps = lines.map { ($0["apps"] as? [[String: Any]] ?? []).map { $0["appId"] as? String ?? "" } }
    #expect(
      apps == [
        ["ST0REAPP42.com.example.store"], [], ["ST0REAPP42.com.example.store"],
        ["N3STEDAPP7.com.example.nested.cafe"], [],
      ])
    let excluded = (lines[1]["excludedBy"] as? [[String: Any]])?.first
    #expect(excluded?["pointer"] as? String == "/applinks/details/0/components/0")
    #expect(run.stderr.contains(": line 4: \"not a url\" is not an absolute URL with a host"))
    #expect(run.stderr.contains("5 URLs: 3 open an app, 1 excluded, 1 open none; 1 line skipped"))
  }

  /// `match`, `who-claims URL` and `who-claims --urls` read a URL alike. A port of -1 or 99999 and a host with `^`
  /// are no URL WebKit loads: `who-claims` and `--urls` said Store opened them, where `match` refused the first and
  /// the last. A host spelt in capitals with the dot of a fully qualified name is the host: `who-claims URL`
  /// refused it, where the other two said Store opens it.
  @Test func everyCommandReadsAURLAlike() throws {
    let aasa = ["--aasa-dir", CLI.sample("aasa")]
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("urls-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    func listed(_ url: String) throws -> CLI.Result {
      let file = folder.appendingPathComponent("urls.txt")
      try Data((url + "\n").utf8).write(to: file)
      return try CLI.run(
        ["who-claims", "--urls", "-", CLI.sample("Store.ipa")] + aasa, stdin: FileHandle(forReadingFrom: file))
    }
    for url in [
      "https://shop.example.com:-1/buy/1", "https://shop.example.com:99999/buy/1", "https://sh^op.example.com/buy/1",
    ] {
      let refusal = "\"\(url)\" is not a URL WebKit can load (its host or port is not valid)"
      let match = try CLI.run(["match", "--aasa", CLI.sample("aasa/shop.example.com.json"), url])
      let claims = try CLI.run(["who-claims", url, CLI.sample("Store.ipa")] + aasa)
      let list = try listed(url)
      #expect(match.status == 64 && match.stderr.contains(refusal), "\(match.stderr)")
      #expect(claims.status == 64 && claims.stderr.contains(refusal), "\(claims.stderr)")
      #expect(list.stdout.isEmpty && list.stderr.contains("line 1: " + refusal), "\(list.stdout)\(list.stderr)")
    }
    // A host that is not ASCII is refused with its Punycode: read as written, it was opened by no app, exit 1.
    let unicode = "https://café.example.com/s/1"
    let refusal =
      "\"\(unicode)\" has a host that is not ASCII; a link carries it in Punycode, as iOS compares it: give the host "
      + "so (here probably \"https://xn--caf-dma.example.com/s/1\")"
    for result in [
      try CLI.run(["match", "--aasa", CLI.sample("aasa/example.com.json"), unicode]),
      try CLI.run(["who-claims", unicode, CLI.sample("Store.ipa")] + aasa), try listed(unicode),
    ] {
      #expect(result.stdout.isEmpty && result.stderr.contains(refusal), "\(result.stdout)\(result.stderr)")
    }
    let punycode = try CLI.run(["who-claims", "https://xn--caf-dma.example.com/s/1", CLI.sample("Store.ipa")] + aasa)
    #expect(punycode.status == 0 && punycode.stdout.contains("opened by 1 app"), "\(punycode.stdout)")
    let url = "https://SHOP.example.com./buy/1"
    let match = try CLI.run(["match", "--aasa", CLI.sample("aasa/shop.example.com.json"), url])
    let claims = try CLI.run(["who-claims", url, CLI.sample("Store.ipa")] + aasa)
    let list = try listed(url)
    #expect(match.status == 0 && match.stdout.hasPrefix("match "), "\(match.stdout)\(match.stderr)")
    #expect(claims.status == 0 && claims.stdout.hasPrefix("\(url): opened by 1 app"), "\(claims.stdout)")
    #expect(list.stdout.contains("ST0REAPP42.com.example.store  (1 URL)"), "\(list.stdout)\(list.stderr)")
  }

  /// A byte-order mark before the first URL (as editors on Windows write one) is not part of it: the URL was
  /// skipped as no URL. A line with a control character (a NUL; a list whose lines end in CR alone, read as one
  /// line) is named and skipped: it was decided as `/buy/1%00junk`, or as one URL that opens nothing.
  @Test func aByteOrderMarkIsNoPartOfAURLAndAControlCharacterMakesNone() throws {
    let urls = FileManager.default.temporaryDirectory.appendingPathComponent("urls-\(UUID().uuidString).txt")
    defer { try? FileManager.default.removeItem(at: urls) }
    try Data(
      "\u{FEFF}https://shop.example.com/buy/1\nhttps://shop.example.com/buy/2\u{0}junk\nhttps://shop.example.com/a\rhttps://shop.example.com/buy/3\n"
        .utf8
    ).write(to: urls)
    let inputs = [CLI.sample("Store.ipa"), "--aasa-dir", CLI.sample("aasa")]
    let claims = try CLI.run(["who-claims", "--urls", urls.path] + inputs + ["--format", "jsonl"])
    let decided = claims.stdout.split(separator: "\n").compactMap {
      (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
    }
    #expect(decided.map { $0["url"] as? String } == ["https://shop.example.com/buy/1"], "\(claims.stdout)")
    #expect(claims.stderr.contains(#": line 2: "https://shop.example.com/buy/2\u{0}junk" holds a control character"#))
    #expect(claims.stderr.contains(": line 3: ") && claims.stderr.contains("end in CR alone"), "\(claims.stderr)")
    let match = try CLI.run(
      [
        "match", "--aasa", CLI.sample("aasa/shop.example.com.json"), "--app-id", "ST0REAPP42.com.example.store",
        "--urls", urls.path,
      ])
    #expect(match.stdout.contains("https://shop.example.com/buy/1"), "\(match.stdout)\(match.stderr)")
    #expect(match.stderr.components(separatedBy: "holds a control character").count == 3, "\(match.stderr)")
  }

  @Test func textGroupsTheOpeningURLsByAppAndStandardInputWorks() throws {
    let urls = try Self.file()
    defer { try? FileManager.default.removeItem(at: urls) }
    let run = try CLI.run(
      ["who-claims", "--urls", "-", CLI.samples.path, "--aasa-dir", CLI.sample("aasa"), "-q"],
      environment: ["NO_COLOR": "1"], stdin: try FileHandle(forReadingFrom: urls))
    let text = run.stdout
    #expect(run.status == 0)
    #expect(
      text == """
        ST0REAPP42.com.example.store  (2 URLs)
          https://shop.example.com/buy/1  /applinks/details/0/components/1
          https://www.example.com/promo/spring/x  /applinks/details/0/components/0

        N3STEDAPP7.com.example.nested.cafe  (1 URL)
          https://menu.nested.example.com/menu/soup  /applinks/details/0/paths/1

        """)
  }

  /// A list long enough for the text to go past its memory budget into a temporary folder; Ctrl-C while more lines
  /// are awaited still ends with exit 130 and leaves no folder behind.
  @Test func interruptRemovesTheTemporaryFolder() async throws {
    let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("tmpdir-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: false)
    defer { try? FileManager.default.removeItem(at: temporary) }
    let process = Process()
    process.executableURL = CLI.binary
    process.arguments = ["who-claims", "--urls", "-", CLI.samples.path, "--aasa-dir", CLI.sample("aasa"), "-q"]
    process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": temporary.path]) { $1 }
    let input = Pipe()
    process.standardInput = input
    process.standardOutput = FileHandle.nullDevice
    let err = Pipe()
    process.standardError = err
    try process.run()
    // 100,000 URLs that open the store app: over 10 MB of text, past the 8 MiB kept in memory. The pipe stays open,
    // so the command then waits for more.
    let writer = input.fileHandleForWriting
    let lines = (0..<100_000).map { "https://shop.example.com/buy/\($0)/" + String(repeating: "x", count: 60) + "\n" }
    // Written from a thread of its own, as the pipe holds far less; waited for before Ctrl-C, so that no write is
    // left to meet a closed pipe (SIGPIPE would end the test process).
    let written = DispatchSemaphore(value: 0)
    Thread {
      writer.write(Data(lines.joined().utf8))
      written.signal()
    }.start()
    let deadline = Date().addingTimeInterval(600)
    while Date() < deadline, written.wait(timeout: .now()) == .timedOut { try await Task.sleep(for: .milliseconds(50)) }
    func spilled() -> Bool {
      let folders = (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
      return folders.contains { folder in
        !((try? FileManager.default.contentsOfDirectory(atPath: temporary.appendingPathComponent(folder).path)) ?? [])
          .isEmpty
      }
    }
    while Date() < deadline, !spilled() { try await Task.sleep(for: .milliseconds(50)) }
    #expect(spilled(), "the text went to a temporary folder")
    #expect(process.isRunning, "still waiting for more lines")
    process.interrupt()
    process.waitUntilExit()
    try? writer.close()
    #expect(process.terminationReason == .exit && process.terminationStatus == 130)
    #expect(String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).contains("interrupted"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty, "no folder left behind")
  }

  @Test func noOpeningURLExitsOne() throws {
    let urls = FileManager.default.temporaryDirectory.appendingPathComponent("none-\(UUID().uuidString).txt")
    try Data("https://elsewhere.test/a\n".utf8).write(to: urls)
    defer { try? FileManager.default.removeItem(at: urls) }
    let run = try CLI.run(["who-claims", "--urls", urls.path, CLI.sample("Store.ipa"), "--no-fetch"])
    #expect(run.status == 1)
    #expect(run.stdout.isEmpty)
    let missing = try CLI.run(["who-claims", "--urls", urls.path + ".missing", CLI.sample("Store.ipa"), "--no-fetch"])
    #expect(missing.status == 2)
    #expect(missing.stderr.contains("cannot read the URL list: No such file or directory"), "\(missing.stderr)")
    // A folder's reads fail: it is said, where it had read as a list of no URL (exit 1, nothing said).
    let folder = FileManager.default.temporaryDirectory.path
    let notList = try CLI.run(["who-claims", "--urls", folder, CLI.sample("Store.ipa"), "--no-fetch"])
    #expect(notList.status == 2)
    #expect(notList.stderr.contains("\(folder): cannot read the URL list: Is a directory"), "\(notList.stderr)")
  }

  /// URLs checked against hosts alone, with no IPA: `--urls FILE --host H…` takes the apps the hosts' files list.
  @Test func urlsAgainstHostsAlone() throws {
    let urls = try Self.file()
    defer { try? FileManager.default.removeItem(at: urls) }
    let run = try CLI.run([
      "who-claims", "--urls", urls.path, "--host", "shop.example.com", "--aasa-dir", CLI.sample("aasa"), "--format",
      "jsonl",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    let opened = run.stdout.split(separator: "\n").compactMap {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }.filter { !(($0["apps"] as? [Any]) ?? []).isEmpty }.compactMap { $0["url"] as? String }
    #expect(opened == ["https://shop.example.com/buy/1"], "\(run.stdout)")
    #expect(run.stderr.contains("claims assumed"), "\(run.stderr)")
    let hosts = try Engines.write("shop.example.com\n")
    let fromFile = try CLI.run([
      "who-claims", "--urls", urls.path, "--hosts", hosts, "--aasa-dir", CLI.sample("aasa"), "--format", "jsonl",
    ])
    #expect(fromFile.stdout == run.stdout)
    #expect(try CLI.run(["who-claims", "shop.example.com", "--host", "example.com"]).status == 64)
  }

  /// For a URL, the apps that open it are counted apart from those that claim the host without opening it (a file
  /// that lists apps for webcredentials only opens nothing: exit 1), and `-q` keeps each app to its verdict.
  @Test func aURLCountsTheAppsThatOpenIt() throws {
    let folder = try Engines.folder()
    try Data(
      #"{"webcredentials": {"apps": ["TEAMAAAAAA.com.example.a", "TEAMBBBBBB.com.example.b"]}}"#.utf8
    ).write(to: folder.appendingPathComponent("auth.example.json"))
    let none = try CLI.run(
      ["who-claims", "https://auth.example/", "--aasa-dir", folder.path], environment: ["COLUMNS": "200"])
    #expect(none.status == 1, "\(none.stdout)")
    #expect(
      none.stdout.hasPrefix("https://auth.example/: opened by no app; 2 more claim the host and do not open it\n"))
    let full = try CLI.run(["who-claims", "https://shop.example.com/buy/1", "--aasa-dir", CLI.sample("aasa")])
    let brief = try CLI.run(["who-claims", "https://shop.example.com/buy/1", "--aasa-dir", CLI.sample("aasa"), "-q"])
    #expect(full.status == 0 && brief.status == 0)
    #expect(full.stdout.hasPrefix("https://shop.example.com/buy/1: opened by 1 app\n"))
    #expect(
      full.stdout.contains("/applinks/details/0/components\n")
        && !brief.stdout.contains("/applinks/details/0/components\n"))
    #expect(brief.stdout.hasSuffix("  verdict: match  /applinks/details/0/components/1\n"), "\(brief.stdout)")
  }
}
