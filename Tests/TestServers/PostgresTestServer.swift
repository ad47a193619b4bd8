import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A real PostgreSQL server of the test's own: a fresh cluster (`initdb`) in a private folder under the temporary
/// directory, on a free loopback port, with a role `ipalinks` that logs in by password (SCRAM) and owns a database
/// `ipalinks`. Nothing is shared with another test or with a PostgreSQL the machine may run.
///
/// Stop it where the test ends, whatever its outcome:
///
///     let server = try PostgresTestServer.start()
///     defer { server.stop() }
///
/// `deinit` stops it too, but only once the last reference goes, which a failing `#require` or a captured reference
/// can put off. If the test process dies before either, the server notices that its folder (removed with the run's
/// TMPDIR by `scripts/with-tmpdir.sh`) lost its `postmaster.pid` and shuts itself down within a minute.
///
/// Under root, which PostgreSQL refuses to run as, `initdb`, `pg_ctl` and `psql` run as the `postgres` system user
/// (`runuser -u postgres --`; Debian's `postgresql` package creates that user), the folder is chowned to it, and the
/// temporary directory is opened to it for traversal (`o+x`, not listing) when it is not already.
public final class PostgresTestServer: @unchecked Sendable {
  /// Why a server could not start or answer.
  public enum Failure: Error, CustomStringConvertible {
    /// `initdb`, `pg_ctl` or `psql` is missing; the text says which package brings them.
    case notInstalled(String)
    /// A command failed: the command line, its exit status and what it printed.
    case commandFailed(command: String, status: Int32, output: String)
    /// The server did not start, or could not be given a folder; `log` is its log, if it got that far.
    case startFailed(reason: String, log: String)
    /// Not a plain lower-case SQL identifier, the only database names ``createDatabase(_:)`` takes.
    case badDatabaseName(String)
    /// The server was stopped.
    case stopped

    /// What went wrong, with the command's output or the server's log.
    public var description: String {
      switch self {
      case .notInstalled(let text): return text
      case .commandFailed(let command, let status, let output): return "\(command) exited \(status):\n\(output)"
      case .startFailed(let reason, let log):
        return "PostgreSQL did not start: \(reason)" + (log.isEmpty ? "" : "\nserver.log:\n\(log)")
      case .badDatabaseName(let name): return "\(name): a database name must match [a-z_][a-z0-9_]{0,62}"
      case .stopped: return "the PostgreSQL test server was stopped"
      }
    }
  }

  /// The loopback TCP port it listens on (127.0.0.1 only).
  public let port: Int
  /// The `ipalinks` role's password.
  public let password: String
  /// The `postgres` superuser's password, for TCP logins; over the Unix socket the superuser needs none.
  public let superuserPassword: String
  /// The private folder: the cluster in `data`, the Unix socket, and `server.log`.
  public let folder: URL
  /// Where `initdb`, `pg_ctl`, `postgres` and `psql` were found.
  public let binDirectory: URL

  private let runsAsPostgresUser: Bool
  private let lock = NSLock()
  private var stopped = false
  private var logAtStop: String?

  /// The cluster's data directory.
  public var dataDirectory: URL { folder.appendingPathComponent("data") }

  /// `postgres://ipalinks:<password>@127.0.0.1:<port>/ipalinks`.
  public var url: String { url(database: "ipalinks") }

  /// The URL of `database` as the `ipalinks` role, by password over TCP.
  public func url(database: String) -> String { "postgres://ipalinks:\(password)@127.0.0.1:\(port)/\(database)" }

  /// The server's log so far (its final text once stopped), to show when a test fails.
  public var log: String {
    lock.withLock {
      logAtStop ?? (try? String(contentsOf: Self.logFile(in: folder), encoding: .utf8)) ?? ""
    }
  }

  /// The postmaster's process id, from `data/postmaster.pid`; nil once it has stopped.
  public var postmasterPID: Int32? {
    guard let text = try? String(contentsOf: dataDirectory.appendingPathComponent("postmaster.pid"), encoding: .utf8)
    else { return nil }
    return text.split(separator: "\n").first.flatMap { Int32($0.trimmingCharacters(in: .whitespaces)) }
  }

