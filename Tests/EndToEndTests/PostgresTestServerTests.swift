import Foundation
import TestServers
import Testing

/// The private PostgreSQL server tests start for themselves (``PostgresTestServer``): it starts, takes password
/// logins over TCP and refuses a wrong password, makes databases of their own for tests, and leaves no process
/// behind once stopped.
@Suite(
  .enabled(
    if: PostgreSQL.available,
    "needs PostgreSQL's server binaries (make setup installs Debian's postgresql or Homebrew's postgresql@16)"))
struct PostgresTestServerTests {
  @Test func startsTakesPasswordLoginsAndLeavesNoProcessBehind() throws {
    let clock = ContinuousClock()
    let startedAt = clock.now
    let server = try PostgresTestServer.start()
    defer { server.stop() }
    let startTime = clock.now - startedAt

    let ok = try Self.psql(server.url, "SELECT 1", bin: server.binDirectory)
    #expect(ok.status == 0 && ok.output == "1\n", "\(ok.output)\n\(server.log)")
    let wrong = try Self.psql(server.url, "SELECT 1", password: "secret-wrong", bin: server.binDirectory)
    #expect(wrong.status != 0)
    #expect(wrong.output.contains("password authentication failed for user \"ipalinks\""), "\(wrong.output)")
    let superuser = "postgres://postgres:\(server.superuserPassword)@127.0.0.1:\(server.port)/postgres"
    let asSuperuser = try Self.psql(superuser, "SELECT current_user", bin: server.binDirectory)
    #expect(asSuperuser.output == "postgres\n", "\(asSuperuser.output)")

    // A database of its own, owned by the role the URL logs in as, for each test on a shared server.
    let second = try server.createDatabase("second_db")
    #expect(second == "postgres://ipalinks:\(server.password)@127.0.0.1:\(server.port)/second_db")
    let inSecond = try Self.psql(
      second, "CREATE TABLE t (x int); SELECT current_database(), current_user", bin: server.binDirectory)
    #expect(inSecond.output == "second_db|ipalinks\n", "\(inSecond.output)\n\(server.log)")
    #expect(throws: PostgresTestServer.Failure.self) { try server.createDatabase("x\"; DROP DATABASE ipalinks; --") }

    // The postmaster and its children (checkpointer, writers, launchers), all to be gone after the stop.
    let postmaster = try #require(server.postmasterPID, "no postmaster.pid:\n\(server.log)")
    let children = try Self.pgrep(["-P", "\(postmaster)"])
    #expect(children.count >= 3, "\(children)")
    #expect(try Self.pgrep(["-f", server.folder.path]) == [postmaster])

    let stoppedAt = clock.now
    server.stop()
    let stopTime = clock.now - stoppedAt
    server.stop()
    for pid in [postmaster] + children {
      #expect(!Self.running(pid), "process \(pid) outlived stop()")
    }
    #expect(try Self.pgrep(["-f", server.folder.path]).isEmpty)
    #expect(!FileManager.default.fileExists(atPath: server.folder.path))
    #expect(server.log.contains("received immediate shutdown request"), "\(server.log)")
    #expect(throws: PostgresTestServer.Failure.self) { try server.createDatabase("late") }
    print("PostgresTestServer: started in \(startTime), stopped in \(stopTime), port \(server.port)")
  }

  struct Run {
    var status: Int32
    var output: String
  }

  /// `psql` over TCP to `url`, the password taken out of the URL (or `password` instead) and given to psql
  /// alone, in its environment.
  static func psql(_ url: String, _ sql: String, password: String? = nil, bin: URL) throws -> Run {
    var components = try #require(URLComponents(string: url))
    let secret = password ?? components.password ?? ""
    components.password = nil
    var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PG") }
    environment["PGPASSWORD"] = secret
    environment["PGCONNECT_TIMEOUT"] = "10"
    environment["LC_ALL"] = "C"
    return try run(
      bin.appendingPathComponent("psql"),
      ["-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1", "-d", try #require(components.string), "-c", sql],
      environment: environment)
  }

  /// The process ids `pgrep` lists for `arguments`, empty when none match (its exit status 1).
  static func pgrep(_ arguments: [String]) throws -> [Int32] {
    let result = try run(URL(fileURLWithPath: "/usr/bin/env"), ["pgrep"] + arguments)
    #expect(result.status == 0 || result.status == 1, "pgrep: \(result.output)")
    return result.output.split(separator: "\n").compactMap { Int32($0) }
  }

  /// True while `pid` runs. On Linux a zombie (exited, not yet reaped by a parent that may never do it, as a
  /// container's init may not) counts as gone.
  static func running(_ pid: Int32) -> Bool {
    #if os(Linux)
      guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
      // The state is the field after the command name's closing parenthesis.
      return stat.split(separator: ")").last?.split(separator: " ").first != "Z"
    #else
      return kill(pid, 0) == 0
    #endif
  }

  static func run(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil) throws -> Run {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let environment { process.environment = environment }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Run(status: process.terminationStatus, output: String(decoding: output, as: UTF8.self))
  }
}

/// Whether tests drive a real PostgreSQL server here.
enum PostgreSQL {
  /// On when the binaries are found, and under `IPALINKS_REQUIRE_ENGINES=1` (which `make test` sets on Linux) in any
  /// case, so that missing ones fail there (the start's error names the package) instead of skipping.
  static let available = Engines.required || PostgresTestServer.isInstalled
}
