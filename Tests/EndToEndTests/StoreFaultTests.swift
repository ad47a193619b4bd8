import Foundation
import IPALinksKit
import TestServers
import Testing

@testable import IPALinksStore

/// The store when its database goes away mid-run, on the private PostgreSQL server the tests start: an immediate
/// restart, a fast stop and start, the server killed, and a network partition (a proxy that holds every byte); for
/// `inspect --store` and for `refresh`, and for a reader. On SQLite: a file that cannot grow (`ulimit -f`), and the
/// file removed mid-run.
///
/// Each asserts what was stored, what was said and the exit code: a writer reconnects and loses nothing, or stops and
/// says exactly what is missing; the report on standard output is complete either way; nothing hangs.
@Suite(.serialized) struct StoreFaultTests {
  /// What happens mid-run.
  enum Trouble: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case immediateRestart, stopAndStart, killed, partition

    var testDescription: String { fault?.rawValue ?? "a network partition" }

    /// The server's fault; none for a partition, which the proxy makes.
    var fault: PostgresTestServer.Fault? {
      switch self {
      case .immediateRestart: .immediateRestart
      case .stopAndStart: .stopAndStart
      case .killed: .killed
      case .partition: nil
      }
    }

    /// Whether the server comes back, so that a writer can go on.
    var recovers: Bool { self == .immediateRestart || self == .stopAndStart }

    /// `--store-timeout`: long enough to outlast a restart; short where the wait is what is measured.
    var timeout: Int { recovers ? 10 : 3 }

    /// How long after the fault a run may take to end: the deadline, a reconnection's, and the rest of the job, which
    /// sanitized builds run slower.
    var bound: Duration { .seconds(2 * timeout) + TestTiming.seconds(5) }

