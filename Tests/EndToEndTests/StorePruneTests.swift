import Foundation
import SQLKit
import TestServers
import Testing

@testable import IPALinksStore

/// `store prune --before TIME` on both backends: the latest state and the state at any time read as before, each
/// version history shows keeps its first and last sighting, no row points to what is gone, and a prune killed
/// midway leaves a store every reader reads.
@Suite(.serialized) struct StorePruneTests {
  typealias Backend = AuditStoreTests.Backend

  /// Four weekly runs of the samples, on 19, 26 and 27 November 2026 and then on 27 November in the evening: the
  /// second retrieves a newer shop.example.com file, the last two change nothing.
  static func fourRuns(into location: String, copies: [String] = []) throws {
    let runs: [(String, String, [String])] = [
      ("week-47", "1795078800", ["samples/aasa"]), ("week-48", "1795683600", ["samples/aasa/next", "samples/aasa"]),
      ("week-48b", "1795770000", ["samples/aasa/next", "samples/aasa"]),
      ("week-48c", "1795800000", ["samples/aasa/next", "samples/aasa"]),
    ]
    for (label, epoch, folders) in runs {
      let run = try CLI.run(
        ["inspect", CLI.samples.path] + copies
          + folders.flatMap { ["--aasa-dir", CLI.repo.appendingPathComponent($0).path] }
          + ["--store", location, "--run-label", label, "-q", "--format", "jsonl"],
        environment: ["SOURCE_DATE_EPOCH": epoch])
      #expect(run.status == 0, "\(run.stderr)")
    }
  }

  /// What the readers of the latest state, and of the state at earlier times, print; `whole`, those that name the
  /// runs before week-48c too (a run pruned whole is no longer there to name, nor the run before the latest).
  static func readers(_ location: String, folder: URL, whole: Bool = true) throws -> [String: String] {
    let page = folder.appendingPathComponent("page.html").path
    var out: [String: String] = [:]
    var readers = [
      ["who-claims", "shop.example.com"], ["who-claims", "https://shop.example.com/buy/gift/card", "--at", "week-47"],
      ["who-claims", "https://shop.example.com/buy/gift/card", "--at", "2026-11-26T12:00:00Z"],
      ["diff", "--since", "week-47"], ["diff", "--since", "week-47", "--at", "2026-11-27T12:00:00Z"],
      ["blocklist", "--format", "patterns"], ["blocklist", "--format", "domains", "--at", "2026-11-20"],
    ]
    if whole {
      readers += [
        ["report", "--title", "t", "-o", page], ["diff", "--since", "week-47", "--at", "week-48"],
        ["who-claims", "https://shop.example.com/buy/gift/card", "--at", "week-48b"],
      ]
    }
    for arguments in readers {
      let run = try CLI.run(arguments + ["--store", location], environment: ["SOURCE_DATE_EPOCH": "1795856400"])
      let name = arguments.joined(separator: " ")
      out[name] =
        "\(run.status)\n\(run.stdout)\(run.stderr)"
        + (arguments[0] == "report" ? (try String(contentsOfFile: page, encoding: .utf8)) : "")
    }
    return out
  }

  /// Each version of shop.example.com's file and of the Store sample, with its first and last sighting.
  static func versions(_ location: String) throws -> [String] {
    let host = try CLI.run(["history", "--host", "shop.example.com", "--store", location, "--format", "jsonl"])
    let app = try CLI.run(["history", "--app", "com.example.store", "--store", location, "--format", "json"])
    #expect(host.status == 0 && app.status == 0, "\(host.stderr)\(app.stderr)")
    var lines: [String] = []
    for line in host.stdout.split(separator: "\n") {
      let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      let version = try #require(object["version"] as? [String: Any])
      lines.append("\(version["sha256"] ?? "") \(version["firstSeen"] ?? "") \(version["lastSeen"] ?? "")")
    }
    let apps = try #require(app.json?["apps"] as? [[String: Any]])
    for timeline in apps {
      for version in timeline["versions"] as? [[String: Any]] ?? [] {
        lines.append("\(version["version"] ?? "") \(version["firstSeen"] ?? "") \(version["lastSeen"] ?? "")")
      }
      lines.append("changes \((timeline["changes"] as? [Any])?.count ?? -1)")
    }
    return lines
  }

