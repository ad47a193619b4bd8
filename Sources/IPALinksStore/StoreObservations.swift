import Crypto
import Foundation
import IPALinksKit
import SQLKit
import UniversalLinks

/// What a run observes, stored once however many runs see it (schema 7): an app as inspected, with its domains and
/// schemes, and a retrieval's result and findings, each under the SHA-256 of its content, as `aasa_files` keeps a
/// file's bytes. What changes from run to run (the run, the input's path, the time) is kept out of the content, in
/// the run's own rows, which point to the observation.
enum StoreObservations {
  // An observation is stored and keyed by its `CanonicalJSON.text`: keys sorted, so that equal content is equal
  // text whatever order an encoder happens to write a dictionary's keys in, and the bytes `JSONEncoder` wrote for
  // the observations of older builds.

  /// The key of an app's observation: the SHA-256 of its report's canonical JSON, which holds its domains and
  /// schemes too.
  static func appKey(report: String) -> String { digest(report) }

  /// The key of a retrieval's observation: the SHA-256 of its result (without the body) and findings, and of the
  /// file's own digest, which stands for the body.
  static func retrievalKey(result: String, findings: String, file: String?) -> String {
    digest(result + "\u{0}" + findings + "\u{0}" + (file ?? ""))
  }

  /// The key of an input file: the SHA-256 of what it was, its values apart by NUL, which no path holds.
  static func inputKey(
    path: String, size: Int?, sha256: String?, kind: String, status: String, diagnostics: String
  ) -> String {
    let text = [path, size.map(String.init) ?? "", sha256 ?? "", kind, status, diagnostics].joined(separator: "\u{0}")
    return digest(text)
  }

  /// The SHA-256 of `text`'s UTF-8 in hex, hashed where the string holds it rather than from a copy.
  static func digest(_ text: String) -> String {
    var text = text
    return text.withUTF8 { hex(SHA256.hash(data: UnsafeRawBufferPointer($0))) }
  }

  /// How many rows the migration reads at a time: a chunk's reports in memory, not the store's.
  static let chunk = 500

  /// Schema 11's marking of the observations already stored whose entitlements could not be read
  /// (``BundleReport/entitlementsUnread``). Only an observation without domains can be one (its domains come from
  /// its entitlements), so only those reports are read, a chunk at a time.
  static func markUnreadEntitlements(_ store: AuditStore) async throws {
    var last = 0
    while true {
      let rows = try await store.sql.raw(
        """
        SELECT o.id, o.report FROM app_observations o
        WHERE o.id > \(bind: last) AND NOT EXISTS (SELECT 1 FROM app_domains d WHERE d.observation = o.id)
        ORDER BY o.id LIMIT \(unsafeRaw: String(chunk))
        """
      ).all()
      guard let end = rows.last else { return }
      last = try end.decode(column: "id", as: Int.self)
      let unread = try rows.compactMap { row -> [any Encodable & Sendable]? in
        let report = try row.decode(column: "report", as: String.self)
        // A report this build cannot decode says nothing it could mark.
        guard let bundle = try? JSONDecoder().decode(BundleReport.self, from: Data(report.utf8)),
          bundle.entitlementsUnread
        else { return nil }
        return [try row.decode(column: "id", as: Int.self)]
      }
      try await store.insert(into: "unread_entitlements", columns: ["observation"], rows: unread)
    }
  }
}

