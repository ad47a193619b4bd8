import Foundation
import IPALinksKit
import SQLKit
import UniversalLinks

extension AuditStore {
  /// What the latest runs up to `time` changed: the latest run with every run that shares its label (the shards of
  /// one audit), against the state just before the first of them, or against the state at `since` (`report
  /// --since`, named `sinceName`). When the latest runs changed nothing and no time was chosen, the runs before them
  /// are taken in too, and ``RunChanges/quiet`` names the quiet ones. Nil for a store without runs.
  ///
  /// Each host's latest answer in the window is compared with its answer at the start (the last that settled what
  /// the file is), and each app's latest observation with its observation then; the rows are found by the runs
  /// that wrote in the window, through the indexes: not whole states.
  public func runChanges(at time: Date? = nil, since: Date? = nil, sinceName: String? = nil) async throws(Failure)
    -> RunChanges?
  {
    let end = AuditStore.timestamp(time ?? .distantFuture)
    let runs = try await failing("cannot read the runs") {
      try await sql.raw(
        "SELECT id, label, started_at FROM runs WHERE started_at <= \(bind: end) ORDER BY started_at DESC, id DESC"
      ).all().map { row in
        (
          id: try row.decode(column: "id", as: Int.self), label: try row.decode(column: "label", as: String?.self),
          started: try row.decode(column: "started_at", as: String.self)
        )
      }
    }
    /// The runs of the group that ends with `runs[index]`: every run up to `end` with its label, or it alone.
    func group(from index: Int) -> (start: String, name: String, rest: Int)? {
      guard index < runs.count else { return nil }
      let latest = runs[index]
      let all = latest.label.map { label in runs.indices.filter { $0 >= index && runs[$0].label == label } } ?? [index]
      let start = all.map { runs[$0].started }.min() ?? latest.started
      let name =
        latest.label.map { all.count > 1 ? "\($0) (\(all.count) runs)" : $0 } ?? StoreText.minute(latest.started)
        + " UTC"
      // The next group starts with the first run before this one's start that is not in it.
      let rest = runs.indices.first { $0 > index && !all.contains($0) && runs[$0].started <= start } ?? runs.count
      return (start, name, rest)
    }
    guard let latest = group(from: 0) else { return nil }
    if let since {
      let base = AuditStore.timestamp(since)
      return RunChanges(
        run: latest.name, previous: sinceName ?? base, chosen: true,
        hosts: try await changedHosts(after: base, upTo: end), apps: try await changedApps(after: base, upTo: end))
    }
    guard let before = group(from: latest.rest) else {
      return RunChanges(run: latest.name, previous: nil, hosts: [], apps: [])
    }
    // Just before the group's first run: what it found is what changed since the state then.
    let base = AuditStore.timestamp((AuditStore.date(latest.start) ?? .distantPast) - 0.001)
    var changes = RunChanges(
      run: latest.name, previous: before.name, hosts: try await changedHosts(after: base, upTo: end),
      apps: try await changedApps(after: base, upTo: end))
    if changes.hosts.isEmpty && changes.apps.isEmpty, let earlier = group(from: before.rest) {
      let base = AuditStore.timestamp((AuditStore.date(before.start) ?? .distantPast) - 0.001)
      changes = RunChanges(
        run: before.name, previous: earlier.name, hosts: try await changedHosts(after: base, upTo: end),
        apps: try await changedApps(after: base, upTo: end))
      changes.quiet = latest.name
    }
    return changes
  }

  /// The runs that may have written between `base` and `end`: those that started by `end` and had not finished by
  /// `base`, so that a window's rows are found by run, not by reading every row.
  private func window(after base: String, upTo end: String) -> SQLQueryString {
    """
    SELECT u.id FROM runs u WHERE u.started_at <= \(bind: end) AND COALESCE(u.finished_at, \(bind: end)) > \(bind: base)
    """
  }

