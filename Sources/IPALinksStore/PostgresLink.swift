import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import PostgresKit
import SQLKit

/// The connection to a PostgreSQL store as SQLKit speaks to it, with the bounds a server that restarts, stops or
/// stops answering needs: connecting, and each statement, end within ``timeout`` of the server's last sign of life
/// (a statement streaming rows goes on as long as they come). A statement past it fails, and the connection is
/// closed, so nothing waits on it any more; ``reconnect(within:)`` opens a new one.
///
/// Why a deadline of our own: a server that restarts can leave a query that was sent just before waiting forever on
/// a connection that is gone, and a network partition sends nothing at all, so neither the driver nor TCP ends it.
final class PostgresLink: SQLDatabase, Sendable {
  /// The server and login.
  let server: StoreLocation.Postgres
  /// How long a statement, or connecting, may go without a word from the server.
  let timeout: Duration
  let eventLoop: any EventLoop
  var logger: Logger { AuditStore.quietLogger }
  var dialect: any SQLDialect { PostgresDialect() }
  var queryLogLevel: Logger.Level? { nil }
  /// The connection in use; nil once it is lost, until a reconnection.
  private let current: NIOLockedValueBox<PostgresConnection?>
  /// The server process behind each open connection, by connection.
  private let backends = NIOLockedValueBox<[ObjectIdentifier: Backend]>([:])
  /// The server processes of connections given up on, which may still be running a statement: a commit waiting on
  /// the server's disk or a standby, an insert waiting on a lock. Each is stopped, and waited for, before anything
  /// is written again (``reconnect(until:)``), so that a transaction sent again never meets its first copy.
  private let abandoned = NIOLockedValueBox<[Backend]>([])

  /// A server process: its pid, and when it started, since a restarted server may give the pid to another.
  struct Backend: Sendable, Equatable {
    var pid: Int32
    var started: String
  }
  /// The statements waiting for an answer, each with its connection and what ends its wait, so that a connection
  /// that closes ends its statements' waits at once (``execute(sql:_:)`` says why): one watcher per connection rather
  /// than one per statement, which a long run's thousands of statements would leave behind.
  private let waits = NIOLockedValueBox(Waits())

  private struct Waits {
    var next = 0
    var ends: [Int: (connection: ObjectIdentifier, end: @Sendable () -> Void)] = [:]
  }

  private init(server: StoreLocation.Postgres, timeout: Duration, connection: PostgresConnection, backend: Backend?) {
    self.server = server
    self.timeout = timeout
    eventLoop = connection.eventLoop
    current = NIOLockedValueBox(connection)
    if let backend { backends.withLockedValue { $0[ObjectIdentifier(connection)] = backend } }
    watch(connection)
  }

  /// Once `connection` closes, the statements still waiting on it end as lost. (A connection is closed before it
  /// is freed, so its identifier is not yet another's when this runs.)
  private func watch(_ connection: PostgresConnection) {
    let id = ObjectIdentifier(connection)
    connection.closeFuture.whenComplete { [waits] _ in
      let ends = waits.withLockedValue { waits in
        let theirs = waits.ends.filter { $0.value.connection == id }
        for key in theirs.keys { waits.ends[key] = nil }
        return theirs.values.map(\.end)
      }
      ends.forEach { $0() }
    }
  }

  /// Connects to `server`, within `timeout`, answering on `loop` (and so does every connection made again).
  /// A server that says it is starting up or shutting down (a restart under way) is tried again until `timeout`;
  /// one that refuses the connection is not, since that is as often a wrong port as a restart.
  static func connect(
    _ server: StoreLocation.Postgres, timeout: Duration, on loop: any EventLoop
  ) async throws -> PostgresLink {
    let deadline = ContinuousClock.now + timeout
    var pause = Duration.milliseconds(100)
    while true {
      do {
        let (connection, backend) = try await open(server, timeout: timeout, on: loop)
        return PostgresLink(server: server, timeout: timeout, connection: connection, backend: backend)
      } catch let error as PSQLError where Self.isRestarting(error) {
        guard ContinuousClock.now + pause < deadline else { throw error }
        try await Task.sleep(for: pause)
        pause = min(pause * 2, .seconds(1))
      }
    }
  }

  /// A new connection, and the server process behind it.
  private static func open(
    _ server: StoreLocation.Postgres, timeout: Duration, on loop: any EventLoop
  ) async throws -> (PostgresConnection, Backend?) {
    let connection = try await connection(server, timeout: timeout, on: loop)
    do {
      let backend = try await within(timeout, on: loop, onExpiry: { drop(connection) }) {
        let rows = try await connection.query(
          "SELECT pid, backend_start::text FROM pg_stat_activity WHERE pid = pg_backend_pid()",
          logger: AuditStore.quietLogger)
        for try await (pid, started) in rows.decode((Int32, String?).self) {
          return started.map { Backend(pid: pid, started: $0) }
        }
        return Backend?.none
      }
      return (connection, backend)
    } catch {
      drop(connection)
      throw error
    }
  }