  /// True when `initdb`, `pg_ctl`, `postgres` and `psql` can be found (see ``locateBinaries()``).
  public static var isInstalled: Bool { (try? locateBinaries()) != nil }

  /// The folder holding `initdb`, `pg_ctl`, `postgres` and `psql`: the PATH first (a symlink to `initdb` there
  /// counts for the folder it points into, where the other tools sit beside it), then the newest
  /// `/usr/lib/postgresql/<version>/bin` (Debian keeps them off the PATH), then Homebrew's keg-only
  /// `opt/postgresql@<version>/bin`, newest first, and its `bin`. Throws ``Failure/notInstalled(_:)`` naming the
  /// package to install.
  public static func locateBinaries() throws -> URL {
    let fileManager = FileManager.default
    func complete(_ folder: URL) -> Bool {
      ["initdb", "pg_ctl", "postgres", "psql"].allSatisfy {
        fileManager.isExecutableFile(atPath: folder.appendingPathComponent($0).path)
      }
    }
    func newestFirst(_ parent: String, prefix: String) -> [URL] {
      let names = ((try? fileManager.contentsOfDirectory(atPath: parent)) ?? []).filter { $0.hasPrefix(prefix) }
      return names.sorted { $0.compare($1, options: .numeric) == .orderedDescending }
        .map { URL(fileURLWithPath: parent).appendingPathComponent($0).appendingPathComponent("bin") }
    }
    var candidates: [URL] = []
    for entry in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
      let initdb = URL(fileURLWithPath: String(entry)).appendingPathComponent("initdb")
      guard fileManager.isExecutableFile(atPath: initdb.path) else { continue }
      candidates += [initdb.resolvingSymlinksInPath().deletingLastPathComponent(), initdb.deletingLastPathComponent()]
    }
    candidates += newestFirst("/usr/lib/postgresql", prefix: "")
    for prefix in ["/opt/homebrew", "/usr/local"] {
      candidates += newestFirst("\(prefix)/opt", prefix: "postgresql")
      candidates.append(URL(fileURLWithPath: "\(prefix)/bin"))
    }
    if let found = candidates.first(where: complete) { return found }
    throw Failure.notInstalled(
      "PostgreSQL's server binaries (initdb, pg_ctl, postgres, psql) are not on the PATH, in "
        + "/usr/lib/postgresql/*/bin or in Homebrew's opt/postgresql@*/bin: install Debian's `postgresql` package "
        + "(`make setup`, or `apt-get install postgresql`) or Homebrew's `postgresql@16`")
  }

  /// Makes a cluster, starts it and creates the `ipalinks` role and database; a second or two.
  public static func start() throws -> PostgresTestServer {
    let bin = try locateBinaries()
    let asRoot = geteuid() == 0
    if asRoot && getpwnam("postgres") == nil {
      throw Failure.notInstalled(
        "running as root, which PostgreSQL refuses, and there is no `postgres` user to run it as: install Debian's "
          + "`postgresql` package, which creates it")
    }
    // Short: the socket's path (folder + /.s.PGSQL.<port>) must fit in sockaddr_un, 104 bytes on macOS, whose
    // temporary directory is already long.
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pg-\(randomHex(bytes: 4))")
    try FileManager.default.createDirectory(
      at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let runner = Runner(bin: bin, asPostgresUser: asRoot, folder: folder)
    do {
      let superuserPassword = randomHex(bytes: 16)
      let pwfile = folder.appendingPathComponent("superuser-password")
      try Data((superuserPassword + "\n").utf8).write(to: pwfile)
      if asRoot {
        try openTemporaryDirectory(toReach: folder)
        try runner.check(try runner.run(chown, ["-R", "postgres:postgres", folder.path], asPostgresUser: false))
      }
      let data = folder.appendingPathComponent("data").path
      // --no-sync and 1 MB WAL segments: a test cluster needs no durability, and starts in about a second at
      // about 30 MB (16 MB segments make it 40 MB).
      try runner.check(
        try runner.run(
          bin.appendingPathComponent("initdb"),
          [
            "-D", data, "--auth-local=trust", "--auth-host=scram-sha-256", "--username=postgres",
            "--pwfile=\(pwfile.path)", "--encoding=UTF8", "--locale=C", "--no-sync", "--wal-segsize=1",
          ]))
      try? FileManager.default.removeItem(at: pwfile)
      let port = try startServer(runner, data: data)
      let password = "secret-\(randomHex(bytes: 16))"
      let server = PostgresTestServer(
        port: port, password: password, superuserPassword: superuserPassword, folder: folder, bin: bin,
        asPostgresUser: asRoot)
      _ = try server.superuserSQL("CREATE ROLE ipalinks LOGIN PASSWORD '\(password)'")
      _ = try server.superuserSQL("CREATE DATABASE ipalinks OWNER ipalinks")
      return server
    } catch {
      // Nothing is left: a server that started is stopped (once made, `server` above has stopped it in its deinit
      // already) and the folder goes.
      if FileManager.default.fileExists(atPath: folder.appendingPathComponent("data/postmaster.pid").path) {
        _ = try? runner.run(
          bin.appendingPathComponent("pg_ctl"), ["stop", "-D", folder.appendingPathComponent("data").path] + stopFlags)
      }
      try? FileManager.default.removeItem(at: folder)
      throw error
    }
  }

  private init(port: Int, password: String, superuserPassword: String, folder: URL, bin: URL, asPostgresUser: Bool) {
    self.port = port
    self.password = password
    self.superuserPassword = superuserPassword
    self.folder = folder
    self.binDirectory = bin
    self.runsAsPostgresUser = asPostgresUser
  }

  deinit { stop() }

  /// Creates an empty database `name` owned by `ipalinks` and returns its URL (see ``url(database:)``), so that
  /// each test can have one of its own on a shared server. `name` must be a lower-case SQL identifier.
  public func createDatabase(_ name: String) throws -> String {
    let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789_")
    guard let first = name.first, !first.isNumber, name.count <= 63, name.allSatisfy(allowed.contains) else {
      throw Failure.badDatabaseName(name)
    }
    _ = try superuserSQL("CREATE DATABASE \"\(name)\" OWNER ipalinks")
    return url(database: name)
  }

  /// Runs `sql` as the `postgres` superuser over the Unix socket (`psql -X -A -t -v ON_ERROR_STOP=1`) in
  /// `database`, and returns what psql printed: unaligned rows, `|` between columns.
  public func superuserSQL(_ sql: String, database: String = "postgres") throws -> String {
    guard !lock.withLock({ stopped }) else { throw Failure.stopped }
    let runner = Runner(bin: binDirectory, asPostgresUser: runsAsPostgresUser, folder: folder)
    let result = try runner.run(
      binDirectory.appendingPathComponent("psql"),
      [
        "-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1", "-h", folder.path, "-p", "\(port)", "-U", "postgres",
        "-d", database, "-c", sql,
      ])
    return try runner.check(result)
  }

  /// Stops the server (`pg_ctl stop -m immediate -w`: no checkpoint, nothing of it is kept) and removes its folder.
  /// Safe to call more than once, and from `deinit`. If `pg_ctl` fails, the postmaster is killed.
  public func stop() {
    lock.withLock {
      guard !stopped else { return }
      stopped = true
      let pid = postmasterPID
      let runner = Runner(bin: binDirectory, asPostgresUser: runsAsPostgresUser, folder: folder)
      let result = try? runner.run(
        binDirectory.appendingPathComponent("pg_ctl"), ["stop", "-D", dataDirectory.path] + Self.stopFlags)
      if result?.status != 0, let pid {
        // Its children notice the postmaster's death and exit on their own.
        kill(pid, SIGKILL)
      }
      logAtStop = (try? String(contentsOf: Self.logFile(in: folder), encoding: .utf8)) ?? ""
      try? FileManager.default.removeItem(at: folder)
    }
  }

  // MARK: - Faults

  /// What a fault test does to a running server, on the same port and data.
  public enum Fault: String, Sendable, CaseIterable {
    /// `pg_ctl restart -m immediate`: every backend killed, the server back after crash recovery.
    case immediateRestart = "an immediate restart"
    /// `pg_ctl stop -m fast`, two seconds, `pg_ctl start`.
    case stopAndStart = "a fast stop, 2 s, and a start"
    /// The postmaster killed with SIGKILL and not started again (``startAgain()`` brings it back, to look).
    case killed = "the server killed"
  }

  /// Does `fault` to the server, and returns once it is done (for a restart, once the server takes connections).
  public func inflict(_ fault: Fault) throws {
    let runner = Runner(bin: binDirectory, asPostgresUser: runsAsPostgresUser, folder: folder)
    let pgctl = binDirectory.appendingPathComponent("pg_ctl")
    switch fault {
    case .immediateRestart:
      _ = try runner.check(
        try runner.run(
          pgctl,
          [
            "restart", "-m", "immediate", "-w", "-t", "60", "-D", dataDirectory.path, "-l",
            Self.logFile(in: folder).path, "-o", options,
          ]))
    case .stopAndStart:
      _ = try runner.check(try runner.run(pgctl, ["stop", "-m", "fast", "-w", "-t", "60", "-D", dataDirectory.path]))
      Thread.sleep(forTimeInterval: 2)
      try startAgain()
    case .killed:
      guard let pid = postmasterPID else { throw Failure.stopped }
      kill(pid, SIGKILL)
      // Gone once the port no longer takes connections; its backends notice and exit on their own.
      let deadline = Date() + 30
      while Date() < deadline && Self.accepts(port: port) { Thread.sleep(forTimeInterval: 0.05) }
    // The pid file stays behind a killed postmaster; pg_ctl start checks that its process is gone.
    }
  }

  /// Turns TLS on with `certificatePEM` and `keyPEM`, and makes every TCP login need it (`hostssl` in
  /// `pg_hba.conf`), as a server reached over a network often does; the server reloads its settings.
  public func requireTLS(certificatePEM: String, keyPEM: String) throws {
    let runner = Runner(bin: binDirectory, asPostgresUser: runsAsPostgresUser, folder: folder)
    let (certificate, key) = (
      dataDirectory.appendingPathComponent("server.crt"), dataDirectory.appendingPathComponent("server.key")
    )
    try Data(certificatePEM.utf8).write(to: certificate)
    try Data(keyPEM.utf8).write(to: key)
    // The server refuses a key others may read.
    chmod(key.path, 0o600)
    if runsAsPostgresUser {
      try runner.check(
        try runner.run(Self.chown, ["postgres:postgres", certificate.path, key.path], asPostgresUser: false))
    }
    let hba = dataDirectory.appendingPathComponent("pg_hba.conf")
    let lines = try String(contentsOf: hba, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
    try lines.map { $0.hasPrefix("host ") ? "hostssl" + $0.dropFirst(4) : $0 }.joined(separator: "\n")
      .write(to: hba, atomically: false, encoding: .utf8)
    _ = try superuserSQL("ALTER SYSTEM SET ssl = on")
    _ = try superuserSQL("SELECT pg_reload_conf()")
  }

  /// Starts the server again after ``Fault/killed`` or a stop, on its port.
  public func startAgain() throws {
    let runner = Runner(bin: binDirectory, asPostgresUser: runsAsPostgresUser, folder: folder)
    // After a kill, the server refuses to start while a backend of the old one still holds its shared memory; they
    // exit on their own once they notice, so a refusal is tried again for a while.
    let deadline = Date() + 30
    while true {
      do {
        _ = try runner.check(
          try runner.run(
            binDirectory.appendingPathComponent("pg_ctl"),
            ["start", "-w", "-t", "60", "-D", dataDirectory.path, "-l", Self.logFile(in: folder).path, "-o", options]))
        return
      } catch  where Date() < deadline {
        Thread.sleep(forTimeInterval: 0.2)
      }
    }
  }

  /// The options the server runs with (see ``startServer(_:data:)``).
  private var options: String { Self.options(port: port, folder: folder) }

  private static func options(port: Int, folder: URL) -> String {
    // Settings for a throwaway cluster: shared_buffers at 16 MB keeps the shared memory small when several tests
    // run servers at once; fsync=off because nothing here must survive a crash of the machine (a crash of the
    // server keeps every commit: the kernel has it). pg_ctl runs -o's text through the shell, hence the quotes.
    "-p \(port) -k \(shellQuoted(folder.path)) -c listen_addresses=127.0.0.1 -c shared_buffers=16MB -c fsync=off"
  }

  /// Whether something takes TCP connections on 127.0.0.1:`port`.
  private static func accepts(port: Int) -> Bool {
    #if os(Linux)
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
      let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
  }

  /// The URL of `database` over the Unix-domain socket, as libpq reads one: `?host=FOLDER&port=PORT`.
  public func socketURL(database: String) -> String {
    "postgres://ipalinks:\(password)@/\(database)?host=\(folder.path)&port=\(port)"
  }

  // MARK: - Starting

  private static let stopFlags = ["-m", "immediate", "-w", "-t", "30"]

  private static let chown: URL = {
    let found = ["/usr/bin/chown", "/bin/chown", "/usr/sbin/chown"].first {
      FileManager.default.isExecutableFile(atPath: $0)
    }
    return URL(fileURLWithPath: found ?? "/usr/bin/chown")
  }()

  private static func logFile(in folder: URL) -> URL { folder.appendingPathComponent("server.log") }

  /// `pg_ctl start` on a free loopback port, retried on another when something took the port between the probe and
  /// the server's bind.
  private static func startServer(_ runner: Runner, data: String) throws -> Int {
    let log = logFile(in: runner.folder)
    var reason = ""
    for _ in 0..<5 {
      let port = try freeLoopbackPort()
      let before = (try? Data(contentsOf: log).count) ?? 0
      let options = Self.options(port: port, folder: runner.folder)
      let result = try runner.run(
        runner.bin.appendingPathComponent("pg_ctl"),
        ["start", "-w", "-t", "60", "-D", data, "-l", log.path, "-o", options])
      if result.status == 0 { return port }
      let newLog = String(decoding: ((try? Data(contentsOf: log)) ?? Data()).dropFirst(before), as: UTF8.self)
      reason = "pg_ctl start exited \(result.status): \(result.output)"
      guard newLog.contains("could not bind") || newLog.contains("already in use") else { break }
    }
    throw Failure.startFailed(reason: reason, log: (try? String(contentsOf: log, encoding: .utf8)) ?? "")
  }

  /// A port the kernel had free on 127.0.0.1 a moment ago: bound at port 0, read back, closed.
  private static func freeLoopbackPort() throws -> Int {
    #if os(Linux)
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
      let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    defer { close(fd) }
    var address = sockaddr_in()
    #if !os(Linux)
      address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
    #endif
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let status = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, length) == 0 ? getsockname(fd, $0, &length) : -1
      }
    }
    guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    return Int(UInt16(bigEndian: address.sin_port))
  }

  /// Under root, lets the `postgres` user reach `folder`: adds `o+x` (traverse, not list) to the temporary directory
  /// when it lacks it (`scripts/with-tmpdir.sh` makes a 0700 one); a folder above it that is closed is not ours to
  /// open, so that is an error.
  private static func openTemporaryDirectory(toReach folder: URL) throws {
    let fileManager = FileManager.default
    func mode(_ directory: URL) throws -> Int {
      (try fileManager.attributesOfItem(atPath: directory.path)[.posixPermissions] as? Int) ?? 0
    }
    let temporary = folder.deletingLastPathComponent().standardizedFileURL
    var above = temporary
    while above.path != "/" {
      above = above.deletingLastPathComponent().standardizedFileURL
      if try mode(above) & 0o001 == 0 {
        throw Failure.startFailed(
          reason: "the postgres user cannot reach \(above.path) (mode \(String(try mode(above), radix: 8))): set "
            + "TMPDIR to a folder it can reach",
          log: "")
      }
    }
    let current = try mode(temporary)
    if current & 0o001 == 0 {
      try fileManager.setAttributes([.posixPermissions: current | 0o001], ofItemAtPath: temporary.path)
    }
  }

  private static func shellQuoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }

  private static func randomHex(bytes: Int) -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
  }
}