extension StoreSchema {
  /// Schema 7's move of the rows already stored: each app row's report becomes an observation, with the domains and
  /// schemes of the first row that had it, and each retrieval's result and findings one; equal content is one
  /// observation (the JSON made canonical first, as ``RunRecorder`` now writes it). Then the columns the rows leave
  /// are dropped, and the domains and schemes tables are the observations'.
  static func observeOnce(_ store: AuditStore) async throws {
    let sql = store.sql
    var files: [String: Int] = [:]
    try await point(
      "inputs", reading: "path, size, sha256, kind, status, diagnostics", to: "file", in: store
    ) { row in
      let stored = try row.decode(column: "diagnostics", as: String.self)
      let diagnostics =
        (try? JSONDecoder().decode([Diagnostic].self, from: Data(stored.utf8))).map { CanonicalJSON.text($0) }
        ?? stored
      let (path, size, sha256, kind, status) = (
        try row.decode(column: "path", as: String.self), try row.decode(column: "size", as: Int?.self),
        try row.decode(column: "sha256", as: String?.self), try row.decode(column: "kind", as: String.self),
        try row.decode(column: "status", as: String.self)
      )
      let key = StoreObservations.inputKey(
        path: path, size: size, sha256: sha256, kind: kind, status: status, diagnostics: diagnostics)
      if let file = files[key] { return file }
      let file = try await store.insertOne(
        into: "input_files", columns: AuditStore.inputFileColumns,
        values: [key, path, size, sha256, kind, status, diagnostics])
      files[key] = file
      return file
    }
    var apps: [String: Int] = [:]
    try await point(
      "apps", reading: "path, kind, bundle_id, app_id, team_id, name, version, build, distribution, report",
      to: "observation", in: store
    ) { row in
      let stored = try row.decode(column: "report", as: String.self)
      let report =
        (try? JSONDecoder().decode(BundleReport.self, from: Data(stored.utf8))).map { CanonicalJSON.text($0) }
        ?? stored
      let key = StoreObservations.appKey(report: report)
      if let observation = apps[key] { return observation }
      let appId = try row.decode(column: "app_id", as: String?.self)
      let observation = try await store.insertOne(
        into: "app_observations", columns: AuditStore.appObservationColumns,
        values: try [
          key, row.decode(column: "path", as: String.self), row.decode(column: "kind", as: String.self),
          row.decode(column: "bundle_id", as: String?.self), appId, row.decode(column: "team_id", as: String?.self),
          row.decode(column: "name", as: String?.self), row.decode(column: "version", as: String?.self),
          row.decode(column: "build", as: String?.self), row.decode(column: "distribution", as: String?.self),
          report, appId.flatMap(BundleReport.bundleID(ofAppID:)),
        ])
      // The domains and schemes of the first row that had it.
      let id = try row.decode(column: "id", as: Int.self)
      try await sql.raw(
        """
        INSERT INTO observation_domains (observation, position, raw, service, host, wildcard, modes, active)
        SELECT \(bind: observation), position, raw, service, host, wildcard, modes, active FROM app_domains
        WHERE app = \(bind: id)
        """
      ).run()
      try await sql.raw(
        """
        INSERT INTO observation_schemes (observation, scheme, queried)
        SELECT \(bind: observation), scheme, queried FROM app_schemes WHERE app = \(bind: id)
        """
      ).run()
      apps[key] = observation
      return observation
    }
    var retrievals: [String: Int] = [:]
    try await point(
      "retrievals", reading: "source, http_status, url, message, file_sha256, result, findings", to: "observation",
      in: store
    ) { row in
      let (storedResult, storedFindings) = (
        try row.decode(column: "result", as: String.self), try row.decode(column: "findings", as: String.self)
      )
      let result =
        (try? JSONDecoder().decode(AASAFetchResult.self, from: Data(storedResult.utf8))).map {
          CanonicalJSON.text($0)
        } ?? storedResult
      let findings =
        (try? JSONDecoder().decode([AASADiagnostic].self, from: Data(storedFindings.utf8))).map {
          CanonicalJSON.text($0)
        } ?? storedFindings
      let file = try row.decode(column: "file_sha256", as: String?.self)
      let key = StoreObservations.retrievalKey(result: result, findings: findings, file: file)
      if let observation = retrievals[key] { return observation }
      let observation = try await store.insertOne(
        into: "retrieval_observations", columns: AuditStore.retrievalObservationColumns,
        values: try [
          key, row.decode(column: "source", as: String.self), row.decode(column: "http_status", as: Int?.self),
          row.decode(column: "url", as: String?.self), row.decode(column: "message", as: String.self), file, result,
          findings,
        ])
      retrievals[key] = observation
      return observation
    }
    for statement in observedOnce(store.dialect) { try await sql.raw(SQLQueryString(statement)).run() }
  }