  private static func connection(
    _ server: StoreLocation.Postgres, timeout: Duration, on loop: any EventLoop
  ) async throws -> PostgresConnection {
    let tls = try Self.tls(server)
    var configuration =
      server.socketPath.map {
        PostgresConnection.Configuration(
          unixSocketPath: $0, username: server.user, password: server.password, database: server.database)
      }
      ?? PostgresConnection.Configuration(
        host: server.host, port: server.port, username: server.user, password: server.password,
        database: server.database, tls: tls)
    // Commits wait for the server's disk (synchronous_commit stays on): a commit acknowledged and then lost in a
    // server's crash would be an input counted as stored that is not. Inputs go many to a transaction, so the wait
    // is paid once for each batch.
    // The driver bounds the TCP connection; the login after it is bounded below, as a partition can hold it too.
    configuration.options.connectTimeout = .nanoseconds(nanoseconds(timeout))
    return try await Self.within(timeout, on: loop, onExpiry: {}) { [configuration] in
      try await PostgresConnection.connect(
        on: loop, configuration: configuration, id: 1, logger: AuditStore.quietLogger)
    }
  }

  /// TLS as libpq's `sslmode` has it: `prefer` and `require` take any certificate (they guard against listening,
  /// not against a server that is not the one meant), `verify-ca` one signed by a trusted authority, `verify-full`
  /// one for the host's name too.
  static func tls(_ server: StoreLocation.Postgres) throws -> PostgresConnection.Configuration.TLS {
    var configuration = TLSConfiguration.makeClientConfiguration()
    switch server.tls {
    case .disable: return .disable
    case .allow, .prefer, .require: configuration.certificateVerification = .none
    case .verifyCA: configuration.certificateVerification = .noHostnameVerification
    case .verifyFull: configuration.certificateVerification = .fullVerification
    }
    if let roots = server.rootCertificates { configuration.trustRoots = .file(roots) }
    let context = try NIOSSLContext(configuration: configuration)
    return server.tls >= .require ? .require(context) : .prefer(context)
  }

  /// Closes the connection in use, if any, and opens another, trying again until `deadline` while the server is
  /// down or starting up.
  ///
  /// The server processes of the connections given up on are then stopped, and waited for: a transaction whose
  /// commit was still waiting on the server (its disk, a synchronous standby) is then committed or not for good, and
  /// one waiting on a lock no longer holds a connection, so that what is written next is not written twice.
  func reconnect(until deadline: ContinuousClock.Instant) async throws {
    if let old = current.withLockedValue({ state in
      defer { state = nil }; return state
    }) {
      abandon(old)
    }
    var pause = Duration.milliseconds(100)
    while true {
      let left = deadline - .now
      do {
        let (connection, backend) = try await Self.open(
          server, timeout: min(timeout, max(left, .milliseconds(100))), on: eventLoop)
        if let backend { backends.withLockedValue { $0[ObjectIdentifier(connection)] = backend } }
        watch(connection)
        do {
          try await stopAbandoned(on: connection, until: deadline)
        } catch {
          abandon(connection)
          throw error
        }
        current.withLockedValue { $0 = connection }
        return
      } catch {
        guard ContinuousClock.now + pause < deadline, Self.isLost(error) else { throw error }
        try await Task.sleep(for: pause)
        pause = min(pause * 2, .seconds(1))
      }
    }
  }

  /// Closes `connection` without waiting, its server process kept to be stopped once connected again.
  private func abandon(_ connection: PostgresConnection) {
    if let backend = backends.withLockedValue({ $0.removeValue(forKey: ObjectIdentifier(connection)) }) {
      abandoned.withLockedValue { if !$0.contains(backend) { $0.append(backend) } }
    }
    Self.drop(connection)
  }

