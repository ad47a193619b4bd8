import Foundation
import IPALinksKit
import SQLKit
import UniversalLinks

extension AuditStore {
  /// What the latest runs up to `time` changed: the latest run with the shards of the same audit (the runs just
  /// before it with its label and other shards), against the state just before the first of them, or against the
  /// state at `since` (`report --since`, named `sinceName`). When the latest runs changed nothing and no time was
  /// chosen, the runs before them are taken in too, and ``RunChanges/quiet`` names the quiet ones. Nil for a store
  /// without runs.
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
        """
        SELECT id, label, shard, started_at FROM runs WHERE started_at <= \(bind: end)
        ORDER BY started_at DESC, id DESC
        """
      ).all().map { row in
        (
          id: try row.decode(column: "id", as: Int.self), label: try row.decode(column: "label", as: String?.self),
          shard: try row.decode(column: "shard", as: String?.self),
          started: try row.decode(column: "started_at", as: String.self)
        )
      }
    }
    /// The runs of the group that ends with `runs[index]`: the shards of one audit, the runs just before it with its
    /// label, each a shard none of the others is; or it alone. A label given to every run (`nightly`) does not make
    /// one audit of them all, which left nothing before it to compare with.
    func group(from index: Int) -> (start: String, name: String, rest: Int)? {
      guard index < runs.count else { return nil }
      let latest = runs[index]
      var all = [index]
      if let label = latest.label, let shard = latest.shard {
        var shards: Set<String> = [shard]
        var next = index + 1
        while next < runs.count, runs[next].label == label, let other = runs[next].shard, shards.insert(other).inserted
        {
          all.append(next)
          next += 1
        }
      }
      let start = all.map { runs[$0].started }.min() ?? latest.started
      // A label other runs have too (`nightly`) is told apart by the run's number, as `history` names runs.
      let shared = { (label: String) in runs.indices.contains { !all.contains($0) && runs[$0].label == label } }
      let name =
        latest.label.map {
          all.count > 1 ? "\($0) (\(all.count) runs)" : shared($0) ? "\($0) (run \(latest.id))" : $0
        } ?? StoreText.time(latest.started) + " UTC"
      // The next group starts with the first run before this one's start that is not in it.
      let rest = runs.indices.first { $0 > index && !all.contains($0) && runs[$0].started <= start } ?? runs.count
      return (start, name, rest)
    }
    /// Just before the start of the group of the latest run that started by `base`: the state at `base` is, for
    /// nearly every app and host, a row of that group, found by its runs; `base` itself when no run started by then.
    func recent(_ base: String) -> String {
      guard let index = runs.indices.first(where: { runs[$0].started <= base }), let found = group(from: index) else {
        return base
      }
      return AuditStore.timestamp((AuditStore.date(found.start) ?? .distantPast) - 0.001)
    }
    func compared(after base: String) async throws(Failure) -> (hosts: [RunChanges.Host], apps: [RunChanges.App]) {
      let window = Window(base: base, end: end, recent: recent(base))
      return (try await changedHosts(window), try await changedApps(window))
    }
    guard let latest = group(from: 0) else { return nil }
    if let since {
      let base = AuditStore.timestamp(since)
      let (hosts, apps) = try await compared(after: base)
      return RunChanges(run: latest.name, previous: sinceName ?? base, chosen: true, hosts: hosts, apps: apps)
    }
    guard let before = group(from: latest.rest) else {
      return RunChanges(run: latest.name, previous: nil, hosts: [], apps: [])
    }
    // Just before the group's first run: what it found is what changed since the state then.
    let base = AuditStore.timestamp((AuditStore.date(latest.start) ?? .distantPast) - 0.001)
    let found = try await compared(after: base)
    var changes = RunChanges(run: latest.name, previous: before.name, hosts: found.hosts, apps: found.apps)
    if changes.hosts.isEmpty && changes.apps.isEmpty, let earlier = group(from: before.rest) {
      let base = AuditStore.timestamp((AuditStore.date(before.start) ?? .distantPast) - 0.001)
      let found = try await compared(after: base)
      changes = RunChanges(run: before.name, previous: earlier.name, hosts: found.hosts, apps: found.apps)
      changes.quiet = latest.name
    }
    return changes
  }

  /// The times a change is read between: what changed after `base` up to `end`, against the state at `base`, which
  /// is looked for first after `recent` (``runChanges(at:since:sinceName:)``'s `recent(_:)`).
  struct Window {
    let base: String
    let end: String
    let recent: String
  }

  /// The runs that may have written between `after` and `upTo`: those that started by `upTo` and had not finished
  /// by `after`. A row observed in that time is one of theirs (a run's rows are observed between its start and its
  /// finish), so that a window's rows are found by run, not by reading every row. As values when they are few, so
  /// that the server reads their rows through the index whatever it guesses of the window: PostgreSQL takes the
  /// newest rows, past its statistics, for one row, and read every row of every run.
  private func runs(after: String, upTo: String) async throws -> SQLQueryString {
    let query: SQLQueryString = """
      SELECT u.id FROM runs u
      WHERE u.started_at <= \(bind: upTo) AND COALESCE(u.finished_at, \(bind: upTo)) > \(bind: after)
      """
    let ids = try await sql.raw(query).all().map { try $0.decode(column: "id", as: Int.self) }
    return ids.isEmpty ? "NULL" : ids.count <= 1000 ? "\(binds: ids)" : query
  }

  /// The latest row of each app (`apps`) or host (`retrievals`) on each side of `base` among those observed after
  /// `recent` up to `end`, found by the runs that wrote then: for each key whose rows include one after `base`,
  /// `id`, the latest of those, and `before_id`, the latest up to `base` (NULL when none is after `recent`); ties
  /// go to the later row. A grouping rather than a join of two sets, which PostgreSQL, taking each for one row,
  /// joined by comparing every row of one with every row of the other. `rows` names the table `x`, and `time` the
  /// column of the rows' time.
  private func sides(
    _ rows: SQLQueryString, key: String, time: String, filter: SQLQueryString, window: Window
  ) async throws -> SQLQueryString {
    let side: SQLQueryString = "CASE WHEN \(unsafeRaw: time) > \(bind: window.base) THEN 1 ELSE 0 END"
    let names = key.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    let (keys, own) = (
      names.map { "w." + $0 }.joined(separator: ", "), names.map { "x." + $0 }.joined(separator: ", ")
    )
    return """
      SELECT \(unsafeRaw: keys), MAX(CASE WHEN w.side = 1 THEN w.id END) AS id,
        MAX(CASE WHEN w.side = 0 THEN w.id END) AS before_id
      FROM (
        SELECT x.id, \(unsafeRaw: own), \(side) AS side,
          ROW_NUMBER() OVER (PARTITION BY \(unsafeRaw: own), \(side) ORDER BY \(unsafeRaw: time) DESC, x.id DESC) AS n
        FROM \(rows)
        WHERE x.run_id IN (\(try await runs(after: window.recent, upTo: window.end))) AND \(filter)
          AND \(unsafeRaw: time) > \(bind: window.recent) AND \(unsafeRaw: time) <= \(bind: window.end)) w
      WHERE w.n = 1 GROUP BY \(unsafeRaw: keys) HAVING MAX(w.side) = 1
      """
  }

  private func changedHosts(_ window: Window) async throws(Failure) -> [RunChanges.Host] {
    let rows = try await failing("cannot read the retrievals of the latest runs") {
      // Each host's latest answer in the window that settled what the file is, with the one it replaced: the
      // latest up to `base`, found among the runs after `recent` and, for a host they did not ask, through the
      // host's own rows.
      try await sql.raw(
        """
        WITH sides AS MATERIALIZED (
          \(try await sides("retrievals x", key: "host, developer_mode", time: "x.retrieved_at", filter: Self.settling("x"), window: window))
        ), run AS MATERIALIZED (
          SELECT s.id, COALESCE(s.before_id, (
            SELECT p.id FROM retrievals p
            WHERE p.host = s.host AND p.developer_mode = s.developer_mode AND \(Self.settling("p"))
              AND p.retrieved_at <= \(bind: window.recent)
            ORDER BY p.retrieved_at DESC, p.id DESC LIMIT 1)) AS prev_id
          FROM sides s
        )
        SELECT r.host, r.developer_mode, r.status, o.file_sha256, p.status AS prev_status, q.file_sha256 AS prev_sha
        FROM run c JOIN retrievals r ON r.id = c.id JOIN retrieval_observations o ON o.id = r.observation
        JOIN retrievals p ON p.id = c.prev_id JOIN retrieval_observations q ON q.id = p.observation
        WHERE r.status <> p.status OR COALESCE(o.file_sha256, '') <> COALESCE(q.file_sha256, '')
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
  private func changedApps(_ window: Window) async throws(Failure) -> [RunChanges.App] {
    return try await failing("cannot read the apps of the latest runs") {
      // Each app's latest observation in the window, with the one it replaced: the latest up to `base`, found among
      // the runs after `recent` and, for an app they did not see, through the app's own rows.
      let apps = try await sql.raw(
        """
        WITH sides AS MATERIALIZED (
          \(try await sides("apps x JOIN inputs i ON i.id = x.input_id", key: "app_key", time: "i.observed_at", filter: "x.superseded = 0", window: window))
        ), pairs AS MATERIALIZED (
          SELECT s.id, COALESCE(s.before_id, (
            SELECT y.id FROM apps y JOIN inputs j ON j.id = y.input_id
            WHERE y.app_key = s.app_key AND y.superseded = 0 AND j.observed_at <= \(bind: window.recent)
            ORDER BY j.observed_at DESC, y.id DESC LIMIT 1)) AS prev_id
          FROM sides s
        )
        SELECT a.app_key, a.observation, y.observation AS prev_observation, o.name FROM pairs p
        JOIN apps a ON a.id = p.id JOIN app_observations o ON o.id = a.observation LEFT JOIN apps y ON y.id = p.prev_id
        ORDER BY a.app_key
        """
      ).all()
      // An app whose observation is the one before has the same domains and schemes (they are part of it): only
      // the others' are read. The observation before is NULL when there is none (a first sighting).
      let changed = try apps.compactMap { row -> (row: any SQLRow, observation: Int, previous: Int?)? in
        let (observation, previous) = (
          try row.decode(column: "observation", as: Int.self), try row.decode(column: "prev_observation", as: Int?.self)
        )
        return observation == previous ? nil : (row, observation, previous)
      }
      var (domains, schemes): ([Int: [String]], [Int: [String]]) = ([:], [:])
      let observations = Set(changed.flatMap { [$0.observation, $0.previous].compactMap { $0 } }).sorted()
      for some in Self.bindable(observations) {
        for row in try await sql.raw(
          "SELECT observation, raw FROM app_domains WHERE observation IN (\(binds: some)) ORDER BY observation, position"
        ).all() {
          domains[try row.decode(column: "observation", as: Int.self), default: []].append(
            try row.decode(column: "raw", as: String.self))
        }
        for row in try await sql.raw(
          "SELECT observation, scheme FROM app_schemes WHERE queried = 0 AND observation IN (\(binds: some))"
        ).all() {
          schemes[try row.decode(column: "observation", as: Int.self), default: []].append(
            try row.decode(column: "scheme", as: String.self))
        }
      }
      return try changed.compactMap { row, observation, previous -> RunChanges.App? in
        let (domainsAdded, domainsRemoved) = Self.delta(
          previous.map { domains[$0] ?? [] } ?? [], domains[observation] ?? [])
        let (schemesAdded, schemesRemoved) = Self.delta(
          previous.map { schemes[$0] ?? [] } ?? [], schemes[observation] ?? [])
        let app = RunChanges.App(
          appKey: try row.decode(column: "app_key", as: String.self),
          name: try row.decode(column: "name", as: String?.self), first: previous == nil,
          domainsAdded: domainsAdded, domainsRemoved: domainsRemoved, schemesAdded: schemesAdded,
          schemesRemoved: schemesRemoved)
        let differs = ![domainsAdded, domainsRemoved, schemesAdded, schemesRemoved].allSatisfy(\.isEmpty)
        return app.first || differs ? app : nil
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
