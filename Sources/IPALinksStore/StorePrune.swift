import Foundation
import IPALinksKit
import SQLKit

/// What `store prune` removed from the store, or would remove (`--dry-run`).
public struct PruneReport: Sendable, Encodable {
  /// The runs removed started before this instant (RFC 3339, UTC).
  public var before: String
  /// Whether nothing was removed: the counts say what would have been.
  public var dryRun: Bool
  /// The database: `sqlite` or `postgres`, which give space back differently.
  public var database: String
  /// Runs that started before ``before``.
  public var runs = 0
  /// Of those, the runs removed whole, and those that lost rows but keep the sightings history needs (marked
  /// pruned); the others held only such sightings, and are left as they were.
  public var runsRemoved = 0, runsThinned = 0
  /// Rows removed: inputs, apps seen, AASA retrievals.
  public var inputs = 0, apps = 0, retrievals = 0
  /// Observations no run points to any more, removed: input files, apps as inspected, retrieval answers.
  public var observations = 0
  /// AASA files no retrieval points to any more, removed.
  public var aasaFiles = 0
  /// The store's size before and after, in bytes (SQLite: the file and its -wal, after VACUUM; PostgreSQL: the
  /// database, after VACUUM); nil when not measured.
  public var bytesBefore: Int?, bytesAfter: Int?
  /// Why the space was not given back, when it was not (another process held the SQLite file).
  public var vacuumFailed: String?
  /// Why the size after the prune is not known, when it is not: the prune was done all the same.
  public var measureFailed: String?
}

extension AuditStore {
  /// `store prune --before TIME`: removes what the runs before `cutoff` saw, but for what `history` and the
  /// state at any time need: for each app and each host, the first and the last sighting of every stretch of one
  /// observation (so every version keeps its first and last sighting, and the state at any time is what it was),
  /// the latest input of each path, and every row the latest state points to. A run left with nothing is removed
  /// whole; one that keeps sightings is marked pruned. Then the observations and AASA files no row points to any
  /// more go too. All in one transaction, so an interrupted prune leaves the store as it was; then the space is
  /// given back (SQLite `VACUUM`) or left to PostgreSQL to reuse (`VACUUM`).
  ///
  /// With `dryRun`, the same work is done and rolled back: the counts say what would go.
  public func prune(before cutoff: Date, dryRun: Bool, now: Date = AuditStore.now) async throws(Failure)
    -> PruneReport
  {
    let before = Self.timestamp(cutoff)
    var report = PruneReport(
      before: before, dryRun: dryRun, database: dialect == .sqlite ? "sqlite" : "postgres")
    report.bytesBefore = dryRun ? nil : try await failing("cannot measure the store") { try await size() }
    let pruned: SQLQueryString = "SELECT id FROM runs WHERE started_at < \(bind: before)"
    struct Rollback: Error {}
    do {
      try await transaction {
        if dialect == .postgres {
          // Writers hold this lock shared for each transaction: none of them points to an observation it found
          // before this prune removes it.
          _ = try await sql.raw("SELECT pg_advisory_xact_lock(\(unsafeRaw: String(Self.pruneLock)))").all()
        }
        let counted = ["runs", "inputs", "apps", "retrievals"]
        let observations = ["input_files", "app_observations", "retrieval_observations"]
        var counts: [String: Int] = [:]
        for table in counted + observations + ["aasa_files"] { counts[table] = try await count(table) }
        report.runs =
          try await sql.raw("SELECT COUNT(*) AS n FROM (\(pruned)) p").first(decodingColumn: "n", as: Int.self) ?? 0
        let held = try await rowsByRun(pruned)
        for statement in Self.pruning(pruned) { try await sql.raw(statement).run() }
        // A run that lost rows and stays is marked; one whose every row history needs is left as it was.
        let left = try await rowsByRun(pruned)
        let thinned = left.filter { run, rows in rows < held[run] ?? 0 }.keys.sorted()
        report.runsThinned = thinned.count
        if !thinned.isEmpty {
          try await sql.raw(
            "UPDATE runs SET pruned_at = \(bind: Self.timestamp(now)) WHERE id IN (\(binds: thinned))"
          ).run()
        }
        func removed(_ table: String) async throws -> Int { (counts[table] ?? 0) - (try await count(table)) }
        (report.runsRemoved, report.inputs, report.apps, report.retrievals) = (
          try await removed("runs"), try await removed("inputs"), try await removed("apps"),
          try await removed("retrievals")
        )
        for table in observations { report.observations += try await removed(table) }
        report.aasaFiles = try await removed("aasa_files")
        let dangling = try await danglingPointers()
        if !dangling.isEmpty {
          throw Failure(
            description: "\(location): cannot prune the store: it would leave "
              + dangling.joined(separator: ", ") + "; nothing was removed")
        }
        if dryRun { throw Rollback() }
      }
    } catch is Rollback {
      return report
    } catch let failure as Failure {
      throw failure
    } catch StoreFault.commitUnknown(let error) {
      // Only the store knows now whether the prune was done: `store runs` tells.
      throw Failure(
        description: "\(location): the prune's commit was sent, and then "
          + location.masking(Self.describe(error))
          + ": whether it was done is unknown; store runs shows the runs that are left")
    } catch {
      throw Failure(description: "\(location): cannot prune the store: \(location.masking(Self.describe(error)))")
    }
    if dryRun { return report }
    do {
      // VACUUM runs outside a transaction; it can wait, and fail, while another process reads the file.
      _ = try await sql.raw("VACUUM").all()
      if dialect == .sqlite { _ = try await sql.raw("PRAGMA wal_checkpoint(TRUNCATE)").all() }
    } catch {
      report.vacuumFailed = location.masking(Self.describe(error))
    }
    // The prune is done: a size that cannot be measured now is said with it, not as a failure of the prune. A
    // PostgreSQL VACUUM that failed gave its connection up (waiting past the timeout) or lost it.
    if report.vacuumFailed != nil && dialect == .postgres { return report }
    do {
      report.bytesAfter = try await size()
    } catch {
      report.measureFailed = location.masking(Self.describe(error))
    }
    return report
  }