  /// Stops the server processes of the connections given up on, on `connection`, and waits until they are gone;
  /// ``StoreFault/stillRunning`` when one is still there at `deadline` (a role not allowed to stop it).
  private func stopAbandoned(on connection: PostgresConnection, until deadline: ContinuousClock.Instant) async throws {
    for backend in abandoned.withLockedValue({ $0 }) {
      let (pid, started) = (backend.pid, backend.started)
      let matching = "FROM pg_stat_activity WHERE pid = $1 AND backend_start::text = $2"
      var stopping = true
      while true {
        let left = deadline - .now
        let there = try await Self.within(
          min(timeout, max(left, .milliseconds(100))), of: timeout, on: eventLoop, onExpiry: { Self.drop(connection) }
        ) { [stopping] in
          // A process that is gone matches nothing: the server restarted, or the connection's end reached it.
          let query = PostgresQuery(
            unsafeSQL: (stopping ? "SELECT pg_terminate_backend(pid) " : "SELECT pid ") + matching,
            binds: Self.binds(pid, started))
          var count = 0
          for try await _ in try await connection.query(query, logger: AuditStore.quietLogger) { count += 1 }
          return count
        }
        stopping = false
        if there == 0 { break }
        guard ContinuousClock.now < deadline else { throw StoreFault.stillRunning(pid) }
        try await Task.sleep(for: .milliseconds(20))
      }
      abandoned.withLockedValue { $0.removeAll { $0 == backend } }
    }
  }

  private static func binds(_ pid: Int32, _ started: String) -> PostgresBindings {
    var binds = PostgresBindings()
    binds.append(pid)
    binds.append(started)
    return binds
  }

  /// Closes `connection` without waiting.
  private static func drop(_ connection: PostgresConnection) {
    let closing: EventLoopFuture<Void> = connection.close()
    closing.whenComplete { _ in }
  }

  /// Closes the connection, after stopping the server processes of the connections given up on that no reconnection
  /// stopped (a reader's, a writer's last): one waiting on a lock stayed until the lock was released, holding a
  /// connection slot, and a reader run from cron during a long `VACUUM FULL` filled the server's slots.
  func close() async throws {
    let connection = current.withLockedValue { state in
      defer { state = nil }; return state
    }
    if !abandoned.withLockedValue(\.isEmpty) {
      // On the connection still open, else on a new one; briefly, as the command is ending: a server that does not
      // answer is told already, and the processes of a server that went are gone with it.
      let deadline = ContinuousClock.now + min(timeout, .seconds(3))
      let stopper: PostgresConnection? =
        if let connection { connection } else {
          try? await Self.open(server, timeout: deadline - .now, on: eventLoop).0
        }
      if let stopper {
        try? await stopAbandoned(on: stopper, until: deadline)
        if stopper !== connection { try? await stopper.close().get() }
      }
    }
    try await connection?.close().get()
  }

  func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void>
  {
    let promise = eventLoop.makePromise(of: Void.self)
    promise.completeWithTask { try await self.execute(sql: query, onRow) }
    return promise.futureResult
  }

