import Foundation
import IPALinksKit
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PostgresKit
import SQLKit
import SQLiteKit

/// The audit store: every run of ipalinks kept, with the apps it inspected and the AASA files it retrieved, in a
/// SQLite file or a PostgreSQL database (``StoreLocation``), through SQLKit, so one set of queries serves both.
///
/// Opening applies the schema's migrations (``StoreSchema``) and refuses, untouched, a store a newer ipalinks wrote.
/// Every value reaches SQL as a bound parameter.
public final class AuditStore: @unchecked Sendable {
  /// Why the store cannot be used: one line naming it, with any password masked.
  public struct Failure: Error, Sendable, CustomStringConvertible {
    /// The message.
    public var description: String
    /// Whether the store's file was removed or replaced while it was open, taking what was written with it.
    public var fileRemoved = false
    /// Whether the connection was lost as a transaction committed and could not be made again, so that only the
    /// store knows whether that transaction's inputs were stored.
    public var commitUnknown = false
    /// Whether a PostgreSQL connection was lost (or given up on), which a connection made again may mend.
    var lost = false
  }

  /// Where it is.
  public let location: StoreLocation
  /// The connection, as SQLKit speaks to it.
  let sql: any SQLDatabase
  /// SQLite or PostgreSQL, where their SQL differs.
  let dialect: Dialect
  private let closeConnection: @Sendable () async throws -> Void
  /// A PostgreSQL store's connection, which can be made again.
  private let link: PostgresLink?
  /// Where its connection and its run's work run.
  let threads: StoreThreads
  /// A SQLite store's file as it was opened (device and inode), to notice it removed or replaced.
  private let file: (device: UInt64, inode: UInt64)?
  /// Whether opening it made its SQLite file, which ``close(removingIfEmpty:)`` may then take back.
  private let madeFile: Bool
  /// The text of each multi-row INSERT already made, by shape (see ``insert(into:columns:rows:returning:_:)``).
  let statementTexts = NIOLockedValueBox<[String: String]>([:])
  /// By observation table, whether the last batch's observations were mostly new, so the next inserts them before
  /// it looks for them (``observations(in:columns:rows:inserted:)``).
  let mostlyNew = NIOLockedValueBox<[String: Bool]>([:])

  /// The two databases, where their SQL differs.
  enum Dialect: Sendable {
    case sqlite, postgres
  }

  private init(
    location: StoreLocation, sql: any SQLDatabase, dialect: Dialect, threads: StoreThreads,
    link: PostgresLink? = nil, file: (device: UInt64, inode: UInt64)? = nil, madeFile: Bool = false,
    close: @escaping @Sendable () async throws -> Void
  ) {
    self.location = location
    self.threads = threads
    self.link = link
    self.file = file
    self.madeFile = madeFile
    self.sql = sql
    self.dialect = dialect
    closeConnection = close
  }

  /// Opens the store and brings its schema up to date; `creating` a SQLite file (mode 0600) that is not there yet,
  /// as the commands that write do. Without it, a file that is not there is "no such store", and nothing is made:
  /// a reader given a mistyped path says so rather than answering from an empty store it created; nor is an empty
  /// file made a store. A store that records `inBackground` of other work (an inspection) works on threads below the
  /// command's (``StoreThreads``).
  public static func open(
    _ location: StoreLocation, creating: Bool = true, inBackground: Bool = false
  ) async throws(Failure) -> AuditStore {
    try await open(location, creating: creating, schema: StoreSchema.version, inBackground: inBackground)
  }

