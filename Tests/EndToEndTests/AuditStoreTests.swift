import Crypto
import Foundation
import IPALinksKit
import SQLKit
import TestServers
import Testing

@testable import IPALinksStore

/// The audit store on SQLite and on a real PostgreSQL server the test starts itself: writing, reading the latest
/// state, the documented queries, and what goes wrong (a newer schema, hostile strings, four writers at once, a writer
/// killed mid-run, a store that cannot be reached).
@Suite(.serialized) struct AuditStoreTests {
  enum Backend: String, CustomTestStringConvertible, Sendable {
    case sqlite, postgres
    var testDescription: String { rawValue }

    /// SQLite always; PostgreSQL where its server binaries are, and under `make test` on Linux in any case, where
    /// `make setup` installs them, so that a missing server fails there instead of going untested.
    static let usable: [Backend] = PostgreSQL.available ? [.sqlite, .postgres] : [.sqlite]
  }

  /// A place to make stores in: a folder for SQLite files, and for PostgreSQL a private server, one database per
  /// store. `close()` stops the server.
  final class Stores: @unchecked Sendable {
    let backend: Backend
    let folder: URL
    let server: PostgresTestServer?
    private var count = 0

    init(_ backend: Backend) throws {
      self.backend = backend
      folder = FileManager.default.temporaryDirectory.appendingPathComponent("ipalinks-store-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      server = backend == .postgres ? try PostgresTestServer.start() : nil
    }

    /// A new, empty store's location.
    func make() throws -> String {
      count += 1
      if let server { return try server.createDatabase("store\(count)") }
      return folder.appendingPathComponent("store\(count).db").path
    }

    func close() {
      server?.stop()
      try? FileManager.default.removeItem(at: folder)
    }
  }

  static func open(_ location: String) async throws -> AuditStore {
    try await AuditStore.open(try StoreLocation(location))
  }

  /// Fetches from the samples' AASA folders (`aasa` under samples/), keeping each retrieval, as `inspect --store`
  /// does.
  static func sampleFetches(_ aasa: [String] = ["aasa"]) throws -> SharedAASAFetches {
    var options = AASAFetchOptions()
    options.aasaDirectories = aasa.map { CLI.samples.appendingPathComponent($0) }
    return SharedAASAFetches(fetcher: try AASAFetcher(options: options), keepingRetrievals: true)
  }

  /// The samples, inspected with their AASA files and recorded as one run at `time`, as `inspect --store` does.
  static func record(
    _ names: [String], into location: String, aasa: [String] = ["aasa"], label: String? = nil, at time: Date
  ) async throws {
    let fetches = try sampleFetches(aasa)
    let store = try await open(location)
    let run = try await RunRecorder.begin(store, command: "inspect", arguments: [], label: label, shard: nil, at: time)
    for name in names {
      let report = await BatchInspector.inspect(CLI.sample(name), fetches: fetches)
      let retrievals = await fetches.retrievals(for: UniversalLinkInventory.requests(for: report))
      try await run.record(report, retrievals: retrievals, at: time)
    }
    try await run.finish(at: time)
    try await store.close()
  }

  static let samples = ["Store.ipa", "Nested.ipa", "Fat.ipa", "Enterprise.ipa", "Profile.ipa", "XcentOnly.ipa"]

  /// An input's size and SHA-256 come from a regular file, read whole through a buffer smaller than it; a folder, a
  /// named pipe (which must not hold the run until something writes to it), a missing path and standard input
  /// have none, and their inputs are recorded without them.
  @Test(.timeLimit(.minutes(1))) func anInputsSizeAndHashComeFromRegularFilesOnly() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ipalinks-facts-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let small = folder.appendingPathComponent("abc.ipa")
    try Data("abc".utf8).write(to: small)
    // A million "a": four reads of the 256 KB buffer. Both digests are FIPS 180-2's test vectors.
    let large = folder.appendingPathComponent("million.ipa")
    try Data(repeating: UInt8(ascii: "a"), count: 1_000_000).write(to: large)
    let pipe = folder.appendingPathComponent("pipe.ipa")
    #expect(mkfifo(pipe.path, 0o600) == 0)
    let digests = InputDigests()
    let facts = { (path: String) in digests.facts(path).map { ($0.size, $0.sha256) } }
    #expect(facts(small.path)! == (3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"))
    #expect(facts(large.path)! == (1_000_000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"))
    // Each read is told, for the bar of a large input being hashed.
    var told: [Int] = []
    _ = digests.facts(large.path) { told.append($0) }
    #expect(told == [262_144, 262_144, 262_144, 213_568])
    for path in [folder.path, pipe.path, folder.appendingPathComponent("missing.ipa").path, "-"] {
      #expect(digests.facts(path) == nil, "\(path)")
    }
  }