  /// `store prune --before TIME`: ``prune(before:dryRun:now:)`` of the runs that started before `time`: a date from
  /// its start, an instant, an age, or a label's first run or a numbered run (it and those after it stay).
  public func prune(before time: StoreTime, dryRun: Bool) async throws(Failure) -> PruneReport {
    guard case .label(let label) = time else {
      return try await prune(before: try await resolve(time, day: .start), dryRun: dryRun)
    }
    var first = try await failing("cannot read the runs") {
      try await sql.raw("SELECT MIN(started_at) AS first FROM runs WHERE label = \(bind: label)")
        .first(decodingColumn: "first", as: String?.self) ?? nil
    }
    // Else a run's number, as `--at` takes it: that run and those after it stay.
    if first == nil, label.allSatisfy(\.isASCII), let number = Int64(label), number > 0 {
      first = try await failing("cannot read the runs") {
        try await sql.raw("SELECT started_at AS first FROM runs WHERE id = \(bind: number)")
          .first(decodingColumn: "first", as: String?.self) ?? nil
      }
    }
    // A label no run has is told as `--at` tells it.
    guard let first, let date = Self.date(first) else {
      return try await prune(before: try await resolve(time, day: .start), dryRun: dryRun)
    }
    return try await prune(before: date, dryRun: dryRun)
  }

  /// Each pointer of ``StoreSchema/pointers`` that some row holds to no row, said as "apps.observation pointing to
  /// no app_observations row (2 rows)"; empty when every pointer holds.
  func danglingPointers() async throws -> [String] {
    var found: [String] = []
    for p in StoreSchema.pointers {
      let n =
        try await sql.raw(
          """
          SELECT COUNT(*) AS n FROM \(ident: p.table) c
          WHERE c.\(ident: p.column) IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM \(ident: p.target) t WHERE t.\(ident: p.key) = c.\(ident: p.column))
          """
        ).first(decodingColumn: "n", as: Int.self) ?? 0
      if n > 0 {
        found.append("\(p.table).\(p.column) pointing to no \(p.target) row (\(TerminalText.count(n, "row")))")
      }
    }
    return found
  }

