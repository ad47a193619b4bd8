import Foundation
import IPALinksKit
import SQLKit
import TestServers
import Testing

@testable import IPALinksStore

/// A store written by schema 6, before each observation was stored once (issue 46), migrated by this build: every
/// reader prints the same bytes as the schema-6 build printed on it (Tests/Fixtures/store, made by
/// scripts/store-fixture.py), on both backends, and the migrated store keeps each observation once and no pointer to
/// a missing one.
@Suite(.serialized) struct StoreMigrationTests {
  typealias Backend = AuditStoreTests.Backend

  /// One reader's command and what the schema-6 build printed.
  struct Output: Decodable {
    var arguments: [String]
    var exit: Int32
    var stdout: String
    var stderr: String
  }

  static let folder = CLI.fixtures.appendingPathComponent("store")

  /// The fixture's rows inserted into a new store of `location` at schema 6.
  static func loadSchema6(into location: String) async throws {
    let data = try Data(contentsOf: folder.appendingPathComponent("schema6.json"))
    let tables = try #require(try JSONSerialization.jsonObject(with: data) as? [String: [String: Any]])
    let store = try await AuditStore.open(try StoreLocation(location), creating: true, schema: 6)
    // Parents before the rows that point to them.
    let order = [
      "runs", "inputs", "apps", "app_domains", "app_schemes", "aasa_files", "retrievals", "latest_apps",
      "latest_retrievals", "watched_hosts",
    ]
    #expect(Set(order) == Set(tables.keys))
    for table in order {
      let columns = try #require(tables[table]?["columns"] as? [String])
      let rows = try #require(tables[table]?["rows"] as? [[Any]])
      // A null as a literal: bound, PostgreSQL would take it for text, whatever the column.
      let values: [[any SQLExpression]] = rows.map { row in
        row.map { value -> any SQLExpression in
          switch value {
          case let hex as [String: String]: return SQLBind(Data(hexString: hex["hex"] ?? ""))
          case let text as String: return SQLBind(text)
          case let number as NSNumber: return SQLBind(number.intValue)
          default: return SQLLiteral.null
          }
        }
      }
      for row in values {
        do {
          try await store.sql.insert(into: table).columns(columns).values(row).run()
        } catch {
          Issue.record("\(table): \(String(reflecting: error))")
          throw error
        }
      }
    }
    if store.dialect == .postgres {
      // Rows inserted with their IDs leave the sequences behind them.
      for table in ["runs", "inputs", "apps", "retrievals"] {
        try await store.sql.raw(
          """
          SELECT setval(pg_get_serial_sequence('\(unsafeRaw: table)', 'id'), (SELECT MAX(id) FROM \(unsafeRaw: table)))
          """
        ).run()
      }
    }
    try await store.close()
  }