  /// A file the store hashed is not read again while it is as it was (the digest given back here is one no file
  /// has, so only the store can have said it); written again, even with the same bytes, it is read and hashed. A
  /// file that changed within the settling time is hashed but not remembered.
  /// The store orders its state by time: a run whose clock is behind an earlier run's start never replaces what that
  /// run saw, and two runs of one instant cannot be told apart by `--at`. Neither was said: `refresh` then found the
  /// same change on every run, and `--at` the first of two runs gave the second's state. Both are said now.
  @Test func aRunWhoseClockIsBehindOrTheSameSaysSo() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ipalinks-clock-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = folder.appendingPathComponent("s.db").path
    func inspect(at epoch: String) throws -> CLI.Result {
      try CLI.run(
        ["inspect", CLI.sample("Store.ipa"), "--aasa-dir", CLI.sample("aasa"), "--store", store, "--format", "jsonl"],
        environment: ["SOURCE_DATE_EPOCH": epoch])
    }
    let first = try inspect(at: "1795683600")
    #expect(first.status == 0 && !first.stderr.contains("warning"), "\(first.stderr)")
    let behind = try inspect(at: "1795078800")
    #expect(
      behind.stderr.contains(
        "warning: this run's clock (2026-11-19 09:00:00 UTC) is before the start of run 1 (2026-11-26 09:00:00 UTC)"),
      "\(behind.stderr)")
    let same = try inspect(at: "1795683600")
    #expect(
      same.stderr.contains("warning: run 1 started at the same instant (2026-11-26 09:00:00 UTC)"), "\(same.stderr)")
    let refresh = try CLI.run(
      ["refresh", "--store", store, "--aasa-dir", CLI.sample("aasa")], environment: ["SOURCE_DATE_EPOCH": "1795078800"])
    #expect(refresh.stderr.contains("is before the start of run 3"), "\(refresh.stderr)")
    // A minute behind is a clock that differs a little, as shards on several machines have: nothing is said.
    let close = try inspect(at: "1795683570")
    #expect(!close.stderr.contains("warning"), "\(close.stderr)")
  }

  /// Two runs of one instant cannot be told apart by a state ordered by time: the state after the first is refused,
  /// by label and by number, where it gave the second run's app (`--at`) and "No differences." (`diff --since`); the
  /// state after the second, which holds both, is read.
  @Test(arguments: Backend.usable) func theStateAfterARunSharingItsInstantWithALaterOneIsRefused(_ backend: Backend)
    async throws
  {
    let stores = try Stores(backend)
    defer { stores.close() }
    let location = try stores.make()
    let shown = try StoreLocation(location).description
    for (ipa, label) in [("Store.ipa", "first"), ("Fat.ipa", "second")] {
      let run = try CLI.run(
        [
          "inspect", CLI.sample(ipa), "--aasa-dir", CLI.sample("aasa"), "--store", location, "--run-label", label,
          "--format", "jsonl",
        ], environment: ["SOURCE_DATE_EPOCH": "1795683600"])
      #expect(run.status == 0, "\(run.stderr)")
    }
    let refusal =
      "ipalinks: \(shown): the state after first cannot be shown: run 2 (second) recorded at the instant first "
      + "ended, 2026-11-26 09:00:00 UTC, and the store orders its state by time (a clock or SOURCE_DATE_EPOCH held "
      + "still stamped both)\n"
    for arguments in [
      ["who-claims", "fat.example.com", "--at", "first"], ["diff", "--since", "first"],
      ["history", "--app", "com.example.fat", "--at", "first"], ["blocklist", "--format", "domains", "--at", "first"],
    ] {
      let read = try CLI.run(arguments + ["--store", location])
      // (`blocklist` adds that it made no list.)
      #expect(read.status == 2 && read.stdout.isEmpty && read.stderr.hasPrefix(refusal), "\(arguments): \(read.stderr)")
    }
    let byNumber = try CLI.run(["who-claims", "fat.example.com", "--at", "1", "--store", location])
    #expect(byNumber.status == 2 && byNumber.stderr.contains("the state after run 1 cannot be shown"))
    let after = try CLI.run(["who-claims", "fat.example.com", "--at", "second", "--store", location])
    #expect(after.status == 0 && after.stdout.contains("Fat Binary"), "\(after.stderr)")
  }

  /// An imported inventory named like a run's number is not labelled with its name (`--at 1` found it, not run 1),
  /// and one whose file time is ahead of the clock is imported as of now, with a warning: it was the latest state
  /// until that time, over every later run.
  @Test func anImportNamedLikeARunOrAheadOfTheClockHidesNoRun() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ipalinks-import-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = folder.appendingPathComponent("s.db").path
    // The Store app without its files; then inspected with them, after the import.
    let saved = try CLI.run(["inspect", CLI.sample("Store.ipa"), "--no-fetch", "--format", "jsonl"])
    let named = folder.appendingPathComponent("1")
    try Data(saved.stdout.utf8).write(to: named)
    let imported = try CLI.run(["store", "import", "1", "--store", store, "-q"], currentDirectory: folder)
    #expect(imported.status == 0, "\(imported.stderr)")
    let runs = try CLI.run(["store", "runs", "--store", store, "--format", "json"])
    let run = try #require(((runs.json?["runs"] as? [[String: Any]])?.first), "\(runs.stdout)")
    #expect(run["label"] == nil || run["label"] is NSNull, "\(runs.stdout)")
    let ahead = folder.appendingPathComponent("ahead.jsonl")
    try Data(saved.stdout.utf8).write(to: ahead)
    try FileManager.default.setAttributes([.modificationDate: Date() + 400 * 86_400], ofItemAtPath: ahead.path)
    let future = try CLI.run(["store", "import", ahead.path, "--store", store])
    #expect(future.status == 0 && future.stderr.contains("after this clock: imported as of now"), "\(future.stderr)")
    let later = try CLI.run(
      ["inspect", CLI.sample("Store.ipa"), "--aasa-dir", CLI.sample("aasa"), "--store", store, "--format", "jsonl"])
    #expect(later.status == 0 && !later.stderr.contains("warning"), "\(later.stderr)")
    let claims = try CLI.run(["who-claims", "shop.example.com", "--store", store, "-q"])
    #expect(claims.stdout.contains("applinks:shop.example.com  (AASA ok, lists the app, decides)"), "\(claims.stdout)")
  }

  /// A device or a pipe given as the store is none, said in one line, and nothing is made beside it: `--store
  /// /dev/null` left a `/dev/null-journal` (mode 0666) behind.
  @Test func aDeviceIsNoStore() throws {
    let journal = "/dev/null-journal"
    let existed = FileManager.default.fileExists(atPath: journal)
    let run = try CLI.run(["inspect", CLI.sample("Store.ipa"), "--no-fetch", "-q", "--store", "/dev/null"])
    #expect(
      run.status == 3 && run.stderr == "ipalinks: /dev/null: not a regular file, so not a store (a SQLite file)\n")
    #expect(existed || !FileManager.default.fileExists(atPath: journal))
    let reader = try CLI.run(["store", "runs", "--store", "/dev/null"])
    #expect(reader.status == 2 && reader.stderr.contains("not a regular file"), "\(reader.stderr)")
  }

  /// A list made from the store says how many of its files are more than a week old, and the oldest: a list is as
  /// current as they are. Not for files of six days, not with `-q`, not for the state `--at` a time.
  @Test func aListFromTheStoreSaysItsFilesAreOld() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ipalinks-age-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = folder.appendingPathComponent("s.db").path
    let recorded = try CLI.run(
      ["inspect", CLI.sample("Store.ipa"), "--aasa-dir", CLI.sample("aasa"), "--store", store, "--format", "jsonl"],
      environment: ["SOURCE_DATE_EPOCH": "1795078800"])
    #expect(recorded.status == 0, "\(recorded.stderr)")
    func blocklist(after days: Int, _ more: [String] = []) throws -> CLI.Result {
      try CLI.run(
        ["blocklist", "--store", store, "--format", "domains"] + more,
        environment: ["SOURCE_DATE_EPOCH": String(1_795_078_800 + days * 86_400)])
    }
    let old = try blocklist(after: 8)
    #expect(old.status == 0 && old.stdout == "*.example.com\nshop.example.com\n", "\(old.stderr)")
    #expect(
      old.stderr.contains(
        "ipalinks: 3 hosts' AASA files were last retrieved into the store more than 7 days ago (the oldest, "
          + "dev.example.com's, 8 days ago): ipalinks refresh retrieves them again\n"), "\(old.stderr)")
    for quiet in [try blocklist(after: 6), try blocklist(after: 8, ["-q"]), try blocklist(after: 8, ["--at", "1"])] {
      #expect(quiet.status == 0 && !quiet.stderr.contains("last retrieved"), "\(quiet.stderr)")
    }
  }

  /// `history` names a run by a label other runs it names have too with its number as well, as `report` does:
  /// three `nightly` runs read as one, though `--at nightly` reads the last.
  @Test func historyTellsRunsOfOneLabelApart() {
    let shared = StoreText.sharedLabels([("nightly", 1), ("nightly", 2), ("week-48", 3), (nil, 4), ("week-48", 3)])
    #expect(shared == ["nightly"])
    #expect(StoreText.runName("nightly", 2, shared: shared) == "nightly (run 2)")
    #expect(StoreText.runName("week-48", 3, shared: shared) == "week-48")
    #expect(StoreText.runName(nil, 4, shared: shared) == "run 4")
  }

  /// `store runs` and `history`'s tables cut their shrinking columns to fit; on a terminal narrower than their
  /// headings, each row becomes a block of heading and value lines, an empty value left out, every line within it.
  @Test func aTableWiderThanTheTerminalIsShownARowAtATime() {
    let headings = ["RUN", "STARTED (UTC)", "TOOK", "COMMAND", "INPUTS", "APPS", "LABEL", "MACHINE"]
    let rows = [
      ["1", "2026-11-30 03:46:24", "0.0 s", "inspect", "8", "12", "", "vm"],
      ["2", "2026-11-30 03:47:02", "3 min", "inspect", "10000", "9882", "week 48, shard 1/4, \u{1B}[31m", "ci"],
    ]
    let wide = StoreText.table(headings, rows, right: [0, 4, 5], shrinking: [7, 6], width: 120)
    #expect(wide.split(separator: "\n").count == 3 && wide.hasPrefix("RUN  STARTED (UTC)"), "\(wide)")
    let narrow = StoreText.table(headings, rows, right: [0, 4, 5], shrinking: [7, 6], width: 40)
    #expect(
      narrow == """
        RUN            1
        STARTED (UTC)  2026-11-30 03:46:24
        TOOK           0.0 s
        COMMAND        inspect
        INPUTS         8
        APPS           12
        MACHINE        vm

        RUN            2
        STARTED (UTC)  2026-11-30 03:47:02
        TOOK           3 min
        COMMAND        inspect
        INPUTS         10000
        APPS           9882
        LABEL          week 48, shard 1/4,
                       \\u{1b}[31m
        MACHINE        ci

        """)
    #expect(narrow.split(separator: "\n").allSatisfy { $0.count <= 40 })
  }

  @Test func aFileAsItWasIsNotReadAgain() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ipalinks-digest-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("abc.ipa")
    try Data("abc".utf8).write(to: file)
    let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    let fresh = try #require(InputDigests().facts(file.path))
    #expect(fresh.sha256 == abc && !fresh.known)
    #expect(fresh.stamp == nil, "a file written a moment ago is not remembered")
    let later = InputDigests.now() + InputDigests.settling
    let settled = try #require(InputDigests().facts(file.path, now: later))
    let stamp = try #require(settled.stamp)
    #expect(settled.sha256 == abc && stamp.size == 3)
    let known = InputDigests(machine: "here", known: [file.path: (stamp, String(repeating: "f", count: 64))])
    let again = try #require(known.facts(file.path, now: later))
    #expect(again.known && again.sha256 == String(repeating: "f", count: 64) && again.stamp == stamp)
    #expect(known.facts(folder.appendingPathComponent("other.ipa").path) == nil)
    // The same bytes written again: the change time moves on, so the file is read.
    try Data("abc".utf8).write(to: file)
    let rewritten = try #require(known.facts(file.path, now: later + InputDigests.settling))
    #expect(!rewritten.known && rewritten.sha256 == abc && rewritten.stamp != stamp)
  }

  /// A copy of the Store sample in `stores`' folder, written afresh: a new file, whatever was there.
  static func copyOfStoreSample(in stores: Stores) throws -> URL {
    let ipa = stores.folder.appendingPathComponent("Store.ipa")
    try? FileManager.default.removeItem(at: ipa)
    try FileManager.default.copyItem(at: CLI.samples.appendingPathComponent("Store.ipa"), to: ipa)
    return ipa
  }

  /// `ipa` inspected offline into the store at `location`, as a run labelled `label`, which must succeed.
  static func record(_ ipa: URL, into location: String, label: String) throws {
    let run = try CLI.run(["inspect", ipa.path, "--no-fetch", "--store", location, "--run-label", label, "-q"])
    #expect(run.status == 0, "\(run.stderr)")
  }

  /// `inspect --store` says the run it made, as `store import` and `refresh` do (it said nothing of the store): the
  /// number is what `--at`, `store runs` and `history` know it by, with the label and shard when given; `-q` leaves
  /// it out.
  /// The changes `report --store` shows, read apart from the state, that cannot be read (here a table they read is
  /// gone; in the tour, the connection was cut while they were read): the page says what it lacks, and the command
  /// exits 1. The page lost its section silently, exit 0.
  @Test(arguments: Backend.usable) func aReportWhoseChangesCannotBeReadSaysWhatItLacks(_ backend: Backend)
    async throws
  {
    let stores = try Stores(backend)
    defer { stores.close() }
    let location = try stores.make()
    for input in [CLI.sample("Store.ipa"), CLI.samples.path] {
      let run = try CLI.run(["inspect", input, "--aasa-dir", CLI.sample("aasa"), "--store", location, "-q"])
      #expect(run.status == 0, "\(run.stderr)")
    }
    let page = stores.folder.appendingPathComponent("page.html")
    let whole = try CLI.run(["report", "--store", location, "-o", page.path])
    #expect(whole.status == 0, "\(whole.stderr)")
    #expect(try String(contentsOf: page, encoding: .utf8).contains("<section id=\"changes\">"))
    try await StoreMigrationTests.using(try await Self.open(location)) { (store: AuditStore) async throws in
      try await store.sql.raw("ALTER TABLE app_schemes RENAME TO app_schemes_gone").run()
    }
    let lacking = try CLI.run(["report", "--store", location, "-o", page.path])
    #expect(lacking.status == 1, "\(lacking.stderr)")
    #expect(lacking.stderr.contains("cannot read the apps of the latest runs"), "\(lacking.stderr)")
    #expect(lacking.stderr.contains("(8 inputs; partial: its \"Not read\" section says what it lacks)"))
    let html = try String(contentsOf: page, encoding: .utf8)
    #expect(!html.contains("<section id=\"changes\">"))
    #expect(html.contains("<section id=\"not-read\">") && html.contains("what changed since the previous run: "))
  }

  @Test(arguments: Backend.usable) func anInspectionSaysTheRunItStored(_ backend: Backend) async throws {
    let stores = try Stores(backend)
    defer { stores.close() }
    let location = try stores.make()
    let shown = try StoreLocation(location).description
    let one = try CLI.run(["inspect", CLI.sample("Store.ipa"), "--no-fetch", "--store", location])
    #expect(one.status == 0 && one.stderr == "ipalinks: \(shown): 1 input stored as run 1\n", "\(one.stderr)")
    let batch = try CLI.run([
      "inspect", CLI.samples.path, "--aasa-dir", CLI.sample("aasa"), "--store", location, "--run-label", "week 2",
      "--shard", "1/2", "--format", "jsonl", "--no-progress",
    ])
    #expect(batch.status == 0, "\(batch.stderr)")
    #expect(
      batch.stderr.hasSuffix("ipalinks: \(shown): 4 inputs stored as run 2 (week 2, shard 1/2)\n"), "\(batch.stderr)")
    let quiet = try CLI.run(["inspect", CLI.sample("Store.ipa"), "--no-fetch", "--store", location, "-q"])
    #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
  }

  /// A run remembers each input file's digest once the file has settled, and the next run takes it from the store
  /// instead of reading the file (told here by a digest changed in the store, which the next run records); a file
  /// written again is read again.
  @Test(arguments: Backend.usable) func aRunReadsOnlyTheInputFilesThatChanged(_ backend: Backend) async throws {
    let stores = try Stores(backend)
    defer { stores.close() }
    let location = try stores.make()
    let ipa = try Self.copyOfStoreSample(in: stores)
    let real = try #require(InputDigests().facts(ipa.path)).sha256
    let planted = String(repeating: "f", count: 64)
    // Settled, so that the first run remembers it.
    try await Task.sleep(for: .nanoseconds(InputDigests.settling + 200_000_000))
    let inspect = { (label: String) in try Self.record(ipa, into: location, label: label) }
    func recorded(_ label: String) async throws -> [String] {
      try await StoreMigrationTests.using(try await Self.open(location)) { (store: AuditStore) async throws in
        try await store.sqlRows(
          """
          SELECT f.file_sha256 FROM inputs i JOIN runs r ON r.id = i.run_id JOIN input_files f ON f.id = i.file
          WHERE r.label = '\(label)'
          """)
      }
    }
    try inspect("first")
    #expect(try await recorded("first") == [real])
    try await StoreMigrationTests.using(try await Self.open(location)) { (store: AuditStore) async throws in
      #expect(try await store.sqlRows("SELECT file_sha256 FROM input_digests") == [real])
      #expect(try await store.sqlRows("SELECT path FROM input_digests") == [ipa.path])
      _ = try await store.sqlRows("UPDATE input_digests SET file_sha256 = '\(planted)'")
    }
    try inspect("second")
    #expect(try await recorded("second") == [planted], "the file was read again")
    // A batch (JSON Lines make one of a single input) looks its inputs up too.
    let batch = try CLI.run([
      "inspect", ipa.path, "--no-fetch", "--store", location, "--run-label", "batch", "--format", "jsonl", "-q",
    ])
    #expect(batch.status == 0, "\(batch.stderr)")
    #expect(try await recorded("batch") == [planted], "the batch read the file again")
    _ = try Self.copyOfStoreSample(in: stores)
    try inspect("third")
    #expect(try await recorded("third") == [real], "a file written again was not read")
  }

  /// `store import` records what an inventory says, and an inventory does not say what its input files were: the
  /// file at such a path now may be another (here, a later week's bytes), so the import neither reads it nor records
  /// a size or SHA-256 for the input, nor remembers a digest.
  @Test func anImportDoesNotTakeTheFileNowAtTheInventorysPath() async throws {
    let stores = try Stores(.sqlite)
    defer { stores.close() }
    let location = try stores.make()
    let ipa = try Self.copyOfStoreSample(in: stores)
    let saved = try CLI.run(["inspect", ipa.path, "--no-fetch", "--format", "jsonl", "-q"])
    #expect(saved.status == 0 && saved.stdout.contains(ipa.path), "\(saved.stderr)")
    let inventory = stores.folder.appendingPathComponent("week-1.jsonl")
    try Data(saved.stdout.utf8).write(to: inventory)
    try Data("a later week's IPA, not the one the inventory describes".utf8).write(to: ipa)
    let run = try CLI.run(["store", "import", "--store", location, inventory.path])
    #expect(run.status == 0, "\(run.stderr)")
    // What was made is said, as `refresh` says its run; `-q` leaves it out.
    #expect(run.stderr == "ipalinks: \(inventory.path): 1 input imported as run 1\n", "\(run.stderr)")
    let labelled = try CLI.run(["store", "import", "--store", location, inventory.path, "--run-label", "week-1"])
    #expect(labelled.stderr == "ipalinks: \(inventory.path): 1 input imported as run 2 (week-1)\n")
    let quiet = try CLI.run(["store", "import", "--store", location, inventory.path, "-q"])
    #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
    try await StoreMigrationTests.using(try await Self.open(location)) { (store: AuditStore) async throws in
      let files = try await store.sqlRows(
        "SELECT path || ' ' || COALESCE(CAST(size AS TEXT), 'null') || ' ' || COALESCE(file_sha256, 'null') "
          + "FROM input_files")
      #expect(files == ["\(ipa.path) null null"])
      #expect(try await store.sqlRows("SELECT COUNT(*) FROM input_digests") == ["0"])
      #expect(try await store.sqlRows("SELECT COUNT(*) FROM apps") == ["3"], "the app, seen by each of 3 imports")
    }
  }

  /// An inventory still being written, or damaged in one place, is imported but for the lines that are not reports:
  /// each is named with its number, the run holds every other input and is finished, and the exit code says the
  /// import was partial. A file whose first line is no report is no inventory: it leaves no run.
  @Test func anImportSkipsTheLinesThatAreNotReportsAndNamesThem() async throws {
    let stores = try Stores(.sqlite)
    defer { stores.close() }
    let location = try stores.make()
    let saved = try CLI.run(
      [
        "inspect", CLI.samples.appendingPathComponent("Store.ipa").path,
        CLI.samples.appendingPathComponent("Fat.ipa").path,
        "--no-fetch", "--format", "jsonl", "-q",
      ])
    let lines = saved.stdout.split(separator: "\n").map(String.init)
    #expect(saved.status == 0 && lines.count == 2, "\(saved.stderr)")
    let inventory = stores.folder.appendingPathComponent("week-1.jsonl")
    // Line 2 is cut off, line 3 is blank, and the last line stops short, as when `inspect` is still writing it.
    try Data([lines[0], "{\"input\"", "", lines[1], String(lines[0].prefix(40))].joined(separator: "\n").utf8)
      .write(to: inventory)
    let notOne = stores.folder.appendingPathComponent("notes.jsonl")
    // Two lines that are no reports: not an inventory (one, and reports after it, is an inventory cut at its start).
    try Data("a note\nanother\n\(lines[0])\n".utf8).write(to: notOne)
    // Another command's lines name an input too, but are no reports: they were taken for inputs with no app.
    let claims = stores.folder.appendingPathComponent("claims.jsonl")
    let claimed = try CLI.run(["who-claims", "shop.example.com", inventory.path, "--format", "jsonl", "-q"])
    #expect(claimed.stdout.hasPrefix("{") && claimed.stdout.contains(#""input""#), "\(claimed.stdout)")
    try Data(claimed.stdout.utf8).write(to: claims)
    let other = try CLI.run(["store", "import", "--store", location, claims.path])
    #expect(other.status == 2, "\(other.stderr)")
    #expect(other.stderr.contains("line 1 is not an ipalinks inventory: missing key \"bundles\""), "\(other.stderr)")
    let run = try CLI.run(["store", "import", "--store", location, inventory.path, notOne.path])
    #expect(run.status == 1, "\(run.stderr)")
    let said = run.stderr.split(separator: "\n").map(String.init)
    #expect(
      said == [
        "ipalinks: \(inventory.path): line 2 is not an ipalinks inventory, skipped: not JSON",
        "ipalinks: \(inventory.path): line 5 is not an ipalinks inventory, skipped: not JSON",
        "ipalinks: \(inventory.path): 2 lines skipped; run 1 holds the other 2 inputs",
        "ipalinks: \(notOne.path): line 1 is not an ipalinks inventory: not JSON",
      ], "\(run.stderr)")
    try await StoreMigrationTests.using(try await Self.open(location)) { (store: AuditStore) async throws in
      #expect(try await store.sqlRows("SELECT COUNT(*) FROM runs") == ["1"], "no run for the file that is no inventory")
      #expect(try await store.sqlRows("SELECT COUNT(*) FROM runs WHERE finished_at IS NOT NULL") == ["1"])
      #expect(
        try await store.sqlRows("SELECT f.path FROM inputs i JOIN input_files f ON f.id = i.file ORDER BY f.path")
          == [CLI.samples.appendingPathComponent("Fat.ipa").path, CLI.samples.appendingPathComponent("Store.ipa").path])
    }
  }

  #if os(Linux)
    /// `inspect … | ipalinks store import -`: what the pipe brought is stored while its writer works on (here, a
    /// writer that wrote 1,000 inputs and paused), the bar counts it with no total to guess, and Ctrl-C says how many
    /// inputs of standard input the store holds.
    @Test func aPipedImportStoresWhatCameAndCtrlCSaysSo() async throws {
      let stores = try Stores(.sqlite)
      defer { stores.close() }
      let location = try stores.make()
      let saved = try CLI.run(["inspect", CLI.samples.path, "--no-fetch", "--format", "jsonl"])
      let lines = saved.stdout.split(separator: "\n")
      #expect(saved.status == 0 && 1000 % lines.count == 0, "\(saved.stderr)")
      let pipe = Pipe()
      let run = try AuditCommandTests.TerminalRun(
        ["store", "import", "-", "--store", location], stdout: FileHandle.nullDevice, columns: 400,
        environment: ProcessInfo.processInfo.environment.filter { $0.key != "COLUMNS" },
        stdin: pipe.fileHandleForReading)
      pipe.fileHandleForWriting.write(Data(String(repeating: saved.stdout, count: 1000 / lines.count).utf8))
      let (running, status, stderr, _) = try await run.interrupt(once: "1000 so far ")
      try? pipe.fileHandleForWriting.close()
      #expect(running && status == 130, "\(stderr)")
      let said = AuditCommandTests.TerminalRun.lines(stderr)
      // The bar adds the time taken once it passes 5 s (`… standard input for 0:06`), as a sanitizer's build may.
      #expect(
        said.contains {
          $0.hasPrefix("1000 so far ")
            && ($0.hasSuffix("/s  standard input") || $0.contains("/s  standard input for "))
        }, "\(said)")
      #expect(said.contains("ipalinks: interrupted: 1000 inputs finished"), "\(said)")
      #expect(
        said.contains("ipalinks: \(location): the store holds 1000 inputs of standard input in run 1, left unfinished"),
        "\(said)")
      try await StoreMigrationTests.using(try await Self.open(location)) { (store: AuditStore) async throws in
        #expect(try await store.sqlRows("SELECT COUNT(*) FROM inputs WHERE run_id = 1") == ["1000"])
      }
    }
  #endif

  /// A run looks up the digests of its own inputs only, however many other files the store remembers (a folder of
  /// IPAs per week leaves a row per file ever inspected): here 30,001 named paths, more than one statement binds,
  /// among 30,003 rows of this machine and one of another's, give back exactly the 30,000 named ones it has.
  @Test(arguments: Backend.usable) func digestsAreLookedUpForTheRunsInputsOnly(_ backend: Backend) async throws {
    let stores = try Stores(backend)
    defer { stores.close() }
    let location = try stores.make()
    let count = AuditStore.bindLimit
    let loaded = try await StoreMigrationTests.using(try await Self.open(location)) { store in
      let columns = ["machine", "path", "device", "inode", "size", "modified_ns", "changed_ns", "file_sha256"]
      var rows: [[any Encodable & Sendable]] = (0..<count + 3).map { n in
        ["here", "/ipas/\(n).ipa", 1, n, n, n, n, String(repeating: "a", count: 64)]
      }
      rows.append(["elsewhere", "/ipas/0.ipa", 1, 0, 0, 0, 0, String(repeating: "b", count: 64)])
      try await store.insert(into: "input_digests", columns: columns, rows: rows)
      let named = (0..<count).map { "/ipas/\($0).ipa" } + ["/ipas/missing.ipa"]
      return try await InputDigests.load(store, machine: "here", paths: named).known
    }
    #expect(loaded.count == count)
    #expect(loaded["/ipas/0.ipa"]?.sha256 == String(repeating: "a", count: 64))
    #expect(loaded["/ipas/\(count - 1).ipa"]?.stamp.inode == Int64(count - 1))
    #expect(loaded["/ipas/\(count).ipa"] == nil, "a path the run does not name")
  }

  /// Large inputs are hashed several at once, off the store's one preparing thread (``StoreThreads/hashing``): in a
  /// batch of three large IPAs, a small one and a large file that is not a zip, each input file is recorded with its
  /// own SHA-256, computed here by another implementation (swift-crypto's one-shot hash of the bytes as read by
  /// Foundation); the broken one is told by name, recorded as unreadable, and costs the others nothing.
  @Test func largeInputsHashedAtOnceKeepTheirOwnDigests() async throws {
    let stores = try Stores(.sqlite)
    defer { stores.close() }
    let location = try stores.make()
    let batch = stores.folder.appendingPathComponent("batch")
    try FileManager.default.createDirectory(at: batch, withIntermediateDirectories: true)
    var expected: [String: String] = [:]
    for n in 0..<4 {
      let ipa = batch.appendingPathComponent("Store\(n).ipa")
      try FileManager.default.copyItem(at: CLI.samples.appendingPathComponent("Store.ipa"), to: ipa)
      if n > 0 {
        // A stored entry of bytes that differ from one IPA to the next, which makes it large.
        let filler = stores.folder.appendingPathComponent("Assets.car")
        try Data(repeating: UInt8(n), count: Int(StoreThreads.largeInput) + n).write(to: filler)
        let zip = Process()
        zip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        zip.arguments = ["zip", "-q", "-0", "-j", ipa.path, filler.path]
        try zip.run()
        zip.waitUntilExit()
        #expect(zip.terminationStatus == 0)
        #expect(try #require(InputDigests.size(ofRegularFile: ipa.path)) >= StoreThreads.largeInput)
      }
      expected[ipa.path] = hex(SHA256.hash(data: try Data(contentsOf: ipa)))
    }
    let broken = batch.appendingPathComponent("Broken.ipa")
    try Data(repeating: 0x78, count: Int(StoreThreads.largeInput)).write(to: broken)
    expected[broken.path] = hex(SHA256.hash(data: try Data(contentsOf: broken)))
    let run = try CLI.run(["inspect", batch.path, "--no-fetch", "--jobs", "2", "--store", location, "-q"])
    #expect(run.status == 1, "one input unreadable: \(run.stderr)")
    #expect(run.stderr == "ipalinks: unreadable: \(broken.path): not a zip archive\n")
    try await StoreMigrationTests.using(try await Self.open(location)) { (store: AuditStore) async throws in
      let rows = try await store.sqlRows("SELECT path || ' ' || file_sha256 FROM input_files ORDER BY path")
      #expect(rows == expected.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" })
      #expect(try await store.sqlRows("SELECT status FROM input_files WHERE path = '\(broken.path)'") == ["unreadable"])
      #expect(try await store.sqlRows("SELECT finished_at IS NOT NULL FROM runs") == ["1"], "the run finished")
    }
  }

  #if os(Linux)
    /// Once a batch's inspection is over, the store may still be writing what it queued (the first run of large
    /// IPAs: their digests). A lock the test holds on `inputs` keeps the run's transaction waiting, so the command is
    /// surely there: on a terminal a bar labelled `storing` shows it, and the summary line comes after it; Ctrl-C
    /// there says what the store holds, as it does during the inspection, rather than die without a word.
    @Test(.enabled(if: PostgreSQL.available)) func theStoresTailIsShownAndCtrlCThereSaysWhatItHolds() async throws {
      let stores = try Stores(.postgres)
      defer { stores.close() }
      let location = try stores.make()
      try Self.record(URL(fileURLWithPath: CLI.sample("Store.ipa")), into: location, label: "tables")
      let holder = try await Self.open(location)
      for interrupted in [false, true] {
        _ = try await holder.sqlRows("BEGIN")
        _ = try await holder.sqlRows("LOCK TABLE inputs IN SHARE MODE")
        let terminal = try AuditCommandTests.TerminalRun(
          ["inspect", CLI.samples.path, "--format", "jsonl", "--jobs", "1", "--no-fetch", "--store", location],
          stdout: FileHandle.nullDevice, columns: 80)
        let deadline = Date().addingTimeInterval(300)
        // Until the bar shows the store's wait, or the summary comes without it.
        while !terminal.text.contains("storing") && !terminal.text.contains("ipalinks: 8 inputs in ")
          && Date() < deadline
        {
          try await Task.sleep(for: .milliseconds(20))
        }
        #expect(terminal.text.contains("/8 ") && terminal.text.contains("  storing (0 written)"), "\(terminal.text)")
        if interrupted { terminal.process.interrupt() }
        _ = try await holder.sqlRows("ROLLBACK")
        let (status, text) = try await terminal.finished()
        // The lines as words: a line longer than the terminal is wrapped, its continuation indented.
        let words = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        if interrupted {
          #expect(status == 130, "\(text)")
          #expect(words.contains("ipalinks: interrupted: 8 of 8 inputs finished"), "\(text)")
          #expect(words.contains("the store holds 0 of the 8 inputs handed to it, in run "), "\(text)")
          #expect(!text.contains("ipalinks: 8 inputs in "), "no summary: the run did not end")
        } else {
          #expect(status == 0, "\(text)")
          let summary = try #require(text.range(of: "ipalinks: 8 inputs in "), "\(text)")
          let bar = try #require(text.range(of: "storing", options: .backwards))
          #expect(bar.upperBound < summary.lowerBound, "the summary after the store's bar: \(text)")
        }
      }
      try await StoreMigrationTests.using(holder) { (store: AuditStore) async throws in
        #expect(
          try await store.sqlRows("SELECT COUNT(*) FROM inputs") == ["9"], "the first two runs' inputs, not the last")
      }
    }
  #endif

  /// An IPA rebuilt without a change to what it says (here only its zip comment differs) is a new input file, but
  /// the app it holds is the observation it was: the second run's app points to the first run's, and a run that
  /// changes nothing adds no observation at all.
  @Test(arguments: Backend.usable) func anAppThatDidNotChangeIsObservedOnce(_ backend: Backend) async throws {
    let stores = try Stores(backend)
    defer { stores.close() }
    let location = try stores.make()
    let ipa = try Self.copyOfStoreSample(in: stores)
    let inspect = { (label: String) in try Self.record(ipa, into: location, label: label) }
    try inspect("first")
    let comment = Process()
    comment.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    comment.arguments = ["zip", "-q", "-z", ipa.path]
    let input = Pipe()
    comment.standardInput = input
    try comment.run()
    input.fileHandleForWriting.write(Data("rebuilt\n".utf8))
    try input.fileHandleForWriting.close()
    comment.waitUntilExit()
    #expect(comment.terminationStatus == 0)
    try inspect("rebuilt")
    try inspect("again")
    try await StoreMigrationTests.using(try await Self.open(location)) { (store: AuditStore) async throws in
      #expect(try await store.sqlRows("SELECT COUNT(DISTINCT file_sha256) FROM input_files") == ["2"])
      #expect(try await store.sqlRows("SELECT COUNT(*) FROM input_files") == ["2"])
      #expect(try await store.sqlRows("SELECT COUNT(*) FROM apps") == ["3"])
      #expect(try await store.sqlRows("SELECT COUNT(*) FROM app_observations") == ["1"])
      #expect(try await store.sqlRows("SELECT COUNT(DISTINCT observation) FROM apps") == ["1"])
    }
  }

  /// An app whose entitlements could not be read (its signature broken) may claim any host: `who-claims HOST
  /// --store` read only the apps with an entry on the host and answered "claimed by 0 apps", exit 1, where the same
  /// question of the IPA is unknown, exit 2. Schema 11 keeps such observations apart (`unread_entitlements`), marks
  /// those already stored when it is applied, and `store prune` keeps the table's pointers whole.
  @Test(arguments: Backend.usable) func anAppWhoseEntitlementsCannotBeReadIsInEveryHostsAnswer(_ backend: Backend)
    async throws
  {
    let stores = try Stores(backend)
    defer { stores.close() }
    let location = try stores.make()
    let broken = CLI.fixture("bad/broken-signature.ipa")
    for label in ["w1", "w2"] {
      let inspect = try CLI.run(["inspect", broken, "--no-fetch", "-q", "--store", location, "--run-label", label])
      #expect(inspect.status == 1, "\(inspect.stderr)")
    }
    func expectUnknown(
      _ extra: [String] = [], queries: [String] = ["shop.example.com", "https://shop.example.com/x", "*.example.com"],
      _ line: SourceLocation = #_sourceLocation
    ) throws {
      for query in queries {
        let answer = try CLI.run(["who-claims", query, "--store", location] + extra)
        #expect(answer.status == 2, "\(query) \(extra): \(answer.stdout)\(answer.stderr)", sourceLocation: line)
        #expect(
          answer.stderr.contains(
            "ipalinks: 1 bundle whose entitlements could not be read may claim it too: \(broken) Payload/Broken.app"),
          "\(query) \(extra): \(answer.stderr)", sourceLocation: line)
      }
    }
    try expectUnknown()
    try expectUnknown(["--at", "w1"])
    // Another app that claims the host answers yes, as the IPAs do.
    #expect(
      try CLI.run(["inspect", CLI.sample("Store.ipa"), "--aasa-dir", CLI.sample("aasa"), "-q", "--store", location])
        .status == 0)
    let yes = try CLI.run(["who-claims", "shop.example.com", "--store", location, "-q"])
    #expect(yes.status == 0 && yes.stdout.contains("com.example.store"), "\(yes.stdout)\(yes.stderr)")
    // A store of schema 10, as the build before wrote it, is marked when it is next opened.
    try await StoreMigrationTests.using(try await Self.open(location)) { (store: AuditStore) async throws in
      #expect(try await store.sqlRows("SELECT COUNT(*) FROM unread_entitlements") == ["1"])
      for statement in ["DROP TABLE unread_entitlements", "DELETE FROM ipalinks_schema WHERE version > 10"] {
        try await store.sql.raw(SQLQueryString(statement)).run()
      }
    }
    try expectUnknown(["--at", "w2"])
    try await StoreMigrationTests.using(try await Self.open(location)) { (store: AuditStore) async throws in
      #expect(try await store.sqlRows("SELECT MAX(version) FROM ipalinks_schema") == ["\(StoreSchema.version)"])
      #expect(
        try await store.sqlRows(
          "SELECT o.bundle_id FROM unread_entitlements u JOIN app_observations o ON o.id = u.observation"
        ) == ["com.example.fixture.broken"])
    }
    // Pruned of the first run, the mark stays with the observation the state still uses.
    let prune = try CLI.run(["store", "prune", "--before", "w2", "--store", location])
    #expect(prune.status == 0, "\(prune.stdout)\(prune.stderr)")
    try expectUnknown(queries: ["links.example.org"])
  }

  /// An app seen twice in one run (an IPA and its own Mach-O, inspected in either order) is one app in the run's
  /// state: the IPA's observation, which shows its URL schemes. Two identical runs read as no change, and its
  /// history is the same asked by bundle ID or by app ID.
  @Test(arguments: Backend.usable) func oneAppPerRun(_ backend: Backend) async throws {
    let stores = try Stores(backend)
    defer { stores.close() }
    let location = try stores.make()
    let corpus = stores.folder.appendingPathComponent("twice")
    try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      at: CLI.samples.appendingPathComponent("Store.ipa"), to: corpus.appendingPathComponent("Store.ipa"))
    // Its own executable, a signed Mach-O with the same app ID and no Info.plist (so no URL scheme).
    let unzip = try CLI.run(
      [
        "-c", "unzip -p \"$0\" Payload/Store.app/Store > \"$1\"", CLI.sample("Store.ipa"),
        corpus.appendingPathComponent("Store").path,
      ], executable: URL(fileURLWithPath: "/bin/sh"))
    #expect(unzip.status == 0, "\(unzip.stderr)")
    // Two jobs, so that either input may finish first; the run's state does not depend on it.
    for week in ["week-1", "week-2"] {
      let run = try CLI.run(
        ["inspect", corpus.path, "--no-fetch", "--store", location, "--run-label", week, "--jobs", "2", "-q"])
      #expect(run.status == 0, "\(run.stderr)")
    }
    let store = try await Self.open(location)
    let latest = try await store.latestReports()
    #expect(latest.count == 1 && latest.first?.inputKind == .ipa, "\(latest.map(\.input))")
    #expect(latest.first?.bundles.first?.urlSchemes.isEmpty == false)
    let changes = try #require(try await store.runChanges())
    #expect(changes.apps.isEmpty, "\(changes.apps.map(\.appKey))")
    let byBundle = try await store.appHistory("com.example.store")
    let byApp = try await store.appHistory("ST0REAPP42.com.example.store")
    #expect(byBundle.apps == byApp.apps && byBundle.apps.count == 1, "\(byBundle.apps)")
    #expect(byBundle.apps.first?.versions.map(\.observations) == [2], "\(byBundle.apps)")
    try await store.close()
    let diff = try CLI.run(["diff", "--store", location, "--since", "week-1"])
    #expect(diff.status == 0, "\(diff.stdout)\(diff.stderr)")
  }

  /// An input that could not be read is in the state as in a report from files: `report --store` counts and lists
  /// it, with the same exit code (1, partial).
  @Test(arguments: Backend.usable) func unreadableInputsAreInTheState(_ backend: Backend) async throws {
    let stores = try Stores(backend)
    defer { stores.close() }
    let location = try stores.make()
    let inputs = [CLI.sample("Store.ipa"), CLI.fixture("bad/truncated.ipa")]
    let inspect = try CLI.run(["inspect"] + inputs + ["--no-fetch", "--store", location, "-q", "--format", "jsonl"])
    #expect(inspect.status == 1, "\(inspect.stderr)")
    let fromFiles = stores.folder.appendingPathComponent("files.html")
    let fromStore = stores.folder.appendingPathComponent("store.html")
    let files = try CLI.run(["report"] + inputs + ["--no-fetch", "-o", fromFiles.path, "--no-progress"])
    let store = try CLI.run(["report", "--store", location, "-o", fromStore.path, "--no-progress"])
    #expect(files.status == 1 && store.status == 1, "\(files.status) \(store.status) \(store.stderr)")
    func counts(_ page: URL) throws -> String? {
      let html = try String(contentsOf: page, encoding: .utf8)
      return html.firstRange(of: #/[0-9]+ inputs?, [0-9]+ bundles?/#).map { String(html[$0]) }
    }
    #expect(try counts(fromStore) == counts(fromFiles) && counts(fromStore) == "2 inputs, 1 bundle")
    #expect(try String(contentsOf: fromStore, encoding: .utf8).contains("truncated.ipa"))
    let opened = try await Self.open(location)
    #expect(try await opened.latestReports().map(\.status) == [.complete, .unreadable])
    try await opened.close()
  }

  /// A SQLite store switched to WAL while another process holds its write lock: SQLite refuses the switch at once
  /// rather than wait (it would raise the switch's read lock to a write lock, which its busy timeout does not cover,
  /// as waiting could deadlock), so four shards opening a new store together saw one fail with "database is locked"
  /// (in CI; here 1 in 40 such starts). The open now tries again until the lock is let go, and migrates the store.
  @Test func aStoreSwitchedToWALWhileAnotherWritesWaitsForTheWriter() async throws {
    let stores = try Stores(.sqlite)
    defer { stores.close() }
    let path = try stores.make()
    let location = try StoreLocation(path)
    // A store one schema behind, in the rollback journal a store had before it was first opened.
    let journal = try await StoreMigrationTests.using(
      try await AuditStore.open(location, creating: true, schema: StoreSchema.version - 1)
    ) { try await $0.sqlRows("PRAGMA journal_mode = DELETE") }
    #expect(journal == ["delete"])
    let writer = try await AuditStore.open(location, creating: false, schema: StoreSchema.version - 1)
    let store = try await Self.whileWriteLocked(writer) {
      Task { try await AuditStore.open(location, creating: false) }
    }
    let (mode, schema) = try await StoreMigrationTests.using(store) {
      (try await $0.sqlRows("PRAGMA journal_mode"), try await $0.sqlRows("SELECT MAX(version) FROM ipalinks_schema"))
    }
    #expect(mode == ["wal"] && schema == ["\(StoreSchema.version)"], "\(mode) \(schema)")
  }

  /// `--store-timeout` under a second is how long a SQLite writer waits for another, not no wait at all: the busy
  /// timeout was set in whole seconds, so `--store-timeout 0.5` failed at once with "database is locked".
  @Test func aWriterWaitsTheStoreTimeoutForAnotherEvenUnderASecond() async throws {
    let stores = try Stores(.sqlite)
    defer { stores.close() }
    let path = try stores.make()
    let inspected = try await Self.whileWriteLocked(try await Self.open(path)) {
      Task {
        try await CLI.offPool {
          try CLI.run([
            "inspect", CLI.sample("Store.ipa"), "--no-fetch", "--store", path, "--store-timeout", "0.9", "-q",
          ])
        }
      }
    }
    #expect(inspected.status == 0 && inspected.stderr.isEmpty, "\(inspected.status): \(inspected.stderr)")
    let stored = try await StoreMigrationTests.using(try await Self.open(path)) {
      try await $0.sqlRows("SELECT COUNT(*) FROM inputs")
    }
    #expect(stored == ["1"])
  }

  /// What `start` starts while `store`'s write lock is held (`BEGIN IMMEDIATE`), let go 300 ms later; `store` is
  /// closed after.
  static func whileWriteLocked<T: Sendable>(
    _ store: AuditStore, _ start: () -> Task<T, any Error>
  ) async throws -> T {
    let started: Task<T, any Error>
    do {
      try await store.sqlRows("BEGIN IMMEDIATE")
      started = start()
      try await Task.sleep(for: .milliseconds(300))
      try await store.sqlRows("COMMIT")
      try await store.close()
    } catch {
      try? await store.close()
      throw error
    }
    return try await started.value
  }

  /// Times as `history` prints them read back as what was seen then: a table's minute (`2026-11-19 09:01`) to the
  /// end of that minute, a line's second as that instant. Printed to the minute everywhere, a version first seen at
  /// 09:01:45 read as 09:01, `--at 09:01:00` showed the version before, and a refusal said the first app was
  /// inspected at 09:00 of a time (09:00:30) it refused. And a host's file as read for developer mode (from the site)
  /// is a timeline of its own: mixed with the CDN's, two files that never changed read as a new version each time.
  @Test func timesAsHistoryPrintsThemAndDeveloperModeApart() throws {
    let stores = try Stores(.sqlite)
    defer { stores.close() }
    let location = try stores.make()
    for (epoch, folders) in [("1795078845", ["samples/aasa"]), ("1795078905", ["samples/aasa/next", "samples/aasa"])] {
      let run = try CLI.run(
        ["inspect", CLI.sample("Store.ipa"), "--store", location, "-q"]
          + folders.flatMap { ["--aasa-dir", CLI.repo.appendingPathComponent($0).path] },
        environment: ["SOURCE_DATE_EPOCH": epoch])
      #expect(run.status == 0, "\(run.stderr)")
    }
    let history = try CLI.run(["history", "--host", "shop.example.com", "--store", location])
    #expect(history.stdout.contains("\n      2  2026-11-19 09:01  2026-11-19 09:01  "), "\(history.stdout)")
    #expect(history.stdout.contains("version 1 → version 2, first seen 2026-11-19 09:01:45 (run 2):"))
    let url = "https://shop.example.com/buy/gift/card"  // excluded by the first file, opened by the second
    for (at, status) in [
      ("2026-11-19 09:01", 0), ("2026-11-19 09:01:00", 1), ("2026-11-19 09:01:45 UTC", 0), ("2026-11-19 09:00", 1),
    ] {
      let run = try CLI.run(["who-claims", url, "--store", location, "--at", at, "-q"])
      #expect(run.status == status, "--at \(at): \(run.stdout)\(run.stderr)")
    }
    let early = try CLI.run(["who-claims", url, "--store", location, "--at", "2026-11-19 09:00:30", "-q"])
    #expect(early.status == 2 && early.stderr.contains("inspected at 2026-11-19 09:00:45 UTC\n"), "\(early.stderr)")
    // The time asked for is said as lines say times, however it was written (it was `2026-11-19T09:00:30.000Z`).
    for written in ["2026-11-19 09:00:30", "2026-11-19T09:00:30Z"] {
      let said = try CLI.run(["who-claims", url, "--store", location, "--at", written, "-q"])
      #expect(said.stderr.contains("no app in the store at 2026-11-19 09:00:30 UTC"), "\(said.stderr)")
    }
    // dev.example.com is read for its developer-mode entry only (`dev.example.com?mode=developer`).
    let normal = try CLI.run(["history", "--host", "dev.example.com", "--store", location])
    #expect(normal.status == 1, "\(normal.stderr)")
    #expect(
      normal.stdout == "dev.example.com: the store has no answer from its AASA file\n"
        + "and 2 retrievals in developer mode (?mode=developer): ipalinks history --host\n"
        + "  dev.example.com --developer-mode\n", "\(normal.stdout)")
    let developer = try CLI.run(["history", "--host", "dev.example.com", "--developer-mode", "--store", location])
    #expect(developer.status == 0, "\(developer.stderr)")
    #expect(
      developer.stdout.hasPrefix("dev.example.com in developer mode: 1 version of its AASA file, from 2 retrievals\n"),
      "\(developer.stdout)")
    let json = try CLI.run([
      "history", "--host", "dev.example.com", "--developer-mode", "--store", location, "-f", "json",
    ])
    #expect(json.json?["developerMode"] as? Bool == true && (json.json?["versions"] as? [Any])?.count == 1)
    let plain = try CLI.run(["history", "--host", "shop.example.com", "--store", location, "-f", "json"])
    #expect(plain.json?["developerMode"] == nil && (plain.json?["versions"] as? [Any])?.count == 2)
    let misplaced = try CLI.run(["history", "--app", "com.example.store", "--developer-mode", "--store", location])
    #expect(misplaced.status == 64 && misplaced.stderr.contains("--developer-mode is a mode of --host's file"))
  }

  @Test(arguments: Backend.usable) func theStoreKeepsRunsAndAnswersWithTheLatestState(_ backend: Backend) async throws {
    let stores = try Stores(backend)
    defer { stores.close() }

    try await latestState(try stores.make())
    try await historyAndEarlierStates(try stores.make())
    try await anOutageNeverReplacesAGoodFile(try stores.make())
    try anImportKeepsItsFilesOverAnOlderRetrieval(try stores.make(), folder: stores.folder)
    try await anAppsDomainsAndSchemesOverTime(try stores.make())
    try await documentedQueries(try stores.make())
    try await newerSchemaIsRefusedUntouched(try stores.make(), backend: backend)
    try await hostileStringsComeBackUnchanged(try stores.make())
    try await aBatchOfInputsIsWrittenWhole(try stores.make())
    try await aBatchThatCannotBeWrittenIsNamedAndLeavesNothing(try stores.make(), backend: backend)
    try await aQueuedInputIsWrittenWhileTheRunGoesOn(try stores.make())
    try await nullsAndBytesComeBackAsTheyWent(try stores.make())
    try fourWritersLoseNothing(try stores.make())
    try await fourWritersOfTheSameAppsKeepEachObservationOnce(try stores.make())
    let killed = try stores.make()
    try aWriterKilledMidRunLeavesWholeInputs(killed, folder: stores.folder)
    try await StoreMigrationTests.using(try await Self.open(killed)) {
      try await StoreMigrationTests.expectNoMissingObservation($0)
    }
    try unreachableStoresAreNamedAndTheReportStillPrinted(stores)
    try await aReaderThatHasGoneEndsTheCommandAsSIGPIPEDoes(try stores.make())
  }

  /// An imported inventory's apps keep the AASA results they were saved with until a later run retrieves the files
  /// again: a retrieval from before the inventory was saved is not what it saw. (The store's older retrieval was
  /// joined to them, so the import answered with the older file, and `diff --since` found no change.)
  func anImportKeepsItsFilesOverAnOlderRetrieval(_ location: String, folder: URL) throws {
    let aasa = CLI.repo.appendingPathComponent("samples/aasa")
    let url = "https://shop.example.com/buy/gift/card"
    // 2026-11-01: the first file, whose first rule excludes gift cards.
    let first = try CLI.run(
      ["inspect", CLI.sample("Store.ipa"), "--aasa-dir", aasa.path, "--store", location, "--run-label", "w1", "-q"],
      environment: ["SOURCE_DATE_EPOCH": "1793527200"])
    #expect(first.status == 0, "\(first.stderr)")
    // Saved two days later with the next file, in which they open the app.
    let next = aasa.appendingPathComponent("next").path
    let saved = try CLI.run(["inspect", CLI.sample("Store.ipa"), "--aasa-dir", next, "--format", "jsonl", "-q"])
    let inventory = folder.appendingPathComponent("newer-\(UUID().uuidString).jsonl")
    try Data(saved.stdout.utf8).write(to: inventory)
    try FileManager.default.setAttributes(
      [.modificationDate: Date(timeIntervalSince1970: 1_793_707_200)], ofItemAtPath: inventory.path)
    let imported = try CLI.run(["store", "import", inventory.path, "--store", location, "--run-label", "imp", "-q"])
    #expect(imported.status == 0, "\(imported.stderr)")
    let own = try CLI.run(["who-claims", url, inventory.path, "--format", "jsonl", "-q"])
    #expect(own.stdout.contains(#""verdict":"match""#), "\(own.stdout)")
    for at in [[], ["--at", "imp"]] {
      let stored = try CLI.run(["who-claims", url, "--store", location, "--format", "jsonl", "-q"] + at)
      #expect(stored.stdout.contains(#""verdict":"match""#), "\(at): \(stored.stdout)")
    }
    let before = try CLI.run(["who-claims", url, "--store", location, "--at", "w1", "--format", "jsonl", "-q"])
    #expect(before.stdout.contains(#""verdict":"exclude""#), "\(before.stdout)")
    let changes = try CLI.run(["diff", "--store", location, "--since", "w1"])
    #expect(changes.status == 1 && changes.stdout.contains("1 bundle differs"), "\(changes.stdout)")
  }

  /// Each app as last inspected, each host's file as last retrieved; a second run of the same apps adds
  /// observations, not apps.
  func latestState(_ location: String) async throws {
    let week1 = Date(timeIntervalSince1970: 1_800_000_000)
    try await Self.record(Self.samples, into: location, label: "week-1", at: week1)
    try await Self.record(Self.samples, into: location, label: "week-2", at: week1 + 7 * 86_400)
    // The third run inspects the Store app again, retrieving the newer shop.example.com file.
    try await Self.record(
      ["Store.ipa"], into: location, aasa: ["aasa/next", "aasa"], label: "week-3", at: week1 + 14 * 86_400)
    let store = try await Self.open(location)
    let runs = try await store.runs()
    #expect(runs.map(\.label) == ["week-1", "week-2", "week-3"])
    #expect(runs.allSatisfy { $0.finishedAt != nil } && runs.map(\.inputs) == [6, 6, 1])
    let latest = try await store.latestReports()
    let apps = latest.flatMap(\.bundles)
    #expect(apps.count == 10, "\(apps.map(\.path))")
    #expect(Set(apps.map(\.appId)).count == apps.count)
    // The inputs come in the byte order of their paths, whatever order they were recorded in (Store.ipa first) and
    // whatever the database's collation: the server sends the apps as it finds them.
    let inputs = latest.map(\.input)
    #expect(inputs == inputs.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) } && inputs.count == 6)
    // The shop's file as retrieved in week 3 puts /buy/* first: gift cards open the app now.
    let claims = try #require(HostClaims(query: "https://shop.example.com/buy/gift/card", reports: latest))
    #expect(claims.claims.first { $0.appId == "ST0REAPP42.com.example.store" }?.verdict?.verdict == .match, "\(claims)")
    // Asked about one host, the store reads only the apps that question needs, and the answer is the same.
    let queries = [
      "shop.example.com", "https://shop.example.com/buy/1", "www.example.com", "*.example.com", "*.nested.example.com",
      "clip.nested.example.com", "example.com", "nobody.invalid",
    ]
    for query in queries {
      let some = try await store.latestReports(about: HostClaims.host(ofQuery: query))
      let whole = HostClaims(query: query, reports: latest).map { JSONReporter.render($0, pretty: false) }
      #expect(
        HostClaims(query: query, reports: some).map { JSONReporter.render($0, pretty: false) } == whole, "\(query)")
      #expect(some.flatMap(\.bundles).count < apps.count, "\(query): read every app")
    }
    // As it was in week 2, the exclude still applied.
    let before = try await store.latestReports(at: week1 + 10 * 86_400)
    let then = try #require(HostClaims(query: "https://shop.example.com/buy/gift/card", reports: before))
    #expect(then.claims.first { $0.appId == "ST0REAPP42.com.example.store" }?.verdict?.verdict == .exclude)
    // The file is kept once per version, however many runs retrieved it.
    let files = try await store.sqlRows("SELECT COUNT(*) AS n FROM aasa_files WHERE size > 0")
    let distinct = try await store.sqlRows("SELECT COUNT(DISTINCT file_sha256) AS n FROM retrieval_observations")
    #expect(files == distinct && files != ["0"], "\(files) \(distinct)")
    // The latest state kept as it is written is the state at the end of time, worked out from every run.
    let rendered = JSONReporter.render(latest, pretty: false)
    #expect(JSONReporter.render(try await store.latestReports(at: .distantFuture), pretty: false) == rendered)
    try await store.close()
    // A host no app claims is an answer from the store; a store with no app is not.
    let nobody = try CLI.run(["who-claims", "nobody.invalid", "--store", location])
    #expect(nobody.status == 1 && nobody.stdout == "nobody.invalid: claimed by 0 apps\n", "\(nobody.stderr)")
    let early = try CLI.run(["who-claims", "shop.example.com", "--store", location, "--at", "2000-01-01"])
    #expect(early.status == 2 && early.stderr.contains("no app in the store at 2000-01-01"), "\(early.stderr)")
    // An older inventory imported later is history, not the latest state.
    let saved = try CLI.run(["inspect", CLI.sample("Store.ipa"), "--no-fetch", "--format", "jsonl"])
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("ipalinks-old-\(UUID().uuidString).jsonl")
    defer { try? FileManager.default.removeItem(at: file) }
    try Data(saved.stdout.utf8).write(to: file)
    try FileManager.default.setAttributes([.modificationDate: week1 - 86_400], ofItemAtPath: file.path)
    let older = try CLI.run(["store", "import", "--store", location, file.path])
    #expect(older.status == 0 && saved.stdout.contains("com.example.store"), "\(older.stderr)")
    let after = try await Self.open(location)
    #expect(JSONReporter.render(try await after.latestReports(), pretty: false) == rendered)
    let imported = try await after.sqlRows(
      "SELECT COUNT(*) AS n FROM latest_apps l JOIN apps a ON a.id = l.app JOIN runs r ON r.id = a.run_id "
        + "WHERE r.command = 'store import'")
    #expect(imported == ["0"])
    try await after.close()
  }

  /// `history --host`, and `--at` and `diff --since` reading the state as it was, by label and by time.
  func historyAndEarlierStates(_ location: String) async throws {
    let week1 = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15T08:00:00Z
    try await Self.record(Self.samples, into: location, label: "week-1", at: week1)
    try await Self.record(Self.samples, into: location, label: "week-2", at: week1 + 7 * 86_400)
    try await Self.record(
      ["Store.ipa"], into: location, aasa: ["aasa/next", "aasa"], label: "week-3", at: week1 + 14 * 86_400)

    let json = try CLI.run(["history", "--host", "shop.example.com", "--store", location, "--format", "json"])
    #expect(json.status == 0, "\(json.stderr)")
    let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
    let versions = try #require(document["versions"] as? [[String: Any]])
    #expect(versions.map { $0["retrievals"] as? Int } == [2, 1])
    #expect(versions.first?["firstSeen"] as? String == "2027-01-15T08:00:00.000Z")
    #expect(
      versions.map { $0["firstRunNumber"] as? Int } == [1, 3] && versions.last?["firstRun"] as? String == "week-3")
    #expect(versions.first?["lastSeen"] as? String == "2027-01-22T08:00:00.000Z")
    #expect(
      versions.allSatisfy { ($0["sources"] as? [String]) == ["aasa-dir"] && ($0["sha256"] as? String)?.count == 64 })
    let changes = try #require(document["changes"] as? [[String: Any]])
    #expect(Set(changes.compactMap { $0["kind"] as? String }) == ["rule changed", "rules reordered"], "\(changes)")
    #expect(changes.allSatisfy { $0["from"] as? Int == 1 && $0["to"] as? Int == 2 })
    let reordered = try #require(changes.first { $0["kind"] as? String == "rules reordered" })
    #expect(reordered["appIds"] as? [String] == ["ST0REAPP42.com.example.store"])
    #expect(reordered["example"] as? String == "https://shop.example.com/buy/gift/")
    // The text fits 80 columns and shows the change as `aasa diff` does.
    let text = try CLI.run(
      ["history", "--host", "shop.example.com", "--store", location], environment: ["COLUMNS": "80"])
    #expect(
      text.stdout.hasPrefix("shop.example.com: 2 versions of its AASA file, from 3 retrievals\n"), "\(text.stdout)")
    #expect(text.stdout.contains("version 1 → version 2, first seen 2027-01-29 08:00:00 (week-3):\n"))
    #expect(text.stdout.contains("e.g. https://shop.example.com/buy/gift/  exclude → match"))
    #expect(text.stdout.split(separator: "\n").allSatisfy { $0.count <= 80 }, "\(text.stdout)")
    // Before week 3 there was one version; a host never retrieved has no history.
    let before = try CLI.run([
      "history", "--host", "shop.example.com", "--store", location, "--at", "week-2", "--format", "jsonl",
    ])
    #expect(before.status == 0 && before.stdout.split(separator: "\n").count == 1, "\(before.stdout)")
    let none = try CLI.run(["history", "--host", "never.example.com", "--store", location])
    #expect(none.status == 1 && none.stdout == "never.example.com: the store has no answer from its AASA file\n")

    // --at by label, by date and by time; the latest state otherwise.
    let url = "https://shop.example.com/buy/gift/card"
    for (at, verdict) in [
      ("week-2", "exclude"), ("2027-01-22", "exclude"), ("2027-01-29T08:00:00Z", "match"), (nil, "match"),
    ] {
      let run = try CLI.run(
        ["who-claims", url, "--store", location, "-q", "--format", "json"] + (at.map { ["--at", $0] } ?? []))
      // Like grep: 0 when an app opens the URL, 1 when none does (here, its app excludes it).
      #expect(run.status == (verdict == "match" ? 0 : 1), "\(at ?? "latest"): \(run.stderr)")
      #expect(run.stdout.contains("\"verdict\" : \"\(verdict)\""), "\(at ?? "latest"): \(run.stdout)")
    }
    let unknown = try CLI.run(["who-claims", url, "--store", location, "--at", "week-9"])
    #expect(unknown.status == 2 && unknown.stderr.contains("no run is labelled week-9"), "\(unknown.stderr)")
    #expect(unknown.stderr.contains("recent labels: week-3, week-2, week-1"), "\(unknown.stderr)")

    // What changed since week 2: the Store app's shop.example.com rules.
    let diff = try CLI.run(["diff", "--store", location, "--since", "week-2", "--format", "json"])
    #expect(diff.status == 1, "\(diff.stderr)")
    #expect(diff.stdout.contains("shop.example.com") && diff.stdout.contains("rules reordered"), "\(diff.stdout)")
    let same = try CLI.run(["diff", "--store", location, "--since", "week-3"])
    #expect(same.status == 0, "\(same.stdout) \(same.stderr)")
    let empty = try CLI.run(["diff", "--store", location, "--since", "2000-01-01"])
    #expect(empty.status == 2 && empty.stderr.contains("no app in the store at 2000-01-01"), "\(empty.stderr)")
    // A time before the store's history says where it starts, rather than reading as if nothing was ever seen.
    let starts = ": the first app it holds was inspected at 2027-01-15 08:00:00 UTC\n"
    #expect(empty.stderr.contains("no app in the store at 2000-01-01" + starts), "\(empty.stderr)")
    let early = try CLI.run(["who-claims", url, "--store", location, "--at", "2000-01-01"])
    #expect(early.status == 2 && early.stderr.contains("at 2000-01-01" + starts), "\(early.stderr)")
    for (subject, first) in [
      (["--host", "shop.example.com"], "shop.example.com: the store has no answer from its AASA file\n"),
      (["--app", "com.example.store"], "no app with bundle ID or app ID com.example.store\n"),
    ] {
      let history = try CLI.run(
        ["history"] + subject + ["--store", location, "--at", "2000-01-01"], environment: ["COLUMNS": "80"])
      #expect(
        history.status == 1
          && history.stdout == first
            + "nothing by 2000-01-01 23:59:59 UTC: first seen 2027-01-15 08:00:00 UTC; without\n  --at, history shows it\n",
        "\(history.stdout)")
    }
    let never = try CLI.run(["history", "--app", "com.example.never", "--store", location, "--at", "2000-01-01"])
    #expect(never.status == 1 && never.stdout == "no app with bundle ID or app ID com.example.never\n")

    // Times that cannot be what was meant are refused with exit 2, not answered with the latest state: a time to
    // come, and --since after --at. An age may be written -5d.
    for asked in [
      ["who-claims", url, "--store", location, "--at", "2099-01-01"],
      ["diff", "--store", location, "--since", "2099-01-01T00:00:00Z"],
    ] {
      let future = try CLI.run(asked)
      #expect(future.status == 2 && future.stdout.isEmpty, "\(asked): \(future.status) \(future.stdout)")
      #expect(future.stderr.contains(" is in the future (it is "), "\(future.stderr)")
    }
    let backwards = try CLI.run(["diff", "--store", location, "--since", "week-3", "--at", "week-1"])
    #expect(backwards.status == 2, "\(backwards.stderr)")
    #expect(backwards.stderr.contains("--since week-3 is after --at week-1"), "\(backwards.stderr)")
    let dashed = try CLI.run(["who-claims", url, "--store", location, "--at", "-5d", "-q"])
    let plain = try CLI.run(["who-claims", url, "--store", location, "--at", "5d", "-q"])
    #expect(dashed.status == plain.status && dashed.stdout == plain.stdout && dashed.stderr == plain.stderr)
    #expect(!dashed.stderr.contains("Missing value"), "\(dashed.stderr)")
    // An age is said as it was written: 2w, not 14d.
    for written in ["2w", "-2w", "36h", "90min"] {
      let time = StoreTime(parsing: written, allowingAge: true)
      #expect(time.description == written.trimmingCharacters(in: ["-"]), "\(time)")
      guard case .ago = time else { Issue.record("\(written) is not an age"); continue }
    }
    // A date is YYYY-MM-DD exactly; other spellings are labels (`2026/11/19` and `2026-1-019` were read as dates).
    for written in ["2026/11/19", "2026-1-019", "2026-11-1 ", "２０２６-11-19"] {
      guard case .label = StoreTime(parsing: written, allowingAge: true) else {
        Issue.record("\(written) is read as a time")
        continue
      }
    }
    let isDay = { (time: StoreTime) -> Bool in
      if case .day = time { return true }
      return false
    }
    #expect(isDay(StoreTime(parsing: "2026-11-19", allowingAge: true)))
    // An age past any store is 1,000 years, and said as no app then: `99999999999999999d` trapped (exit 132) turning
    // into a time, in every reader.
    if case .ago(let age, _) = StoreTime(parsing: "99999999999999999d", allowingAge: true) {
      #expect(age == 1_000 * 365 * 86_400)
    } else {
      Issue.record("99999999999999999d is not an age")
    }
    for arguments in [
      ["who-claims", url, "--store", location, "--at", "99999999999999999d", "-q"],
      ["store", "prune", "--store", location, "--before", "9999999999999w", "--dry-run"],
    ] {
      let old = try CLI.run(arguments)
      #expect(old.status == (arguments[0] == "store" ? 0 : 2), "\(arguments): \(old.stderr)")
      #expect(!old.stderr.contains("Fatal error") && !old.stdout.contains("before -"), "\(old.stdout)\(old.stderr)")
    }
    // An answer stored after this run's clock said it was retrieved `0 s ago`: fresh, where the clock is wrong.
    #expect(StoreText.age(-604_800) == "7 days after this run's clock: is the clock or SOURCE_DATE_EPOCH behind?")
    #expect(StoreText.age(90) == "90 s ago" && StoreText.age(604_800) == "7 days ago")
    // `6m` is no age (six minutes, or six months?): as a label it is not found, and the error says how to write one.
    let months = try CLI.run(["who-claims", url, "--store", location, "--at", "6m", "-q"])
    #expect(months.status == 2 && months.stderr.contains("an age in minutes is written 6min"), "\(months.stderr)")
    // A run without a label is named `run N` by `history`, which `--at` takes.
    let numbered = try CLI.run(["who-claims", url, "--store", location, "--at", "1", "-q"])
    let named = try CLI.run(["who-claims", url, "--store", location, "--at", "run 1", "-q"])
    #expect(named.status == numbered.status && named.stdout == numbered.stdout, "\(named.stderr)")
    // A label that would read as a time, an age or a run's number is refused, as no run could be named by it.
    for label in ["2w", "2026-11-08", "2026-11-08T10:00:00Z", "run 4", "30min"] {
      let refused = try CLI.run(
        ["inspect", CLI.sample("Store.ipa"), "--no-fetch", "--store", location, "--run-label", label, "-q"])
      #expect(refused.status == 64 && refused.stderr.contains("where a run is named"), "\(label): \(refused.stderr)")
    }
  }

  /// A later retrieval without a definite answer (a timeout) leaves the file last retrieved current, so an outage
  /// never unblocks links; a definite one (a 404) replaces it, and nothing opens the app. `history` counts the
  /// timeout apart.
  func anOutageNeverReplacesAGoodFile(_ location: String) async throws {
    let week1 = Date(timeIntervalSince1970: 1_800_000_000)
    try await Self.record(["Store.ipa"], into: location, label: "week-1", at: week1)
    let store = try await Self.open(location)
    let report = await BatchInspector.inspect(CLI.sample("Store.ipa"), fetches: nil)
    for (week, status) in [(2, AASAFetchResult.Status.timeout), (3, .notFound)] {
      let time = week1 + Double(week - 1) * 7 * 86_400
      let run = try await RunRecorder.begin(
        store, command: "inspect", arguments: [], label: "week-\(week)", shard: nil, at: time)
      let request = AASARequest(host: "shop.example.com", developerMode: false)
      let result = AASAFetchResult(host: request.host, status: status, source: .cdn, message: "\(status)")
      try await run.record(report, retrievals: [request: AASARetrieval(result)], at: time)
      try await run.finish(at: time)
    }
    try await store.close()
    func verdict(at label: String) throws -> String {
      let run = try CLI.run([
        "who-claims", "https://shop.example.com/buy/1", "--store", location, "--at", label, "-q", "--format", "json",
      ])
      let document = try #require(
        try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stderr)")
      let claims = try #require(document["claims"] as? [[String: Any]])
      let store = try #require(claims.first { $0["appId"] as? String == "ST0REAPP42.com.example.store" })
      return (store["verdict"] as? [String: Any])?["verdict"] as? String ?? "none"
    }
    #expect(try verdict(at: "week-1") == "match")
    #expect(try verdict(at: "week-2") == "match")
    let removed = try verdict(at: "week-3")
    #expect(removed == "no-match", "\(removed)")
    let history = try CLI.run(["history", "--host", "shop.example.com", "--store", location, "--format", "json"])
    let document = try #require(try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [String: Any])
    #expect((document["versions"] as? [[String: Any]])?.map { $0["status"] as? String } == ["ok", "not-found"])
    #expect(document["unanswered"] as? Int == 1)
    #expect((document["changes"] as? [[String: Any]])?.first?["kind"] as? String == "app removed")
  }

  /// `history --app`: versions, and the domains and schemes added and removed, observation by observation.
  func anAppsDomainsAndSchemesOverTime(_ location: String) async throws {
    var ignored: [Diagnostic] = []
    func app(_ version: String, domains: [String], schemes: [String]) -> InspectionReport {
      var bundle = BundleReport(path: "Payload/Shop.app", kind: .app)
      (bundle.bundleId, bundle.appId, bundle.name, bundle.version, bundle.build) = (
        "com.example.shop", "ABCDE12345.com.example.shop", "Shop", version, version + ".0"
      )
      bundle.associatedDomains = domains.map { AssociatedDomain.parse($0, diagnostics: &ignored) }
      bundle.urlSchemes = schemes
      return InspectionReport(input: "/audit/Shop.ipa", inputKind: .ipa, bundles: [bundle])
    }
    let store = try await Self.open(location)
    let observations = [
      app("1.0", domains: ["applinks:shop.example.com", "applinks:old.example.com"], schemes: ["shop"]),
      app("1.0", domains: ["applinks:shop.example.com", "applinks:old.example.com"], schemes: ["shop"]),
      app("2.0", domains: ["applinks:shop.example.com", "applinks:pay.example.com"], schemes: ["shop", "shoppay"]),
    ]
    for (week, report) in observations.enumerated() {
      let time = Date(timeIntervalSince1970: 1_800_000_000 + Double(week) * 7 * 86_400)
      let run = try await RunRecorder.begin(
        // The last run without a label: history names it by its number, which `--at` takes (it was unnamed).
        store, command: "inspect", arguments: [], label: week < 2 ? "w\(week + 1)" : nil, shard: nil, at: time)
      try await run.record(report, retrievals: nil, at: time)
      try await run.finish(at: time)
    }
    try await store.close()
    for id in ["com.example.shop", "ABCDE12345.com.example.shop"] {
      let run = try CLI.run(["history", "--app", id, "--store", location, "--format", "jsonl"])
      #expect(run.status == 0, "\(run.stderr)")
      let line = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
      let versions = try #require(line["versions"] as? [[String: Any]])
      #expect(versions.map { $0["version"] as? String } == ["1.0", "2.0"])
      #expect(versions.map { $0["observations"] as? Int } == [2, 1])
      let changes = try #require(line["changes"] as? [[String: Any]])
      #expect(changes.count == 2, "\(changes)")
      #expect(changes.last?["domainsAdded"] as? [String] == ["applinks:pay.example.com"])
      #expect(changes.last?["domainsRemoved"] as? [String] == ["applinks:old.example.com"])
      #expect(changes.last?["schemesAdded"] as? [String] == ["shoppay"])
      #expect(changes.last?["run"] == nil && changes.last?["runNumber"] as? Int == 3, "\(changes)")
      #expect(changes.first?["run"] as? String == "w1" && changes.first?["runNumber"] as? Int == 1)
    }
    let text = try CLI.run(
      ["history", "--app", "com.example.shop", "--store", location], environment: ["COLUMNS": "80"])
    #expect(
      text.stdout.contains(
        "2027-01-29 08:00:00  run 3  2.0 (2.0.0)\n  + applinks:pay.example.com\n  - applinks:old.example.com\n  + URL scheme shoppay\n"
      ), "\(text.stdout)")
    // The line that names the app fits the 80 columns, the rest of it indented below (it ran to 84).
    #expect(
      text.stdout.hasPrefix(
        "ABCDE12345.com.example.shop (com.example.shop, Shop): 2 versions,\n  inspected 3 times\n\nVERSION"),
      "\(text.stdout)")
    let missing = try CLI.run(["history", "--app", "com.example.none", "--store", location])
    #expect(missing.status == 1, "\(missing.stdout)")
  }

  /// The three queries docs/store.md shows, on a store of the samples.
  func documentedQueries(_ location: String) async throws {
    try await Self.record(Self.samples, into: location, at: Date(timeIntervalSince1970: 1_700_000_000))
    try await Self.record(
      ["Store.ipa"], into: location, aasa: ["aasa/next", "aasa"], at: Date(timeIntervalSince1970: 1_900_000_000))
    let page = try String(contentsOf: CLI.repo.appendingPathComponent("docs/store.md"), encoding: .utf8)
    let queries = page.components(separatedBy: "```sql\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
    #expect(queries.count == 3)
    let store = try await Self.open(location)
    #expect(try await store.sqlRows(queries[0]) == ["ST0REAPP42.com.example.store"])
    #expect(try await store.sqlRows(queries[1]) == ["shop.example.com"])
    #expect(try await store.sqlRows(queries[2]) == ["ST0REAPP42.com.example.store"])
    try await store.close()
  }

  /// A store a newer ipalinks wrote is refused with a clear message, and nothing in it changes.
  func newerSchemaIsRefusedUntouched(_ location: String, backend: Backend) async throws {
    let store = try await Self.open(location)
    try await store.sqlRows("INSERT INTO ipalinks_schema (version, applied_at) VALUES (99, 'later')")
    let before = try await store.sqlRows("SELECT version FROM ipalinks_schema ORDER BY version")
    try await store.close()
    let bytes = backend == .sqlite ? try Data(contentsOf: URL(fileURLWithPath: location)) : nil
    await #expect {
      _ = try await Self.open(location)
    } throws: { error in
      "\(error)".contains("schema is version 99, written by a newer ipalinks") && !"\(error)".contains("secret")
    }
    if let bytes { #expect(try Data(contentsOf: URL(fileURLWithPath: location)) == bytes) }
    let run = try CLI.run(["inspect", CLI.sample("Store.ipa"), "--no-fetch", "--store", location, "--format", "jsonl"])
    #expect(run.status == 3 && run.stdout.contains("com.example.store"), "\(run.stderr)")
    if backend == .postgres {
      // Read without migrating: the rows are as they were.
      let rows = try runPSQL(location, "SELECT version FROM ipalinks_schema ORDER BY version")
      #expect(rows == before.joined(separator: "\n"), "\(rows) \(before)")
    }
  }

  /// Quotes, SQL, control and bidi characters in bundle IDs, hosts and AASA paths go in as bound values and come
  /// back as they were, and the text prints them escaped.
  func hostileStringsComeBackUnchanged(_ location: String) async throws {
    let hostile = "x'); DROP TABLE apps; --\"\u{1B}[31m\u{202E}é\n"
    var bundle = BundleReport(path: "Payload/\(hostile).app", kind: .app)
    (bundle.bundleId, bundle.appId, bundle.name) = (hostile, "ABCDE12345.\(hostile)", hostile)
    var ignored: [Diagnostic] = []
    bundle.associatedDomains = [AssociatedDomain.parse("applinks:\(hostile).example.com", diagnostics: &ignored)]
    bundle.urlSchemes = [hostile]
    let report = InspectionReport(input: "/tmp/\(hostile).ipa", inputKind: .ipa, bundles: [bundle])
    let store = try await Self.open(location)
    let run = try await RunRecorder.begin(
      store, command: "inspect", arguments: [hostile], label: hostile, shard: hostile)
    try await run.record(report, retrievals: nil)
    try await run.finish()
    let back = try await store.latestReports()
    #expect(JSONReporter.render(back) == JSONReporter.render([report]))
    #expect(try await store.runs().first?.label == hostile)
    try await store.close()
    let text = try CLI.run(["store", "runs", "--store", location], environment: ["COLUMNS": "400"])
    #expect(!text.stdout.contains("\u{1B}") && !text.stdout.contains("\u{202E}"))
    #expect(text.stdout.contains("\\u{1b}[31m"), "\(text.stdout)")
    // In a pipe, with no COLUMNS, no column is cut: the label is whole, as a script reading it needs.
    let piped = try CLI.run(
      ["-u", "COLUMNS", CLI.binary.path, "store", "runs", "--store", location],
      executable: URL(fileURLWithPath: "/usr/bin/env"))
    #expect(piped.stdout.contains("DROP TABLE apps; --\"\\u{1b}[31m\\u{202e}é\\u{a})  "), "\(piped.stdout)")
    #expect(!piped.stdout.contains("…"), "\(piped.stdout)")
  }

  /// Inputs written in one transaction, as a run writes them: each app keeps its own input and domains, even when
  /// an inventory repeats a bundle's path or a batch names one file twice, an app with more domains than one
  /// statement can bind has all of them, and the latest state takes each app's last observation.
  func aBatchOfInputsIsWrittenWhole(_ location: String) async throws {
    var ignored: [Diagnostic] = []
    func bundle(_ id: String, _ path: String, _ hosts: [String]) -> BundleReport {
      var bundle = BundleReport(path: path, kind: .app)
      (bundle.bundleId, bundle.appId) = (id, "ABCDE12345.\(id)")
      bundle.associatedDomains = hosts.map { AssociatedDomain.parse("applinks:\($0)", diagnostics: &ignored) }
      return bundle
    }
    let reports = [
      InspectionReport(
        input: "twins.json", inputKind: .ipa,
        bundles: [
          bundle("com.example.one", "Payload/Same.app", ["one.example.com"]),
          bundle("com.example.two", "Payload/Same.app", ["two.example.com", "2.example.com"]),
        ]),
      InspectionReport(
        input: "many.json", inputKind: .ipa,
        bundles: [bundle("com.example.many", "Payload/Many.app", (0..<5_000).map { "h\($0).example.com" })]),
      InspectionReport(
        input: "later.json", inputKind: .ipa,
        bundles: [bundle("com.example.one", "Payload/One.app", ["later.example.com"])]
      ),
    ]
    let store = try await Self.open(location)
    let run = try await RunRecorder.begin(store, command: "inspect", arguments: [], label: "batch", shard: nil)
    let time = Date(timeIntervalSince1970: 1_800_000_000)
    try await run.record(
      reports.enumerated().map { RunRecorder.prepare($1, retrievals: nil, at: time + Double($0)) })
    // The same file twice in one batch: its rows cannot be told apart by path, and are inserted one by one.
    let twice = ["com.example.three", "com.example.four"].map {
      InspectionReport(input: "again.ipa", inputKind: .ipa, bundles: [bundle($0, "Payload/App.app", ["\($0)"])])
    }
    try await run.record(twice.map { RunRecorder.prepare($0, retrievals: nil, at: time + 10) })
    try await run.finish()
    let domains = try await store.sqlRows(
      "SELECT o.bundle_id || ' ' || COUNT(*) FROM app_domains d JOIN app_observations o ON o.id = d.observation "
        + "JOIN apps a ON a.observation = o.id GROUP BY a.id, o.bundle_id ORDER BY a.id")
    #expect(
      domains == [
        "com.example.one 1", "com.example.two 2", "com.example.many 5000", "com.example.one 1", "com.example.three 1",
        "com.example.four 1",
      ])
    let inputs = try await store.sqlRows(
      "SELECT f.path || ' ' || o.bundle_id FROM inputs i JOIN input_files f ON f.id = i.file "
        + "JOIN apps a ON a.input_id = i.id JOIN app_observations o ON o.id = a.observation ORDER BY i.id, a.id")
    #expect(
      inputs == [
        "twins.json com.example.one", "twins.json com.example.two", "many.json com.example.many",
        "later.json com.example.one", "again.ipa com.example.three", "again.ipa com.example.four",
      ])
    let latest = try await store.latestReports().flatMap(\.bundles)
    #expect(latest.count == 5, "\(latest.map(\.path))")
    #expect(latest.first { $0.bundleId == "com.example.one" }?.associatedDomains.map(\.host) == ["later.example.com"])
    // The 5,000 domains' statements were too big to keep: what is kept stays small.
    let kept = store.statementTexts.withLockedValue { $0 }
    #expect(!kept.isEmpty && kept.count <= AuditStore.keptShapes)
    #expect(kept.values.allSatisfy { $0.utf8.count < 65_536 }, "\(kept.values.map(\.utf8.count).max() ?? 0)")
    // PostgreSQL took the domains (no null among them) as arrays; SQLite has no such statement.
    #expect(kept.values.contains { $0.contains("unnest") } == (store.dialect == .postgres), "\(kept.values)")
    try await store.close()
  }

  /// Rows with nulls and bytes: PostgreSQL takes them as arrays, a column's values and the mask of its nulls, and
  /// each null, empty string and empty body comes back as it went, on either backend.
  func nullsAndBytesComeBackAsTheyWent(_ location: String) async throws {
    let store = try await Self.open(location)
    let bytes = store.dialect == .postgres ? "BYTEA" : "BLOB"
    try await store.sql.raw(
      SQLQueryString("CREATE TABLE scratch (i BIGINT NOT NULL, n INTEGER, t TEXT, b \(unsafeRaw: bytes), z TEXT)")
    ).run()
    let rows: [[any Encodable & Sendable]] = [
      [1, Int?.none, String?("a'b"), Data?(Data([0, 1, 0xFF])), String?.none],
      [2, Int?(0), String?(""), Data?(Data()), String?.none],
      [3, Int?(-7), String?.none, Data?.none, String?.none],
    ]
    try await store.insert(into: "scratch", columns: ["i", "n", "t", "b", "z"], rows: rows)
    // SQLite's hex(NULL) is an empty string, not NULL.
    let hex =
      "CASE WHEN b IS NULL THEN 'null' ELSE " + (store.dialect == .postgres ? "encode(b, 'hex')" : "lower(hex(b))")
      + " END"
    let read = try await store.sqlRows(
      "SELECT i || '|' || COALESCE(CAST(n AS TEXT), 'null') || '|' || COALESCE(t, 'null') || '|' || "
        + "\(hex) || '|' || COALESCE(z, 'null') FROM scratch ORDER BY i")
    #expect(read == ["1|null|a'b|0001ff|null", "2|0|||null", "3|-7|null|null|null"])
    // One statement of arrays on PostgreSQL: the nullable columns with their masks, the column of nulls as NULL.
    let kept = store.statementTexts.withLockedValue { $0 }.values.filter { $0.contains("scratch") }
    #expect(kept.count == 1, "\(kept)")
    #expect(kept.allSatisfy { $0.contains("CASE WHEN u.m1 THEN NULL") } == (store.dialect == .postgres), "\(kept)")
    if store.dialect == .postgres {
      // A commit waits for the server's disk (docs/store.md): an input counted as stored survives the server's crash.
      #expect(try await store.sqlRows("SHOW synchronous_commit") == ["on"])
    }
    try await store.close()
  }

  /// `inspect --store` gathers inputs into transactions, but an input never waits long for others: a run whose
  /// inputs come slowly has each in the store within the gather delay, while it goes on; the end writes the rest.
  func aQueuedInputIsWrittenWhileTheRunGoesOn(_ location: String) async throws {
    let run = await RecordingRun.begin(
      try StoreLocation(location), command: "inspect", arguments: [], label: "slow", shard: nil,
      warn: { Issue.record("\($0)") })
    let fetches = try Self.sampleFetches()
    await run.record(await BatchInspector.inspect(CLI.sample("Store.ipa"), fetches: fetches), fetches)
    let store = try await Self.open(location)
    var written: [String] = []
    let deadline = Date().addingTimeInterval(10)
    while written != ["1"] && Date() < deadline {
      try await Task.sleep(for: .milliseconds(50))
      written = try await store.sqlRows("SELECT COUNT(*) FROM inputs")
    }
    #expect(written == ["1"], "the first input was not written while the run went on")
    for name in ["Nested.ipa", "Fat.ipa"] {
      await run.record(await BatchInspector.inspect(CLI.sample(name), fetches: fetches), fetches)
    }
    #expect(await run.finish())
    #expect(try await store.sqlRows("SELECT COUNT(*) FROM inputs") == ["3"])
    #expect(try await store.sqlRows("SELECT COUNT(*) FROM runs WHERE finished_at IS NOT NULL") == ["1"])
    try await store.close()
  }

  /// A batch the database refuses (here a trigger on the apps' domains) fails whole: its error names the first
  /// input and how many queued with it, and none of its inputs, apps or retrievals is left in the store.
  func aBatchThatCannotBeWrittenIsNamedAndLeavesNothing(_ location: String, backend: Backend) async throws {
    let store = try await Self.open(location)
    let refuse =
      backend == .sqlite
      ? ["CREATE TRIGGER refuse BEFORE INSERT ON app_domains BEGIN SELECT RAISE(ABORT, 'refused'); END"]
      : [
        "CREATE FUNCTION refuse() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$ LANGUAGE plpgsql",
        "CREATE TRIGGER refuse BEFORE INSERT ON app_domains FOR EACH ROW EXECUTE FUNCTION refuse()",
      ]
    for statement in refuse { try await store.sql.raw(SQLQueryString(statement)).run() }
    let fetches = try Self.sampleFetches()
    let run = try await RunRecorder.begin(store, command: "inspect", arguments: [], label: "refused", shard: nil)
    var prepared: [RunRecorder.Prepared] = []
    for name in ["Store.ipa", "Nested.ipa", "Fat.ipa"] {
      let report = await BatchInspector.inspect(CLI.sample(name), fetches: fetches)
      let requests = run.unrecorded(UniversalLinkInventory.requests(for: report))
      prepared.append(RunRecorder.prepare(report, retrievals: await fetches.retrievals(for: requests), at: Date()))
    }
    #expect(prepared.contains { !$0.retrievals.isEmpty })
    do {
      try await run.record(prepared)
      Issue.record("the refused batch was recorded")
    } catch {
      #expect(error.description.contains("cannot record "), "\(error.description)")
      #expect(error.description.contains("Store.ipa and the 2 inputs queued with it"), "\(error.description)")
    }
    for table in ["inputs", "apps", "app_domains", "retrievals", "latest_apps"] {
      #expect(try await store.sqlRows("SELECT COUNT(*) FROM \(table)") == ["0"], "\(table)")
    }
    try await store.close()
  }

  /// Four processes write the four shards of one audit at once: every input arrives.
  func fourWritersLoseNothing(_ location: String) throws {
    let writers = try (1...4).map { shard in
      try CLI.start([
        "inspect", CLI.samples.path, "--aasa-dir", CLI.sample("aasa"), "--store", location, "--shard", "\(shard)/4",
        "--run-label", "four", "--format", "jsonl", "-q",
      ])
    }
    let results = try writers.map { try $0.wait() }
    #expect(results.allSatisfy { $0.status == 0 }, "\(results.map { "\($0.status): \($0.stderr)" })")
    let runs = try CLI.run(["store", "runs", "--store", location, "--format", "jsonl"])
    let lines = runs.stdout.split(separator: "\n").compactMap {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
    #expect(lines.count == 4 && lines.allSatisfy { $0["finishedAt"] is String }, "\(runs.stdout)\(runs.stderr)")
    #expect(lines.compactMap { $0["inputs"] as? Int }.reduce(0, +) == 8, "\(runs.stdout)")
    let claims = try CLI.run(["who-claims", "shop.example.com", "--store", location, "--format", "json"])
    #expect((claims.json?["claims"] as? [Any])?.count == 1, "\(claims.stdout)")
  }

  /// Four processes record the same apps at once, each a run of its own: every one of them finishes, and each
  /// observation (an input file, an app, a retrieval's answer) is stored once, which all four runs point to.
  func fourWritersOfTheSameAppsKeepEachObservationOnce(_ location: String) async throws {
    let processes = try (1...4).map { _ in
      let process = Process()
      process.executableURL = CLI.binary
      process.arguments = [
        "inspect", CLI.samples.path, "--aasa-dir", CLI.sample("aasa"), "--store", location, "--run-label", "same",
        "--format", "jsonl", "-q",
      ]
      process.standardOutput = FileHandle.nullDevice
      process.standardError = Pipe()
      try process.run()
      return process
    }
    let ended = try await CLI.offPool {
      processes.map { process in
        let said = (process.standardError as? Pipe)?.fileHandleForReading.readDataToEndOfFile() ?? Data()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: said, as: UTF8.self))
      }
    }
    #expect(ended.map(\.0) == [0, 0, 0, 0], "\(ended.map(\.1))")
    try await StoreMigrationTests.using(try await Self.open(location)) { store in
      #expect(try await store.sqlRows("SELECT COUNT(*) FROM runs WHERE finished_at IS NOT NULL") == ["4"])
      for (sightings, observations) in [
        ("inputs", "input_files"), ("apps", "app_observations"), ("retrievals", "retrieval_observations"),
      ] {
        let perRun = try await store.sqlRows(
          "SELECT COUNT(*) FROM \(sightings) GROUP BY run_id ORDER BY run_id")
        let stored = try await store.sqlRows("SELECT COUNT(*) FROM \(observations)")
        #expect(perRun.count == 4 && Set(perRun).count == 1 && perRun[0] != "0", "\(sightings): \(perRun)")
        #expect(stored == [perRun.first ?? ""], "\(observations): \(stored) for \(perRun) \(sightings) a run")
      }
      // The samples' digests, remembered by four writers at once: one row a file, each the digest its inputs have.
      let digests = try await store.sqlRows("SELECT COUNT(*) FROM input_digests")
      let files = try await store.sqlRows("SELECT COUNT(DISTINCT path) FROM input_files WHERE file_sha256 IS NOT NULL")
      #expect(Int(digests.first ?? "") ?? 0 <= Int(files.first ?? "") ?? 0, "\(digests) digests of \(files) files")
      let astray = try await store.sqlRows(
        """
        SELECT d.path FROM input_digests d WHERE NOT EXISTS
          (SELECT 1 FROM input_files f WHERE f.path = d.path AND f.file_sha256 = d.file_sha256)
        """)
      #expect(astray.isEmpty, "\(astray)")
      try await StoreMigrationTests.expectNoMissingObservation(store)
    }
  }

  /// A writer killed with SIGKILL mid-run: the store opens, each input it recorded is whole, and the run says it did
  /// not finish.
  func aWriterKilledMidRunLeavesWholeInputs(_ location: String, folder: URL) throws {
    let corpus = folder.appendingPathComponent("corpus-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
    // Enough inputs that the run is still going when the test, which polls with the CLI, has seen a few stored,
    // however slowly a sanitized build runs that CLI.
    for copy in 0..<100 {
      for name in Self.samples {
        try FileManager.default.linkItem(
          at: CLI.samples.appendingPathComponent(name), to: corpus.appendingPathComponent("\(copy)-\(name)"))
      }
    }
    let process = Process()
    process.executableURL = CLI.binary
    process.arguments = [
      "inspect", corpus.path, "--aasa-dir", CLI.sample("aasa"), "--store", location, "--jobs", "1", "--format", "jsonl",
      "-q",
    ]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    // Killed once a few inputs are in, while the run goes on.
    var recorded = 0
    let deadline = Date().addingTimeInterval(60)
    while recorded < 5 && Date() < deadline {
      Thread.sleep(forTimeInterval: 0.05)
      recorded = (try? inputsRecorded(location)) ?? 0
    }
    #expect(process.isRunning, "the run ended before it could be killed")
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    #expect(process.terminationReason == .uncaughtSignal)
    let runs = try CLI.run(["store", "runs", "--store", location, "--format", "jsonl"])
    let run = try #require(
      try JSONSerialization.jsonObject(with: Data(runs.stdout.utf8)) as? [String: Any], "\(runs.stderr)")
    #expect(run["finishedAt"] == nil && (run["inputs"] as? Int ?? 0) >= 5 && (run["inputs"] as? Int ?? 0) < 600)
    // Whole: every input recorded has all its apps, each with all its domains.
    let inputs = run["inputs"] as? Int ?? 0
    let wanted = [
      "Store.ipa": 1, "Nested.ipa": 5, "Fat.ipa": 1, "Enterprise.ipa": 1, "Profile.ipa": 1, "XcentOnly.ipa": 1,
    ]
    let text = try CLI.run(["report", "--store", location, "-o", folder.appendingPathComponent("r.html").path])
    #expect(text.status == 0, "\(text.stderr)")
    // Readers say the run they answer from did not finish (they said nothing): `diff --since` and `history` too.
    let said =
      ": run 1, the latest, did not finish (killed, or still running): it stored \(inputs) inputs, and the state "
      + "holds the rest as earlier runs saw it"
    #expect(text.stderr.contains(said), "\(text.stderr)")
    for reader in [["diff", "--since", "2000-01-01"], ["history", "--host", "shop.example.com"]] {
      let read = try CLI.run(reader + ["--store", location])
      #expect(read.stderr.contains(said), "\(reader): \(read.stderr)")
    }
    let check = try wholeInputs(location)
    #expect(check.inputs == inputs, "\(check)")
    for (path, apps) in check.apps {
      let name = try #require(wanted.keys.first { path.hasSuffix("-" + $0) }, "\(path)")
      #expect(apps == wanted[name], "\(path): \(apps) apps")
    }
    #expect(check.domainsWhole, "an app's domains are all there")
  }

  /// `ipalinks … | head`: the reader has gone before the command writes. The command ends as SIGPIPE ends it, quietly,
  /// although SwiftNIO, which the store's drivers use, ignores SIGPIPE in the process (Foundation's `FileHandle`
  /// then stopped it with a fatal error and a stack trace).
  func aReaderThatHasGoneEndsTheCommandAsSIGPIPEDoes(_ location: String) async throws {
    try await Self.record(["Store.ipa"], into: location, at: Date(timeIntervalSince1970: 1_800_000_000))
    let process = Process()
    process.executableURL = CLI.binary
    process.arguments = ["who-claims", "shop.example.com", "--store", location]
    let gone = Pipe()
    try gone.fileHandleForReading.close()
    let errors = FileManager.default.temporaryDirectory.appendingPathComponent("ipalinks-pipe-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: errors) }
    _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
    process.standardOutput = gone
    process.standardError = try FileHandle(forWritingTo: errors)
    try process.run()
    process.waitUntilExit()
    let stderr = String(decoding: try Data(contentsOf: errors), as: UTF8.self)
    #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGPIPE, "\(stderr)")
    #expect(stderr.isEmpty, "\(stderr)")
  }

  /// A corrupt or read-only file, a server that is down or refuses the password: one line naming the store, no
  /// password, the report still printed, exit code 3.
  func unreachableStoresAreNamedAndTheReportStillPrinted(_ stores: Stores) throws {
    var locations: [(String, String)] = []
    if let server = stores.server {
      let wrong = server.url.replacingOccurrences(of: server.password, with: "wrong-secret")
      locations.append((wrong, "password"))
      locations.append(("postgres://ipalinks:secret-down@127.0.0.1:1/ipalinks", "connect"))
    } else {
      let corrupt = stores.folder.appendingPathComponent("corrupt.db")
      try Data(repeating: 0x41, count: 8192).write(to: corrupt)
      locations.append((corrupt.path, "not a database"))
      let readOnly = stores.folder.appendingPathComponent("readonly")
      try FileManager.default.createDirectory(at: readOnly, withIntermediateDirectories: true)
      let file = readOnly.appendingPathComponent("store.db")
      _ = try CLI.run(["inspect", CLI.sample("Store.ipa"), "--no-fetch", "--store", file.path, "-q"])
      try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: file.path)
      try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: readOnly.path)
      if geteuid() != 0 { locations.append((file.path, "readonly")) }
    }
    for (location, _) in locations {
      let run = try CLI.run(["inspect", CLI.sample("Store.ipa"), "--no-fetch", "--store", location])
      #expect(run.status == 3, "\(location): \(run.status) \(run.stderr)")
      #expect(run.stdout.contains("Payload/Store.app"), "the report is printed")
      let lines = run.stderr.split(separator: "\n")
      #expect(lines.count == 1 && lines[0].hasPrefix("ipalinks: "), "\(run.stderr)")
      #expect(!run.stderr.contains("secret"), "\(run.stderr)")
      #expect(run.stderr.contains(StoreLocation.masked(location)), "\(run.stderr)")
      // A report reads the state and the latest run's changes, and still says it once.
      let page = stores.folder.appendingPathComponent("unreachable.html").path
      let report = try CLI.run(["report", "--store", location, "-o", page, "--no-progress"])
      #expect(report.status == 2, "\(location): \(report.status) \(report.stderr)")
      #expect(report.stderr.split(separator: "\n").count == 1, "\(report.stderr)")
      #expect(report.stderr.contains(StoreLocation.masked(location)) && !report.stderr.contains("secret"))
      // A refresh has nothing to do without its store: exit 2, the store named, nothing else said.
      let refresh = try CLI.run(["refresh", "--store", location, "--aasa-dir", CLI.sample("aasa")])
      #expect(refresh.status == 2, "\(location): \(refresh.status) \(refresh.stderr)")
      #expect(refresh.stderr.contains(StoreLocation.masked(location)), "\(refresh.stderr)")
      #expect(!refresh.stderr.contains("secret"), "\(refresh.stderr)")
    }
  }

  private func inputsRecorded(_ location: String) throws -> Int {
    let runs = try CLI.run(["store", "runs", "--store", location, "--format", "jsonl"])
    let run = try JSONSerialization.jsonObject(with: Data(runs.stdout.utf8)) as? [String: Any]
    return run?["inputs"] as? Int ?? 0
  }

  /// For each input recorded, how many apps; and whether each app has as many domain rows as its report has
  /// domains.
  private func wholeInputs(_ location: String) throws -> (inputs: Int, apps: [String: Int], domainsWhole: Bool) {
    let box = Box()
    let done = DispatchSemaphore(value: 0)
    Task {
      defer { done.signal() }
      guard let store = try? await Self.open(location) else { return }
      let rows =
        (try? await store.sqlRows(
          "SELECT f.path || '|' || COUNT(a.id) AS n FROM inputs i JOIN input_files f ON f.id = i.file "
            + "LEFT JOIN apps a ON a.input_id = i.id GROUP BY f.path"
        )) ?? []
      let reports = (try? await store.latestReports()) ?? []
      let domainRows = (try? await store.sqlRows("SELECT COUNT(*) AS n FROM app_domains")) ?? []
      box.value = (rows, reports.flatMap(\.bundles).map(\.associatedDomains.count).reduce(0, +), domainRows)
      try? await store.close()
    }
    done.wait()
    let (rows, domains, domainRows) = try #require(box.value)
    var apps: [String: Int] = [:]
    for row in rows {
      let parts = row.split(separator: "|")
      apps[String(parts[0])] = Int(parts[1]) ?? -1
    }
    // Latest apps are one per app key here: each copy of a sample is the same app.
    let whole = domainRows.first.flatMap(Int.init).map { $0 >= domains } ?? false
    if !whole { Issue.record("\(domainRows) domain rows, \(domains) domains in the latest reports") }
    return (rows.count, apps, whole)
  }

  private final class Box: @unchecked Sendable {
    var value: ([String], Int, [String])?
  }

  /// Runs SQL through `psql` as the test's own client, without the store's code in between.
  private func runPSQL(_ url: String, _ sql: String) throws -> String {
    let process = Process()
    process.executableURL = try PostgresTestServer.locateBinaries().appendingPathComponent("psql")
    process.arguments = [url, "-At", "-c", sql]
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
  }
}

/// A column `sqlRows` cannot read as text or a number.
struct SQLRowDecodingFailure: Error { let column: String }

extension AuditStore {
  /// The first column of every row of a query, as text; for tests.
  @discardableResult
  func sqlRows(_ query: String) async throws -> [String] {
    try await sql.raw(SQLQueryString(query)).all().map { row in
      let column = row.allColumns[0]
      // Numbers first: PostgresKit hands an int8's raw bytes back when asked for a String.
      if let number = try? row.decode(column: column, as: Int64.self) { return String(number) }
      if let text = try? row.decode(column: column, as: String.self) { return text }
      throw SQLRowDecodingFailure(column: column)
    }
  }
}