  /// Opens the store with its schema brought up to `schema`: a test makes a store as an older build did.
  static func open(
    _ location: StoreLocation, creating: Bool, schema: Int, inBackground: Bool = false
  ) async throws(Failure) -> AuditStore {
    let threads = inBackground ? StoreThreads.background : StoreThreads.shared
    let store: AuditStore
    do {
      switch location {
      case .sqlite(let path):
        if !creating {
          var info = stat()
          guard stat(path, &info) == 0 else {
            throw Failure(description: "\(location): no such store (inspect --store makes one)")
          }
          // SQLite takes an empty file for an empty database, and the schema would be written into it: a reader
          // given a file it was not meant to have (a `touch`ed name, a placeholder) would turn it into a store.
          if info.st_mode & S_IFMT == S_IFREG && info.st_size == 0 {
            throw Failure(description: "\(location): empty (0 bytes), not a store yet (inspect --store makes one)")
          }
        }
        store = try await openSQLite(path, location: location, threads: threads)
      case .postgres(let server): store = try await openPostgres(server, location: location, threads: threads)
      }
    } catch let failure as Failure {
      throw failure
    } catch {
      throw Failure(description: "\(location): cannot open the store: \(location.masking(describe(error)))")
    }
    do {
      // A reader given a database that holds no store (an empty PostgreSQL database, another program's SQLite file)
      // says so, and writes nothing into it: it answered "no runs", exit 0, and left the store's tables behind.
      // Asked again on a connection made again: a restart as the command starts must not cost it the run.
      var exists = true
      try await store.resilient(committed: { false }) { exists = try await StoreSchema.exists(store) }
      if !creating, !exists {
        throw Failure(
          description: "\(location): holds no ipalinks store (no ipalinks_schema table); inspect --store makes one")
      }
      // Nor does a writer make its tables beside another program's, in a SQLite file that is not a store: they
      // were added to it. (A PostgreSQL database may be shared with other programs on purpose.) The tables are
      // counted in the same read as the schema table: another writer making the same new store meanwhile makes
      // that table first, and of four writers at once one saw its one table, read apart, as another program's.
      if !exists, store.dialect == .sqlite,
        let row = try await store.sql.raw(
          """
          SELECT COUNT(*) AS n, COALESCE(SUM(name = 'ipalinks_schema'), 0) AS schema FROM sqlite_master
          WHERE type = 'table'
          """
        ).first(),
        let tables = try? row.decode(column: "n", as: Int.self), tables > 0,
        (try? row.decode(column: "schema", as: Int.self)) == 0
      {
        throw Failure(
          description: "\(location): a SQLite database of another program (\(TerminalText.count(tables, "table")), no "
            + "ipalinks_schema), not an ipalinks store; give --store a new file")
      }
      try await store.resilient(committed: { false }) { try await StoreSchema.migrate(store, to: schema) }
    } catch let failure as Failure {
      try? await store.close()
      throw failure
    } catch {
      try? await store.close()
      throw Failure(description: "\(location): cannot use the store: \(location.masking(describe(error)))")
    }
    return store
  }

