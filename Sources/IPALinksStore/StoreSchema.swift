import IPALinksKit
import SQLKit

/// The store's tables, as numbered migrations applied in order when a store is opened. docs/store.md documents
/// them for people who query the store with SQL.
///
/// A store written by a newer ipalinks has migrations this build does not know: it is refused before anything in
/// it changes.
enum StoreSchema {
  /// The schema this build writes.
  static let version = 11

  /// Brings `store` up to ``version`` (or to `target`, for a test that makes a store as an older build did): each
  /// migration it lacks, in one transaction, under a lock so that several processes opening a new store at once
  /// apply each migration once.
  static func migrate(_ store: AuditStore, to target: Int = version) async throws {
    let sql = store.sql
    // Most opens find the schema current: one query, no lock, nothing written (a round trip counts on a server far
    // away). A new store has no schema table yet, and takes the way below.
    if let found = try? await current(sql), found == target { return }
    guard store.dialect == .postgres else { return try await migrateLocked(store, to: target) }
    _ = try await sql.raw("SELECT pg_advisory_lock(7267)").all()
    do {
      try await migrateLocked(store, to: target)
    } catch {
      _ = try? await sql.raw("SELECT pg_advisory_unlock(7267)").all()
      throw error
    }
    _ = try await sql.raw("SELECT pg_advisory_unlock(7267)").all()
  }

  private static func migrateLocked(_ store: AuditStore, to target: Int) async throws {
    let sql = store.sql
    try await sql.raw(
      "CREATE TABLE IF NOT EXISTS ipalinks_schema (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)"
    ).run()
    let found = try await current(sql)
    guard found <= version else {
      throw AuditStore.Failure(
        description: "\(store.location): the store's schema is version \(found), written by a newer ipalinks; this "
          + "one knows version \(version) and leaves the store untouched")
    }
    if store.dialect == .sqlite {
      // Readers never wait for writers, and writers on one machine take turns (set here, after the version check,
      // as it changes the file).
      try await store.retryingWhileBusy { _ = try await sql.raw("PRAGMA journal_mode = WAL").all() }
    }
    guard found < target else { return }
    // One transaction: a migration that fails leaves the store at the schema it had, which the message says.
    var from = found
    do {
      try await migrate(store, from: &from, to: target)
    } catch let failure as AuditStore.Failure {
      throw failure
    } catch {
      let what =
        from == 0
        ? "cannot set up the new store"
        : "cannot bring the store from schema \(from) to \(target), and left it at schema \(from), as it was"
      throw AuditStore.Failure(
        description: "\(store.location): \(what): \(store.location.masking(AuditStore.describe(error)))")
    }
  }

  /// The migrations from the store's schema, which `from` is set to, to `target`, in one transaction.
  private static func migrate(_ store: AuditStore, from: inout Int, to target: Int) async throws {
    let sql = store.sql
    try await store.transaction {
      // Another process may have migrated meanwhile.
      let now = try await current(sql)
      from = now
      guard now < target else { return }
      for (index, migration) in migrations[now..<target].enumerated() {
        for statement in migration(store.dialect) { try await sql.raw(SQLQueryString(statement)).run() }
        try await steps[now + index + 1]?(store)
      }
      for applied in (now + 1)...target {
        try await sql.raw(
          "INSERT INTO ipalinks_schema (version, applied_at) VALUES (\(bind: applied), \(bind: AuditStore.timestamp(.now)))"
        ).run()
      }
    }
  }

  /// Whether the database holds a store: its schema table is there.
  static func exists(_ store: AuditStore) async throws -> Bool {
    let query: SQLQueryString =
      store.dialect == .sqlite
      ? "SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'ipalinks_schema'"
      : "SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_name = 'ipalinks_schema' "
        + "AND table_schema = current_schema()"
    return try await store.sql.raw(query).first(decodingColumn: "n", as: Int.self) ?? 0 > 0
  }