  /// Sets `column` of every row of `table` to what `observe` makes of the row (its ID and the `reading` columns):
  /// the rows read 500 at a time, so that a store's reports are never all in memory, and one UPDATE for each
  /// observation a chunk's rows share.
  private static func point(
    _ table: String, reading columns: String, to column: String, in store: AuditStore,
    _ observe: (any SQLRow) async throws -> Int
  ) async throws {
    var last = 0
    while true {
      let rows = try await store.sql.raw(
        """
        SELECT id, \(unsafeRaw: columns) FROM \(ident: table)
        WHERE id > \(bind: last) ORDER BY id LIMIT \(unsafeRaw: String(StoreObservations.chunk))
        """
      ).all()
      guard let end = rows.last else { return }
      last = try end.decode(column: "id", as: Int.self)
      var pointers: [Int: [Int]] = [:]
      for row in rows {
        pointers[try await observe(row), default: []].append(try row.decode(column: "id", as: Int.self))
      }
      for (observation, ids) in pointers {
        try await store.sql.raw(
          "UPDATE \(ident: table) SET \(ident: column) = \(bind: observation) WHERE id IN (\(binds: ids))"
        ).run()
      }
    }
  }

  /// The statements that end schema 7's move: the old domains and schemes tables give way to the observations',
  /// and the columns now kept with the observations leave the run's rows.
  static func observedOnce(_ dialect: AuditStore.Dialect) -> [String] {
    let moved = [
      "path", "kind", "bundle_id", "app_id", "team_id", "name", "version", "build", "distribution", "report",
    ]
    let retrievals: [String]
    switch dialect {
    case .postgres:
      retrievals = ["source", "http_status", "url", "message", "file_sha256", "result", "findings"].map {
        "ALTER TABLE retrievals DROP COLUMN \($0)"
      }
    case .sqlite:
      // SQLite drops no column a foreign key names (file_sha256): the table is made again, with its IDs, and the
      // tables that point to it keep pointing to it by name.
      retrievals = [
        """
        CREATE TABLE retrievals_7 (id INTEGER PRIMARY KEY AUTOINCREMENT, run_id BIGINT NOT NULL REFERENCES runs (id),
          host TEXT NOT NULL, developer_mode INTEGER NOT NULL, retrieved_at TEXT NOT NULL, status TEXT NOT NULL,
          settles INTEGER, observation BIGINT REFERENCES retrieval_observations (id))
        """,
        """
        INSERT INTO retrievals_7 (id, run_id, host, developer_mode, retrieved_at, status, settles, observation)
        SELECT id, run_id, host, developer_mode, retrieved_at, status, settles, observation FROM retrievals
        """,
        "DROP TABLE retrievals",
        "ALTER TABLE retrievals_7 RENAME TO retrievals",
        "CREATE INDEX retrievals_host ON retrievals (host, developer_mode, retrieved_at, status)",
        "CREATE INDEX retrievals_run ON retrievals (run_id)",
      ]
    }
    let inputs = ["path", "size", "sha256", "kind", "status", "diagnostics"]
    return [
      "DROP INDEX inputs_unreadable",
      "DROP INDEX inputs_path",
      "CREATE INDEX inputs_file ON inputs (file)",
      "CREATE INDEX input_files_path ON input_files (path)",
      "CREATE INDEX input_files_unreadable ON input_files (path) WHERE status = 'unreadable'",
      "DROP TABLE app_domains",
      "DROP TABLE app_schemes",
      "ALTER TABLE observation_domains RENAME TO app_domains",
      "ALTER TABLE observation_schemes RENAME TO app_schemes",
      "CREATE INDEX app_domains_host ON app_domains (host)",
      "CREATE INDEX app_domains_observation ON app_domains (observation)",
      "CREATE INDEX app_schemes_scheme ON app_schemes (scheme)",
      "CREATE INDEX app_schemes_observation ON app_schemes (observation)",
      "DROP INDEX apps_bundle_id",
      "DROP INDEX apps_app_id",
    ] + inputs.map { "ALTER TABLE inputs DROP COLUMN \($0)" } + moved.map { "ALTER TABLE apps DROP COLUMN \($0)" }
      + retrievals
  }
}