  private static func openSQLite(
    _ path: String, location: StoreLocation, threads: StoreThreads
  ) async throws -> AuditStore {
    // Created here, not by SQLite, so that the file is the owner's alone from its first byte; exclusively first,
    // to know whether this open made it.
    // A device or a pipe is no store, and SQLite would make its journal beside it (`--store /dev/null` left
    // `/dev/null-journal`).
    var info = stat()
    if stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG, info.st_mode & S_IFMT != S_IFDIR {
      throw Failure(description: "\(location): not a regular file, so not a store (a SQLite file)")
    }
    var descriptor = Foundation.open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    let madeFile = descriptor >= 0
    if descriptor < 0, errno == EEXIST { descriptor = Foundation.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
    if descriptor < 0, errno != EACCES && errno != EROFS {
      // A reader never gets here for a missing file; a folder is what it, and a writer, may have been given.
      if errno == EISDIR { throw Failure(description: "\(location): a folder, not a store (a SQLite file)") }
      throw Failure(description: "\(location): cannot create the store: \(String(cString: strerror(errno)))")
    }
    if descriptor >= 0 { Foundation.close(descriptor) }
    let connection = try await SQLiteConnection.open(
      storage: .file(path: path), threadPool: threads.pool, logger: quietLogger, on: threads.loop)
    let sql = connection.sql()
    do {
      // Writers on one machine wait for each other rather than fail, as long as a server's answer is waited for.
      // In milliseconds, rounded up: `--store-timeout 0.5` waits half a second, not none.
      let waiting = Int((timeout / .milliseconds(1)).rounded(.up))
      _ = try await sql.raw("PRAGMA busy_timeout = \(unsafeRaw: String(waiting))").all()
      // In WAL mode NORMAL syncs at checkpoints, not at every input's commit: a power cut may lose the last inputs,
      // never the store's consistency.
      _ = try await sql.raw("PRAGMA synchronous = NORMAL").all()
    } catch {
      try? await connection.close()
      throw error
    }
    return AuditStore(
      location: location, sql: sql, dialect: .sqlite, threads: threads, file: identity(path), madeFile: madeFile,
      close: { try await connection.close() })
  }

  /// Runs `body` again while SQLite answers "database is locked" at once, up to the store's ``timeout``.
  ///
  /// The busy timeout covers a lock taken from nothing, not one raised from reading to writing: SQLite answers that
  /// at once, as waiting could deadlock. Switching a new store to WAL does just that, so writers opening a new store
  /// together (four shards started at once) saw one of them fail (1 in 40 such starts here).
  func retryingWhileBusy(_ body: () async throws -> Void) async throws {
    let deadline = ContinuousClock.now + Self.timeout
    while true {
      do {
        return try await body()
      } catch let error as SQLiteError where error.reason == .busy && ContinuousClock.now < deadline {
        // A pause of a few milliseconds, not the same in each process, so that they do not meet again.
        try await Task.sleep(for: .milliseconds(Int.random(in: 2...20)))
      }
    }
  }

  private static func openPostgres(
    _ server: StoreLocation.Postgres, location: StoreLocation, threads: StoreThreads
  ) async throws -> AuditStore {
    let link = try await PostgresLink.connect(server, timeout: timeout, on: threads.loop)
    return AuditStore(
      location: location, sql: link, dialect: .postgres, threads: threads, link: link,
      close: { try await link.close() })
  }

  /// Closes the connection.
  public func close() async throws { try await closeConnection() }

  /// Closes the connection and, when opening it made the SQLite file and no run is in it (the command's arguments
  /// named nothing to store), removes the file: a mistyped input must not leave an empty store behind, which
  /// readers would take for one. Says whether it removed it.
  @discardableResult
  public func close(removingIfEmpty: Bool) async -> Bool {
    var empty = false
    if removingIfEmpty, madeFile, case .sqlite(let path) = location, (try? checkFile()) != nil {
      let runs = try? await sql.raw("SELECT COUNT(*) AS n FROM runs").first(decodingColumn: "n", as: Int.self)
      empty = runs == 0
      try? await close()
      // A writer that opened the new file since then finds it removed as it writes, and says so.
      if empty, (try? checkFile()) != nil {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
        return true
      }
      return false
    }
    try? await close()
    return false
  }

  /// The device and inode of the file at `path`, if there is one.
  private static func identity(_ path: String) -> (device: UInt64, inode: UInt64)? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return (UInt64(info.st_dev), UInt64(info.st_ino))
  }

  /// Throws when a SQLite store's file is no longer the one opened (removed, or replaced): SQLite would go on
  /// writing to a file nobody can open again.
  func checkFile() throws(Failure) {
    guard case .sqlite(let path) = location, let file else { return }
    guard let now = Self.identity(path), now == file else {
      throw Failure(
        description: "\(location): the store's file was removed or replaced while the run went on", fileRemoved: true)
    }
  }

  /// How long a store may keep a command waiting: a PostgreSQL server's answer to connecting or to a statement
  /// (rows that keep coming are an answer), a reconnection, or SQLite's lock held by another writer. 30 seconds
  /// unless set (`--store-timeout`) before a store is opened.
  public static var timeout: Duration {
    get { configuredTimeout.withLockedValue { $0 } }
    set { configuredTimeout.withLockedValue { $0 = newValue } }
  }
  private static let configuredTimeout = NIOLockedValueBox(Duration.seconds(30))

  /// `duration` in seconds, for messages: `30 s`, `0.5 s`.
  static func seconds(_ duration: Duration) -> String {
    let (whole, fraction) = duration.components
    guard fraction != 0 else { return "\(whole) s" }
    return "\((Double(whole) + Double(fraction) / 1e18).formatted(.number.precision(.fractionLength(0...3)))) s"
  }