  @Test(arguments: Backend.usable) func pruneKeepsTheStateAndTheShapeOfHistory(_ backend: Backend) async throws {
    let stores = try AuditStoreTests.Stores(backend)
    defer { stores.close() }
    let location = try stores.make()
    try Self.fourRuns(into: location)
    let (before, versions) = (try Self.readers(location, folder: stores.folder), try Self.versions(location))
    #expect(versions.count >= 3, "\(versions)")

    // week-48 saw what week-47 and week-48b saw, but for shop.example.com's new file: it keeps that alone.
    let dry = try CLI.run(["store", "prune", "--before", "week-48b", "--store", location, "--dry-run"])
    #expect(
      dry.status == 0 && dry.stdout.hasPrefix("2 runs started before ") && dry.stdout.contains(", to prune:\n"),
      "\(dry.stdout)\(dry.stderr)")
    try Self.expectSame(try Self.readers(location, folder: stores.folder), before)

    let pruned = try CLI.run(["store", "prune", "--before", "week-48b", "--store", location, "--format", "json"])
    #expect(pruned.status == 0, "\(pruned.stderr)")
    let report = try #require(pruned.json, "\(pruned.stdout)\(pruned.stderr)")
    #expect(report["runs"] as? Int == 2 && report["runsRemoved"] as? Int == 0, "\(pruned.stdout)")
    #expect(report["runsThinned"] as? Int == 1 && (report["apps"] as? Int ?? 0) > 0, "\(pruned.stdout)")
    if backend == .sqlite { #expect(report["bytesAfter"] as? Int ?? 0 > 0) }
    try Self.expectSame(try Self.readers(location, folder: stores.folder), before)
    #expect(try Self.versions(location) == versions)
    let runs = try CLI.run(["store", "runs", "--store", location, "--format", "jsonl"])
    let pruneMarks = runs.stdout.split(separator: "\n").map { $0.contains("\"prunedAt\"") }
    #expect(pruneMarks == [false, true, false, false], "\(runs.stdout)")
    try await StoreMigrationTests.using(try await AuditStoreTests.open(location)) { store in
      try await StoreMigrationTests.expectNoMissingObservation(store)
      try await Self.expectTheLatestStateWhole(store)
    }
    // Pruned again: nothing more goes.
    let again = try CLI.run(["store", "prune", "--before", "week-48b", "--store", location, "--format", "json"])
    #expect(again.json?["apps"] as? Int == 0 && again.json?["runsThinned"] as? Int == 0, "\(again.stdout)")

    // week-48b saw only what week-48 and week-48c saw too: it goes whole, and cannot be named any more.
    let partial = try Self.readers(location, folder: stores.folder, whole: false)
    let whole = try CLI.run(["store", "prune", "--before", "week-48c", "--store", location, "--format", "json"])
    #expect(whole.json?["runsRemoved"] as? Int == 1, "\(whole.stdout)\(whole.stderr)")
    try Self.expectSame(try Self.readers(location, folder: stores.folder, whole: false), partial)
    #expect(try Self.versions(location) == versions)
    try await StoreMigrationTests.using(try await AuditStoreTests.open(location)) { store in
      try await StoreMigrationTests.expectNoMissingObservation(store)
      try await Self.expectTheLatestStateWhole(store)
    }
  }

  /// An input that was unreadable for a while is in the state at those times after a prune too: the prune kept
  /// only each path's latest input no app points to, and the state after the week it broke read it as never
  /// there (who-claims exit 1, "none does", where it said the answer was unknown).
  @Test(arguments: Backend.usable) func aPruneKeepsAnInputUnreadableThen(_ backend: Backend) async throws {
    let stores = try AuditStoreTests.Stores(backend)
    defer { stores.close() }
    let location = try stores.make()
    let folder = stores.folder.appendingPathComponent("ipas")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let ipa = folder.appendingPathComponent("Store.ipa")
    let (good, broken) = (try Data(contentsOf: URL(fileURLWithPath: CLI.sample("Store.ipa"))), Data("PK".utf8))
    // Readable, unreadable twice, then readable twice.
    let weeks = [good, broken, broken, good, good]
    try Self.dailyRuns(weeks.count, of: folder, into: location, ["--aasa-dir", CLI.sample("aasa")]) { week in
      try weeks[week].write(to: ipa)
      return weeks[week] == good ? 0 : 2
    }
    func readers() throws -> [String: String] {
      try Self.whoClaims(
        "https://shop.example.com/buy/1", at: ["w1", "w2", "2026-11-21T12:00:00Z", "w3"], in: location,
        clock: "1795600000")
    }
    let before = try Self.expectPruneChangesNothing(location, before: "w4", readers)
    #expect(before["w2"]?.hasPrefix("2\n") == true && before["w2"]?.contains("unreadable: ") == true, "\(before)")
  }