    /// What the line about the store says went wrong.
    var said: String {
      self == .partition ? "did not answer within 3 s" : "could not connect again within 3 s"
    }
  }

  /// A private server with a database `faults`, and a proxy in front of it.
  struct Server: Sendable {
    let server: PostgresTestServer
    let proxy: TCPTestProxy

    static func start() async throws -> Server {
      let server = try PostgresTestServer.start()
      _ = try server.createDatabase("faults")
      return Server(server: server, proxy: try await TCPTestProxy.start(to: server.port))
    }

    /// The database's URL through the proxy.
    var url: String {
      server.url(database: "faults").replacingOccurrences(of: ":\(server.port)/", with: ":\(proxy.port)/")
    }

    /// A number `sql` answers, asked directly (not through the proxy) as the superuser.
    func number(_ sql: String) throws -> Int {
      let text = try server.superuserSQL(sql, database: "faults").trimmingCharacters(in: .whitespacesAndNewlines)
      return try #require(Int(text), "\(sql): \(text)")
    }

    /// `trouble` while `run` writes, with every byte held from now on so that it comes mid-run; the run's result,
    /// and how long after the trouble it ended. A killed server is started again afterwards, to look at.
    func inflict(_ trouble: Trouble, on run: CLI.Started) async throws -> (CLI.Result, Duration) {
      proxy.hold()
      let start = ContinuousClock.now
      if let fault = trouble.fault { try await CLI.offPool { [server] in try server.inflict(fault) } }
      if trouble != .partition { proxy.resume() }
      let result = try await run.exited()
      let took = ContinuousClock.now - start
      if trouble == .killed { try await CLI.offPool { [server] in try server.startAgain() } }
      return (result, took)
    }

    func stop() async {
      server.stop()
      await proxy.stop()
    }
  }

  static let inputs = 300

  /// `count` inputs in a new folder: the samples, hard-linked under numbered names.
  static func corpus(_ count: Int) throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ipalinks-faults-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    for index in 0..<count {
      let sample = AuditStoreTests.samples[index % AuditStoreTests.samples.count]
      try FileManager.default.linkItem(
        at: CLI.samples.appendingPathComponent(sample),
        to: folder.appendingPathComponent("\(index)-\(sample)"))
    }
    return folder
  }

  /// Waits, 50 ms at a time, until `condition` holds; fails after a minute. The condition runs off the pool (it runs
  /// psql), and the wait suspends.
  static func until(_ what: String, _ condition: @escaping @Sendable () throws -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(60)
    while try await !CLI.offPool(condition) {
      guard ContinuousClock.now < deadline else { throw Timeout(what: what) }
      try await Task.sleep(for: .milliseconds(50))
    }
  }

  struct Timeout: Error, CustomStringConvertible {
    var what: String
    var description: String { "waited a minute for \(what)" }
  }

  /// The numbers of the line that says what is missing: `M of N … not stored|recorded: run R holds K … (or K2, …)`.
  static func missing(_ line: Substring) throws -> (missing: Int, of: Int, holds: Int, orHolds: Int?) {
    let numbers = line.split { !$0.isNumber }.compactMap { Int($0) }
    let words = line.split(separator: " ")
    guard
      let notIndex = words.indices.first(where: {
        words[$0] == "not" && $0 + 1 < words.count && ["stored:", "recorded:"].contains(words[$0 + 1])
      }), notIndex >= 4,
      let missing = Int(words[notIndex - 4]), let of = Int(words[notIndex - 2]),
      let holdsIndex = words.firstIndex(of: "holds"), let holds = Int(words[holdsIndex + 1])
    else { throw Timeout(what: "numbers in \(line) (\(numbers))") }
    let or = words.firstIndex(of: "(or").flatMap { Int(words[$0 + 1].trimmingCharacters(in: .punctuationCharacters)) }
    return (missing, of, holds, or)
  }

  @Test(.enabled(if: PostgreSQL.available), arguments: Trouble.allCases)
  func inspectThroughTrouble(_ trouble: Trouble) async throws {
    let db = try await Server.start()
    let corpus = try Self.corpus(Self.inputs)
    defer { try? FileManager.default.removeItem(at: corpus) }
    // The proxy holds every byte once the run has sent 64 KiB (its run, the lookup of its inputs' digests, part of
    // its first transactions; 300 inputs send several times that): the run cannot finish before the trouble, which
    // so comes mid-run however fast this machine is, and however slowly this test is scheduled (waiting for the
    // report to begin, as this test did, a loaded machine let the run finish first).
    db.proxy.hold(afterSending: 64 << 10)
    let run = try CLI.start([
      "inspect", corpus.path, "--no-fetch", "--store", db.url, "--store-timeout", "\(trouble.timeout)", "--format",
      "jsonl", "--jobs", "1",
    ])
    try await Self.until("the report") { !run.stdoutSoFar.isEmpty }
    let (result, took) = try await db.inflict(trouble, on: run)
    print("inspect through \(trouble.testDescription): exit \(result.status) after \(took); \(result.stderr)")

    #expect(result.stdout.split(separator: "\n").count == Self.inputs, "the report is complete")
    let stored = try db.number("SELECT COUNT(*) FROM inputs")
    #expect(
      try db.number("SELECT COUNT(DISTINCT f.path) FROM inputs i JOIN input_files f ON f.id = i.file") == stored,
      "no input written twice")
    let finished = try db.number("SELECT COUNT(*) FROM runs WHERE finished_at IS NOT NULL")
    if trouble.recovers {
      #expect(result.status == 0, "\(result.stderr)")
      #expect(stored == Self.inputs && finished == 1, "\(stored) inputs, \(finished) finished")
      #expect(!result.stderr.contains("not stored"), "\(result.stderr)")
      // A connection that died unseen is noticed within the timeout at worst.
      #expect(took < trouble.bound, "ended \(took) after the trouble")
    } else {
      #expect(result.status == 3, "\(result.stderr)")
      let lines = result.stderr.split(separator: "\n").filter { $0.contains("not stored") }
      let line = try #require(lines.first, "\(result.stderr)")
      #expect(lines.count == 1)
      #expect(line.contains(trouble.said) && line.contains("@127.0.0.1:\(db.proxy.port)/faults"), "\(line)")
      #expect(!line.contains("secret-"), "the password is masked")
      let said = try Self.missing(line)
      #expect(said.of == Self.inputs && said.missing + said.holds == Self.inputs, "\(line)")
      #expect(stored == said.holds || stored == said.orHolds, "the store holds \(stored): \(line)")
      #expect(finished == 0)
      let runs = try CLI.run(["store", "runs", "--store", db.server.url(database: "faults"), "-f", "json"])
      let listed = try #require((runs.json?["runs"] as? [[String: Any]])?.first, "\(runs.stdout)\(runs.stderr)")
      #expect(listed["inputs"] as? Int == stored && listed["finishedAt"] == nil, "\(listed)")
      // Noticed within the timeout, and the reconnection given up within it again: the inspection's own time aside.
      #expect(took < trouble.bound, "ended \(took) after the trouble")
    }
    await db.stop()
  }

  @Test(.enabled(if: PostgreSQL.available), arguments: Trouble.allCases)
  func refreshThroughTrouble(_ trouble: Trouble) async throws {
    let db = try await Server.start()
    let (old, new) = (
      #"{"applinks":{"details":[{"appIDs":["FAULTS1234.com.example.app"],"components":[{"/":"/old/*"}]}]}}"#,
      #"{"applinks":{"details":[{"appIDs":["FAULTS1234.com.example.app"],"components":[{"/":"/newer/*"}]}]}}"#
    )
    let hosts = (0..<40).map { "f\($0).example.test" }
    try await RefreshTests.seed(
      db.server.url(database: "faults"), appId: "FAULTS1234.com.example.app", hosts: hosts, file: old)
    let web = try await HTTPSTestServer.start()
    defer { Task { await web.stop() } }
    web.respond(path: "/.well-known/apple-app-site-association", with: .json(new, delay: .milliseconds(200)))
    let pem = FileManager.default.temporaryDirectory.appendingPathComponent("faults-ca-\(UUID().uuidString).pem")
    try Data(web.caPEM.utf8).write(to: pem)
    defer { try? FileManager.default.removeItem(at: pem) }
    let run = try CLI.start([
      "refresh", "--store", db.url, "--store-timeout", "\(trouble.timeout)", "--source", "direct", "--ca-file",
      pem.path, "--allow-private", "--connect-to", web.connectToEverything, "--no-cache", "--concurrency", "4",
      "-f", "json",
    ])
    try await Self.until("the first answers recorded") {
      try db.number("SELECT COUNT(*) FROM retrievals r JOIN runs u ON u.id = r.run_id WHERE u.command = 'refresh'") > 0
    }
    let (result, took) = try await db.inflict(trouble, on: run)
    print("refresh through \(trouble.testDescription): exit \(result.status) after \(took); \(result.stderr)")

    let reported = try #require(result.json?["hosts"] as? [[String: Any]], "\(result.stdout)\(result.stderr)")
    #expect(reported.count == hosts.count, "the report is complete")
    let recorded = try db.number(
      "SELECT COUNT(*) FROM retrievals r JOIN runs u ON u.id = r.run_id WHERE u.command = 'refresh'")
    #expect(
      try db.number(
        "SELECT COUNT(DISTINCT r.host) FROM retrievals r JOIN runs u ON u.id = r.run_id WHERE u.command = 'refresh'")
        == recorded, "no answer recorded twice")
    let finished = try db.number("SELECT COUNT(*) FROM runs WHERE command = 'refresh' AND finished_at IS NOT NULL")
    if trouble.recovers {
      #expect(result.status == 1, "every file changed: \(result.stderr)")
      #expect(recorded == hosts.count && finished == 1, "\(recorded) recorded, \(finished) finished")
      #expect(reported.allSatisfy { $0["outcome"] as? String == "changed" })
      #expect(took < trouble.bound, "ended \(took) after the trouble")
    } else {
      #expect(result.status == 2, "\(result.stderr)")
      let line = try #require(result.stderr.split(separator: "\n").first { $0.contains("not recorded") })
      #expect(line.contains(trouble.said), "\(line)")
      let said = try Self.missing(line)
      #expect(said.of == hosts.count && said.missing + said.holds == hosts.count, "\(line)")
      #expect(recorded == said.holds || recorded == said.orHolds, "the store holds \(recorded): \(line)")
      #expect(reported.filter { $0["outcome"] as? String == "not-recorded" }.count == said.missing)
      #expect(finished == 0)
      #expect(took < trouble.bound, "ended \(took) after the trouble")
    }
    await db.stop()
  }

  /// `store import` through the same trouble as `inspect`: a server that comes back costs it nothing (every input
  /// stored once, the run finished); one that does not ends it within the timeout, with one line that says what
  /// the run holds, which is what the server holds.
  @Test(.enabled(if: PostgreSQL.available), arguments: Trouble.allCases)
  func importThroughTrouble(_ trouble: Trouble) async throws {
    let db = try await Server.start()
    let saved = try CLI.run(["inspect", CLI.samples.path, "--no-fetch", "--format", "jsonl"])
    let lines = saved.stdout.split(separator: "\n").count
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ipalinks-import-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let inventory = folder.appendingPathComponent("week-1.jsonl")
    let count = lines * 400
    try Data(String(repeating: saved.stdout, count: 400).utf8).write(to: inventory)
    // As for inspect: every byte held once the import has sent 64 KiB, so the trouble comes mid-run.
    db.proxy.hold(afterSending: 64 << 10)
    let run = try CLI.start([
      "store", "import", inventory.path, "--store", db.url, "--store-timeout", "\(trouble.timeout)",
    ])
    try await Self.until("the import's run") { (try? db.number("SELECT COUNT(*) FROM runs")) == 1 }
    let (result, took) = try await db.inflict(trouble, on: run)
    print("store import through \(trouble.testDescription): exit \(result.status) after \(took); \(result.stderr)")
    let stored = try db.number("SELECT COUNT(*) FROM inputs")
    let finished = try db.number("SELECT COUNT(*) FROM runs WHERE finished_at IS NOT NULL")
    if trouble.recovers {
      // Nothing said but what was imported: the restart is waited through.
      #expect(
        result.status == 0 && result.stderr == "ipalinks: \(inventory.path): \(count) inputs imported as run 1\n",
        "\(result.stderr)")
      #expect(stored == count && finished == 1, "\(stored) inputs, \(finished) finished")
    } else {
      #expect(result.status == 2, "\(result.stderr)")
      let said = result.stderr.split(separator: "\n").map(String.init)
      let line = try #require(said.first, "\(result.stderr)")
      #expect(said.count == 1 && line.contains(trouble.said), "\(said)")
      let pattern =
        #/; 1 of 1 file not imported: run 1 holds (\d+) of the (\d+) inputs of (.+) and is left unfinished(?: \(or (\d+), if the transaction of (\d+) lost as it committed went through\))?$/#
      let match = try #require(line.firstMatch(of: pattern), "\(line)")
      #expect(Int(match.2) == count && String(match.3) == inventory.path, "\(line)")
      #expect(stored == Int(match.1) || stored == match.4.flatMap { Int($0) }, "the server holds \(stored): \(line)")
      #expect(stored < count && finished == 0)
    }
    #expect(took < trouble.bound, "ended \(took) after the trouble")
    await db.stop()
  }

  /// A restart while a writer has nothing to send (`inspect` waiting on a slow AASA host after its first input was
  /// stored; `refresh` after the others' answers were recorded) costs it nothing: its next transaction finds the
  /// connection closed and makes it again at once, the run is stored whole, and it ends as soon as the slow host has
  /// answered, not the store's timeout (60 s here) later.
  @Test(.enabled(if: PostgreSQL.available), arguments: ["inspect", "refresh"])
  func aRestartWhileAWriterWaitsCostsItNothing(_ command: String) async throws {
    let db = try await Server.start()
    let web = try await HTTPSTestServer.start(
      dnsNames: HTTPSTestServer.defaultDNSNames + [
        "example.com", "dev.example.com", "fat.example.com", "shop.example.com", "slow.example.test",
      ])
    defer { Task { await web.stop() } }
    let pem = FileManager.default.temporaryDirectory.appendingPathComponent("faults-ca-\(UUID().uuidString).pem")
    try Data(web.caPEM.utf8).write(to: pem)
    defer { try? FileManager.default.removeItem(at: pem) }
    let path = "/.well-known/apple-app-site-association"
    let slowHost = command == "inspect" ? "shop.example.com" : "slow.example.test"
    let file = #"{"applinks":{"details":[{"appIDs":["FAULTS1234.com.example.app"],"components":[{"/":"/x/*"}]}]}}"#
    web.respond(host: slowHost, path: path, with: .json(file, delay: .seconds(6)))
    web.respond(path: path, with: .json(file))
    let fetching = [
      "--source", "direct", "--ca-file", pem.path, "--allow-private", "--connect-to", web.connectToEverything,
      "--no-cache", "--timeout", "30", "--store", db.url, "--store-timeout", "60",
    ]
    let stored: String
    let run: CLI.Started
    if command == "inspect" {
      // Sorted, Fat.ipa comes first and is stored; Store.ipa then waits on shop.example.com.
      run = try CLI.start(
        ["inspect", CLI.sample("Store.ipa"), CLI.sample("Fat.ipa"), "--format", "jsonl", "--jobs", "1"] + fetching)
      stored = "SELECT COUNT(*) FROM inputs"
    } else {
      let hosts = (0..<8).map { "f\($0).example.test" } + [slowHost]
      try await RefreshTests.seed(
        db.server.url(database: "faults"), appId: "FAULTS1234.com.example.app", hosts: hosts, file: file)
      run = try CLI.start(["refresh", "-f", "json"] + fetching)
      stored = "SELECT COUNT(*) FROM retrievals r JOIN runs u ON u.id = r.run_id WHERE u.command = 'refresh'"
    }
    let before = command == "inspect" ? 1 : 8
    try await Self.until("what answered first, stored") { (try? db.number(stored)) == before }
    #expect(web.requests(host: slowHost).count == 1, "the slow host is being asked")
    let start = ContinuousClock.now
    try await CLI.offPool { [server = db.server] in try server.inflict(.immediateRestart) }
    let result = try await run.exited()
    let took = ContinuousClock.now - start
    #expect(result.status == 0, "complete, and for refresh no file changed: \(result.stderr)")
    #expect(try db.number(stored) == before + 1, "the slow host's input or answer stored too")
    #expect(try db.number("SELECT COUNT(*) FROM runs WHERE finished_at IS NULL") == 0, "every run finished")
    #expect(took < TestTiming.seconds(30), "ended \(took) after the restart, with the slow host's answer")
    await db.stop()
  }

  /// A server whose store (reached directly, not through the proxy) holds one run of Store.ipa, and a corpus of
  /// ``inputs`` inputs for the run under test.
  static func storeWithARun() async throws -> (db: Server, corpus: URL, url: String) {
    let db = try await Server.start()
    let corpus = try Self.corpus(Self.inputs)
    let direct = db.server.url(database: "faults")
    let made = try CLI.run(["inspect", CLI.sample("Store.ipa"), "--no-fetch", "-q", "--store", direct])
    #expect(made.status == 0, "\(made.stderr)")
    return (db, corpus, direct)
  }

  /// Commits that wait past the timeout on a server that is there (a synchronous standby gone; a disk that stalls):
  /// the run gave each up, sent its transaction again on a new connection, and both copies committed once the wait
  /// ended, 326 rows for 300 inputs, exit 0. The process of a connection given up on is now stopped, and waited
  /// for, before the run asks whether its transaction committed.
  @Test(.enabled(if: PostgreSQL.available)) func aCommitThatStallsIsNotWrittenTwice() async throws {
    let (db, corpus, direct) = try await Self.storeWithARun()
    defer { try? FileManager.default.removeItem(at: corpus) }
    // From the run's start, so that it comes mid-run however fast the run is: its own row is given up on too.
    _ = try db.server.superuserSQL("ALTER SYSTEM SET synchronous_standby_names = 'ghost'")
    _ = try db.server.superuserSQL("SELECT pg_reload_conf()")
    let run = try CLI.start([
      "inspect", corpus.path, "--no-fetch", "--store", direct, "--store-timeout", "2", "--format", "jsonl",
      "--jobs", "1", "-q",
    ])
    // Long enough for several commits to be given up on.
    try await Task.sleep(for: .seconds(7))
    #expect(run.process.isRunning, "the run waited on its commits")
    _ = try db.server.superuserSQL("ALTER SYSTEM RESET synchronous_standby_names")
    _ = try db.server.superuserSQL("SELECT pg_reload_conf()")
    let result = try await run.exited()
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.split(separator: "\n").count == Self.inputs)
    #expect(try db.number("SELECT COUNT(*) FROM inputs") == Self.inputs + 1, "no input written twice")
    let paths = "SELECT COUNT(DISTINCT f.path) FROM inputs i JOIN input_files f ON f.id = i.file"
    #expect(try db.number(paths) == Self.inputs + 1)
    #expect(
      try db.number("SELECT COUNT(*) FROM runs") == 2
        && db.number("SELECT COUNT(*) FROM runs WHERE finished_at IS NULL") == 0)
    await db.stop()
  }

  /// A writer whose statements wait on a lock another session holds (a `VACUUM FULL`, a long `store prune`) gives up
  /// within about twice the timeout, saying so, with its processes on the server stopped: it connected again, and
  /// waited again, for as long as the lock was held, leaving a server process behind each time. A reader too, whose
  /// process stayed queued on the lock after it exited (ten from cron filled a server's slots), as did the writer's
  /// last.
  @Test(.enabled(if: PostgreSQL.available)) func aWriterWaitingOnALockGivesUp() async throws {
    let (db, corpus, direct) = try await Self.storeWithARun()
    defer { try? FileManager.default.removeItem(at: corpus) }
    // The table locked before the run starts, so that the lock comes before the run's first write.
    let locking = Task {
      try await CLI.offPool { [server = db.server] in
        try server.superuserSQL(
          "BEGIN; LOCK TABLE inputs, latest_apps IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(30); COMMIT;",
          database: "faults")
      }
    }
    try await Self.until("the lock taken") {
      try db.number(
        "SELECT COUNT(*) FROM pg_locks WHERE mode = 'AccessExclusiveLock' AND relation = 'inputs'::regclass")
        == 1
    }
    let start = ContinuousClock.now
    let run = try CLI.start([
      "inspect", corpus.path, "--no-fetch", "--store", direct, "--store-timeout", "2", "--format", "jsonl",
      "--jobs", "1", "-q",
    ])
    let result = try await run.exited()
    let took = ContinuousClock.now - start
    // The commands' server processes, stopped as each command ends and gone a moment later (the lock is held for
    // seconds more).
    func remaining() async throws -> Int {
      var count = 0
      for _ in 0..<40 {
        count = try db.number("SELECT COUNT(*) FROM pg_stat_activity WHERE usename = 'ipalinks'")
        if count == 0 { break }
        try await Task.sleep(for: .milliseconds(50))
      }
      return count
    }
    let left = try await remaining()
    // A reader of what the lock holds, twice.
    for _ in 0..<2 {
      let reader = try CLI.run(["who-claims", "shop.example.com", "--store", direct, "--store-timeout", "2", "-q"])
      #expect(reader.status == 2 && reader.stderr.contains("did not answer within 2 s"), "\(reader.stderr)")
    }
    let readers = try await remaining()
    _ = try await locking.value
    #expect(result.status == 3, "\(result.stderr)")
    let line = try #require(
      result.stderr.split(separator: "\n").first { $0.contains("not stored") }, "\(result.stderr)")
    #expect(line.contains("the server did not answer within 2 s, nor after connecting again"), "\(line)")
    #expect(took < .seconds(4) + TestTiming.seconds(6), "ended \(took) after the lock was taken")
    #expect(left == 0, "\(left) server processes of the writer left waiting")
    #expect(readers == 0, "\(readers) server processes of the readers left waiting")
    let said = try Self.missing(line)
    let stored = try db.number("SELECT COUNT(*) FROM inputs WHERE run_id > 1")
    #expect(said.of == Self.inputs && (stored == said.holds || stored == said.orHolds), "\(stored): \(line)")
    await db.stop()
  }

  /// A statement the server cancels (`statement_timeout`, `pg_cancel_backend`: SQLSTATE 57014) is said as such, at
  /// once: it was said as a lost connection, and sent again until the timeout, to be cancelled again.
  @Test(.enabled(if: PostgreSQL.available)) func aStatementTheServerCancelsIsSaidSo() async throws {
    let (db, corpus, direct) = try await Self.storeWithARun()
    defer { try? FileManager.default.removeItem(at: corpus) }
    _ = try db.server.superuserSQL("ALTER DATABASE faults SET statement_timeout = '1ms'")
    for arguments in [
      ["inspect", corpus.path, "--no-fetch", "--format", "jsonl", "-q"], ["who-claims", "shop.example.com", "-q"],
    ] {
      let start = ContinuousClock.now
      let run = try CLI.run(arguments + ["--store", direct, "--store-timeout", "20"])
      let took = ContinuousClock.now - start
      #expect([2, 3].contains(run.status), "\(arguments[0]): \(run.stderr)")
      #expect(run.stderr.contains("statement timeout"), "\(arguments[0]): \(run.stderr)")
      #expect(!run.stderr.contains("lost the connection"), "\(arguments[0]): \(run.stderr)")
      #expect(took < .seconds(10), "\(arguments[0]): \(took)")
    }
    await db.stop()
  }

  /// A run whose lookup of its inputs' digests fails (the connection cut as it asks) reads every input whole, as a
  /// store that knew none would have it: a digest the run could not look up is never taken on trust (a planted one
  /// tells: a run that took it would record it). And the connection it then finds closed is made again at once, not
  /// after the store's timeout: postgres-nio never answers a statement sent on a closed connection.
  @Test(.enabled(if: PostgreSQL.available)) func aLookupCutOffReadsEveryInputWhole() async throws {
    let db = try await Server.start()
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ipalinks-lookup-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let ipa = folder.appendingPathComponent("Store.ipa")
    try FileManager.default.copyItem(at: CLI.samples.appendingPathComponent("Store.ipa"), to: ipa)
    let real = try #require(InputDigests().facts(ipa.path)).sha256
    let planted = String(repeating: "f", count: 64)
    // Settled, so that the first run remembers it.
    try await Task.sleep(for: .nanoseconds(InputDigests.settling + 200_000_000))
    func inspect(_ label: String) throws -> Duration {
      let start = ContinuousClock.now
      let run = try CLI.run([
        "inspect", ipa.path, "--no-fetch", "--store", db.url, "--run-label", label, "-q", "--store-timeout", "60",
      ])
      #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
      return ContinuousClock.now - start
    }
    func recorded(_ label: String) throws -> String {
      try db.server.superuserSQL(
        """
        SELECT f.file_sha256 FROM inputs i JOIN runs r ON r.id = i.run_id JOIN input_files f ON f.id = i.file
        WHERE r.label = '\(label)' AND r.finished_at IS NOT NULL
        """, database: "faults"
      ).trimmingCharacters(in: .whitespacesAndNewlines)
    }
    _ = try inspect("first")
    _ = try db.server.superuserSQL("UPDATE input_digests SET file_sha256 = '\(planted)'", database: "faults")
    _ = try inspect("planted")
    #expect(try recorded("planted") == planted, "the planted digest is taken when the lookup answers")
    db.proxy.sever(whenClientSends: "FROM input_digests")
    let took = try inspect("cut")
    #expect(db.proxy.severed == 1, "the lookup's connection was cut")
    #expect(try recorded("cut") == real, "the file was read whole")
    #expect(took < TestTiming.seconds(20), "made again at once, not after the 60 s timeout: \(took)")
    await db.stop()
  }

  /// `store import` when the server is killed mid-file: exit 2, and one line that says how many files were not
  /// imported and what the file's run holds, which `store runs` agrees with.
  @Test(.enabled(if: PostgreSQL.available)) func anImportThroughAKilledServerSaysWhatIsMissing() async throws {
    let db = try await Server.start()
    let saved = try CLI.run(["inspect", CLI.samples.path, "--no-fetch", "--format", "jsonl"])
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "ipalinks-import-\(UUID().uuidString).jsonl")
    defer { try? FileManager.default.removeItem(at: file) }
    // 3,200 inputs: many transactions, so that the fault comes between them.
    try Data(String(repeating: saved.stdout, count: 400).utf8).write(to: file)
    let run = try CLI.start(["store", "import", file.path, "--store", db.url, "--store-timeout", "3"])
    try await Self.until("the import's run") { (try? db.number("SELECT COUNT(*) FROM runs")) ?? 0 > 0 }
    db.proxy.hold()
    try await CLI.offPool { [server = db.server] in try server.inflict(.killed) }
    let result = try await run.exited()
    try await CLI.offPool { [server = db.server] in try server.startAgain() }
    #expect(result.status == 2, "\(result.stderr)")
    let lines = result.stderr.split(separator: "\n")
    #expect(lines.count == 1, "\(result.stderr)")
    let line = try #require(lines.first)
    #expect(line.contains("; 1 of 1 file not imported: run 1 holds "), "\(line)")
    #expect(line.contains(" of the 3200 inputs of \(file.path) and is left unfinished"), "\(line)")
    let words = line.split(separator: " ")
    let holds = try #require(words.firstIndex(of: "holds").flatMap { Int(words[$0 + 1]) })
    #expect(try db.number("SELECT COUNT(*) FROM inputs") == holds)
    #expect(try db.number("SELECT COUNT(*) FROM runs WHERE finished_at IS NULL") == 1)
    await db.stop()
  }

  #if os(Linux)
    /// `store import` on a terminal draws a bar of each file's inputs as they are stored, and Ctrl-C (here while a
    /// partition holds the second file's transactions) says, as `inspect` does, how many of that file's inputs
    /// finished and what the store holds.
    /// One input whose store is slow to take it (here a server that stops answering as the input's rows are sent;
    /// as well a large IPA read for its SHA-256 from a slow disk) has its report printed, then a bar while the store
    /// works, and Ctrl-C says what the store holds, as after a batch, rather than a silence until the timeout.
    @Test(.enabled(if: PostgreSQL.available)) func oneInputWaitingOnTheStoreShowsABarAndCtrlCSaysWhatIsHeld()
      async throws
    {
      let db = try await Server.start()
      // The store made first, so that nothing but the input's own rows names their table.
      #expect(try CLI.run(["inspect", CLI.sample("Fat.ipa"), "--no-fetch", "--store", db.url, "-q"]).status == 0)
      db.proxy.hold(whenClientSends: "\"input_files\"")
      let run = try AuditCommandTests.TerminalRun(
        ["inspect", CLI.sample("Store.ipa"), "--no-fetch", "--store", db.url, "--store-timeout", "600"],
        stdout: FileHandle.nullDevice, columns: 400,
        environment: ProcessInfo.processInfo.environment.filter { $0.key != "COLUMNS" })
      let (running, status, stderr, bars) = try await run.interrupt(once: "storing (0 written)")
      #expect(running && status == 130, "\(stderr)")
      // The input is made ready (its rows prepared) before or after the bar first shows; its rows are never written.
      #expect(
        bars.contains {
          ($0.contains(" 0/1 0% ") || $0.contains(" 1/1 100% ")) && $0.hasSuffix("  storing (0 written)")
        }, "\(bars)")
      let lines = AuditCommandTests.TerminalRun.lines(stderr)
      #expect(lines.contains("ipalinks: interrupted: 1 of 1 input finished"), "\(lines)")
      #expect(
        lines.contains {
          $0.hasPrefix("ipalinks: postgres://")
            && $0.hasSuffix(": the store holds 0 of the 1 input handed to it, in run 2, left unfinished; 1 not stored")
        }, "\(lines)")
      #expect(try db.number("SELECT COUNT(*) FROM inputs WHERE run_id = 2") == 0)
      db.proxy.resume()
      await db.stop()
    }

    @Test(.enabled(if: PostgreSQL.available)) func anImportShowsItsProgressAndCtrlCSaysWhatIsHeld() async throws {
      let db = try await Server.start()
      let saved = try CLI.run(["inspect", CLI.samples.path, "--no-fetch", "--format", "jsonl"])
      let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ipalinks-import-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(at: folder) }
      let (first, second) = (
        folder.appendingPathComponent("week-1.jsonl"), folder.appendingPathComponent("week-2.jsonl")
      )
      try Data(String(repeating: saved.stdout, count: 400).utf8).write(to: first)
      try Data(String(repeating: saved.stdout, count: 1000).utf8).write(to: second)
      let run = try AuditCommandTests.TerminalRun(
        ["store", "import", first.path, second.path, "--store", db.url, "--store-timeout", "600"],
        stdout: FileHandle.nullDevice, columns: 400,
        environment: ProcessInfo.processInfo.environment.filter { $0.key != "COLUMNS" })
      // The second file's run begun (reading 8,000 inputs and storing them takes seconds): everything held from now.
      try await Self.until("the second file's run") { (try? db.number("SELECT COUNT(*) FROM runs")) == 2 }
      db.proxy.hold()
      let (running, status, stderr, bars) = try await run.interrupt(once: "/8000 ")
      let stored = try db.number("SELECT COUNT(*) FROM inputs WHERE run_id = 2")
      #expect(running && status == 130, "\(stderr)")
      #expect(try db.number("SELECT COUNT(*) FROM inputs WHERE run_id = 1") == 3200, "the first file imported whole")
      #expect(stored < 8000 && stored % RecordingRun.queueLimit == 0, "\(stored)")
      // The file is named, with its time so far once it has taken five seconds (`week-1.jsonl for 0:07` under ASan).
      #expect(bars.contains { $0.contains(" 3200/3200 ") && $0.contains("  week-1.jsonl") }, "\(bars)")
      #expect(bars.contains { $0.contains(" \(stored)/8000 ") && $0.contains("  week-2.jsonl") }, "\(bars)")
      let lines = AuditCommandTests.TerminalRun.lines(stderr)
      #expect(lines.contains("ipalinks: interrupted: \(stored) of 8000 inputs finished"), "\(lines)")
      #expect(
        lines.contains {
          $0.hasPrefix("ipalinks: postgres://")
            && $0.hasSuffix(
              ": the store holds \(stored) of the 8000 inputs of \(second.path) in run 2, left unfinished; 1 of the "
                + "2 files imported before it")
        }, "\(lines)")
      db.proxy.resume()
      await db.stop()
    }
  #endif

  /// A reader against a server that stops answering, or is down, exits 2 with one line, within the timeout.
  @Test(.enabled(if: PostgreSQL.available)) func readersEndWithinTheTimeout() async throws {
    let db = try await Server.start()
    try await AuditStoreTests.record(["Store.ipa"], into: db.server.url(database: "faults"), at: Date())
    let ask = ["who-claims", "shop.example.com", "--store", db.url, "--store-timeout", "2"]
    #expect(try CLI.run(ask).status == 0)
    db.proxy.hold()
    let start = ContinuousClock.now
    let partitioned = try CLI.run(ask)
    let took = ContinuousClock.now - start
    #expect(partitioned.status == 2 && partitioned.stdout.isEmpty)
    #expect(
      partitioned.stderr.split(separator: "\n") == [
        "ipalinks: \(StoreLocation.masked(db.url)): cannot open the store: the server did not answer within 2 s"
      ], "\(partitioned.stderr)")
    #expect(took < .seconds(10), "\(took)")
    db.proxy.resume()
    try db.server.inflict(.killed)
    let down = try CLI.run(["who-claims", "shop.example.com", "--store", db.server.url(database: "faults")])
    #expect(down.status == 2)
    #expect(down.stderr.contains("cannot connect to the server"), "\(down.stderr)")
    #expect(!down.stderr.contains("Connection") && !down.stderr.contains("PSQL"), "the driver's names stay out")
    await db.stop()
  }

  /// On SQLite, a file that cannot grow: the report is complete, and the one line says no input was stored.
  @Test func aFileThatCannotGrowIsSaid() throws {
    let folder = try Self.corpus(Self.inputs)
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = folder.appendingPathComponent("store.db").path
    // The limit is the shell's, and only ipalinks runs under it: its standard output goes through cat.
    let result = try CLI.run(
      [
        "-c",
        "(ulimit -f 1000; exec \"$0\" inspect \"$1\" --no-fetch --store \"$2\" --format jsonl) | cat",
        CLI.binary.path, folder.path, store,
      ], executable: URL(fileURLWithPath: "/bin/sh"))
    #expect(result.stdout.split(separator: "\n").count == Self.inputs, "the report is complete")
    let lines = result.stderr.split(separator: "\n").filter { $0.contains("not stored") }
    #expect(lines.count == 1, "\(result.stderr)")
    let said = try Self.missing(try #require(lines.first))
    #expect(said.of == Self.inputs && said.missing + said.holds == Self.inputs)
    let runs = try CLI.run(["store", "runs", "--store", store, "-f", "json"])
    let listed = try #require((runs.json?["runs"] as? [[String: Any]])?.first, "\(runs.stdout)\(runs.stderr)")
    #expect(listed["inputs"] as? Int == said.holds && listed["finishedAt"] == nil, "\(listed)")
  }

  /// On SQLite, the file removed while a run writes to it: every input written went with it, and the line says so.
  @Test func aFileRemovedMidRunIsSaid() async throws {
    let folder = try Self.corpus(Self.inputs)
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = folder.appendingPathComponent("store.db").path
    let run = try CLI.start([
      "inspect", folder.path, "--no-fetch", "--store", store, "--format", "jsonl", "--jobs", "1",
    ])
    // Once the report has begun, the test takes the write lock, so the run waits while the file goes.
    try await Self.until("the report") { !run.stdoutSoFar.isEmpty }
    let holder = try await AuditStoreTests.open(store)
    _ = try await holder.sqlRows("BEGIN IMMEDIATE")
    try FileManager.default.removeItem(atPath: store)
    _ = try await holder.sqlRows("ROLLBACK")
    try await holder.close()
    let result = try await run.exited()
    #expect(result.status == 3, "\(result.stderr)")
    #expect(result.stdout.split(separator: "\n").count == Self.inputs, "the report is complete")
    #expect(
      result.stderr.contains(
        "\(store): the store's file was removed or replaced while the run went on: none of the \(Self.inputs) inputs "
          + "is stored"), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: store), "nothing makes it again")
  }

  /// Runs `reader` on `store` and checks it is refused: exit 2, and a first line on stderr naming the store (its
  /// password masked) and saying `why`.
  static func expectRefused(_ reader: [String], store: String, saying why: String) throws {
    let run = try CLI.run(reader + ["--store", store])
    #expect(run.status == 2, "\(reader): \(run.status) \(run.stdout)\(run.stderr)")
    #expect(
      run.stderr.split(separator: "\n").first == "ipalinks: \(try StoreLocation(store)): \(why)",
      "\(reader): \(run.stderr)")
  }

  /// A reader never makes a store: a path that names none is said, exit 2, and nothing is left behind; an empty file
  /// (SQLite would take it for an empty database) is said to be empty, and left empty.
  @Test func readersNeverCreateAStore() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ipalinks-typo-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let typo = folder.appendingPathComponent("typo.db").path
    for reader in [
      ["store", "runs"], ["history", "--host", "shop.example.com"], ["who-claims", "shop.example.com"],
      ["blocklist", "-o", folder.appendingPathComponent("rules.json").path, "-f", "rules"], ["diff", "--since", "1d"],
      ["refresh", "--aasa-dir", CLI.sample("aasa")],
    ] {
      try Self.expectRefused(reader, store: typo, saying: "no such store (inspect --store makes one)")
      #expect(!FileManager.default.fileExists(atPath: typo), "\(reader) made \(typo)")
      #expect(FileManager.default.createFile(atPath: typo, contents: nil))
      try Self.expectRefused(
        reader, store: typo, saying: "empty (0 bytes), not a store yet (inspect --store makes one)")
      #expect(try FileManager.default.attributesOfItem(atPath: typo)[.size] as? Int == 0, "\(reader) wrote \(typo)")
      try FileManager.default.removeItem(atPath: typo)
    }
    // A writer makes its store in an empty file, as in a new one.
    #expect(FileManager.default.createFile(atPath: typo, contents: nil))
    let made = try CLI.run(["inspect", CLI.sample("Store.ipa"), "--no-fetch", "-q", "--store", typo])
    #expect(made.status == 0, "\(made.stderr)")
    #expect(try CLI.run(["store", "runs", "--store", typo]).stdout.contains("inspect"))
  }

  /// A database that holds no store (an empty PostgreSQL database, another program's SQLite file) is said to hold
  /// none, exit 2, and nothing is written into it; nor by a writer, into another program's SQLite file. On PostgreSQL `store runs` answered "no runs", exit 0, and left
  /// the store's fifteen tables behind.
  @Test(arguments: AuditStoreTests.Backend.usable)
  func readersDoNotTurnADatabaseIntoAStore(_ backend: AuditStoreTests.Backend) throws {
    let stores = try AuditStoreTests.Stores(backend)
    defer { stores.close() }
    let location = try stores.make()
    // Python's own SQLite, a program other than ours.
    func sqlite(_ statement: String) throws -> String {
      let run = try CLI.run(
        [
          "-c",
          "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); print(c.execute(sys.argv[2]).fetchall()); c.commit()",
          location, statement,
        ], executable: URL(fileURLWithPath: "/usr/bin/python3"))
      #expect(run.status == 0, "\(run.stderr)")
      return run.stdout
    }
    if backend == .sqlite { _ = try sqlite("CREATE TABLE notes (body TEXT)") }
    func tables() throws -> String {
      if let server = stores.server {
        let database = String(location.split(separator: "/").last ?? "")
        return try server.superuserSQL(
          "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'public'", database: database
        )
        .trimmingCharacters(in: .whitespacesAndNewlines)
      }
      return try sqlite("SELECT COUNT(*) FROM sqlite_master")
    }
    let before = try tables()
    for reader in [["store", "runs"], ["history", "--host", "shop.example.com"], ["who-claims", "shop.example.com"]] {
      try Self.expectRefused(
        reader, store: location, saying: "holds no ipalinks store (no ipalinks_schema table); inspect --store makes one"
      )
      #expect(try tables() == before, "\(reader) wrote into the database")
    }
    // A writer makes its store in an empty PostgreSQL database (one may share a database on purpose), and readers
    // then read it; not beside another program's tables in a SQLite file, where it added its own.
    let made = try CLI.run(["inspect", CLI.sample("Store.ipa"), "--no-fetch", "-q", "--store", location])
    if backend == .sqlite {
      #expect(
        made.status == 3 && made.stderr.contains("a SQLite database of another program (1 table"), "\(made.stderr)")
      #expect(try tables() == before, "inspect wrote into the database")
    } else {
      #expect(made.status == 0, "\(made.stderr)")
      #expect(try CLI.run(["store", "runs", "--store", location]).status == 0)
    }
  }

  /// Arguments that name no input inspect nothing and leave no run: a finished run of nothing under its label
  /// answered `--at LABEL` with "no app in the store". Nor a store file it made: `store runs` then answered "no runs"
  /// from an empty store a mistyped folder or inventory had left.
  @Test func anInspectionOfNothingLeavesNoRun() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ipalinks-none-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = folder.appendingPathComponent("audit.db").path
    let empty = folder.appendingPathComponent("empty")
    try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
    let nothing = try CLI.run(["inspect", empty.path, "--no-fetch", "-q", "--store", store, "--run-label", "wk"])
    #expect(nothing.status == 2 && nothing.stderr.contains("no inputs to inspect"), "\(nothing.stderr)")
    let none = try CLI.run(["store", "runs", "--store", store])
    #expect(none.status == 2 && none.stderr.contains("no such store"), "\(none.stdout)\(none.stderr)")
    #expect(!FileManager.default.fileExists(atPath: store))
    let imported = try CLI.run([
      "store", "import", folder.appendingPathComponent("nosuch.jsonl").path, "--store", store,
    ])
    #expect(imported.status == 2 && imported.stderr.contains("nosuch.jsonl: cannot read"), "\(imported.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["empty"])
    let some = try CLI.run([
      "inspect", CLI.sample("Store.ipa"), "--no-fetch", "-q", "--store", store, "--run-label", "wk",
    ])
    #expect(some.status == 0, "\(some.stderr)")
    // A store with runs in it stays, with no run of nothing added.
    let again = try CLI.run(["inspect", empty.path, "--no-fetch", "-q", "--store", store, "--run-label", "wk"])
    #expect(again.status == 2 && FileManager.default.fileExists(atPath: store), "\(again.stderr)")
    let runs = try CLI.run(["store", "runs", "--store", store, "--format", "json"])
    #expect(runs.status == 0 && runs.stdout.components(separatedBy: "\"startedAt\"").count == 2, "\(runs.stdout)")
    let at = try CLI.run(["who-claims", "shop.example.com", "--store", store, "--at", "wk", "-q"])
    #expect(at.status == 0 && at.stdout.contains("ST0REAPP42.com.example.store"), "\(at.stdout)\(at.stderr)")
  }

  /// A location that is neither a file's path nor a postgres:// URL is refused as such, its password masked.
  @Test func otherSchemesAreRefused() throws {
    for url in ["mysql://auditor:secret-m@db.example.com/audit", "http://example.com/store"] {
      let run = try CLI.run(["store", "runs", "--store", url])
      let scheme = url.prefix { $0 != ":" }
      #expect(run.status == 64, "\(url): \(run.status) \(run.stderr)")
      // A usage error, as argument parsing words them.
      #expect(
        run.stderr.split(separator: "\n").first?.hasSuffix(
          ": \(scheme):// stores are not supported: give a SQLite file's path or a postgres:// URL") == true,
        "\(run.stderr)")
      #expect(!run.stderr.contains("secret"), "\(run.stderr)")
    }
  }

  /// A server that takes TLS logins only, as libpq reaches it: without `sslmode` (libpq's `prefer`) and with
  /// `require` or `ssl=true`, over TLS with any certificate; `verify-ca` and `verify-full` with one signed by the
  /// authority `sslrootcert` names, for the host's name. It refused every TLS login (`prefer` never tried TLS,
  /// `require` checked the certificate against the system's authorities, `ssl=true` was ignored), in the driver's
  /// words with a path of the build. A parameter libpq does not know is refused, as libpq refuses it.
  @Test(.enabled(if: PostgreSQL.available)) func aServerThatTakesOnlyTLSIsReachedAsLibpqReachesIt() throws {
    let server = try PostgresTestServer.start()
    defer { server.stop() }
    let authority = try TestCertificateAuthority(name: "ipalinks store test CA")
    let leaf = try authority.issueLeaf(dnsNames: ["localhost"])
    try server.requireTLS(certificatePEM: leaf.certificatePEM, keyPEM: leaf.privateKeyPEM)
    let ca = server.folder.appendingPathComponent("root.pem")
    try Data(authority.caPEM.utf8).write(to: ca)
    let url = try server.createDatabase("tls")
    let named = url.replacingOccurrences(of: "@127.0.0.1:", with: "@localhost:")
    let made = try CLI.run(["inspect", CLI.sample("Store.ipa"), "--no-fetch", "-q", "--store", url])
    #expect(made.status == 0, "\(made.stderr)")
    for reached in [
      url + "?sslmode=require", url + "?ssl=true", url + "?sslmode=verify-ca&sslrootcert=\(ca.path)",
      named + "?sslmode=verify-full&sslrootcert=\(ca.path)",
    ] {
      let runs = try CLI.run(["store", "runs", "--store", reached])
      #expect(runs.status == 0 && runs.stdout.contains("inspect"), "\(reached): \(runs.stderr)")
    }
    let plain = try CLI.run(["store", "runs", "--store", url + "?sslmode=disable"])
    #expect(plain.status == 2 && plain.stderr.contains("no encryption"), "\(plain.stderr)")
    for (unverified, why) in [
      (url + "?sslmode=verify-full", "the server's certificate is not trusted"),
      (url + "?sslmode=verify-full&sslrootcert=\(ca.path)", "not valid for this host name"),
    ] {
      let refused = try CLI.run(["store", "runs", "--store", unverified])
      #expect(refused.status == 2 && refused.stderr.contains(why), "\(unverified): \(refused.stderr)")
      #expect(!refused.stderr.contains(".build") && !refused.stderr.contains("BoringSSL"), "\(refused.stderr)")
    }
    // A misspelt parameter, and a password whose parameter's name is escaped: refused, the password masked.
    for (typo, why) in [
      ("?sslMode=require", "unknown parameter \"sslMode\""), ("?SSLMODE=require", "unknown parameter \"SSLMODE\""),
      ("?connect_timeout=3", "unknown parameter \"connect_timeout\""), ("?ssl=1", "only ssl=true is known"),
      ("?%70assword=hidden-pw&sslmode=requir", "sslmode=requir is not one of"),
    ] {
      let refused = try CLI.run(["store", "runs", "--store", "postgres://ipalinks@127.0.0.1:\(server.port)/tls\(typo)"])
      #expect(refused.status == 64 && refused.stderr.contains(why), "\(typo): \(refused.stderr)")
      #expect(!refused.stderr.contains("hidden-pw"), "\(refused.stderr)")
    }
  }

  /// A PostgreSQL URL that names the server's Unix-domain socket, as libpq reads one (`?host=/folder`), stores and
  /// reads as the TCP one does, and is shown with its password masked.
  @Test(.enabled(if: PostgreSQL.available)) func aUnixSocketURLIsAStore() throws {
    let server = try PostgresTestServer.start()
    defer { server.stop() }
    _ = try server.createDatabase("sockets")
    let url = server.socketURL(database: "sockets")
    let inspect = try CLI.run(["inspect", CLI.sample("Store.ipa"), "--no-fetch", "--store", url, "-q"])
    #expect(inspect.status == 0, "\(inspect.stderr)")
    let runs = try CLI.run(["store", "runs", "--store", url, "-f", "json"])
    let listed = try #require((runs.json?["runs"] as? [[String: Any]])?.first, "\(runs.stdout)\(runs.stderr)")
    #expect(listed["inputs"] as? Int == 1)
    // Stopped, the server's socket is gone: the line names the store, its password masked.
    server.stop()
    let down = try CLI.run(["store", "runs", "--store", url])
    #expect(down.status == 2)
    #expect(down.stderr.hasPrefix("ipalinks: postgres://ipalinks:***@/sockets?host="), "\(down.stderr)")
    #expect(!down.stderr.contains(server.password), "\(down.stderr)")
  }
}
