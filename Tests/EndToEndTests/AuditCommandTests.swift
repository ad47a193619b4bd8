import Foundation
import TestServers
import Testing

/// `inspect` batches, `diff`, `report` and `who-claims` through the built binary, the way auditors run them.
struct AuditCommandTests {
  static let aasa = CLI.sample("aasa")

  func scratch() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("ipalinks-audit-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  func lines(_ text: String) throws -> [[String: Any]] {
    try text.split(separator: "\n").map {
      try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
  }

  /// `diff` reads two batches: each names its side in its lines, as the same host failing on both sides was told
  /// twice, alike, under "once per host".
  @Test func diffNamesTheSideOfEachLine() throws {
    let empty = try ArgumentEdgeTests.folder()
    let result = try CLI.run(
      ["diff", CLI.sample("Store.ipa"), CLI.sample("Enterprise.ipa"), "--aasa-dir", empty.path, "--no-progress"])
    #expect(result.status == 1, "\(result.stderr)")
    #expect(
      result.stderr.contains("AASA lookups that failed for OLD \(CLI.sample("Store.ipa")), once per host:\n"),
      "\(result.stderr)")
    #expect(
      result.stderr.contains("AASA lookups that failed for NEW \(CLI.sample("Enterprise.ipa")), once per host:\n"),
      "\(result.stderr)")
  }

  @Test func batchWritesOneLinePerInputWithAnErrorRecordForTheBadOne() throws {
    let folder = try scratch()
    defer { try? FileManager.default.removeItem(at: folder) }
    for name in ["Store.ipa", "Nested.ipa", "Fat.ipa"] {
      try FileManager.default.copyItem(atPath: CLI.sample(name), toPath: folder.appendingPathComponent(name).path)
    }
    try FileManager.default.copyItem(
      atPath: CLI.fixture("bad/truncated.ipa"), toPath: folder.appendingPathComponent("Broken.ipa").path)
    let result = try CLI.run([
      "inspect", folder.path, CLI.sample("Enterprise.ipa"), "--format", "jsonl", "--jobs", "2", "--aasa-dir", Self.aasa,
    ])
    #expect(result.status == 1, "one bad input makes the batch partial: \(result.stderr)")
    let records = try lines(result.stdout)
    #expect(records.count == 5)
    let byName = Dictionary(
      uniqueKeysWithValues: records.map { (URL(fileURLWithPath: $0["input"] as! String).lastPathComponent, $0) })
    #expect(Set(byName.keys) == ["Store.ipa", "Nested.ipa", "Fat.ipa", "Broken.ipa", "Enterprise.ipa"])
    #expect(byName["Broken.ipa"]?["status"] as? String == "unreadable")
    #expect(byName["Store.ipa"]?["status"] as? String == "complete")
    #expect((byName["Nested.ipa"]?["bundles"] as? [Any])?.count == 5)
    // stderr: the bad input by name, then the summary; no progress bar because stderr is not a terminal.
    #expect(result.stderr.contains("Broken.ipa"))
    #expect(result.stderr.contains("ipalinks: 5 inputs in "))
    #expect(result.stderr.contains("4 complete, 0 partial, 1 unreadable"))
    #expect(!result.stderr.contains("\r") && !result.stderr.contains("\u{1B}"))
  }

  /// `report` of an app whose files could not be checked (offline, nothing cached) and of a path that is not there.
  /// The page showed "0 of 1" in the colour of a definite "no" beside each unknown file, named the missing path only
  /// below every table (no "Not read" section), and the terminal's last line said "wrote" alone, exit 1.
  @Test func aReportSaysWhatIsUnknownAndWhatWasNotRead() throws {
    let folder = try scratch()
    defer { try? FileManager.default.removeItem(at: folder) }
    let (page, missing) = (
      folder.appendingPathComponent("page.html").path, folder.appendingPathComponent("gone.ipa").path
    )
    let run = try CLI.run([
      "report", CLI.sample("Store.ipa"), missing, "--offline", "--cache-dir", folder.path, "-o", page,
    ])
    #expect(run.status == 1, "\(run.stderr)")
    #expect(
      run.stderr.hasSuffix("ipalinks: wrote \(page) (2 inputs: 0 complete, 1 partial, 1 unreadable)\n"), "\(run.stderr)"
    )
    let html = try String(contentsOfFile: page, encoding: .utf8)
    let notRead = try #require(html.components(separatedBy: "<section id=\"not-read\">").dropFirst().first)
    #expect(notRead.prefix(400).contains("\(missing): no such file or folder"), "\(notRead.prefix(400))")
    let row = try #require(
      html.components(separatedBy: "<tr id=").first { $0.contains("><td><code>shop.example.com</code>") })
    #expect(row.contains("0 of 1, unknown") && !row.contains("<td class=\"no\">"), "\(row)")
  }

  /// `report --store` of a change to example.com's file, which Store Sample takes only through `*.example.com`:
  /// the line gave `https://example.com/promo/spring/`, a URL the app never opened, on a host it claims no links of.
  @Test func aChangeAnAppTakesThroughAWildcardIsToldOnTheWildcard() throws {
    let folder = try scratch()
    defer { try? FileManager.default.removeItem(at: folder) }
    let (aasa, store) = (folder.appendingPathComponent("aasa"), folder.appendingPathComponent("s.db").path)
    try FileManager.default.copyItem(atPath: Self.aasa, toPath: aasa.path)
    let inspect = ["inspect", CLI.sample("Store.ipa"), "--aasa-dir", aasa.path, "--store", store, "-q"]
    #expect(try CLI.run(inspect).status == 0)
    try FileManager.default.removeItem(at: aasa.appendingPathComponent("example.com.json"))
    #expect(try CLI.run(inspect).status == 0)
    let report = try CLI.run(["report", "--store", store, "-q"])
    #expect(report.status == 0, "\(report.stderr)")
    let changes = try #require(report.stdout.components(separatedBy: "<ul class=\"changes\">").dropFirst().first)
      .components(separatedBy: "</ul>")[0]
    #expect(changes.contains("<code>*.example.com</code></a> (AASA ok → not-found): app removed for "), "\(changes)")
    #expect(changes.contains("e.g. <code>https://www.example.com/promo/spring/</code>"), "\(changes)")
    #expect(!changes.contains("https://example.com/"), "\(changes)")
  }

  @Test func shardsOfABatchAddUpToTheWholeBatch() throws {
    var seen: [String] = []
    for i in 1...3 {
      let result = try CLI.run(["inspect", CLI.samples.path, "--format", "jsonl", "--no-fetch", "--shard", "\(i)/3"])
      #expect(result.status == 0, "\(result.stderr)")
      #expect(result.stderr.contains("(shard \(i)/3 of 8)"))
      seen += try lines(result.stdout).map { $0["input"] as! String }
    }
    #expect(seen.count == 8 && Set(seen).count == 8)
    let bad = try CLI.run(["inspect", CLI.samples.path, "--shard", "4/3"])
    #expect(bad.status == 64)
  }

  /// A file descriptor pair from Linux's pseudo-terminal driver, so `isatty` is true in the child. Glibc hides
  /// `posix_openpt` and friends from Swift, so this is what they do: open `/dev/ptmx`, unlock, find the number.
  func openPTY() throws -> (primary: Int32, secondary: Int32) {
    let primary = open("/dev/ptmx", O_RDWR | O_NOCTTY)
    var unlock: Int32 = 0
    var number: UInt32 = 0
    let (TIOCSPTLCK, TIOCGPTN): (UInt, UInt) = (0x4004_5431, 0x8004_5430)
    guard primary >= 0, ioctl(primary, TIOCSPTLCK, &unlock) == 0, ioctl(primary, TIOCGPTN, &number) == 0 else {
      throw POSIXError(.ENOTTY)
    }
    let secondary = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
    guard secondary >= 0 else { throw POSIXError(.ENOTTY) }
    return (primary, secondary)
  }

  #if os(Linux)
    /// `-` with standard input on a terminal names what a person would have to type: each command that reads a file
    /// from it says so at once and ends, rather than wait for an inventory or an IPA typed in.
    @Test(.timeLimit(.minutes(1))) func standardInputOnATerminalIsSaidNotWaitedFor() throws {
      let (primary, secondary) = try openPTY()
      defer {
        close(primary)
        close(secondary)
      }
      let store = FileManager.default.temporaryDirectory.appendingPathComponent("ipalinks-tty-\(UUID()).db").path
      defer { try? FileManager.default.removeItem(atPath: store) }
      let inventory =
        "standard input is a terminal, not an inventory: pipe one in, as in `ipalinks inspect ipas/ --format jsonl | "
        + "ipalinks …`, or name its file"
      for (arguments, said, status) in [
        (["who-claims", "shop.example.com", "-"], inventory, Int32(2)),
        (["report", "-", "-o", store + ".html"], inventory, 2),
        (["store", "import", "-", "--store", store], inventory, 2),
        (
          ["inspect", "-", "--no-fetch"],
          "-: standard input is a terminal, not an IPA: pipe one in, as in `ipalinks inspect - < app.ipa`", 2
        ),
      ] {
        let run = try TerminalRun(
          arguments, stdout: FileHandle.nullDevice, columns: 400,
          stdin: FileHandle(fileDescriptor: secondary, closeOnDealloc: false))
        let (ended, stderr) = run.wait()
        #expect(ended == status && TerminalRun.lines(stderr).contains("ipalinks: " + said), "\(arguments): \(stderr)")
      }
    }
  #endif

  /// Runs `ipalinks` with stderr on a pseudo-terminal `columns` wide (0: a size the terminal does not know), and
  /// returns its exit status and what it wrote there, CR LF line breaks as the terminal gives them.
  func runWithTerminalStderr(
    _ arguments: [String], stdout: FileHandle, columns: UInt16 = 0, environment: [String: String]? = nil
  ) throws -> (status: Int32, stderr: String) {
    try TerminalRun(arguments, stdout: stdout, columns: columns, environment: environment).wait()
  }

  /// `ipalinks` started with standard error on a pseudo-terminal `columns` wide (0: a size the terminal does not
  /// know), what it writes there read as it comes, so a test can act while it runs.
  final class TerminalRun: @unchecked Sendable {
    let process = Process()
    private let lock = NSLock()
    private var captured: [UInt8] = []
    private let done = DispatchSemaphore(value: 0)

    init(
      _ arguments: [String], stdout: FileHandle, columns: UInt16 = 0, environment: [String: String]? = nil,
      stdin: FileHandle? = nil
    ) throws {
      let (primary, secondary) = try AuditCommandTests().openPTY()
      var size = winsize(ws_row: 24, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
      let TIOCSWINSZ: UInt = 0x5414
      guard ioctl(primary, TIOCSWINSZ, &size) == 0 else {
        close(primary)
        close(secondary)
        throw POSIXError(.ENOTTY)
      }
      process.executableURL = CLI.binary
      process.arguments = arguments
      if let environment { process.environment = environment }
      process.standardOutput = stdout
      if let stdin { process.standardInput = stdin }
      process.standardError = FileHandle(fileDescriptor: secondary, closeOnDealloc: false)
      do { try process.run() } catch {
        close(primary)
        close(secondary)
        throw error
      }
      close(secondary)
      Thread { [self] in
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
          let n = read(primary, &buffer, buffer.count)
          if n <= 0 { break }  // EIO once the child has closed the terminal
          lock.withLock { captured += buffer[0..<n] }
        }
        close(primary)
        done.signal()
      }.start()
    }

    /// What it wrote so far.
    var text: String { lock.withLock { String(decoding: captured, as: UTF8.self) } }

    /// Its exit status and all it wrote, once it has ended.
    func wait() -> (status: Int32, stderr: String) {
      done.wait()
      process.waitUntilExit()
      return (process.terminationStatus, text)
    }

    /// What a pseudo-terminal got, a line each: each drawing of the bar, and each line written between them.
    static func lines(_ written: String) -> [String] {
      written.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\r\u{1B}[2K")
        .flatMap { $0.split(separator: "\n") }.map(String.init)
    }

    /// ``wait()`` off the test's thread.
    func finished() async throws -> (status: Int32, stderr: String) { try await CLI.offPool { self.wait() } }

    /// Waits (two minutes at most) until it has written `text`, then sends it Ctrl-C: whether it still ran then,
    /// its exit status, all it wrote, and each drawing of the progress bar in that.
    func interrupt(once text: String) async throws -> (running: Bool, status: Int32, stderr: String, bars: [String]) {
      // Watched on a thread of its own: a task waits for the few threads of the pool, which other suites hold
      // (under `make test`, a batch of 20,000 inputs ended before a task woke to interrupt it).
      let running = try await CLI.offPool { [self] in
        let deadline = Date().addingTimeInterval(120)
        while !self.text.contains(text), Date() < deadline { usleep(100_000) }
        let running = process.isRunning
        process.interrupt()
        return running
      }
      let (status, stderr) = try await finished()
      let bars = stderr.components(separatedBy: "\r\u{1B}[2K").filter { $0.hasPrefix("[") }
        .map { $0.trimmingCharacters(in: .newlines) }
      return (running, status, stderr, bars)
    }
  }

  /// A loopback HTTPS server that answers every AASA request but `shop.example.com`'s, which it holds for half an
  /// hour, and its CA's certificate in `folder`: Store.ipa then waits on it, after Fat.ipa (sorted first) is done.
  func stallingShop(in folder: URL) async throws -> (server: HTTPSTestServer, pem: URL) {
    let server = try await HTTPSTestServer.start(
      authority: nil, dnsNames: HTTPSTestServer.defaultDNSNames + ["fat.example.com", "shop.example.com"])
    let pem = folder.appendingPathComponent("ca.pem")
    try Data(server.caPEM.utf8).write(to: pem)
    server.respond(
      host: "shop.example.com", path: "/.well-known/apple-app-site-association",
      with: .json(NetworkCommandTests.json, delay: .seconds(1800)))
    server.respond(path: "/.well-known/apple-app-site-association", with: .json(NetworkCommandTests.json))
    return (server, pem)
  }

  #if os(Linux)
    @Test func progressBarOnlyWhenStderrIsATerminal() throws {
      let out = try scratch().appendingPathComponent("out.jsonl")
      _ = FileManager.default.createFile(atPath: out.path, contents: nil)
      let (status, stderr) = try runWithTerminalStderr(
        ["inspect", CLI.samples.path, "--format", "jsonl", "--jobs", "1", "--aasa-dir", Self.aasa],
        stdout: try FileHandle(forWritingTo: out))
      #expect(status == 0, "\(stderr)")
      #expect(stderr.contains("\r\u{1B}[2K["), "a bar redrawn in place")
      #expect(stderr.contains("8/8 100%"))
      #expect(stderr.contains("/s ETA "))
      #expect(stderr.contains(".ipa"), "the current file")
      #expect(stderr.contains("ipalinks: 8 inputs in "))
      let stdout = try String(contentsOf: out, encoding: .utf8)
      #expect(try lines(stdout).count == 8)
      #expect(!stdout.contains("\r"))
    }

    /// A saved inventory is read under a bar of its own, as IPAs are inspected under one: a file counted ahead
    /// (`8/8 100%`, its name), a pipe counted as it comes (`so far`); with `--no-progress` or piped, none.
    @Test func readingAnInventoryShowsABar() throws {
      let folder = try scratch()
      defer { try? FileManager.default.removeItem(at: folder) }
      let saved = try CLI.run(["inspect", CLI.samples.path, "--aasa-dir", Self.aasa, "--format", "jsonl", "-q"])
      let inventory = folder.appendingPathComponent("week-1.jsonl")
      try Data(saved.stdout.utf8).write(to: inventory)
      let list = ["blocklist", "--format", "domains"]
      // Without a terminal: the status every run below must give too.
      let plain = try CLI.run(list + ["--inventory", inventory.path])
      #expect(plain.status == 0 && !plain.stderr.contains("\r"), "\(plain.stderr.debugDescription)")

      let (status, stderr) = try runWithTerminalStderr(
        list + ["--inventory", inventory.path], stdout: FileHandle.nullDevice, columns: 80)
      #expect(status == plain.status, "\(stderr)")
      #expect(stderr.contains("\r\u{1B}[2K["), "a bar redrawn in place: \(stderr.debugDescription)")
      #expect(stderr.contains("8/8 100%") && stderr.contains("week-1.jsonl"), "\(stderr.debugDescription)")

      // From a pipe, which tells its size only at its end.
      let pipe = Pipe()
      pipe.fileHandleForWriting.write(Data(saved.stdout.utf8))
      try pipe.fileHandleForWriting.close()
      let (piped, pipedStderr) = try TerminalRun(
        list + ["--inventory", "-"], stdout: FileHandle.nullDevice, columns: 80, stdin: pipe.fileHandleForReading
      ).wait()
      #expect(piped == plain.status, "\(pipedStderr)")
      #expect(
        pipedStderr.contains(" so far ") && pipedStderr.contains("standard input"), "\(pipedStderr.debugDescription)")

      let (quiet, quietStderr) = try runWithTerminalStderr(
        list + ["--inventory", inventory.path, "--no-progress"], stdout: FileHandle.nullDevice, columns: 80)
      #expect(quiet == plain.status && !quietStderr.contains("\r\u{1B}[2K"), "\(quietStderr.debugDescription)")
    }

    /// Every command that draws a bar takes `--no-progress` and `-q` to leave it out, the same two words: here the
    /// two that used to draw one regardless, `store import` and `refresh`, each with a bar first to show there is one.
    @Test func everyCommandWithABarTakesNoProgressAndQuiet() throws {
      let folder = try scratch()
      let store = folder.appendingPathComponent("store.db").path
      let saved = try CLI.run(["inspect", CLI.samples.path, "--no-fetch", "--format", "jsonl", "-q"])
      let inventory = folder.appendingPathComponent("week-1.jsonl")
      try Data(saved.stdout.utf8).write(to: inventory)
      let commands = [
        ["store", "import", inventory.path, "--store", store],
        ["refresh", "--store", store, "--aasa-dir", Self.aasa, "--no-cache"],
      ]
      for command in commands {
        for flags in [[], ["--no-progress"], ["-q"]] {
          let (status, stderr) = try runWithTerminalStderr(command + flags, stdout: FileHandle.nullDevice, columns: 200)
          #expect(status == 0 || command[0] == "refresh" && status == 1, "\(command + flags): \(stderr)")
          #expect(stderr.contains("\r\u{1B}[2K") == flags.isEmpty, "\(command + flags): \(stderr.debugDescription)")
        }
      }
    }

    /// On a terminal 60 columns wide (its own size, no `COLUMNS`), the batch summary wraps between words with
    /// indented continuations; piped, the same summary stays one line for the scripts that read one per line.
    @Test func problemLinesFitAnErrorTerminalAndStayWholeWhenPiped() throws {
      let arguments = ["inspect", CLI.samples.path, "--format", "jsonl", "--jobs", "1", "--no-fetch", "--no-progress"]
      let (status, stderr) = try runWithTerminalStderr(
        arguments, stdout: FileHandle.nullDevice, columns: 60,
        environment: ProcessInfo.processInfo.environment.filter { $0.key != "COLUMNS" })
      #expect(status == 0, "\(stderr)")
      let lines = stderr.split(separator: "\r\n").map(String.init)
      #expect(lines.count >= 2, "\(lines)")
      #expect(lines.first?.hasPrefix("ipalinks: 8 inputs in ") == true, "\(lines)")
      #expect(lines.allSatisfy { $0.count <= 60 }, "\(lines)")
      #expect(
        lines.dropFirst().allSatisfy { $0.hasPrefix("            ") && $0.dropFirst(12).first != " " }, "\(lines)")
      let piped = try CLI.run(arguments, environment: ["COLUMNS": "60"])
      let pipedLines = piped.stderr.split(separator: "\n").map(String.init)
      #expect(pipedLines.count == 1 && pipedLines[0].count > 60, "\(pipedLines)")
      // Both say the same, word for word, past the first seven words (`ipalinks: 8 inputs in 0.0 s (…/s,`),
      // which hold the run's own time and rate.
      #expect(
        lines.joined(separator: " ").split(separator: " ").dropFirst(7)
          == pipedLines[0].split(separator: " ").dropFirst(7))
    }

    /// A quiet spell still moves the bar: while Store.ipa waits on a host that stalls, the bar is redrawn with the
    /// input that finished before it counted, and names Store.ipa with its time so far once it has run five seconds.
    @Test func theBarNamesAnInputThatStallsWithItsTimeSoFar() async throws {
      let folder = try scratch()
      defer { try? FileManager.default.removeItem(at: folder) }
      let (server, pem) = try await stallingShop(in: folder)
      defer { Task { await server.stop() } }
      let run = try TerminalRun(
        [
          "inspect", CLI.sample("Store.ipa"), CLI.sample("Fat.ipa"), "--format", "jsonl", "--jobs", "1",
          "--source", "direct", "--ca-file", pem.path, "--allow-private", "--connect-to",
          server.connectToEverything, "--no-cache", "--timeout", "3600",
        ], stdout: FileHandle.nullDevice, columns: 80)
      let (running, status, stderr, bars) = try await run.interrupt(once: "Store.ipa for 0:06")
      #expect(running, "still waiting on shop.example.com")
      #expect(status == 130, "\(stderr)")
      #expect(
        bars.contains { $0.hasPrefix("[##########..........] 1/2 50% ") && $0.hasSuffix("  Store.ipa for 0:06") },
        "\(bars)")
      #expect(stderr.contains("ipalinks: interrupted: 1 of 2 inputs finished"), "\(stderr)")
    }

    /// Ctrl-C during a `--format json` batch leaves one JSON document, the reports finished in its array: the `]`
    /// was never written, and no JSON reader could read the report that was.
    @Test func ctrlCClosesTheJSONArray() async throws {
      let folder = try scratch()
      defer { try? FileManager.default.removeItem(at: folder) }
      let (server, pem) = try await stallingShop(in: folder)
      defer { Task { await server.stop() } }
      let out = folder.appendingPathComponent("out.json")
      #expect(FileManager.default.createFile(atPath: out.path, contents: nil))
      let handle = try FileHandle(forWritingTo: out)
      defer { try? handle.close() }
      let run = try TerminalRun(
        [
          "inspect", CLI.sample("Store.ipa"), CLI.sample("Fat.ipa"), "--format", "json", "--jobs", "1",
          "--source", "direct", "--ca-file", pem.path, "--allow-private", "--connect-to",
          server.connectToEverything, "--no-cache", "--timeout", "3600",
        ], stdout: handle, columns: 80)
      let (running, status, stderr, _) = try await run.interrupt(once: "1/2 50%")
      #expect(running && status == 130, "\(stderr)")
      let document = try JSONSerialization.jsonObject(with: try Data(contentsOf: out)) as? [[String: Any]]
      #expect(document?.count == 1 && document?.first?["input"] as? String == CLI.sample("Fat.ipa"), "\(stderr)")
    }

    /// Ctrl-C in the middle of a busy batch: the bar is cleared where it stands (its line, with the `^C` a terminal
    /// echoes after it, which the bar leaves room for), not left above a new line and redrawn; and the count it
    /// says is the number of reports written, which two jobs writing as it was taken made a few short.
    @Test func ctrlCClearsTheBarAndCountsWhatWasWritten() async throws {
      let folder = try scratch()
      defer { try? FileManager.default.removeItem(at: folder) }
      let ipas = folder.appendingPathComponent("ipas")
      try FileManager.default.createDirectory(at: ipas, withIntermediateDirectories: true)
      for k in 0..<20_000 {
        try FileManager.default.linkItem(
          at: URL(fileURLWithPath: CLI.sample("Store.ipa")), to: ipas.appendingPathComponent("App\(k).ipa"))
      }
      let out = folder.appendingPathComponent("out.jsonl")
      _ = FileManager.default.createFile(atPath: out.path, contents: nil)
      let run = try TerminalRun(
        ["inspect", ipas.path, "--format", "jsonl", "--jobs", "2", "--no-fetch"],
        stdout: try FileHandle(forWritingTo: out), columns: 80)
      // Under way: a hundred or a thousand and more written (`] 100…/20000`), two jobs still writing.
      let (running, status, stderr, bars) = try await run.interrupt(once: "] 100")
      #expect(running && status == 130, "\(status): \(stderr.suffix(300))")
      #expect(!bars.isEmpty && bars.allSatisfy { $0.count <= 77 }, "room for ^C after each bar: \(bars.suffix(2))")
      let summary = try #require(stderr.range(of: "ipalinks: interrupted: "), "\(stderr.suffix(300))")
      let lastBar = try #require(stderr[..<summary.lowerBound].range(of: "\r\u{1B}[2K[", options: .backwards))
      let between = stderr[lastBar.lowerBound..<summary.lowerBound]
      #expect(!between.contains("\n"), "the summary takes the bar's line: \(between.debugDescription)")
      #expect(between.hasSuffix("\r\u{1B}[2K"), "the line cleared first: \(between.debugDescription)")
      #expect(!stderr[summary.lowerBound...].contains("\r\u{1B}[2K["), "no bar after the summary")
      let said = stderr[summary.upperBound...].prefix { $0 != " " }
      let written = try String(contentsOf: out, encoding: .utf8)
      #expect(written.isEmpty || written.hasSuffix("\n"))
      #expect(Int(said) == written.split(separator: "\n").count, "said \(said)")
    }
  #endif

  /// Ctrl-C while a later input waits on a stalled server: what was written before is whole.
  @Test func interruptKeepsTheLinesAlreadyWritten() async throws {
    let folder = try scratch()
    defer { try? FileManager.default.removeItem(at: folder) }
    let (server, pem) = try await stallingShop(in: folder)
    let out = folder.appendingPathComponent("out.jsonl")
    _ = FileManager.default.createFile(atPath: out.path, contents: nil)
    let process = Process()
    process.executableURL = CLI.binary
    // Sorted, Fat.ipa comes first and finishes; Store.ipa then waits on shop.example.com.
    process.arguments = [
      "inspect", CLI.sample("Store.ipa"), CLI.sample("Fat.ipa"), "--format", "jsonl", "--jobs", "1",
      "--source", "direct", "--ca-file", pem.path, "--allow-private", "--connect-to", server.connectToEverything,
      "--no-cache", "--timeout", "3600",
    ]
    let err = folder.appendingPathComponent("err.txt")
    _ = FileManager.default.createFile(atPath: err.path, contents: nil)
    process.standardOutput = try FileHandle(forWritingTo: out)
    process.standardError = try FileHandle(forWritingTo: err)
    try process.run()
    // The stall outlasts any wait here: under ASan, beside the other suites, this task has been seen to resume a
    // minute late, after a one-minute stall had already ended and the batch had finished.
    let deadline = Date().addingTimeInterval(600)
    while Date() < deadline, server.requests(host: "shop.example.com").isEmpty {
      try await Task.sleep(for: .milliseconds(50))
    }
    #expect(!server.requests(host: "shop.example.com").isEmpty, "Store.ipa's fetch started")
    #expect(process.isRunning, "still waiting on shop.example.com when interrupted")
    process.interrupt()
    process.waitUntilExit()
    await server.stop()
    // Ctrl-C ends the batch with exit 130 and a summary of what finished, not a raw signal death.
    #expect(process.terminationReason == .exit && process.terminationStatus == 130)
    #expect(try String(contentsOf: err, encoding: .utf8).contains("ipalinks: interrupted: 1 of 2 inputs finished"))
    let written = try String(contentsOf: out, encoding: .utf8)
    #expect(written.hasSuffix("\n"))
    let records = try lines(written)
    #expect(records.map { $0["input"] as? String } == [CLI.sample("Fat.ipa")])
  }

  /// Version 8.2 of the sample store app, made from the real IPA with Python's zipfile and plistlib.
  func storeVersion82(in folder: URL) throws -> String {
    let out = folder.appendingPathComponent("Store-8.2.ipa").path
    let script = """
      import plistlib, sys, zipfile
      src, dst = sys.argv[1], sys.argv[2]
      with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
          for item in zin.infolist():
              data = zin.read(item.filename)
              if item.filename == "Payload/Store.app/Info.plist":
                  info = plistlib.loads(data)
                  info["CFBundleShortVersionString"] = "8.2"
                  info["CFBundleURLTypes"][0]["CFBundleURLSchemes"] = ["storeapp", "storeapp-v2"]
                  data = plistlib.dumps(info, fmt=plistlib.FMT_BINARY)
              zout.writestr(item, data)
      """
    let result = try CLI.run(
      ["python3", "-c", script, CLI.sample("Store.ipa"), out], executable: URL(fileURLWithPath: "/usr/bin/env"))
    #expect(result.status == 0, "\(result.stderr)")
    return out
  }

  /// An app known by its app ID alone (an entitlements file) is named by it, not by its file's path: moved or
  /// renamed, it is the same app, and beside an IPA of the same app it pairs with it.
  @Test func anAppKnownByItsAppIDAloneIsNotItsPath() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ipalinks-moved-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let plist = """
      <?xml version="1.0" encoding="UTF-8"?>
      <plist version="1.0"><dict><key>application-identifier</key><string>ABCDE12345.io.element.elementx</string>
      <key>com.apple.developer.associated-domains</key><array><string>applinks:example.com</string></array></dict>
      </plist>
      """
    let (old, new) = (folder.appendingPathComponent("App.xcent"), folder.appendingPathComponent("Moved.xcent"))
    try Data(plist.utf8).write(to: old)
    try Data(plist.replacingOccurrences(of: "example.com", with: "example.org").utf8).write(to: new)
    let run = try CLI.run(["diff", old.path, new.path, "--no-fetch", "-f", "json"])
    #expect(run.status == 1, "\(run.stderr)")
    let bundles = try #require(run.json?["bundles"] as? [[String: Any]], "\(run.stdout)")
    #expect(bundles.count == 1 && bundles.first?["change"] as? String == "changed", "\(bundles)")
    #expect(bundles.first?["key"] as? String == "io.element.elementx", "\(bundles)")
  }

  @Test func diffOfTwoIPAsAndOfTwoSavedInventories() throws {
    let folder = try scratch()
    defer { try? FileManager.default.removeItem(at: folder) }
    let new = try storeVersion82(in: folder)
    let text = try CLI.run(["diff", CLI.sample("Store.ipa"), new, "--aasa-dir", Self.aasa])
    #expect(text.status == 1, "differences: \(text.stderr)")
    #expect(text.stdout.contains("com.example.store (Store Sample)"))
    #expect(text.stdout.contains("~ version: 1.2.3 → 8.2"))
    #expect(text.stdout.contains("+ URL scheme storeapp-v2"))
    #expect(text.stdout.contains("- URL scheme fb1234567890"))

    let same = try CLI.run(["diff", CLI.sample("Store.ipa"), CLI.sample("Store.ipa"), "--aasa-dir", Self.aasa])
    #expect(same.status == 0)
    #expect(same.stdout == "No differences.\n")

    // Saved inventories: the old one as JSON Lines, the new one as a pretty object, with a sample URL list.
    let oldInventory = folder.appendingPathComponent("old.jsonl")
    let newInventory = folder.appendingPathComponent("new.json")
    let saved = try CLI.run(["inspect", CLI.sample("Store.ipa"), "--format", "jsonl", "--aasa-dir", Self.aasa])
    try Data(saved.stdout.utf8).write(to: oldInventory)
    var object = try #require(try JSONSerialization.jsonObject(with: Data(saved.stdout.utf8)) as? [String: Any])
    var bundles = try #require(object["bundles"] as? [[String: Any]])
    var domains = try #require(bundles[0]["associatedDomains"] as? [[String: Any]])
    let shop = try #require(domains.firstIndex { $0["host"] as? String == "shop.example.com" })
    var aasa = try #require(domains[shop]["aasa"] as? [String: Any])
    var rules = try #require(aasa["rules"] as? [[String: Any]])
    rules.removeFirst()  // the /buy/gift/* exclusion
    aasa["rules"] = rules
    domains[shop]["aasa"] = aasa
    domains.removeAll { $0["service"] as? String == "activitycontinuation" }
    bundles[0]["associatedDomains"] = domains
    object["bundles"] = bundles
    try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted]).write(to: newInventory)
    let urls = folder.appendingPathComponent("urls.txt")
    try Data("# samples\nhttps://shop.example.com/buy/gift/1\n\nhttps://shop.example.com/buy/2\n".utf8).write(to: urls)

    let json = try CLI.run(["diff", oldInventory.path, newInventory.path, "--urls", urls.path, "--format", "json"])
    #expect(json.status == 1, "\(json.stderr)")
    let diff = try #require(json.json)
    #expect(diff["differences"] as? Bool == true)
    #expect(diff["urlsCompared"] as? Int == 2)
    let verdicts = try #require(diff["verdicts"] as? [[String: Any]])
    #expect(verdicts.map { $0["url"] as? String } == ["https://shop.example.com/buy/gift/1"])
    #expect((verdicts.first?["new"] as? [String: Any])?["verdict"] as? String == "match")
    let change = try #require((diff["bundles"] as? [[String: Any]])?.first)
    #expect((change["domainsRemoved"] as? [[String: Any]])?.first?["service"] as? String == "activitycontinuation")
    let removed = try #require((change["domains"] as? [[String: Any]])?.first?["changes"] as? [[String: Any]])
    #expect(removed.first?["kind"] as? String == "rule removed")
    #expect(removed.first?["old"] as? [String] == ["/applinks/details/0/components/0"])
    #expect((removed.first?["example"] as? String)?.hasPrefix("https://shop.example.com/buy/gift/") == true)
    #expect(removed.first?["oldVerdict"] as? String == "exclude" && removed.first?["newVerdict"] as? String == "match")

    let broken = try CLI.run(["diff", oldInventory.path, CLI.fixture("bad/truncated.ipa")])
    #expect(broken.status == 2)
    #expect(broken.stderr.contains("truncated.ipa"))
  }

  @Test func whoClaimsListsAppsThroughWildcardsWithTheirRules() throws {
    let folder = try scratch()
    defer { try? FileManager.default.removeItem(at: folder) }
    let inventory = folder.appendingPathComponent("inventory.jsonl")
    let saved = try CLI.run(["inspect", CLI.samples.path, "--format", "jsonl", "--aasa-dir", Self.aasa])
    try Data(saved.stdout.utf8).write(to: inventory)

    let www = try CLI.run(["who-claims", "https://www.example.com/promo/spring/1", "--inventory", inventory.path])
    #expect(www.status == 0, "\(www.stderr)")
    #expect(www.stdout.hasPrefix("https://www.example.com/promo/spring/1: opened by 1 app\n"))
    #expect(www.stdout.contains("applinks:*.example.com  (AASA ok, lists the app, decides)"))
    #expect(
      www.stdout.contains("    /applinks/details/0/components\n      0  match    {\"/\": \"/promo/$(campaign)/*\"}\n"))
    #expect(www.stdout.contains("  verdict: match  /applinks/details/0/components/0\n"))
    // The first line wraps at the terminal's width as the rest does: it ran to 101 columns at 80.
    let gift = try CLI.run(
      ["who-claims", "https://shop.example.com/buy/gift/card", "--inventory", inventory.path, "-q"],
      environment: ["COLUMNS": "80"])
    #expect(gift.stdout.hasPrefix("https://shop.example.com/buy/gift/card: opened by no app; 1 more claims the host\n"))
    #expect(gift.stdout.split(separator: "\n").allSatisfy { $0.count <= 80 }, "\(gift.stdout)")

    let nested = try CLI.run([
      "who-claims", "menu.nested.example.com", "--inventory", inventory.path, "--format", "json",
    ])
    #expect(nested.status == 0)
    let claims = try #require(nested.json?["claims"] as? [[String: Any]])
    // The café claims it through *.nested.example.com, the store through its broader *.example.com.
    #expect(claims.map { $0["bundleId"] as? String } == ["com.example.nested.cafe", "com.example.store"])
    let entries = claims.map { ($0["entries"] as? [[String: Any]] ?? []).map { $0["raw"] as? String } }
    #expect(entries == [["applinks:*.nested.example.com"], ["applinks:*.example.com"]])

    let lines = try CLI.run([
      "who-claims", "menu.nested.example.com", "--inventory", inventory.path, "--format", "jsonl",
    ])
    let records = lines.stdout.split(separator: "\n").map {
      (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
    }
    #expect(records.map { $0?["bundleId"] as? String } == ["com.example.nested.cafe", "com.example.store"])

    let swapped = try CLI.run(["who-claims", inventory.path, "menu.nested.example.com"])
    #expect(swapped.status == 64)
    #expect(swapped.stderr.contains("is a file, not a host: the host comes first"))
    let notAHost = try CLI.run(["who-claims", "not a host!", "--inventory", inventory.path])
    #expect(notAHost.status == 64)
    #expect(notAHost.stderr.contains("'not a host!' is not a host name"))

    let nobody = try CLI.run(["who-claims", "nobody.test", "--inventory", inventory.path])
    #expect(nobody.status == 1)
    #expect(nobody.stdout.hasPrefix("nobody.test: claimed by 0 apps"))
    let bad = try CLI.run(["who-claims", "x.test", "--inventory", folder.appendingPathComponent("missing.jsonl").path])
    #expect(bad.status == 2)
    #expect(bad.stderr.contains("missing.jsonl"))
  }

  /// A line of a saved inventory that is not a report (here one overwritten, and the last cut short, as a file still
  /// being written is) costs that input, not the file: every reader names each such line, says how many it read, and
  /// answers from the rest exactly as from a file of the good lines alone, with the exit code of an input lost. Each
  /// of them refused the whole file before.
  @Test func aLineOfAnInventoryThatIsNotAReportCostsThatInputAlone() throws {
    let folder = try scratch()
    defer { try? FileManager.default.removeItem(at: folder) }
    let saved = try CLI.run(["inspect", CLI.samples.path, "--format", "jsonl", "--aasa-dir", Self.aasa])
    // The store's app first, so that the claims on shop.example.com are read, whichever lines are lost.
    let all = saved.stdout.split(separator: "\n").map(String.init)
    let store = try #require(all.firstIndex { $0.contains("\"ST0REAPP42.com.example.store\"") })
    let lines = [all[store]] + all.indices.filter { $0 != store }.map { all[$0] }
    let damaged = 2
    try #require(lines.count > 4)
    let (good, cut) = (folder.appendingPathComponent("good.jsonl"), folder.appendingPathComponent("cut.jsonl"))
    let kept = lines.indices.filter { $0 != damaged && $0 != lines.count - 1 }.map { lines[$0] }
    try Data((kept.joined(separator: "\n") + "\n").utf8).write(to: good)
    var cutLines = lines
    cutLines[damaged] = "{\"bundles\": [ overwritten"
    cutLines[lines.count - 1] = String(lines[lines.count - 1].prefix(100))
    try Data(cutLines.joined(separator: "\n").utf8).write(to: cut)
    let said = [
      "ipalinks: \(cut.path): line \(damaged + 1) is not an ipalinks inventory, skipped: not JSON",
      "ipalinks: \(cut.path): line \(lines.count) is not an ipalinks inventory, skipped: not JSON",
      "ipalinks: \(cut.path): 2 lines skipped; \(kept.count) other inputs read",
    ]
    func problems(_ result: CLI.Result) -> [String] { result.stderr.split(separator: "\n").map(String.init) }

    for arguments in [
      ["who-claims", "shop.example.com", "--inventory"], ["blocklist", "--inventory"],
      ["who-claims", "nobody.test", "--inventory"],
    ] {
      // One time for both: a list is stamped with the time it was made.
      let now = ["SOURCE_DATE_EPOCH": "1795000000"]
      let whole = try CLI.run(arguments + [good.path], environment: now)
      let answered = try CLI.run(arguments + [cut.path], environment: now)
      #expect(answered.stdout == whole.stdout && !whole.stdout.isEmpty, "\(arguments)")
      #expect(Array(problems(answered).prefix(3)) == said, "\(arguments): \(answered.stderr)")
      #expect(problems(answered).dropFirst(3) == problems(whole)[...], "\(arguments): \(answered.stderr)")
      // who-claims: trouble, whatever the answer; blocklist: partial.
      #expect(answered.status == (arguments[0] == "who-claims" ? 2 : 1), "\(arguments): \(answered.status)")
    }
    let page = folder.appendingPathComponent("report.html")
    let report = try CLI.run(["report", cut.path, "-o", page.path])
    #expect(report.status == 1 && Array(problems(report).prefix(3)) == said, "\(report.status): \(report.stderr)")
    // The inputs the page counts, the lines lost among them: it said only those read.
    #expect(
      problems(report).last
        == "ipalinks: wrote \(page.path) (\(kept.count + 2) inputs: \(kept.count) complete, 0 partial, 2 unreadable)")
    // The page says so too: it is read where the terminal that made it is not.
    let html = try String(contentsOf: page, encoding: .utf8)
    let items = said.map { "<li class=\"sev-error\">\($0.dropFirst("ipalinks: ".count))</li>" }.joined()
    #expect(html.contains("<section id=\"not-read\"><h2>Not read</h2>") && html.contains(items), "\(items)")
    // Its first line and cards count the lines lost among the inputs, as not read: they said a complete run.
    #expect(html.contains("<p class=\"muted\">\(kept.count + 2) inputs, "), "\(html.prefix(2000))")
    #expect(html.contains(" partial, 2 unreadable · generated by ipalinks"), "\(html.prefix(2000))")
    #expect(html.contains("<b>2</b><span>inputs not read</span>"))
    let completeRun = try CLI.run(["report", good.path, "-o", page.path])
    let complete = try String(contentsOf: page, encoding: .utf8)
    #expect(completeRun.status == 0 && !complete.contains("not-read"))
    let noStore = folder.appendingPathComponent("none.db").path
    let withoutStore = try CLI.run(["report", good.path, "--store", noStore, "-o", page.path])
    let storeLine = "\(noStore): no such store (inspect --store makes one)"
    let lacking = try String(contentsOf: page, encoding: .utf8)
    #expect(withoutStore.status == 1 && lacking.contains("<li class=\"sev-error\">\(storeLine)</li>"), "\(lacking)")
    // diff: the lines lost are not told as apps removed. It exited 0 here, and 1 with a bundle "removed" against
    // a file that holds the lost lines, its JSON not saying a side was partial.
    let compared = try CLI.run(["diff", good.path, cut.path])
    #expect(compared.status == 2 && compared.stdout == "No differences.\n", "\(compared.stdout)")
    #expect(
      problems(compared)
        == said.map { "ipalinks: NEW \(cut.path): " + $0.dropFirst("ipalinks: ".count) }
        + ["ipalinks: warning: the new side is partial; differences may come from what could not be read"])
    let whole = folder.appendingPathComponent("whole.jsonl")
    try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: whole)
    let lost = try CLI.run(["diff", whole.path, cut.path, "--format", "json"])
    #expect(lost.status == 2, "\(lost.stderr)")
    let document = try #require(
      try JSONSerialization.jsonObject(with: Data(lost.stdout.utf8)) as? [String: Any], "\(lost.stdout)")
    #expect(document["oldPartial"] as? Bool == false && document["newPartial"] as? Bool == true, "\(document)")
    let changes = (document["bundles"] as? [[String: Any]] ?? []).map { $0["change"] as? String }
    #expect(!changes.isEmpty && changes.allSatisfy { $0 == "removed" }, "\(changes)")
    let same = try CLI.run(["diff", whole.path, whole.path, "--format", "json"])
    #expect(same.status == 0 && same.stdout.contains("\"newPartial\" : false,\n  \"oldPartial\" : false"))
  }

  @Test func reportFromAnInventoryIsOneSelfContainedPage() throws {
    let folder = try scratch()
    defer { try? FileManager.default.removeItem(at: folder) }
    let inventory = folder.appendingPathComponent("inventory.jsonl")
    let saved = try CLI.run(["inspect", CLI.samples.path, "--format", "jsonl", "--aasa-dir", Self.aasa])
    try Data(saved.stdout.utf8).write(to: inventory)
    let page = folder.appendingPathComponent("report.html")
    let result = try CLI.run([
      "report", inventory.path, CLI.sample("Store.ipa"), "--aasa-dir", Self.aasa, "-o", page.path,
    ])
    #expect(result.status == 0, "\(result.stderr)")
    let html = try String(contentsOf: page, encoding: .utf8)
    #expect(html.hasPrefix("<!DOCTYPE html>") || html.hasPrefix("<!doctype html>"))
    for name in ["Store Sample", "Café", "Fat Binary", "Enterprise", "shop.example.com"] {
      #expect(html.contains(name), "\(name)")
    }
    #expect(!html.contains("src=\"http") && !html.contains("href=\"http"))
  }
}