  private func changedHosts(after base: String, upTo end: String) async throws(Failure) -> [RunChanges.Host] {
    let rows = try await failing("cannot read the retrievals of the latest runs") {
      // Each host's latest answer in the window, with the one it replaced: the latest up to `base`. Found first
      // (MATERIALIZED): joined on a subquery instead, PostgreSQL hashed every retrieval of every run to find them.
      try await sql.raw(
        """
        WITH cur AS MATERIALIZED (
          SELECT r.id, r.host, r.developer_mode, r.status, o.file_sha256 FROM retrievals r
          JOIN retrieval_observations o ON o.id = r.observation
          WHERE r.run_id IN (\(window(after: base, upTo: end))) AND \(Self.settling("r"))
            AND r.retrieved_at > \(bind: base) AND r.retrieved_at <= \(bind: end)
            AND NOT EXISTS (
              SELECT 1 FROM retrievals s
              WHERE s.host = r.host AND s.developer_mode = r.developer_mode AND \(Self.settling("s"))
                AND s.retrieved_at <= \(bind: end)
                AND (s.retrieved_at > r.retrieved_at OR (s.retrieved_at = r.retrieved_at AND s.id > r.id)))
        ), run AS MATERIALIZED (
          SELECT c.host, c.developer_mode, c.status, c.file_sha256, (
            SELECT p.id FROM retrievals p
            WHERE p.host = c.host AND p.developer_mode = c.developer_mode AND \(Self.settling("p"))
              AND p.retrieved_at <= \(bind: base)
            ORDER BY p.retrieved_at DESC, p.id DESC LIMIT 1) AS prev_id
          FROM cur c
        )
        SELECT r.host, r.developer_mode, r.status, r.file_sha256, p.status AS prev_status, o.file_sha256 AS prev_sha
        FROM run r JOIN retrievals p ON p.id = r.prev_id JOIN retrieval_observations o ON o.id = p.observation
        WHERE r.status <> p.status OR COALESCE(r.file_sha256, '') <> COALESCE(o.file_sha256, '')
        ORDER BY r.host, r.developer_mode
        """
      ).all()
    }
    var out: [RunChanges.Host] = []
    for row in rows {
      let (host, old, new) = try await failing("cannot read the files of the latest runs") {
        (
          try row.decode(column: "host", as: String.self),
          try await storedFile(try row.decode(column: "prev_sha", as: String?.self)),
          try await storedFile(try row.decode(column: "file_sha256", as: String?.self))
        )
      }
      let comparison = AASAComparison(old: old, new: new, host: host)
      try await failing("cannot read the retrievals of the latest runs") {
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
  private func changedApps(after base: String, upTo end: String) async throws(Failure) -> [RunChanges.App] {
    // Each app's latest observation in the window, with the one it replaced: the latest up to `base`.
    let pairs: SQLQueryString = """
      WITH cur AS (
        SELECT a.id, a.app_key FROM apps a
        WHERE a.run_id IN (\(window(after: base, upTo: end))) AND a.superseded = 0
          AND a.observed_at > \(bind: base) AND a.observed_at <= \(bind: end)
          AND NOT EXISTS (
            SELECT 1 FROM apps y WHERE y.app_key = a.app_key AND y.superseded = 0 AND y.observed_at <= \(bind: end)
              AND (y.observed_at > a.observed_at OR (y.observed_at = a.observed_at AND y.id > a.id)))
      ), pairs AS (
        SELECT c.id, (
          SELECT y.id FROM apps y WHERE y.app_key = c.app_key AND y.superseded = 0 AND y.observed_at <= \(bind: base)
          ORDER BY y.observed_at DESC, y.id DESC LIMIT 1) AS prev_id
        FROM cur c
      )
      """
    return try await failing("cannot read the apps of the latest runs") {
      let apps = try await sql.raw(
        """
        \(pairs) SELECT p.id, p.prev_id, a.app_key, o.name FROM pairs p JOIN apps a ON a.id = p.id
        JOIN app_observations o ON o.id = a.observation ORDER BY a.app_key
        """
      ).all()
      var domains: [Int: [String]] = [:]
      for row in try await sql.raw(
        """
        \(pairs) SELECT a.id AS app, d.raw FROM app_domains d JOIN apps a ON a.observation = d.observation
        WHERE a.id IN (SELECT id FROM pairs UNION SELECT prev_id FROM pairs) ORDER BY a.id, d.position
        """
      ).all() {
        domains[try row.decode(column: "app", as: Int.self), default: []].append(
          try row.decode(column: "raw", as: String.self))
      }
      var schemes: [Int: [String]] = [:]
      for row in try await sql.raw(
        """
        \(pairs) SELECT a.id AS app, s.scheme FROM app_schemes s JOIN apps a ON a.observation = s.observation
        WHERE s.queried = 0 AND a.id IN (SELECT id FROM pairs UNION SELECT prev_id FROM pairs)
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

  /// ``runChanges(at:since:sinceName:)`` of the store at `location` at `time`, since `since` when given (a day read
  /// from its start); nil, after telling `warn` why, when it cannot be read.
  public static func runChanges(
    _ location: StoreLocation, at time: StoreTime?, since: StoreTime? = nil, warn: (String) -> Void
  ) async -> RunChanges? {
    await reading(location, warn: warn) { store in
      guard let since else { return try await store.runChanges(at: try await store.instant(time, day: .end)) }
      let (start, end) = try await store.window(since: since, at: time)
      return try await store.runChanges(at: end, since: start, sinceName: "\(since)")
    } ?? nil
  }
}
