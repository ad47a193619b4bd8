import Foundation
import IPALinksKit
import SQLKit
import UniversalLinks

extension AuditStore {
  /// What the latest run (started at `time` or before; the latest of all when nil) changed against the runs before
  /// it: each host whose file it retrieved differs from the host's last answer before it that settled what the file
  /// is, with the behavioural changes; and each app it inspected whose associated domains or URL schemes differ from
  /// the app's observation before, or that no run saw before. Nil when the store has no run then.
  ///
  /// It reads what the run recorded and, through the indexes, the one row before each of its rows: not whole states
  /// nor whole histories, so it costs what the run holds however many runs came before.
  public func runChanges(at time: Date? = nil) async throws(Failure) -> RunChanges? {
    let at = AuditStore.timestamp(time ?? .distantFuture)
    let runs = try await failing("cannot read the runs") {
      try await sql.raw(
        "SELECT id, label, started_at FROM runs WHERE started_at <= \(bind: at) ORDER BY started_at DESC, id DESC LIMIT 2"
      ).all().map { row in
        (
          id: try row.decode(column: "id", as: Int.self),
          name: try row.decode(column: "label", as: String?.self)
            ?? StoreText.minute(try row.decode(column: "started_at", as: String.self)) + " UTC"
        )
      }
    }
    guard let run = runs.first else { return nil }
    guard runs.count == 2 else { return RunChanges(run: run.name, previous: nil, hosts: [], apps: []) }
    let hosts = try await changedHosts(in: run.id)
    let apps = try await changedApps(in: run.id)
    return RunChanges(run: run.name, previous: runs[1].name, hosts: hosts, apps: apps)
  }

  /// The retrievals of `run` that settle what a file is, against the one before each that did.
  private func changedHosts(in run: Int) async throws(Failure) -> [RunChanges.Host] {
    let rows = try await failing("cannot read the retrievals of run \(run)") {
      // The run's rows with the ID of the row before each, found first (MATERIALIZED): joined on a subquery instead,
      // PostgreSQL hashed every retrieval of every run to find them.
      try await sql.raw(
        """
        WITH run AS MATERIALIZED (
          SELECT r.host, r.developer_mode, r.status, r.file_sha256, (
            SELECT s.id FROM retrievals s
            WHERE s.host = r.host AND s.developer_mode = r.developer_mode AND \(Self.settling("s"))
              AND (s.retrieved_at < r.retrieved_at OR (s.retrieved_at = r.retrieved_at AND s.id < r.id))
            ORDER BY s.retrieved_at DESC, s.id DESC LIMIT 1) AS prev_id
          FROM retrievals r WHERE r.run_id = \(bind: run) AND \(Self.settling("r"))
        )
        SELECT r.host, r.developer_mode, r.status, r.file_sha256, p.status AS prev_status, p.file_sha256 AS prev_sha
        FROM run r JOIN retrievals p ON p.id = r.prev_id
        WHERE r.status <> p.status OR COALESCE(r.file_sha256, '') <> COALESCE(p.file_sha256, '')
        ORDER BY r.host, r.developer_mode
        """
      ).all()
    }
    var out: [RunChanges.Host] = []
    for row in rows {
      let (host, old, new) = try await failing("cannot read the files of run \(run)") {
        (
          try row.decode(column: "host", as: String.self),
          try await storedFile(try row.decode(column: "prev_sha", as: String?.self)),
          try await storedFile(try row.decode(column: "file_sha256", as: String?.self))
        )
      }
      let comparison = AASAComparison(old: old, new: new, host: host)
      try await failing("cannot read the retrievals of run \(run)") {
        out.append(
          RunChanges.Host(
            host: host, developerMode: try row.decode(column: "developer_mode", as: Int.self) != 0,
            oldStatus: try row.decode(column: "prev_status", as: String.self),
            newStatus: try row.decode(column: "status", as: String.self),
            changes: comparison.shared))
      }
    }
    return out
  }

  /// The apps of `run` whose domains or schemes differ from their observation before, or that have none before.
  private func changedApps(in run: Int) async throws(Failure) -> [RunChanges.App] {
    // Each app row of the run with the row of the same app before it.
    let pairs: SQLQueryString = """
      WITH pairs AS (
        SELECT a.id, (
          SELECT y.id FROM apps y WHERE y.app_key = a.app_key AND y.superseded = 0
            AND (y.observed_at < a.observed_at OR (y.observed_at = a.observed_at AND y.id < a.id))
          ORDER BY y.observed_at DESC, y.id DESC LIMIT 1) AS prev_id
        FROM apps a WHERE a.run_id = \(bind: run) AND a.superseded = 0
      )
      """
    return try await failing("cannot read the apps of run \(run)") {
      let apps = try await sql.raw(
        "\(pairs) SELECT p.id, p.prev_id, a.app_key, a.name FROM pairs p JOIN apps a ON a.id = p.id ORDER BY a.app_key"
      ).all()
      var domains: [Int: [String]] = [:]
      for row in try await sql.raw(
        """
        \(pairs) SELECT d.app, d.raw FROM app_domains d
        WHERE d.app IN (SELECT id FROM pairs UNION SELECT prev_id FROM pairs) ORDER BY d.app, d.position
        """
      ).all() {
        domains[try row.decode(column: "app", as: Int.self), default: []].append(
          try row.decode(column: "raw", as: String.self))
      }
      var schemes: [Int: [String]] = [:]
      for row in try await sql.raw(
        """
        \(pairs) SELECT s.app, s.scheme FROM app_schemes s
        WHERE s.queried = 0 AND s.app IN (SELECT id FROM pairs UNION SELECT prev_id FROM pairs)
        """
      ).all() {
        schemes[try row.decode(column: "app", as: Int.self), default: []].append(
          try row.decode(column: "scheme", as: String.self))
      }
      return try apps.compactMap { row -> RunChanges.App? in
        let id = try row.decode(column: "id", as: Int.self)
        let previous = try row.decode(column: "prev_id", as: Int?.self)
        let (domainsAdded, domainsRemoved) = Self.delta(previous.map { domains[$0] ?? [] } ?? [], domains[id] ?? [])
        let (schemesAdded, schemesRemoved) = Self.delta(previous.map { schemes[$0] ?? [] } ?? [], schemes[id] ?? [])
        let app = RunChanges.App(
          appKey: try row.decode(column: "app_key", as: String.self),
          name: try row.decode(column: "name", as: String?.self), first: previous == nil,
          domainsAdded: domainsAdded, domainsRemoved: domainsRemoved, schemesAdded: schemesAdded,
          schemesRemoved: schemesRemoved)
        let changed = ![domainsAdded, domainsRemoved, schemesAdded, schemesRemoved].allSatisfy(\.isEmpty)
        return app.first || changed ? app : nil
      }
    }
  }

  /// ``runChanges(at:)`` of the store at `location` at `time`; nil, after telling `warn` why, when it cannot be
  /// read.
  public static func runChanges(_ location: StoreLocation, at time: StoreTime?, warn: (String) -> Void) async
    -> RunChanges?
  {
    await reading(location, warn: warn) { store in
      try await store.runChanges(at: try await store.instant(time, day: .end))
    } ?? nil
  }
}