extension AuditStore {
  /// The columns of an input file, in the order its rows' values come.
  static let inputFileColumns = ["sha256", "path", "size", "file_sha256", "kind", "status", "diagnostics"]
  /// The columns of an app's observation, in the order its rows' values come.
  static let appObservationColumns = [
    "sha256", "path", "kind", "bundle_id", "app_id", "team_id", "name", "version", "build", "distribution", "report",
    "named_bundle_id",
  ]
  /// The columns of a retrieval's observation, in the order its rows' values come.
  static let retrievalObservationColumns = [
    "sha256", "source", "http_status", "url", "message", "file_sha256", "result", "findings",
  ]

  /// Inserts one row and returns its ID.
  func insertOne(into table: String, columns: [String], values: [any Encodable & Sendable]) async throws -> Int {
    try await insert(into: table, columns: columns, rows: [values], returning: ["id"]).first?.decode(
      column: "id", as: Int.self) ?? 0
  }

  /// The IDs of observations in `table` by their keys, inserting those not there yet with their `rows` (each row's
  /// first value its key); `inserted` is given the IDs of the rows this call inserted, by key, to add what goes with
  /// them. Two writers that insert one observation at once keep it once: the second's insert does nothing, and it
  /// reads the first's ID. Keys go in sorted, so that two writers take the rows' locks in one order.
  func observations(
    in table: String, columns: [String], rows: [[any Encodable & Sendable]],
    inserted: ([String: Int]) async throws -> Void
  ) async throws -> [String: Int] {
    var ids: [String: Int] = [:]
    var wanted: [String: [any Encodable & Sendable]] = [:]
    for row in rows {
      let key = row[0] as? String ?? ""
      wanted[key] = row
    }
    guard !wanted.isEmpty else { return ids }
    func found(_ keys: [String]) async throws -> [String: Int] {
      var found: [String: Int] = [:]
      for some in Self.bindable(keys) {
        for row in try await sql.raw(
          "SELECT id, sha256 FROM \(ident: table) WHERE sha256 IN (\(binds: some))"
        ).all() {
          found[try row.decode(column: "sha256", as: String.self)] = try row.decode(column: "id", as: Int.self)
        }
      }
      return found
    }
    // A run that sees what the run before saw finds them all: looked for first, and only the others inserted. A
    // first run, or an import, finds none: inserted first, and only those another writer had are looked for.
    let insertFirst = mostlyNew.withLockedValue { $0[table] ?? false }
    var missing = wanted.keys.sorted()
    if !insertFirst {
      ids.merge(try await found(missing), uniquingKeysWith: { $1 })
      missing = missing.filter { ids[$0] == nil }
    }
    let foundFirst = wanted.count - missing.count
    var new: [String: Int] = [:]
    if !missing.isEmpty {
      for row in try await insert(
        into: table, columns: columns, rows: missing.compactMap { wanted[$0] }, returning: ["id", "sha256"],
        { $0.ignoringConflicts(with: "sha256") })
      {
        new[try row.decode(column: "sha256", as: String.self)] = try row.decode(column: "id", as: Int.self)
      }
      ids.merge(new, uniquingKeysWith: { $1 })
      // Already there, or another writer's, inserted since they were looked for.
      let others = missing.filter { new[$0] == nil }
      if !others.isEmpty { ids.merge(try await found(others), uniquingKeysWith: { $1 }) }
    }
    let allNew = new.count * 2 > wanted.count
    mostlyNew.withLockedValue { $0[table] = insertFirst ? allNew : foundFirst * 2 < wanted.count }
    try await inserted(new)
    return ids
  }
}