  /// The version a store has now; 0 for a new one.
  private static func current(_ sql: any SQLDatabase) async throws -> Int {
    try await sql.raw("SELECT COALESCE(MAX(version), 0) AS version FROM ipalinks_schema")
      .first(decodingColumn: "version", as: Int.self) ?? 0
  }

  /// What a migration does besides its statements, run after them, by the version it brings the store to.
  static let steps: [Int: @Sendable (AuditStore) async throws -> Void] = [
    7: observeOnce, 11: StoreObservations.markUnreadEntitlements,
  ]

  /// Each migration's statements, for a dialect; never edited once released, only added to.
  static let migrations: [@Sendable (AuditStore.Dialect) -> [String]] = [
    { dialect in
      let id =
        dialect == .sqlite
        ? "id INTEGER PRIMARY KEY AUTOINCREMENT" : "id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"
      let blob = dialect == .sqlite ? "BLOB" : "BYTEA"
      return [
        """
        CREATE TABLE runs (\(id), label TEXT, command TEXT NOT NULL, started_at TEXT NOT NULL, finished_at TEXT,
          tool_version TEXT NOT NULL, machine TEXT NOT NULL, shard TEXT, arguments TEXT NOT NULL)
        """,
        "CREATE INDEX runs_label ON runs (label, started_at)",
        """
        CREATE TABLE inputs (\(id), run_id BIGINT NOT NULL REFERENCES runs (id), path TEXT NOT NULL, size BIGINT,
          sha256 TEXT, kind TEXT NOT NULL, status TEXT NOT NULL, observed_at TEXT NOT NULL, diagnostics TEXT NOT NULL)
        """,
        """
        CREATE TABLE apps (\(id), input_id BIGINT NOT NULL REFERENCES inputs (id),
          run_id BIGINT NOT NULL REFERENCES runs (id), app_key TEXT NOT NULL, path TEXT NOT NULL, kind TEXT NOT NULL,
          bundle_id TEXT, app_id TEXT, team_id TEXT, name TEXT, version TEXT, build TEXT, distribution TEXT,
          observed_at TEXT NOT NULL, report TEXT NOT NULL)
        """,
        "CREATE INDEX apps_key ON apps (app_key, observed_at)",
        "CREATE INDEX apps_bundle_id ON apps (bundle_id)",
        "CREATE INDEX apps_app_id ON apps (app_id)",
        """
        CREATE TABLE app_domains (app BIGINT NOT NULL REFERENCES apps (id), position INTEGER NOT NULL,
          raw TEXT NOT NULL, service TEXT NOT NULL, host TEXT NOT NULL, wildcard INTEGER NOT NULL,
          modes TEXT NOT NULL, active INTEGER NOT NULL)
        """,
        "CREATE INDEX app_domains_host ON app_domains (host)",
        "CREATE INDEX app_domains_app ON app_domains (app)",
        """
        CREATE TABLE app_schemes (app BIGINT NOT NULL REFERENCES apps (id), scheme TEXT NOT NULL,
          queried INTEGER NOT NULL)
        """,
        "CREATE INDEX app_schemes_scheme ON app_schemes (scheme)",
        """
        CREATE TABLE aasa_files (sha256 TEXT PRIMARY KEY, size BIGINT NOT NULL, body \(blob) NOT NULL,
          first_seen TEXT NOT NULL)
        """,
        """
        CREATE TABLE retrievals (\(id), run_id BIGINT NOT NULL REFERENCES runs (id), host TEXT NOT NULL,
          developer_mode INTEGER NOT NULL, retrieved_at TEXT NOT NULL, source TEXT NOT NULL, status TEXT NOT NULL,
          http_status INTEGER, url TEXT, message TEXT NOT NULL, file_sha256 TEXT REFERENCES aasa_files (sha256),
          result TEXT NOT NULL, findings TEXT NOT NULL)
        """,
        "CREATE INDEX retrievals_host ON retrievals (host, developer_mode, retrieved_at, status)",
      ]
    },
    // The latest state kept as it is written, so that reading it costs what the apps and hosts cost, not what
    // every run before them does.
    { _ in
      [
        // `store runs` counts each run's inputs and apps.
        "CREATE INDEX IF NOT EXISTS inputs_run ON inputs (run_id)",
        "CREATE INDEX IF NOT EXISTS apps_run ON apps (run_id)",
        // `history --app` reads an app's schemes.
        "CREATE INDEX IF NOT EXISTS app_schemes_app ON app_schemes (app)",
        """
        CREATE TABLE latest_apps (app_key TEXT PRIMARY KEY, app BIGINT NOT NULL REFERENCES apps (id),
          observed_at TEXT NOT NULL)
        """,
        """
        INSERT INTO latest_apps (app_key, app, observed_at)
        SELECT x.app_key, x.id, x.observed_at FROM apps x WHERE NOT EXISTS (
          SELECT 1 FROM apps y WHERE y.app_key = x.app_key
            AND (y.observed_at > x.observed_at OR (y.observed_at = x.observed_at AND y.id > x.id)))
        """,
        """
        CREATE TABLE latest_retrievals (host TEXT NOT NULL, developer_mode INTEGER NOT NULL,
          definite INTEGER NOT NULL, retrieval BIGINT NOT NULL REFERENCES retrievals (id),
          retrieved_at TEXT NOT NULL, PRIMARY KEY (host, developer_mode, definite))
        """,
      ]
        + [false, true].map { definite in
          let only =
            definite
            ? AASAFetchResult.Status.allCases.filter(\.isDefinite).map { "'\($0.rawValue)'" }.joined(separator: ", ")
            : ""
          let filter = definite ? "AND r.status IN (\(only))" : ""
          let same = definite ? "AND s.status IN (\(only))" : ""
          return """
            INSERT INTO latest_retrievals (host, developer_mode, definite, retrieval, retrieved_at)
            SELECT r.host, r.developer_mode, \(definite ? 1 : 0), r.id, r.retrieved_at FROM retrievals r
            WHERE 1 = 1 \(filter) AND NOT EXISTS (
              SELECT 1 FROM retrievals s WHERE s.host = r.host AND s.developer_mode = r.developer_mode \(same)
                AND (s.retrieved_at > r.retrieved_at OR (s.retrieved_at = r.retrieved_at AND s.id > r.id)))
            """
        }
    },
    // Whether a retrieval may replace a good file in the latest state, kept with it (NULL in older rows: by its
    // status), as answers a captive portal or a rebinding DNS gives (a redirect, a huge body, a private address)
    // no longer do.
    { _ in ["ALTER TABLE retrievals ADD COLUMN settles INTEGER"] },
    // `report --store` reads the latest run's retrievals, each with the one before it.
    { _ in ["CREATE INDEX IF NOT EXISTS retrievals_run ON retrievals (run_id)"] },
    // Hosts watched without an app (`refresh --host`): every app their files list is taken to claim them.
    { _ in
      [
        """
        CREATE TABLE watched_hosts (host TEXT PRIMARY KEY, added_at TEXT NOT NULL,
          run_id BIGINT NOT NULL REFERENCES runs (id))
        """
      ]
    },
    // One app per run: an app seen twice in a run (an IPA and its own Mach-O or .xcent, or two copies) is the
    // richer observation in the run's state; the other rows stay, marked, for what they were. Rows already stored
    // are marked as a run would have, and the latest state is made again from the rows left.
    { _ in
      [
        "ALTER TABLE apps ADD COLUMN superseded INTEGER NOT NULL DEFAULT 0",
        // The state lists inputs that could not be read: found by these two, not by reading every input.
        "CREATE INDEX IF NOT EXISTS inputs_unreadable ON inputs (path) WHERE status = 'unreadable'",
        "CREATE INDEX IF NOT EXISTS inputs_path ON inputs (path, observed_at)",
        """
        UPDATE apps SET superseded = 1 WHERE EXISTS (
          SELECT 1 FROM apps b JOIN inputs bi ON bi.id = b.input_id, inputs ai
          WHERE ai.id = apps.input_id AND b.run_id = apps.run_id AND b.app_key = apps.app_key AND b.id <> apps.id
            AND (\(RunRecorder.rankSQL("bi.kind")) > \(RunRecorder.rankSQL("ai.kind"))
              OR (\(RunRecorder.rankSQL("bi.kind")) = \(RunRecorder.rankSQL("ai.kind")) AND bi.path < ai.path)
              OR (\(RunRecorder.rankSQL("bi.kind")) = \(RunRecorder.rankSQL("ai.kind")) AND bi.path = ai.path
                AND b.id < apps.id)))
        """,
        "DELETE FROM latest_apps",
        """
        INSERT INTO latest_apps (app_key, app, observed_at)
        SELECT x.app_key, x.id, x.observed_at FROM apps x WHERE x.superseded = 0 AND NOT EXISTS (
          SELECT 1 FROM apps y WHERE y.app_key = x.app_key AND y.superseded = 0
            AND (y.observed_at > x.observed_at OR (y.observed_at = x.observed_at AND y.id > x.id)))
        """,
      ]
    },
    // Each distinct observation once (issue 46): an input file as it was (its path, size, digest, kind, status and
    // diagnostics), an app as inspected, with its domains and schemes, and a retrieval's result and findings, each
    // under the SHA-256 of its content; a run's rows keep what was seen when (the run, the time) and point to it.
    // The rows already stored are moved by ``observeOnce(_:)``, which then drops the columns they leave.
    { dialect in
      let id =
        dialect == .sqlite
        ? "id INTEGER PRIMARY KEY AUTOINCREMENT" : "id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"
      return [
        """
        CREATE TABLE app_observations (\(id), sha256 TEXT NOT NULL UNIQUE, path TEXT NOT NULL, kind TEXT NOT NULL,
          bundle_id TEXT, app_id TEXT, team_id TEXT, name TEXT, version TEXT, build TEXT, distribution TEXT,
          report TEXT NOT NULL, named_bundle_id TEXT)
        """,
        "CREATE INDEX app_observations_bundle_id ON app_observations (bundle_id)",
        "CREATE INDEX app_observations_app_id ON app_observations (app_id)",
        // `history --app BUNDLEID` finds an app known by its app ID alone through the bundle ID the app ID names.
        "CREATE INDEX app_observations_named_bundle_id ON app_observations (named_bundle_id)",
        """
        CREATE TABLE observation_domains (observation BIGINT NOT NULL REFERENCES app_observations (id),
          position INTEGER NOT NULL, raw TEXT NOT NULL, service TEXT NOT NULL, host TEXT NOT NULL,
          wildcard INTEGER NOT NULL, modes TEXT NOT NULL, active INTEGER NOT NULL)
        """,
        """
        CREATE TABLE observation_schemes (observation BIGINT NOT NULL REFERENCES app_observations (id),
          scheme TEXT NOT NULL, queried INTEGER NOT NULL)
        """,
        """
        CREATE TABLE retrieval_observations (\(id), sha256 TEXT NOT NULL UNIQUE, source TEXT NOT NULL,
          http_status INTEGER, url TEXT, message TEXT NOT NULL, file_sha256 TEXT REFERENCES aasa_files (sha256),
          result TEXT NOT NULL, findings TEXT NOT NULL)
        """,
        """
        CREATE TABLE input_files (\(id), sha256 TEXT NOT NULL UNIQUE, path TEXT NOT NULL, size BIGINT,
          file_sha256 TEXT, kind TEXT NOT NULL, status TEXT NOT NULL, diagnostics TEXT NOT NULL)
        """,
        "ALTER TABLE inputs ADD COLUMN file BIGINT REFERENCES input_files (id)",
        "ALTER TABLE apps ADD COLUMN observation BIGINT REFERENCES app_observations (id)",
        // Set by `store prune` on a run it removed rows of.
        "ALTER TABLE runs ADD COLUMN pruned_at TEXT",
        "ALTER TABLE retrievals ADD COLUMN observation BIGINT REFERENCES retrieval_observations (id)",
      ]
    },
    // A run's rows as small as they can be (issue 46): made again without the columns schema 7 dropped, which
    // PostgreSQL keeps in every new row, and indexed by app and by host alone (``compactSightings(_:)``).
    compactSightings,
    // A run's pointers are checked where rows are removed, not for each row written (``pointers``).
    { dialect in
      guard dialect == .postgres else { return [] }
      // The tables that had pointers then: a later table (``pointers`` grows) did not exist yet.
      let tables = [
        "app_domains", "app_schemes", "apps", "inputs", "latest_apps", "latest_retrievals", "retrieval_observations",
        "retrievals",
      ].map { "'\($0)'::regclass" }.joined(separator: ", ")
      return [
        """
        DO $$ DECLARE c record; BEGIN
          FOR c IN SELECT conrelid::regclass AS t, conname FROM pg_constraint
            WHERE contype = 'f' AND conrelid IN (\(tables))
          LOOP EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', c.t, c.conname); END LOOP;
        END $$
        """
      ]
    },
    // Each input file's digest with the file as it was when hashed, so that a run hashes only the files that
    // changed (issue 46; ``InputDigests``).
    { _ in
      [
        """
        CREATE TABLE input_digests (machine TEXT NOT NULL, path TEXT NOT NULL, device BIGINT NOT NULL,
          inode BIGINT NOT NULL, size BIGINT NOT NULL, modified_ns BIGINT NOT NULL, changed_ns BIGINT NOT NULL,
          file_sha256 TEXT NOT NULL, PRIMARY KEY (machine, path))
        """
      ]
    },
    // The app observations whose entitlements could not be read, so that `who-claims HOST` finds them through an
    // index as it finds the apps with an entry on the host: what such an app claims is unknown, not nothing.
    // ``StoreObservations/markUnreadEntitlements(_:)`` marks the observations already stored.
    { _ in ["CREATE TABLE unread_entitlements (observation BIGINT NOT NULL PRIMARY KEY)"] },
  ]