  /// The advisory lock `store prune` takes alone and each writer's transaction shares (PostgreSQL).
  static let pruneLock = 7268

  /// In a writer's transaction: waits for a prune under way, and keeps the next from starting until it commits
  /// (PostgreSQL; SQLite's writers and prune take turns already).
  func sharePruneLock() async throws {
    guard dialect == .postgres else { return }
    _ = try await sql.raw("SELECT pg_advisory_xact_lock_shared(\(unsafeRaw: String(Self.pruneLock)))").all()
  }

  /// How many inputs, apps and retrievals each of the runs `runs` selects holds, by run; a run without any is not
  /// there.
  private func rowsByRun(_ runs: SQLQueryString) async throws -> [Int: Int] {
    var held: [Int: Int] = [:]
    for table in ["inputs", "apps", "retrievals"] {
      for row in try await sql.raw(
        "SELECT run_id, COUNT(*) AS n FROM \(ident: table) WHERE run_id IN (\(runs)) GROUP BY run_id"
      ).all() {
        held[try row.decode(column: "run_id", as: Int.self), default: 0] += try row.decode(column: "n", as: Int.self)
      }
    }
    return held
  }

  /// How many rows `table` holds.
  private func count(_ table: String) async throws -> Int {
    try await sql.raw("SELECT COUNT(*) AS n FROM \(ident: table)").first(decodingColumn: "n", as: Int.self) ?? 0
  }

  /// The store's size in bytes: the SQLite file and its -wal, or the PostgreSQL database.
  func size() async throws -> Int {
    switch location {
    case .sqlite(let path):
      return [path, path + "-wal"].compactMap {
        (try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int) ?? nil
      }.reduce(0, +)
    case .postgres:
      return try await sql.raw("SELECT pg_database_size(current_database()) AS n").first(
        decodingColumn: "n", as: Int.self) ?? 0
    }
  }