extension StoreSchema {
  /// Schema 8: the run's own rows (`inputs`, `apps`, `retrievals`), written once per app and host every run, made
  /// again as small as they can be, with their IDs.
  ///
  /// - An app is seen when its input is: the time is its input's alone (it was the same in both rows).
  /// - PostgreSQL keeps a dropped column in every row written after (as NULL, in a bitmap that makes each row's
  ///   header 8 bytes longer): the tables schema 7 dropped columns of are copied into new ones without them, the
  ///   8-byte columns first, so that none is padded.
  /// - An app's sightings and a host's retrievals are indexed by their app key and their host alone, not with the
  ///   time: an index entry that holds a timestamp is as big as the row's other columns together, while equal keys
  ///   are stored once by PostgreSQL (deduplication), so each run adds a few bytes to these indexes rather than 70.
  ///   The queries that want the latest row by time read a key's rows (one per run) or use window functions.
  /// - On PostgreSQL, the latest state's rows, rewritten by every run, leave room on their pages (`fillfactor`),
  ///   so that an update stays on its page and the old version is reclaimed there rather than the table growing
  ///   until a vacuum.
  static func compactSightings(_ dialect: AuditStore.Dialect) -> [String] {
    let id =
      dialect == .sqlite
      ? "id INTEGER PRIMARY KEY AUTOINCREMENT" : "id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"
    let tables: [(name: String, columns: String, definition: String)] = [
      (
        "inputs", "id, run_id, file, observed_at",
        """
        \(id), run_id BIGINT NOT NULL REFERENCES runs (id), file BIGINT NOT NULL REFERENCES input_files (id),
          observed_at TEXT NOT NULL
        """
      ),
      (
        "apps", "id, input_id, run_id, observation, superseded, app_key",
        """
        \(id), input_id BIGINT NOT NULL REFERENCES inputs_8 (id), run_id BIGINT NOT NULL REFERENCES runs (id),
          observation BIGINT NOT NULL REFERENCES app_observations (id), superseded INTEGER NOT NULL DEFAULT 0,
          app_key TEXT NOT NULL
        """
      ),
      (
        "retrievals", "id, run_id, observation, developer_mode, settles, host, retrieved_at, status",
        """
        \(id), run_id BIGINT NOT NULL REFERENCES runs (id),
          observation BIGINT NOT NULL REFERENCES retrieval_observations (id), developer_mode INTEGER NOT NULL,
          settles INTEGER, host TEXT NOT NULL, retrieved_at TEXT NOT NULL, status TEXT NOT NULL
        """
      ),
    ]
    var statements: [String] = []
    for table in tables {
      statements += [
        "CREATE TABLE \(table.name)_8 (\(table.definition))",
        "INSERT INTO \(table.name)_8 (\(table.columns)) SELECT \(table.columns) FROM \(table.name) ORDER BY id",
      ]
    }
    // PostgreSQL drops the foreign keys that name the old tables with them (and adds them again below); SQLite
    // names a table in a foreign key by its name, which the new table takes.
    let cascade = dialect == .postgres ? " CASCADE" : ""
    statements += ["apps", "inputs", "retrievals"].map { "DROP TABLE \($0)\(cascade)" }
    statements += ["inputs", "apps", "retrievals"].map { "ALTER TABLE \($0)_8 RENAME TO \($0)" }
    statements += [
      "CREATE INDEX inputs_run ON inputs (run_id)",
      "CREATE INDEX inputs_file ON inputs (file)",
      "CREATE INDEX apps_key ON apps (app_key)",
      "CREATE INDEX apps_run ON apps (run_id)",
      "CREATE INDEX retrievals_host ON retrievals (host, developer_mode)",
      "CREATE INDEX retrievals_run ON retrievals (run_id)",
    ]
    guard dialect == .postgres else { return statements }
    for table in ["inputs", "apps", "retrievals"] {
      statements += [
        "ALTER INDEX \(table)_8_pkey RENAME TO \(table)_pkey",
        // Rows copied with their IDs leave the identity where it started.
        """
        SELECT setval(pg_get_serial_sequence('\(table)', 'id'), COALESCE((SELECT MAX(id) FROM \(table)), 0) + 1,
          false)
        """,
      ]
    }
    return statements + [
      "ALTER TABLE latest_apps ADD FOREIGN KEY (app) REFERENCES apps (id)",
      "ALTER TABLE latest_retrievals ADD FOREIGN KEY (retrieval) REFERENCES retrievals (id)",
      "ALTER TABLE latest_apps SET (fillfactor = 50)",
      "ALTER TABLE latest_retrievals SET (fillfactor = 50)",
    ]
  }
}