  @Test(arguments: Backend.usable) func everyReaderPrintsTheSameBytesAfterTheMigration(_ backend: Backend) async throws
  {
    let stores = try AuditStoreTests.Stores(backend)
    defer { stores.close() }
    let location = try stores.make()
    try await Self.loadSchema6(into: location)
    let outputs = try JSONDecoder().decode(
      [Output].self, from: Data(contentsOf: Self.folder.appendingPathComponent("schema6-outputs.json")))
    #expect(outputs.count >= 20)
    let environment = ["COLUMNS": "100", "NO_COLOR": "1", "SOURCE_DATE_EPOCH": "1795856400"]
    var actual: [[String: Any]] = []
    for output in outputs {
      let result = try CLI.run(
        output.arguments.map { $0 == "STORE" ? location : $0 }, environment: environment)
      actual.append([
        "arguments": output.arguments, "stdout": result.stdout.replacingOccurrences(of: location, with: "STORE"),
        "stderr": result.stderr.replacingOccurrences(of: location, with: "STORE"), "exit": result.status,
      ])
      let named = output.arguments.joined(separator: " ")
      #expect(result.status == output.exit, "\(named)")
      #expect(result.stdout.replacingOccurrences(of: location, with: "STORE") == output.stdout, "\(named)")
      #expect(result.stderr.replacingOccurrences(of: location, with: "STORE") == output.stderr, "\(named)")
    }
    // What they print now, to compare with the fixture when an output changes on purpose.
    if let path = ProcessInfo.processInfo.environment["IPALINKS_READER_OUTPUTS"] {
      try JSONSerialization.data(withJSONObject: actual, options: [.prettyPrinted, .sortedKeys])
        .write(to: URL(fileURLWithPath: path + "-" + backend.rawValue + ".json"))
    }
    let (version, apps, observations) = try await Self.using(try await AuditStoreTests.open(location)) { store in
      try await Self.expectNoMissingObservation(store)
      return (
        try await store.sqlRows("SELECT MAX(version) FROM ipalinks_schema"),
        try await store.sqlRows("SELECT COUNT(*) FROM apps"),
        Int(try await store.sqlRows("SELECT COUNT(*) FROM app_observations")[0]) ?? 0
      )
    }
    // Each observation once: 37 app rows, of which the unchanged runs share their observations.
    #expect(version == ["\(StoreSchema.version)"])
    #expect(apps == ["37"])
    #expect(observations > 0 && observations < 25, "\(observations) observations")
    // The tables schema 8 made again with their rows' IDs take new rows after them, and the latest state moves on.
    let run = try CLI.run(
      [
        "inspect", CLI.samples.path, "--aasa-dir", CLI.sample("aasa"), "--store", location, "--run-label", "after",
        "-q",
      ],
      environment: ["SOURCE_DATE_EPOCH": "1895856400"])
    #expect(run.status == 0, "\(run.stderr)")
    let (after, newest) = try await Self.using(try await AuditStoreTests.open(location)) { store in
      try await Self.expectNoMissingObservation(store)
      return (
        try await store.sqlRows("SELECT COUNT(*) FROM apps"),
        try await store.sqlRows(
          "SELECT DISTINCT u.label FROM latest_apps l JOIN apps a ON a.id = l.app JOIN runs u ON u.id = a.run_id")
      )
    }
    #expect((Int(after.first ?? "") ?? 0) > 37)
    #expect(newest == ["after"])
    // A run's rows hold their columns alone, with none dropped (which PostgreSQL would keep in every row), the
    // 8-byte ones first.
    let columns = try await Self.using(try await AuditStoreTests.open(location)) { store in
      var columns: [String: [String]] = [:]
      for table in ["inputs", "apps", "retrievals"] {
        columns[table] =
          store.dialect == .postgres
          ? try await store.sqlRows(
            "SELECT attname::text FROM pg_attribute WHERE attrelid = '\(table)'::regclass AND attnum > 0 ORDER BY attnum"
          )
          : try await store.sqlRows("SELECT name FROM pragma_table_info('\(table)') ORDER BY cid")
      }
      return columns
    }
    #expect(columns["inputs"] == ["id", "run_id", "file", "observed_at"])
    #expect(columns["apps"] == ["id", "input_id", "run_id", "observation", "superseded", "app_key"])
    #expect(
      columns["retrievals"] == [
        "id", "run_id", "observation", "developer_mode", "settles", "host", "retrieved_at", "status",
      ])
  }

  /// A store of schema 1 (no latest tables, no `settles`, no index of retrievals by run, no watched hosts, no
  /// superseded observations, each observation in every row) gains them from its rows when it is next opened, and
  /// reads as the same store migrated from schema 6 does.
  @Test(arguments: Backend.usable) func aStoreOfSchema1GainsEverySchemaSince(_ backend: Backend) async throws {
    let stores = try AuditStoreTests.Stores(backend)
    defer { stores.close() }
    let (old, fromSix) = (try stores.make(), try stores.make())
    try await Self.loadSchema6(into: old)
    try await Self.loadSchema6(into: fromSix)
    try await Self.using(try await AuditStore.open(try StoreLocation(old), creating: false, schema: 6)) { store in
      for statement in [
        "DROP TABLE watched_hosts", "DROP TABLE latest_apps", "DROP TABLE latest_retrievals",
        "ALTER TABLE retrievals DROP COLUMN settles", "ALTER TABLE apps DROP COLUMN superseded",
        "DROP INDEX retrievals_run", "DROP INDEX inputs_unreadable", "DROP INDEX inputs_path",
        "DELETE FROM ipalinks_schema WHERE version > 1",
      ] {
        try await store.sql.raw(SQLQueryString(statement)).run()
      }
    }
    let reference = try await Self.using(try await AuditStoreTests.open(fromSix)) {
      JSONReporter.render(try await $0.latestReports(), pretty: false)
    }
    try await Self.using(try await AuditStoreTests.open(old)) { migrated in
      #expect(try await migrated.sqlRows("SELECT MAX(version) AS v FROM ipalinks_schema") == ["\(StoreSchema.version)"])
      let rendered = JSONReporter.render(try await migrated.latestReports(), pretty: false)
      #expect(rendered == reference)
      #expect(rendered.contains("ST0REAPP42.com.example.store"))
      try await Self.expectNoMissingObservation(migrated)
    }
  }

  /// A store whose rows schema 8 cannot take (here an app row that points to no observation, as a hand edit could
  /// leave) is refused in one line naming the store, and left as it was: its schema, its rows; once the row is
  /// mended, the next command migrates it.
  @Test(arguments: Backend.usable) func aMigrationThatCannotFinishLeavesTheStoreAsItWas(_ backend: Backend)
    async throws
  {
    let stores = try AuditStoreTests.Stores(backend)
    defer { stores.close() }
    let location = try stores.make()
    try await Self.loadSchema6(into: location)
    let (observation, apps) = try await Self.using(
      try await AuditStore.open(try StoreLocation(location), creating: false, schema: 7)
    ) { store in
      let observation = try await store.sqlRows("SELECT observation FROM apps WHERE id = 1")
      try await store.sqlRows("UPDATE apps SET observation = NULL WHERE id = 1")
      return (observation, try await store.sqlRows("SELECT COUNT(*) FROM apps"))
    }
    let refused = try CLI.run(["store", "runs", "--store", location])
    #expect(refused.status != 0 && refused.stdout.isEmpty, "\(refused.status) \(refused.stdout)")
    let lines = refused.stderr.split(separator: "\n")
    let named = "\(try StoreLocation(location)): "
    #expect(
      lines.count == 1 && lines[0].contains(named)
        && lines[0].contains(
          "cannot bring the store from schema 7 to \(StoreSchema.version), and left it at schema 7, as it was: ")
        && lines[0].contains("observation"),
      "\(refused.status): \(refused.stderr)")
    try await Self.using(try await AuditStore.open(try StoreLocation(location), creating: false, schema: 7)) {
      #expect(try await $0.sqlRows("SELECT MAX(version) FROM ipalinks_schema") == ["7"])
      #expect(try await $0.sqlRows("SELECT COUNT(*) FROM apps") == apps)
      try await $0.sqlRows("UPDATE apps SET observation = \(observation[0]) WHERE id = 1")
    }
    let runs = try CLI.run(["store", "runs", "--store", location])
    #expect(runs.status == 0, "\(runs.stderr)")
    try await Self.using(try await AuditStoreTests.open(location)) {
      #expect(try await $0.sqlRows("SELECT MAX(version) FROM ipalinks_schema") == ["\(StoreSchema.version)"])
      #expect(try await $0.sqlRows("SELECT COUNT(*) FROM apps") == apps)
      try await Self.expectNoMissingObservation($0)
    }
  }

  /// `body` on `store`, which is closed after it whatever happens.
  @discardableResult
  static func using<T>(_ store: AuditStore, _ body: (AuditStore) async throws -> T) async throws -> T {
    do {
      let value = try await body(store)
      try await store.close()
      return value
    } catch {
      try? await store.close()
      throw error
    }
  }

  /// No run's row points to an observation that is not there, nor to none.
  static func expectNoMissingObservation(_ store: AuditStore) async throws {
    #expect(
      try await store.sqlRows(
        "SELECT COUNT(*) FROM apps a LEFT JOIN app_observations o ON o.id = a.observation WHERE o.id IS NULL")
        == ["0"])
    #expect(
      try await store.sqlRows(
        """
        SELECT COUNT(*) FROM retrievals r LEFT JOIN retrieval_observations o ON o.id = r.observation
        WHERE o.id IS NULL
        """) == ["0"])
    #expect(
      try await store.sqlRows(
        "SELECT COUNT(*) FROM app_domains d LEFT JOIN app_observations o ON o.id = d.observation WHERE o.id IS NULL")
        == ["0"])
  }
}

extension Data {
  /// The bytes `hexString` spells, two hex digits each.
  fileprivate init(hexString: String) {
    var bytes: [UInt8] = []
    var digits = hexString.utf8.makeIterator()
    while let high = digits.next(), let low = digits.next() {
      func value(_ c: UInt8) -> UInt8 { c >= 97 ? c - 87 : c >= 65 ? c - 55 : c - 48 }
      bytes.append(value(high) << 4 | value(low))
    }
    self.init(bytes)
  }
}