  func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
    guard let connection = current.withLockedValue({ $0 }) else { throw StoreFault.lost }
    let database = connection.sql(queryLogLevel: nil, logger: AuditStore.quietLogger)
    let heard = NIOLockedValueBox(ContinuousClock.now)
    // A statement sent on a connection already closed (the server went while the run had nothing to write) is never
    // answered: the driver's write fails with no one to tell (postgres-nio 1.33), and the statement would wait out
    // the whole timeout. Its closing ends the wait instead, at once, as a lost connection, which is made again.
    let key = waits.withLockedValue { waits in
      defer { waits.next += 1 }
      return waits.next
    }
    defer { waits.withLockedValue { _ = $0.ends.removeValue(forKey: key) } }
    try await Self.within(
      timeout, on: eventLoop,
      ending: { [waits] end in
        waits.withLockedValue { $0.ends[key] = (ObjectIdentifier(connection), end) }
        // Closed before that: its watcher has run already.
        if connection.isClosed { end() }
      }, lastHeard: { heard.withLockedValue { $0 } },
      onExpiry: { [current] in
        // Closed, so that the statement, if it ever ends, ends in an error; and forgotten, so nothing else waits.
        // The server may still be running it (a commit waiting on its disk): its process is stopped on reconnecting.
        current.withLockedValue { if $0 === connection { $0 = nil } }
        self.abandon(connection)
      }
    ) {
      try await database.execute(sql: query) { row in
        heard.withLockedValue { $0 = .now }
        onRow(row)
      }
    }
  }

  /// `body`'s result, or ``StoreFault/noAnswer(_:)`` once `timeout` has passed since `lastHeard` (by default, the
  /// start) and `onExpiry` has run, or ``StoreFault/lost`` once the function handed to `ending` is called first;
  /// `body` is then left to end on its own. The fault says `budget` when given: the whole wait this one ends, of
  /// which `timeout` was what was left (it said "within 2.999 s" beside "within 3 s").
  private static func within<T: Sendable>(
    _ timeout: Duration, of budget: Duration? = nil, on loop: any EventLoop,
    ending: ((@escaping @Sendable () -> Void) -> Void)? = nil,
    lastHeard: @escaping @Sendable () -> ContinuousClock.Instant = { [start = ContinuousClock.now] in start },
    onExpiry: @escaping @Sendable () -> Void, _ body: @escaping @Sendable () async throws -> T
  ) async throws -> T {
    let waiting = NIOLockedValueBox<CheckedContinuation<T, any Error>?>(nil)
    @Sendable func resume(_ result: Result<T, any Error>) -> Bool {
      waiting.withLockedValue { continuation in
        defer { continuation = nil }
        continuation?.resume(with: result)
        return continuation != nil
      }
    }
    return try await withCheckedThrowingContinuation { continuation in
      waiting.withLockedValue { $0 = continuation }
      @Sendable func watch() {
        let quiet = ContinuousClock.now - lastHeard()
        if quiet >= timeout {
          if resume(.failure(StoreFault.noAnswer(budget ?? timeout))) { onExpiry() }
        } else if waiting.withLockedValue({ $0 != nil }) {
          loop.scheduleTask(in: .nanoseconds(Self.nanoseconds(timeout - quiet))) { watch() }
        }
      }
      loop.scheduleTask(in: .nanoseconds(Self.nanoseconds(timeout))) { watch() }
      ending?({ _ = resume(.failure(StoreFault.lost)) })
      Task {
        do { _ = resume(.success(try await body())) } catch { _ = resume(.failure(error)) }
      }
    }
  }

  private static func nanoseconds(_ duration: Duration) -> Int64 {
    duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
  }

  /// Whether `error` says the connection was lost or the server is (re)starting or stopping, rather than that a
  /// statement was wrong: what a reconnection may mend.
  static func isLost(_ error: any Error) -> Bool {
    if let fault = error as? StoreFault {
      switch fault {
      case .gone, .stillRunning, .stalled: return false
      default: return true
      }
    }
    guard let psql = error as? PSQLError else { return false }
    switch psql.code {
    case .serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown: return true
    case .server:
      // 08: connection exceptions; 57: the server shutting down, crashed or starting up.
      return psql.serverInfo?[.sqlState]?.hasPrefix("08") == true || isRestarting(psql)
    default: return false
    }
  }

  /// Whether the server said it is shutting down, crashed or is starting up (SQLSTATE class 57), which a connection
  /// made again may get past: not 57014, a statement it cancelled (`statement_timeout`, `pg_cancel_backend`), which
  /// was said as a lost connection and sent again until the timeout, to be cancelled again.
  static func isRestarting(_ error: PSQLError) -> Bool {
    guard let state = error.serverInfo?[.sqlState] else { return false }
    return state.hasPrefix("57") && state != "57014"
  }
}

/// What went wrong with a store's connection, in words.
enum StoreFault: Error, Sendable, CustomStringConvertible {
  /// The server said nothing for this long.
  case noAnswer(Duration)
  /// The connection was lost (earlier, or while a statement waited), and has not been made again.
  case lost
  /// The connection was lost and could not be made again within the timeout; the last attempt's error, and whether
  /// it was lost as a transaction committed.
  case gone(after: any Error, timeout: Duration, commitUnknown: Bool)
  /// The connection was lost as a transaction committed: whether it did is unknown until the store is reached.
  case commitUnknown(after: any Error)
  /// The server process of a connection given up on (this pid) was still there when the time to write again was up:
  /// what it was running may yet be committed.
  case stillRunning(Int32)
  /// A statement went unanswered for this long, and again once the connection was made again: the server is
  /// there, and busy (a lock another session holds, a disk or a standby that does not answer).
  case stalled(Duration)

  /// Whether the server did not answer a statement in time (one that committed, too).
  var isNoAnswer: Bool {
    switch self {
    case .noAnswer: true
    case .commitUnknown(let fault as StoreFault): fault.isNoAnswer
    default: false
    }
  }

  /// Whether it is ``stillRunning(_:)``.
  var isStillRunning: Bool {
    if case .stillRunning = self { return true }
    return false
  }

  var description: String {
    switch self {
    case .gone(let fault as StoreFault, _, _) where !fault.isLost:
      fault.description
    case .gone(let error, let timeout, _):
      "lost the connection and could not connect again within \(AuditStore.seconds(timeout)) ("
        + AuditStore.describe(error) + ")"
    case .commitUnknown(let error): AuditStore.describe(error) + ", as a transaction committed"
    case .noAnswer(let timeout): "the server did not answer within \(AuditStore.seconds(timeout))"
    case .lost: "the connection to the server was lost"
    case .stalled(let timeout):
      "the server did not answer within \(AuditStore.seconds(timeout)), nor after connecting again"
    case .stillRunning(let pid):
      "a statement given up on is still running on the server (process \(pid)), and could not be stopped"
    }
  }

  /// Whether a connection made again may mend it.
  private var isLost: Bool { PostgresLink.isLost(self) }
}