  /// Each pointer a run writes, from a row to the row it names: what PostgreSQL checked as a foreign key for every
  /// row written, until schema 9. A writer points only to rows it wrote or found in the same transaction, and
  /// nothing removes a row while a writer's transaction is open (``AuditStore/sharePruneLock()``; SQLite's writers
  /// take turns); rows are removed by `store prune` alone, which checks every pointer before it commits
  /// (``AuditStore/danglingPointers()``). So the check costs a query per pointer per prune, on both backends (SQLite
  /// never enforced its foreign keys), rather than a lookup per row written on PostgreSQL: a third of the server's
  /// time in an ingest.
  static let pointers: [(table: String, column: String, target: String, key: String)] = [
    ("inputs", "run_id", "runs", "id"), ("inputs", "file", "input_files", "id"),
    ("apps", "input_id", "inputs", "id"), ("apps", "run_id", "runs", "id"),
    ("apps", "observation", "app_observations", "id"), ("app_domains", "observation", "app_observations", "id"),
    ("app_schemes", "observation", "app_observations", "id"),
    ("unread_entitlements", "observation", "app_observations", "id"), ("retrievals", "run_id", "runs", "id"),
    ("retrievals", "observation", "retrieval_observations", "id"),
    ("retrieval_observations", "file_sha256", "aasa_files", "sha256"), ("latest_apps", "app", "apps", "id"),
    ("latest_retrievals", "retrieval", "retrievals", "id"),
  ]
}