  /// The statements of a prune of the runs `pruned` selects, in order: the sightings, then what no row points to.
  static func pruning(_ pruned: SQLQueryString) -> [SQLQueryString] {
    [
      // An app's sightings in the middle of a stretch of one observation from one input path go (superseded ones,
      // which no reader reads, all go); the first and last of each stretch stay. The path too, as readers show it:
      // an IPA renamed between runs was shown under its old name at the times between. Only an input's sightings
      // all together: the state groups an input's bundles by the input they point to, so one changed bundle of an
      // IPA kept under the newer input and the others under the older one read as two inputs at the times between.
      // Nor an imported app's sighting with a retrieval since the one before: it keeps the AASA results it was saved
      // with until a retrieval after it (`StoredFiles.join`), so its time decides which it reads.
      """
      WITH middle AS (
        SELECT s.id, s.input_id, s.superseded FROM (
          SELECT a.id, a.run_id, a.input_id, a.superseded, a.observation, f.path, i.observed_at, u.command,
            LAG(a.observation) OVER w AS prev, LEAD(a.observation) OVER w AS next,
            LAG(f.path) OVER w AS prev_path, LEAD(f.path) OVER w AS next_path,
            LAG(i.observed_at) OVER w AS prev_at
          FROM apps a JOIN inputs i ON i.id = a.input_id JOIN input_files f ON f.id = i.file
            JOIN runs u ON u.id = a.run_id
          WINDOW w AS (PARTITION BY a.app_key, a.superseded ORDER BY i.observed_at, a.id)) s
        WHERE s.run_id IN (\(pruned))
          AND (s.superseded = 1
            OR (s.prev = s.observation AND s.next = s.observation AND s.prev_path = s.path AND s.next_path = s.path
              AND (s.command <> 'store import' OR NOT EXISTS (
                SELECT 1 FROM retrievals r WHERE r.retrieved_at > s.prev_at AND r.retrieved_at <= s.observed_at))))
          AND s.id NOT IN (SELECT app FROM latest_apps))
      DELETE FROM apps WHERE id IN (
        SELECT m.id FROM middle m
        WHERE m.superseded = 1 OR NOT EXISTS (
          SELECT 1 FROM apps o WHERE o.input_id = m.input_id AND o.superseded = 0
            AND o.id NOT IN (SELECT id FROM middle)))
      """,
      // A host's retrievals likewise, each mode apart; but not one after which an imported app was observed before
      // the one that follows: that app reads the AASA results it was saved with until a retrieval after it
      // (`StoredFiles.join`), and without this one, the one before would be the latest at the times between.
      """
      DELETE FROM retrievals WHERE id IN (
        SELECT s.id FROM (
          SELECT r.id, r.run_id, r.observation, r.retrieved_at,
            LAG(r.observation) OVER w AS prev, LEAD(r.observation) OVER w AS next,
            LAG(r.retrieved_at) OVER w AS prev_at
          FROM retrievals r
          WINDOW w AS (PARTITION BY r.host, r.developer_mode ORDER BY r.retrieved_at, r.id)) s
        WHERE s.run_id IN (\(pruned)) AND s.prev = s.observation AND s.next = s.observation
          AND s.id NOT IN (SELECT retrieval FROM latest_retrievals)
          AND NOT EXISTS (
            SELECT 1 FROM inputs i JOIN runs u ON u.id = i.run_id
            WHERE u.command = 'store import' AND i.observed_at >= s.prev_at AND i.observed_at < s.retrieved_at))
      """,
      // Inputs no app kept points to, in the middle of a stretch of one result for their path: the first and last of
      // each stretch stay, as an app's sightings do, since an unreadable one is in the state until the path's next
      // input (keeping only each path's latest changed the state at earlier times: an input unreadable then was
      // gone from it).
      """
      DELETE FROM inputs WHERE run_id IN (\(pruned))
        AND id NOT IN (SELECT input_id FROM apps)
        AND id IN (
          SELECT s.id FROM (
            SELECT i.id, i.file,
              LAG(i.file) OVER (PARTITION BY f.path ORDER BY i.observed_at, i.id) AS prev,
              LEAD(i.file) OVER (PARTITION BY f.path ORDER BY i.observed_at, i.id) AS next
            FROM inputs i JOIN input_files f ON f.id = i.file) s
          WHERE s.prev = s.file AND s.next = s.file)
      """,
      "DELETE FROM app_domains WHERE observation NOT IN (SELECT observation FROM apps WHERE observation IS NOT NULL)",
      "DELETE FROM app_schemes WHERE observation NOT IN (SELECT observation FROM apps WHERE observation IS NOT NULL)",
      """
      DELETE FROM unread_entitlements
      WHERE observation NOT IN (SELECT observation FROM apps WHERE observation IS NOT NULL)
      """,
      "DELETE FROM app_observations WHERE id NOT IN (SELECT observation FROM apps WHERE observation IS NOT NULL)",
      """
      DELETE FROM retrieval_observations
      WHERE id NOT IN (SELECT observation FROM retrievals WHERE observation IS NOT NULL)
      """,
      "DELETE FROM input_files WHERE id NOT IN (SELECT file FROM inputs WHERE file IS NOT NULL)",
      """
      DELETE FROM aasa_files
      WHERE sha256 NOT IN (SELECT file_sha256 FROM retrieval_observations WHERE file_sha256 IS NOT NULL)
      """,
      """
      DELETE FROM runs WHERE id IN (\(pruned)) AND id NOT IN (SELECT run_id FROM inputs)
        AND id NOT IN (SELECT run_id FROM apps) AND id NOT IN (SELECT run_id FROM retrievals)
        AND id NOT IN (SELECT run_id FROM watched_hosts)
      """,
    ]
  }
}