  /// An IPA renamed between runs is shown under the name it had at each time after a prune too: the app's sightings
  /// were thinned by observation alone, and the state between showed the old name.
  @Test func aPruneKeepsTheNameAnInputHadThen() async throws {
    let stores = try AuditStoreTests.Stores(.sqlite)
    defer { stores.close() }
    let location = try stores.make()
    let folder = stores.folder.appendingPathComponent("ipas")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let ipa = try Data(contentsOf: URL(fileURLWithPath: CLI.sample("Store.ipa")))
    let names = ["Old.ipa", "Old.ipa", "New.ipa", "New.ipa", "New.ipa"]
    try Self.dailyRuns(names.count, of: folder, into: location, ["--no-fetch"]) { week in
      for other in ["Old.ipa", "New.ipa"] {
        try? FileManager.default.removeItem(at: folder.appendingPathComponent(other))
      }
      try ipa.write(to: folder.appendingPathComponent(names[week]))
      return 0
    }
    func readers() throws -> [String: String] {
      // Times, not labels: a run pruned whole can no longer be named.
      try Self.whoClaims(
        "shop.example.com", at: ["2026-11-20T12:00:00Z", "2026-11-21T12:00:00Z", "2026-11-22T12:00:00Z"],
        in: location, ["--no-fetch"])
    }
    let before = try Self.expectPruneChangesNothing(location, before: "w4", readers)
    #expect(before["2026-11-22T12:00:00Z"]?.contains("ipas/New.ipa") == true, "\(before)")
  }

