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
  }

  /// Where it is.
  public let location: StoreLocation
  /// The connection, as SQLKit speaks to it.
  let sql: any SQLDatabase
  /// SQLite or PostgreSQL, where their SQL differs.
  let dialect: Dialect
  private let closeConnection: @Sendable () async throws -> Void
  /// The text of each multi-row INSERT already made, by shape (see ``insert(into:columns:rows:returning:_:)``).
  let statementTexts = NIOLockedValueBox<[String: String]>([:])

  /// The two databases, where their SQL differs.
  enum Dialect: Sendable {
    case sqlite, postgres
  }

  private init(
    location: StoreLocation, sql: any SQLDatabase, dialect: Dialect, close: @escaping @Sendable () async throws -> Void
  ) {
    self.location = location
    self.sql = sql
    self.dialect = dialect
    closeConnection = close
  }

  /// Opens the store, creating it on first use (a SQLite file with mode 0600) and bringing its schema up to date.
  public static func open(_ location: StoreLocation) async throws(Failure) -> AuditStore {
    let store: AuditStore
    do {
      switch location {
      case .sqlite(let path): store = try await openSQLite(path, location: location)
      case .postgres(let server): store = try await openPostgres(server, location: location)
      }
    } catch let failure as Failure {
      throw failure
    } catch {
      throw Failure(description: "\(location): cannot open the store: \(location.masking(describe(error)))")
    }
    do {
      try await StoreSchema.migrate(store)
    } catch let failure as Failure {
      try? await store.close()
      throw failure
    } catch {
      try? await store.close()
      throw Failure(description: "\(location): cannot use the store: \(location.masking(describe(error)))")
    }
    return store
  }

  private static func openSQLite(_ path: String, location: StoreLocation) async throws -> AuditStore {
    // Created here, not by SQLite, so that the file is the owner's alone from its first byte.
    let descriptor = Foundation.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    if descriptor < 0, errno != EACCES && errno != EROFS {
      throw Failure(description: "\(location): cannot create the store: \(String(cString: strerror(errno)))")
    }
    if descriptor >= 0 { Foundation.close(descriptor) }
    let connection = try await SQLiteConnection.open(storage: .file(path: path), logger: quietLogger)
    let sql = connection.sql()
    do {
      // Writers on one machine wait for each other rather than fail.
      _ = try await sql.raw("PRAGMA busy_timeout = 30000").all()
      // In WAL mode NORMAL syncs at checkpoints, not at every input's commit: a power cut may lose the last inputs,
      // never the store's consistency.
      _ = try await sql.raw("PRAGMA synchronous = NORMAL").all()
    } catch {
      try? await connection.close()
      throw error
    }
    return AuditStore(
      location: location, sql: sql, dialect: .sqlite, close: { try await connection.close() })
  }

  private static func openPostgres(_ server: StoreLocation.Postgres, location: StoreLocation) async throws
    -> AuditStore
  {
    let tls: PostgresConnection.Configuration.TLS =
      server.requireTLS ? .require(try .init(configuration: .makeClientConfiguration())) : .disable
    var configuration = PostgresConnection.Configuration(
      host: server.host, port: server.port, username: server.user, password: server.password,
      database: server.database, tls: tls)
    // As SQLite's NORMAL: a commit does not wait for the server's disk, so a server that crashes may lose the last
    // inputs, never the store's consistency. Set as the session starts, so it costs no round trip of its own.
    configuration.options.additionalStartupParameters = [("synchronous_commit", "off")]
    let connection = try await PostgresConnection.connect(
      on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: 1, logger: quietLogger)
    return AuditStore(
      location: location, sql: connection.sql(), dialect: .postgres, close: { try await connection.close() })
  }

  /// Closes the connection.
  public func close() async throws { try await closeConnection() }

  /// Runs `body` in one transaction: all of it is stored, or none of it. SQLite's takes the write lock at once, so
  /// writers on one machine queue rather than deadlock.
  func transaction<T>(_ body: () async throws -> T) async throws -> T {
    _ = try await sql.raw(dialect == .sqlite ? "BEGIN IMMEDIATE" : "BEGIN").all()
    do {
      let value = try await body()
      _ = try await sql.raw("COMMIT").all()
      return value
    } catch {
      _ = try? await sql.raw("ROLLBACK").all()
      throw error
    }
  }

  /// Turns a driver's error into the words a user can act on.
  static func describe(_ error: any Error) -> String {
    if let psql = error as? PSQLError {
      if let message = psql.serverInfo?[.message] { return message }
      switch psql.code {
      case .connectionError, .uncleanShutdown: return "cannot connect to the server"
      default: return "\(psql.code)"
      }
    }
    if let sqlite = error as? SQLiteError { return sqlite.message }
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