  /// Runs `write`, one transaction, again after a PostgreSQL connection was lost: the connection is made again
  /// (tried until ``timeout`` has passed), and `committed` tells whether the transaction under way when it was
  /// lost was committed after all, so that nothing is written twice. On SQLite, and when the connection cannot be
  /// made again, the error is thrown.
  func resilient(
    committed: () async throws -> Bool, _ write: () async throws -> Void
  ) async throws {
    var lostAt: ContinuousClock.Instant?
    // Whether a transaction was lost as it committed, since the connection was first lost.
    var unknown = false
    while true {
      do {
        if lostAt != nil, try await committed() { return }
        return try await write()
      } catch {
        guard let link, PostgresLink.isLost(error) else { throw error }
        let since = lostAt ?? .now
        lostAt = since
        if case .commitUnknown = error as? StoreFault { unknown = true }
        // Tried again until the timeout after the first loss, and no longer: a server that answers connections
        // but not statements (a lock held, a stalled disk) would otherwise keep the run trying for ever.
        if ContinuousClock.now >= since + Self.timeout {
          let stalled = (error as? StoreFault)?.isNoAnswer ?? false
          throw StoreFault.gone(
            after: stalled ? StoreFault.stalled(Self.timeout) : error, timeout: Self.timeout, commitUnknown: unknown)
        }
        do { try await link.reconnect(until: since + Self.timeout) } catch {
          // A statement given up on that could not be stopped may yet commit.
          let running = (error as? StoreFault)?.isStillRunning ?? false
          throw StoreFault.gone(after: error, timeout: Self.timeout, commitUnknown: unknown || running)
        }
      }
    }
  }

  /// `body`, a read, again on a connection made again (until ``timeout`` after the loss) when its connection was
  /// lost: what a writer reads before it writes, as a restart as it starts must not cost it the run.
  func rereading<T>(_ body: () async throws(Failure) -> T) async throws(Failure) -> T {
    let since = ContinuousClock.now
    while true {
      do {
        return try await body()
      } catch let failure {
        guard failure.lost, let link, ContinuousClock.now < since + Self.timeout else { throw failure }
        do { try await link.reconnect(until: since + Self.timeout) } catch { throw failure }
      }
    }
  }

  /// Runs `body` in one transaction: all of it is stored, or none of it. SQLite's takes the write lock at once, so
  /// writers on one machine queue rather than deadlock.
  func transaction<T>(_ body: () async throws -> T) async throws -> T {
    _ = try await sql.raw(dialect == .sqlite ? "BEGIN IMMEDIATE" : "BEGIN").all()
    let value: T
    do {
      value = try await body()
    } catch {
      _ = try? await sql.raw("ROLLBACK").all()
      throw error
    }
    do {
      _ = try await sql.raw("COMMIT").all()
    } catch  where PostgresLink.isLost(error) {
      // The server may have committed before the connection went: only the store can tell, once reached again.
      throw StoreFault.commitUnknown(after: error)
    }
    return value
  }

  /// Turns a driver's error into the words a user can act on: never the driver's own names for them.
  static func describe(_ error: any Error) -> String {
    if let psql = error as? PSQLError {
      if let message = psql.serverInfo?[.message] { return message }
      switch psql.code {
      case .connectionError:
        return "cannot connect to the server" + (psql.underlying.map { ": " + describe($0) } ?? "")
      case .serverClosedConnection, .uncleanShutdown: return "the server closed the connection"
      case .clientClosedConnection: return "the connection was closed"
      case .sslUnsupported: return "the server does not offer TLS, which sslmode requires"
      case .failedToAddSSLHandler, .receivedUnencryptedDataAfterSSLRequest: return "TLS could not be set up"
      case .unsupportedAuthMechanism, .saslError: return "the server asks for a login this client does not support"
      case .authMechanismRequiresPassword: return "the server asks for a password, and none was given"
      case .queryCancelled: return "the statement was cancelled"
      case .tooManyParameters: return "a statement has too many values"
      default: return "the server's answer could not be understood"
      }
    }
    if let sqlite = error as? SQLiteError { return sqlite.message }
    if let io = error as? IOError { return String(cString: strerror(io.errnoCode)).lowercased() }
    if let connect = error as? NIOConnectionError {
      if let first = connect.connectionErrors.first { return describe(first.error) }
      // No address was tried: the name did not resolve (said once; the caller says it could not connect).
      return connect.dnsAError != nil || connect.dnsAAAAError != nil
        ? "\(connect.host) does not resolve" : "no address for \(connect.host)"
    }
    if let tls = TLSFailureText.describe(error) { return tls }
    if error is ChannelError { return "the connection failed" }
    return "\(error)"
  }

  /// The drivers log nothing: every problem reaches the user as one error.
  static let quietLogger: Logger = {
    var logger = Logger(label: "ipalinks.store")
    logger.logLevel = .critical
    return logger
  }()

  /// An instant as the store writes it: ISO 8601 in UTC with milliseconds, which sorts as text in both databases.
  static func timestamp(_ date: Date) -> String { Clock.rfc3339(date, milliseconds: true) }
}