  /// One changed bundle of an IPA does not split it at the times before: the unchanged bundles' sightings in the
  /// middle went, and the state between pointed them at the older input and the changed one at the newer, so
  /// `report --store --at` counted the IPA twice.
  @Test(arguments: Backend.usable) func aPruneKeepsAnInputsBundlesTogether(_ backend: Backend) async throws {
    let stores = try AuditStoreTests.Stores(backend)
    defer { stores.close() }
    let location = try stores.make()
    let folder = stores.folder.appendingPathComponent("ipas")
    let lessAASA = stores.folder.appendingPathComponent("aasa")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      at: URL(fileURLWithPath: CLI.sample("Nested.ipa")), to: folder.appendingPathComponent("Nested.ipa"))
    // From the second day, the App Clip's host has no file: its bundle's observation changes, the others' do not.
    try FileManager.default.copyItem(at: URL(fileURLWithPath: CLI.sample("aasa")), to: lessAASA)
    try FileManager.default.removeItem(at: lessAASA.appendingPathComponent("clip.nested.example.com.json"))
    let now = stores.folder.appendingPathComponent("now")
    try Self.dailyRuns(4, of: folder, into: location, ["--aasa-dir", now.path]) { day in
      try? FileManager.default.removeItem(at: now)
      try FileManager.default.createSymbolicLink(
        at: now, withDestinationURL: day == 0 ? URL(fileURLWithPath: CLI.sample("aasa")) : lessAASA)
      return 0
    }
    let page = stores.folder.appendingPathComponent("page.html").path
    func readers() throws -> [String: String] {
      var out: [String: String] = [:]
      // The report names the run before the one it shows, which must still be there: w1's, not w2's (pruned whole).
      let run = try CLI.run(
        ["report", "--store", location, "--at", "2026-11-20T12:00:00Z", "--title", "t", "-o", page],
        environment: ["SOURCE_DATE_EPOCH": "1795600000"])
      out["report"] = "\(run.status)\n\(run.stderr)" + (try String(contentsOfFile: page, encoding: .utf8))
      return out.merging(
        try Self.whoClaims("nested.example.com", at: ["2026-11-20T12:00:00Z", "2026-11-21T12:00:00Z"], in: location)
      ) { $1 }
    }
    let before = try Self.expectPruneChangesNothing(location, before: "w3", readers)
    #expect(before["report"]?.contains("(1 input)") == true, "\(before)")
  }

  /// An app imported from an inventory reads the AASA results it was saved with until the store retrieves the host
  /// after it (`StoredFiles.join`): a retrieval in the middle of a stretch of one file, after such an app, is what
  /// the times after it read. It went, and `who-claims --at` a day later gave the inventory's answer instead.
  @Test(arguments: Backend.usable) func aPruneKeepsARetrievalAnImportedAppReadsAfter(_ backend: Backend) async throws {
    let stores = try AuditStoreTests.Stores(backend)
    defer { stores.close() }
    let location = try stores.make()
    let (ours, theirs) = (stores.folder.appendingPathComponent("ours"), stores.folder.appendingPathComponent("theirs"))
    for folder in [ours, theirs] {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      try FileManager.default.copyItem(
        at: URL(fileURLWithPath: CLI.sample("Store.ipa")), to: folder.appendingPathComponent("Store.ipa"))
    }
    func inspect(_ label: String, _ epoch: Int) throws {
      let run = try CLI.run(
        ["inspect", ours.path, "--aasa-dir", CLI.sample("aasa"), "--store", location, "--run-label", label, "-q"],
        environment: ["SOURCE_DATE_EPOCH": String(epoch)])
      #expect(run.status == 0, "\(run.stderr)")
    }
    try inspect("w1", 1_795_078_800)
    // Saved on 22 November with the newer shop.example.com file, in which gift cards open the app.
    let inventory = stores.folder.appendingPathComponent("saved.jsonl")
    let saved = try CLI.run(
      [
        "inspect", theirs.path, "--format", "jsonl", "--aasa-dir",
        CLI.repo.appendingPathComponent("samples/aasa/next").path,
        "--aasa-dir", CLI.sample("aasa"),
      ])
    #expect(saved.status == 0, "\(saved.stderr)")
    // Another app, which that file lists: the store's files do not, and its latest sighting stays the imported one.
    let other = saved.stdout.replacingOccurrences(
      of: "ST0REAPP42.com.example.store", with: "OTHERAPP42.com.example.other"
    )
    .replacingOccurrences(of: "com.example.store", with: "com.example.other")
    try Data(other.utf8).write(to: inventory)
    try FileManager.default.setAttributes(
      [.modificationDate: Date(timeIntervalSince1970: 1_795_338_000)], ofItemAtPath: inventory.path)
    let imported = try CLI.run(["store", "import", inventory.path, "--store", location, "-q"])
    #expect(imported.status == 0, "\(imported.stderr)")
    try inspect("w2", 1_795_683_600)
    try inspect("w3", 1_796_288_400)
    func readers() throws -> [String: String] {
      try Self.whoClaims(
        "https://shop.example.com/buy/gift/card", at: ["2026-11-23T12:00:00Z", "2026-11-27T12:00:00Z"], in: location,
        clock: "1796300000")
    }
    let before = try Self.expectPruneChangesNothing(location, before: "w3", readers)
    // On the 23rd the imported app reads its saved file, which opens it; from w2 on, the store's retrieval, which
    // does not list it.
    #expect(before["2026-11-23T12:00:00Z"]?.hasPrefix("0\n") == true, "\(before)")
    #expect(before["2026-11-23T12:00:00Z"]?.contains("OTHERAPP42.com.example.other") == true, "\(before)")
    #expect(before["2026-11-27T12:00:00Z"]?.hasPrefix("1\n") == true, "\(before)")
  }

  /// `inspect FOLDER --store` once a day from 19 November 2026, labelled `w0`, `w1`, …, each after `prepare(day)`
  /// has set the folder's files and said the exit code the run must give.
  static func dailyRuns(
    _ days: Int, of folder: URL, into location: String, _ arguments: [String], prepare: (Int) throws -> Int32
  ) throws {
    for day in 0..<days {
      let status = try prepare(day)
      let run = try CLI.run(
        ["inspect", folder.path, "--store", location, "--run-label", "w\(day)", "-q", "--format", "jsonl"] + arguments,
        environment: ["SOURCE_DATE_EPOCH": String(1_795_078_800 + day * 86_400)])
      #expect(run.status == status, "\(run.stderr)")
    }
  }

  /// What `who-claims QUERY --at TIME` prints (its exit code, then its output) at each of `times`, by time; `clock`
  /// is `SOURCE_DATE_EPOCH`, for a store whose runs are ahead of this machine's clock.
  static func whoClaims(
    _ query: String, at times: [String], in location: String, _ arguments: [String] = [], clock: String? = nil
  ) throws -> [String: String] {
    var out: [String: String] = [:]
    for at in times {
      let run = try CLI.run(
        ["who-claims", query, "--at", at, "--store", location] + arguments,
        environment: clock.map { ["SOURCE_DATE_EPOCH": $0] } ?? [:])
      out[at] = "\(run.status)\n\(run.stdout)\(run.stderr)"
    }
    return out
  }

  /// What `readers` print, which `store prune --before LABEL` must leave as it was.
  static func expectPruneChangesNothing(
    _ location: String, before label: String, _ readers: () throws -> [String: String]
  ) throws -> [String: String] {
    let before = try readers()
    let pruned = try CLI.run(["store", "prune", "--before", label, "--store", location])
    #expect(pruned.status == 0, "\(pruned.stderr)")
    try expectSame(try readers(), before)
    return before
  }

  /// A time no run names, a time to come and a store that is not there: one line saying which, exit 2, and nothing
  /// removed or made.
  @Test func aPruneThatCannotSayWhatToRemoveRemovesNothing() async throws {
    let stores = try AuditStoreTests.Stores(.sqlite)
    defer { stores.close() }
    let location = try stores.make()
    try Self.fourRuns(into: location)
    let before = try Self.readers(location, folder: stores.folder)
    for (time, said) in [
      ("week-99", "no run is labelled week-99"), ("2099-01-01", "2099-01-01 is in the future"),
    ] {
      let run = try CLI.run(["store", "prune", "--before", time, "--store", location])
      #expect(run.status == 2 && run.stdout.isEmpty, "\(run.stdout)")
      #expect(run.stderr.contains(said) && run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
    }
    try Self.expectSame(try Self.readers(location, folder: stores.folder), before)
    let missing = stores.folder.appendingPathComponent("typo.db").path
    let run = try CLI.run(["store", "prune", "--before", "7d", "--store", missing])
    #expect(run.status == 2 && run.stderr.contains("no such store"), "\(run.stderr)")
    #expect(!FileManager.default.fileExists(atPath: missing))
  }

  /// A prune checks every pointer a run writes before it commits (PostgreSQL checked them row by row as foreign keys
  /// until schema 9, SQLite never): a store where one points to nothing is refused in one line that names it, and
  /// nothing is removed. Then, mended, it prunes. PostgreSQL's tables have no foreign key left to check them.
  @Test(arguments: Backend.usable) func aPruneThatWouldLeaveAPointerToNothingRemovesNothing(_ backend: Backend)
    async throws
  {
    let stores = try AuditStoreTests.Stores(backend)
    defer { stores.close() }
    let location = try stores.make()
    try Self.fourRuns(into: location)
    let counts =
      "SELECT (SELECT COUNT(*) FROM runs) || ' ' || (SELECT COUNT(*) FROM apps) || ' ' || "
      + "(SELECT COUNT(*) FROM app_observations)"
    let (before, keys) = try await StoreMigrationTests.using(try await AuditStoreTests.open(location)) { store in
      #expect(try await store.danglingPointers().isEmpty)
      if store.dialect == .postgres {
        let tables = Set(StoreSchema.pointers.map(\.table)).sorted().map { "'\($0)'::regclass" }
        #expect(
          try await store.sqlRows(
            "SELECT COUNT(*) FROM pg_constraint WHERE contype = 'f' AND conrelid IN (\(tables.joined(separator: ", ")))"
          ) == ["0"])
      }
      // The latest app's observation, pointing to none.
      let app = try await store.sqlRows("SELECT MAX(app) FROM latest_apps")
      let observation = try await store.sqlRows("SELECT observation FROM apps WHERE id = \(app[0])")
      try await store.sqlRows("UPDATE apps SET observation = 999999 WHERE id = \(app[0])")
      return (try await store.sqlRows(counts), (app[0], observation[0]))
    }
    let run = try CLI.run(["store", "prune", "--before", "week-48b", "--store", location])
    #expect(run.status == 2 && run.stdout.isEmpty, "\(run.stdout)")
    #expect(
      run.stderr.contains(
        "cannot prune the store: it would leave apps.observation pointing to no app_observations row (1 row); "
          + "nothing was removed"), "\(run.stderr)")
    try await StoreMigrationTests.using(try await AuditStoreTests.open(location)) { store in
      #expect(try await store.sqlRows(counts) == before)
      try await store.sqlRows("UPDATE apps SET observation = \(keys.1) WHERE id = \(keys.0)")
    }
    let mended = try CLI.run(["store", "prune", "--before", "week-48b", "--store", location])
    #expect(
      mended.status == 0 && mended.stdout.hasPrefix("2 runs started before ") && mended.stdout.contains(", pruned:\n"),
      "\(mended.stdout)\(mended.stderr)")
  }

  /// A prune killed with SIGKILL in the middle of its work: the store opens, every reader prints what it printed
  /// before, and no row points to what is gone. On PostgreSQL the test holds a lock that stops the prune at its
  /// last DELETE, after it has removed the sightings, so the kill lands there; SQLite's prune holds the file's write
  /// lock from its first statement, and is killed at moments of its run.
  @Test(arguments: Backend.usable) func aPruneKilledMidwayLeavesAReadableStore(_ backend: Backend) async throws {
    let stores = try AuditStoreTests.Stores(backend)
    defer { stores.close() }
    let location = try stores.make()
    // Enough rows that SQLite's prune takes a while: each sample many times under other names.
    let corpus = stores.folder.appendingPathComponent("copies")
    try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
    for copy in 0..<25 {
      for name in AuditStoreTests.samples {
        try FileManager.default.linkItem(
          at: CLI.samples.appendingPathComponent(name), to: corpus.appendingPathComponent("\(copy)-\(name)"))
      }
    }
    try Self.fourRuns(into: location, copies: [corpus.path])
    let before = try Self.readers(location, folder: stores.folder)
    let holder = try await AuditStoreTests.open(location)
    if backend == .postgres {
      // Reads go on; the prune's DELETE of AASA files, its last, waits.
      _ = try await holder.sqlRows("BEGIN")
      _ = try await holder.sqlRows("LOCK TABLE aasa_files IN SHARE MODE")
    }
    for delay in backend == .postgres ? [0.0] : [0.03, 0.06, 0.1] {
      let prune = try CLI.start(["store", "prune", "--before", "week-48b", "--store", location])
      if backend == .postgres {
        var waiting = false
        let deadline = Date().addingTimeInterval(30)
        while !waiting && Date() < deadline {
          try await Task.sleep(for: .milliseconds(20))
          // A transaction keeps its first view of the statistics: cleared, so each look is fresh.
          _ = try await holder.sqlRows("SELECT pg_stat_clear_snapshot()")
          waiting =
            try await holder.sqlRows(
              """
              SELECT COUNT(*) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND wait_event_type = 'Lock'
                AND query LIKE '%DELETE FROM aasa_files%'
              """) == ["1"]
        }
        #expect(waiting, "the prune never reached its last DELETE")
      } else {
        try await Task.sleep(for: .seconds(delay))
      }
      kill(prune.process.processIdentifier, SIGKILL)
      _ = try await prune.exited()
      if backend == .postgres {
        _ = try await holder.sqlRows("ROLLBACK")
        // The server rolls the prune back once it sees its client gone.
        let deadline = Date().addingTimeInterval(30)
        while try await holder.sqlRows(
          """
          SELECT COUNT(*) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = current_database()
            AND state <> 'idle'
          """) != ["0"] && Date() < deadline
        {
          try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try await holder.sqlRows("SELECT COUNT(*) FROM runs WHERE pruned_at IS NOT NULL") == ["0"])
      }
      try Self.expectSame(try Self.readers(location, folder: stores.folder), before)
      try await StoreMigrationTests.expectNoMissingObservation(holder)
      try await Self.expectTheLatestStateWhole(holder)
      if backend == .sqlite { #expect(try await holder.sqlRows("PRAGMA integrity_check") == ["ok"]) }
    }
    try await holder.close()
    let finished = try CLI.run(["store", "prune", "--before", "week-48b", "--store", location])
    #expect(finished.status == 0, "\(finished.stderr)")
    try Self.expectSame(try Self.readers(location, folder: stores.folder), before)
  }

  /// A prune whose VACUUM, after the commit, waits past the timeout (another session's lock on a table) is done, and
  /// says so with the size it could not measure: it said only "cannot measure the store", exit 2, the runs gone.
  @Test(.enabled(if: PostgreSQL.available)) func aPruneDoneBeforeItsVacuumStalledSaysSo() async throws {
    let stores = try AuditStoreTests.Stores(.postgres)
    defer { stores.close() }
    let location = try stores.make()
    try Self.fourRuns(into: location)
    let holder = try await AuditStoreTests.open(location)
    _ = try await holder.sqlRows("BEGIN")
    // Takes nothing a prune's transaction needs, and holds back VACUUM.
    _ = try await holder.sqlRows("LOCK TABLE runs IN SHARE UPDATE EXCLUSIVE MODE")
    let prune = try CLI.run(["store", "prune", "--before", "week-48b", "--store", location, "--store-timeout", "2"])
    _ = try await holder.sqlRows("ROLLBACK")
    #expect(prune.status == 0, "\(prune.stdout)\(prune.stderr)")
    #expect(prune.stdout.hasPrefix("2 runs started before 2026-11-27 09:00:00 UTC, pruned:\n"), "\(prune.stdout)")
    #expect(
      prune.stdout.contains("bytes before; not measured after (VACUUM failed: the server did not answer within 2 s)\n"),
      "\(prune.stdout)")
    #expect(try await holder.sqlRows("SELECT COUNT(*) FROM runs WHERE pruned_at IS NOT NULL") == ["1"])
    try await holder.close()
    // A commit that is not answered (a synchronous standby gone) may have been done: said so, not "cannot prune".
    let server = try #require(stores.server)
    _ = try server.superuserSQL("ALTER SYSTEM SET synchronous_standby_names = 'ghost'")
    _ = try server.superuserSQL("SELECT pg_reload_conf()")
    let unknown = try CLI.run(["store", "prune", "--before", "week-48c", "--store", location, "--store-timeout", "2"])
    _ = try server.superuserSQL("ALTER SYSTEM RESET synchronous_standby_names")
    _ = try server.superuserSQL("SELECT pg_reload_conf()")
    #expect(unknown.status == 2 && unknown.stdout.isEmpty, "\(unknown.stdout)\(unknown.stderr)")
    #expect(
      unknown.stderr.hasSuffix(
        ": the prune's commit was sent, and then the server did not answer within 2 s: whether it was done is unknown; "
          + "store runs shows the runs that are left\n"), "\(unknown.stderr)")
  }

  /// Each reader printed what it printed before.
  static func expectSame(_ now: [String: String], _ before: [String: String]) throws {
    #expect(now.keys.sorted() == before.keys.sorted())
    for (reader, printed) in before.sorted(by: { $0.key < $1.key }) where now[reader] != printed {
      let (old, new) = (printed.split(separator: "\n"), (now[reader] ?? "").split(separator: "\n"))
      let first = (0..<min(old.count, new.count)).first { old[$0] != new[$0] } ?? min(old.count, new.count)
      let was = first < old.count ? String(old[first]) : "-"
      let isNow = first < new.count ? String(new[first]) : "-"
      Issue.record("\(reader): line \(first + 1) was \(was) and is \(isNow)")
    }
  }

  /// Every row the latest state points to is there.
  static func expectTheLatestStateWhole(_ store: AuditStore) async throws {
    #expect(
      try await store.sqlRows("SELECT COUNT(*) FROM latest_apps l LEFT JOIN apps a ON a.id = l.app WHERE a.id IS NULL")
        == ["0"])
    #expect(
      try await store.sqlRows(
        "SELECT COUNT(*) FROM latest_retrievals l LEFT JOIN retrievals r ON r.id = l.retrieval WHERE r.id IS NULL")
        == ["0"])
  }
}