/// Runs PostgreSQL's tools, as the `postgres` user under root.
///
/// Through `posix_spawn`, not `Process`: on Linux, Foundation's `Process` learns that a child exited when a socket
/// the child inherits closes, and the postmaster that `pg_ctl start` leaves running inherits it too, so waiting for
/// `pg_ctl` would last as long as the server. Here the child gets stdin, stdout and stderr and no other descriptor.
private struct Runner {
  struct Result {
    var command: String
    var status: Int32
    var output: String
  }

  let bin: URL
  let asPostgresUser: Bool
  let folder: URL

  static let runuser: String =
    ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"].first {
      FileManager.default.isExecutableFile(atPath: $0)
    } ?? "/usr/sbin/runuser"

  /// Runs `tool` with `arguments` in the folder (the postgres user may not be able to enter the caller's), its
  /// output (stdout and stderr together) captured. The environment loses every PG* variable, so a PGHOST or
  /// PGDATA of the machine cannot redirect a command, and messages are in English (LC_ALL=C), the text read back.
  func run(_ tool: URL, _ arguments: [String], asPostgresUser: Bool? = nil) throws -> Result {
    let argv =
      (asPostgresUser ?? self.asPostgresUser)
      ? [Self.runuser, "-u", "postgres", "--", tool.path] + arguments : [tool.path] + arguments
    var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PG") }
    environment["LC_ALL"] = "C"
    let (status, output) = try Self.spawn(argv, environment: environment, directory: folder.path)
    return Result(command: argv.joined(separator: " "), status: status, output: output)
  }

  /// `result`'s output, or ``PostgresTestServer/Failure/commandFailed(command:status:output:)`` when it failed.
  @discardableResult
  func check(_ result: Result) throws -> String {
    guard result.status == 0 else {
      throw PostgresTestServer.Failure.commandFailed(
        command: result.command, status: result.status, output: result.output)
    }
    return result.output
  }

  /// Runs `argv` and waits for it; returns its exit status (128 + the signal if one killed it) and its output. The
  /// pipe reaches its end when the command exits: pg_ctl gives the postmaster the log as stdout and stderr.
  static func spawn(_ argv: [String], environment: [String: String], directory: String) throws -> (Int32, String) {
    var pipeEnds: [Int32] = [0, 0]
    guard pipe(&pipeEnds) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    let (readEnd, writeEnd) = (pipeEnds[0], pipeEnds[1])
    // Close-on-exec, so that no other process this one starts meanwhile holds the pipe open.
    _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
    _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)
    defer { close(readEnd) }

    #if os(Linux)
      var actions = posix_spawn_file_actions_t()
      var attributes = posix_spawnattr_t()
    #else
      var actions: posix_spawn_file_actions_t?
      var attributes: posix_spawnattr_t?
    #endif
    posix_spawn_file_actions_init(&actions)
    posix_spawnattr_init(&attributes)
    defer {
      posix_spawn_file_actions_destroy(&actions)
      posix_spawnattr_destroy(&attributes)
    }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
    posix_spawn_file_actions_adddup2(&actions, writeEnd, 2)
    #if os(Linux)
      // glibc 2.34 and 2.29 have these, which its Swift module does not show (they are GNU extensions).
      if let closeFrom = glibc("posix_spawn_file_actions_addclosefrom_np", as: CloseFrom.self) {
        _ = closeFrom(&actions, 3)
      }
      if let changeDirectory = glibc("posix_spawn_file_actions_addchdir_np", as: ChangeDirectory.self) {
        _ = changeDirectory(&actions, directory)
      }
    #else
      posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_CLOEXEC_DEFAULT))
      posix_spawn_file_actions_addchdir_np(&actions, directory)
    #endif

    let cArguments = argv.map { strdup($0) } + [nil]
    let cEnvironment = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { (cArguments + cEnvironment).forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, argv[0], &actions, &attributes, cArguments, cEnvironment)
    close(writeEnd)
    guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }

    var output = Data()
    var buffer = [UInt8](repeating: 0, count: 16_384)
    while true {
      let count = read(readEnd, &buffer, buffer.count)
      if count > 0 {
        output.append(contentsOf: buffer[0..<count])
      } else if count == 0 || errno != EINTR {
        break
      }
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    // WIFEXITED and WEXITSTATUS, which Swift does not import.
    let exitStatus = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    return (exitStatus, String(decoding: output, as: UTF8.self))
  }

  #if os(Linux)
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    typealias ChangeDirectory =
      @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    static func glibc<Function>(_ name: String, as type: Function.Type) -> Function? {
      guard let symbol = dlsym(dlopen(nil, RTLD_NOW), name) else { return nil }
      return unsafeBitCast(symbol, to: type)
    }
  #endif
}
