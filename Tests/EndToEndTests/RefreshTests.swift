import Foundation
import IPALinksKit
import TestServers
import Testing

@testable import IPALinksStore

/// `ipalinks refresh`: every host the store's apps claim, retrieved again, on SQLite and PostgreSQL, from AASA
/// folders and from a loopback HTTPS server whose files change between refreshes; and the store's readers deciding
/// with each host's new answer afterwards.
@Suite(.serialized) struct RefreshTests {
  typealias Backend = AuditStoreTests.Backend

  /// The verdict of the Store app for `url`, as `who-claims --store` reads the latest state.
  static func verdict(_ url: String, store: String) throws -> String {
    let run = try CLI.run(["who-claims", url, "--store", store, "-q", "--format", "json"])
    let claims = try #require(run.json?["claims"] as? [[String: Any]], "\(run.stderr)")
    let app = try #require(claims.first { $0["appId"] as? String == "ST0REAPP42.com.example.store" })
    return (app["verdict"] as? [String: Any])?["verdict"] as? String ?? "none"
  }

  /// The hosts of a `refresh --format json` document, by host.
  static func hosts(_ run: CLI.Result) throws -> [String: [String: Any]] {
    let hosts = try #require(run.json?["hosts"] as? [[String: Any]], "\(run.stdout)\(run.stderr)")
    return Dictionary(uniqueKeysWithValues: hosts.map { ($0["host"] as? String ?? "", $0) })
  }

  @Test(arguments: Backend.usable) func aRefreshFindsChangesAndKeepsTheLastGoodAnswer(_ backend: Backend) async throws {
    let stores = try AuditStoreTests.Stores(backend)
    defer { stores.close() }
    let store = try stores.make()
    try await AuditStoreTests.record(
      AuditStoreTests.samples, into: store, label: "week-1", at: Date(timeIntervalSince1970: 1_790_000_000))
    let help = "https://shop.example.com/help/"
    // The first file's /help/* rule needs the fragment "app"; the newer one opens every /help/ page.
    #expect(try Self.verdict(help, store: store) == "no-match")
    let (next, aasa) = (CLI.sample("aasa/next"), CLI.sample("aasa"))

    // A new version: its behavioural change, with both verdicts of an example URL and the apps it affects.
    let changed = try CLI.run(["refresh", "--store", store, "--aasa-dir", next, "--aasa-dir", aasa, "-f", "json"])
    #expect(changed.status == 1, "\(changed.stderr)")
    let hosts = try Self.hosts(changed)
    let shop = try #require(hosts["shop.example.com"])
    #expect(shop["outcome"] as? String == "changed")
    let changes = try #require(shop["changes"] as? [[String: Any]])
    let rule = try #require(changes.first { $0["kind"] as? String == "rule changed" })
    #expect(rule["example"] as? String == help)
    #expect(rule["oldVerdict"] as? String == "no-match" && rule["newVerdict"] as? String == "match")
    #expect(rule["affects"] as? [String] == ["ST0REAPP42.com.example.store"])
    #expect(hosts.values.filter { $0["outcome"] as? String == "unchanged" }.count == hosts.count - 1)
    // Every reader decides with the new version.
    #expect(try Self.verdict(help, store: store) == "match")

    // The same answers again: nothing changed.
    let again = try CLI.run(["refresh", "--store", store, "--aasa-dir", next, "--aasa-dir", aasa])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(again.stdout.hasSuffix("\(hosts.count) unchanged\n"), "\(again.stdout)")

    // No answer at all (offline, nothing cached): no change, every host stale, the new version still current.
    let cache = stores.folder.appendingPathComponent("empty-cache").path
    let outage = try CLI.run(["refresh", "--store", store, "--offline", "--cache-dir", cache, "-f", "json"])
    #expect(outage.status == 2)
    #expect(outage.stderr.contains("no host gave a definite answer"), "\(outage.stderr)")
    let stale = try Self.hosts(outage)
    #expect(stale.values.allSatisfy { $0["outcome"] as? String == "stale" && $0["lastGood"] is String })
    #expect(try Self.verdict(help, store: store) == "match")

    // A definite answer without a file: removed, for every app that claims the host.
    let empty = stores.folder.appendingPathComponent("no-files")
    try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
    let removed = try CLI.run(["refresh", "--store", store, "--aasa-dir", empty.path])
    #expect(removed.status == 1)
    #expect(removed.stdout.contains("shop.example.com: removed, not-found (was file "), "\(removed.stdout)")
    #expect(removed.stdout.contains("affects ST0REAPP42.com.example.store"), "\(removed.stdout)")
    #expect(try Self.verdict(help, store: store) == "no-match")

    // Each refresh is a run of its own, and history shows its retrievals like any other.
    let runs = try CLI.run(["store", "runs", "--store", store, "-f", "json"])
    let commands = (runs.json?["runs"] as? [[String: Any]])?.map { $0["command"] as? String ?? "" }
    #expect(commands == ["inspect", "refresh", "refresh", "refresh", "refresh"])
    let history = try CLI.run(["history", "--host", "shop.example.com", "--store", store, "-f", "json"])
    let versions = (history.json?["versions"] as? [[String: Any]])?.map { $0["status"] as? String ?? "" }
    #expect(versions == ["ok", "ok", "not-found"])
    #expect(history.json?["unanswered"] as? Int == 1)
  }

  /// A loopback HTTPS server whose file changes between refreshes, then stalls: the change is found, each host is
  /// asked once, and a stalled host keeps its last good answer.
  @Test func aRefreshOverHTTPSFollowsTheServersChanges() async throws {
    let stores = try AuditStoreTests.Stores(.sqlite)
    defer { stores.close() }
    let store = try stores.make()
    try await AuditStoreTests.record(["Store.ipa"], into: store, at: Date(timeIntervalSince1970: 1_790_000_000))
    let server = try await HTTPSTestServer.start(
      dnsNames: ["shop.example.com", "example.com", "dev.example.com"])
    defer { Task { await server.stop() } }
    let pem = stores.folder.appendingPathComponent("ca.pem")
    try Data(server.caPEM.utf8).write(to: pem)
    func file(_ path: String) throws -> TestResponse {
      .json(try String(contentsOf: CLI.samples.appendingPathComponent(path), encoding: .utf8))
    }
    let path = "/.well-known/apple-app-site-association"
    server.respond(host: "example.com", path: path, with: try file("aasa/example.com.json"))
    server.respond(host: "shop.example.com", path: path, with: try file("aasa/shop.example.com.json"))
    let refresh = [
      "refresh", "--store", store, "--source", "direct", "--ca-file", pem.path, "--allow-private", "--connect-to",
      server.connectToEverything, "--no-cache", "--timeout", "2", "-f", "json",
    ]

    let same = try CLI.run(refresh)
    #expect(same.status == 0, "\(same.stdout)\(same.stderr)")
    #expect(try Self.hosts(same)["shop.example.com"]?["outcome"] as? String == "unchanged")
    #expect(server.requests(host: "shop.example.com", path: path).count == 1)

    server.respond(host: "shop.example.com", path: path, with: try file("aasa/next/shop.example.com.json"))
    let changed = try CLI.run(refresh)
    #expect(changed.status == 1, "\(changed.stderr)")
    #expect(try Self.hosts(changed)["shop.example.com"]?["outcome"] as? String == "changed")
    #expect(try Self.verdict("https://shop.example.com/help/", store: store) == "match")

    server.respond(
      host: "shop.example.com", path: path,
      with: TestResponse(body: .stall(prefix: Array("{".utf8), declaredLength: 4096)))
    let stalled = try CLI.run(refresh)
    #expect(stalled.status == 0, "\(stalled.stderr)")
    let shop = try #require(try Self.hosts(stalled)["shop.example.com"])
    #expect(shop["outcome"] as? String == "stale" && shop["status"] as? String == "timeout")
    #expect(try Self.verdict("https://shop.example.com/help/", store: store) == "match")

    // A redirect, a body announced at 50 MB, and a 200 whose body is no AASA file (a login page, nothing, a file
    // cut short) are what a captive portal, a proxy or an error page gives as readily as the site: recorded with
    // their status, but the last good file stays current. The invalid bodies were recorded as `ok` and compared as
    // a file that lists no app: `changed`, exit 1, and every link of the host unblocked.
    let page = TestResponse(
      status: 200, headers: [("Content-Type", "text/html")], body: .full(Array("<html>Wi-Fi login</html>".utf8)))
    for (response, status) in [
      (TestResponse.status(302, headers: [("Location", "https://portal.test/login")]), "redirect"),
      (TestResponse(body: .stall(prefix: Array("{".utf8), declaredLength: 50_000_000)), "too-large"),
      (page, "invalid-json"), (TestResponse.json(""), "invalid-json"),
      (TestResponse.json("{\"applinks\": {\"details\": ["), "invalid-json"),
      // A gateway's error in JSON: it read as a file that lists no app, "app removed", every link unblocked.
      (TestResponse.json("{\"error\": \"blocked by policy\"}"), "invalid-json"),
    ] {
      server.respond(host: "shop.example.com", path: path, with: response)
      let hostile = try CLI.run(refresh)
      #expect(hostile.status == 0, "\(hostile.stderr)")
      let host = try #require(try Self.hosts(hostile)["shop.example.com"])
      #expect(host["outcome"] as? String == "stale" && host["status"] as? String == status, "\(host)")
      if status == "invalid-json" {
        #expect((host["message"] as? String)?.hasPrefix("not a valid AASA file: ") == true, "\(host)")
      }
      #expect(try Self.verdict("https://shop.example.com/help/", store: store) == "match")
    }
    let statuses = try await StoreMigrationTests.using(try await AuditStoreTests.open(store)) { store in
      try await store.sqlRows(
        "SELECT status || ' ' || settles FROM retrievals WHERE host = 'shop.example.com' ORDER BY id DESC LIMIT 3")
    }
    #expect(statuses == Array(repeating: "invalid-json 0", count: 3), "\(statuses)")
    // Without --allow-private the loopback server is a private address: every host stale, nothing changes.
    let unplugged = try CLI.run(refresh.filter { $0 != "--allow-private" })
    #expect(unplugged.status == 2, "\(unplugged.stderr)")
    #expect(try Self.hosts(unplugged).values.allSatisfy { $0["status"] as? String == "refused-private-address" })
    #expect(try Self.verdict("https://shop.example.com/help/", store: store) == "match")
    let history = try CLI.run(["history", "--host", "shop.example.com", "--store", store, "-f", "json"])
    #expect((history.json?["versions"] as? [[String: Any]])?.count == 2)
  }

  /// A cached copy is what the site answered when it was cached, never what it answers now. `refresh` read a fresh
  /// copy instead of asking the site (it missed the change), and offline recorded an old copy as a change back (the
  /// list lost the new rule); `inspect --store` with an old copy in its cache, the site down, recorded that copy as
  /// the answer of now, over the newer answer a refresh had recorded: the store rolled back, and so did its lists.
  @Test func aCachedCopyIsNeverRecordedAsTheSitesAnswerNow() async throws {
    let stores = try AuditStoreTests.Stores(.sqlite)
    defer { stores.close() }
    let store = try stores.make()
    let server = try await HTTPSTestServer.start(dnsNames: ["shop.example.com", "example.com", "dev.example.com"])
    defer { Task { await server.stop() } }
    let pem = stores.folder.appendingPathComponent("ca.pem")
    try Data(server.caPEM.utf8).write(to: pem)
    let path = "/.well-known/apple-app-site-association"
    func file(_ name: String) throws -> TestResponse {
      // Fresh for an hour: a cache that honours it would not ask again.
      .json(
        try String(contentsOf: CLI.samples.appendingPathComponent(name), encoding: .utf8),
        headers: [("Cache-Control", "max-age=3600")])
    }
    server.respond(host: "example.com", path: path, with: try file("aasa/example.com.json"))
    server.respond(host: "shop.example.com", path: path, with: try file("aasa/shop.example.com.json"))
    let network = [
      "--source", "direct", "--ca-file", pem.path, "--allow-private", "--connect-to", server.connectToEverything,
      "--timeout", "2",
    ]
    let (laptop, ci) = (stores.folder.appendingPathComponent("laptop"), stores.folder.appendingPathComponent("ci"))
    let ipa = CLI.samples.appendingPathComponent("Store.ipa").path
    let first = try CLI.run(["inspect", ipa, "--store", store, "--cache-dir", laptop.path, "-q"] + network)
    #expect(first.status == 0, "\(first.stderr)")
    let fetched = try CLI.run(["fetch", "shop.example.com", "--cache-dir", ci.path] + network)
    #expect(fetched.status == 0, "\(fetched.stderr)")
    #expect(try Self.verdict("https://shop.example.com/help/", store: store) == "no-match")

    server.respond(host: "shop.example.com", path: path, with: try file("aasa/next/shop.example.com.json"))
    let refresh = ["refresh", "--store", store, "-f", "json"] + network
    let changed = try CLI.run(refresh + ["--cache-dir", ci.path])
    #expect(changed.status == 1, "\(changed.stdout)\(changed.stderr)")
    #expect(try Self.hosts(changed)["shop.example.com"]?["outcome"] as? String == "changed")
    #expect(try Self.verdict("https://shop.example.com/help/", store: store) == "match")

    let offline = try CLI.run(refresh + ["--cache-dir", laptop.path, "--offline"])
    let shop = try #require(try Self.hosts(offline)["shop.example.com"], "\(offline.stdout)\(offline.stderr)")
    #expect(shop["outcome"] as? String == "stale" && shop["status"] as? String == "skipped-offline", "\(shop)")
    #expect(offline.status == 2, "\(offline.stderr)")
    #expect(try Self.verdict("https://shop.example.com/help/", store: store) == "match")

    // The site down, the laptop's copy (the first file) stands in for inspect, and is recorded as of when it was
    // cached: before the refresh's answer, which stays the latest.
    server.respond(host: "shop.example.com", path: path, with: .status(503))
    let down = try CLI.run(["inspect", ipa, "--store", store, "--cache-dir", laptop.path, "-q"] + network)
    #expect(down.status == 0, "\(down.stderr)")
    #expect(try Self.verdict("https://shop.example.com/help/", store: store) == "match")
    let times = try await StoreMigrationTests.using(try await AuditStoreTests.open(store)) { store in
      try await store.sqlRows(
        """
        SELECT t.retrieved_at < i.observed_at FROM retrievals t JOIN inputs i ON i.run_id = t.run_id
        WHERE t.host = 'shop.example.com' AND t.run_id = (SELECT MAX(id) FROM runs)
        """)
    }
    #expect(times == ["1"], "the copy is recorded as of when it was cached: \(times)")
    let history = try CLI.run(["history", "--host", "shop.example.com", "--store", store, "-f", "json"])
    #expect((history.json?["versions"] as? [[String: Any]])?.count == 2, "\(history.stdout)")
  }

  /// A store of Store.ipa and a loopback HTTPS server that answers every host it claims but `shop.example.com`,
  /// which stalls; with the `refresh` arguments that reach it, and how many hosts the store claims.
  static func stallingShop(_ stores: AuditStoreTests.Stores) async throws -> (
    store: String, server: HTTPSTestServer, arguments: [String], total: Int
  ) {
    let store = try stores.make()
    try await AuditStoreTests.record(["Store.ipa"], into: store, at: Date(timeIntervalSince1970: 1_790_000_000))
    let server = try await HTTPSTestServer.start(dnsNames: ["shop.example.com", "example.com"])
    let pem = stores.folder.appendingPathComponent("ca.pem")
    try Data(server.caPEM.utf8).write(to: pem)
    let path = "/.well-known/apple-app-site-association"
    server.respond(
      host: "example.com", path: path,
      with: .json(try String(contentsOf: CLI.samples.appendingPathComponent("aasa/example.com.json"), encoding: .utf8)))
    server.respond(
      host: "shop.example.com", path: path,
      with: TestResponse(body: .stall(prefix: Array("{".utf8), declaredLength: 4096)))
    let hosts = try await StoreMigrationTests.using(try await AuditStoreTests.open(store)) { store in
      try await store.sqlRows("SELECT COUNT(*) FROM latest_retrievals WHERE definite = 0")
    }
    let total = try #require(Int(hosts.first ?? ""))
    return (
      store, server,
      [
        "refresh", "--store", store, "--source", "direct", "--ca-file", pem.path, "--allow-private", "--connect-to",
        server.connectToEverything, "--no-cache", "--timeout", "120",
      ], total
    )
  }

  /// A host that stalls until its timeout holds no other back: the answers that came are recorded within a second,
  /// while the command still waits for it (they waited for a next answer before), and Ctrl-C then says how many hosts
  /// were done and what the store holds; the stalled host keeps its last good answer.
  @Test func hostsThatAnsweredAreRecordedWhileAnotherStalls() async throws {
    let stores = try AuditStoreTests.Stores(.sqlite)
    defer { stores.close() }
    let (store, server, arguments, total) = try await Self.stallingShop(stores)
    defer { Task { await server.stop() } }
    let before = try Self.verdict("https://shop.example.com/help/", store: store)
    #expect(total >= 3, "shop.example.com, example.com and at least one other host")
    let started = try CLI.start(arguments)
    func recorded() async throws -> Int {
      try await StoreMigrationTests.using(try await AuditStoreTests.open(store)) { store in
        Int(try await store.sqlRows("SELECT COUNT(*) FROM retrievals WHERE run_id = 2").first ?? "") ?? 0
      }
    }
    let deadline = Date().addingTimeInterval(60)
    while try await recorded() < total - 1, Date() < deadline { try await Task.sleep(for: .milliseconds(100)) }
    #expect(try await recorded() == total - 1, "every host but the stalled one, recorded while it stalls")
    #expect(started.process.isRunning, "still waiting for shop.example.com")
    started.process.interrupt()
    let run = try await CLI.offPool { try started.wait() }
    #expect(run.status == 130, "\(run.stderr)")
    #expect(run.stderr.contains("ipalinks: interrupted: \(total - 1) of \(total) hosts finished\n"), "\(run.stderr)")
    #expect(
      run.stderr.contains(
        "ipalinks: \(store): the store holds \(total - 1) of the \(total) hosts in run 2, left unfinished; the others "
          + "keep their last answer\n"), "\(run.stderr)")
    #expect(try Self.verdict("https://shop.example.com/help/", store: store) == before)
    let (unfinished, shop) = try await StoreMigrationTests.using(try await AuditStoreTests.open(store)) { store in
      (
        try await store.sqlRows("SELECT COUNT(*) FROM runs WHERE id = 2 AND finished_at IS NULL"),
        try await store.sqlRows(
          """
          SELECT r.run_id FROM latest_retrievals l JOIN retrievals r ON r.id = l.retrieval
          WHERE l.host = 'shop.example.com' AND l.developer_mode = 0 ORDER BY l.definite
          """)
      )
    }
    #expect(unfinished == ["1"], "the refresh's run is left unfinished")
    #expect(shop == ["1", "1"], "shop.example.com's answers are still the first run's")
  }

  #if os(Linux)
    /// On a terminal, the bar keeps moving through a stall: it is redrawn while nothing finishes, shows every host
    /// but the stalled one done, and names that host with its time so far once it has run five seconds.
    @Test func theBarNamesTheHostThatStalls() async throws {
      let stores = try AuditStoreTests.Stores(.sqlite)
      defer { stores.close() }
      let (_, server, arguments, total) = try await Self.stallingShop(stores)
      defer { Task { await server.stop() } }
      let run = try AuditCommandTests.TerminalRun(arguments, stdout: FileHandle.nullDevice, columns: 80)
      let (running, status, stderr, bars) = try await run.interrupt(once: "shop.example.com for 0:06")
      #expect(running, "still waiting for shop.example.com")
      #expect(status == 130, "\(stderr)")
      #expect(
        bars.contains { $0.contains(" \(total - 1)/\(total) ") && $0.hasSuffix("  shop.example.com for 0:06") },
        "\(bars)")
      #expect(bars.allSatisfy { $0.count < 80 }, "\(bars)")
    }
  #endif

  /// `report --store` says what the latest run changed: nothing to compare after the first run; after a refresh
  /// that found a new file, a line per change linking to the host and the app, with the example URL; after an
  /// inspection, the apps whose domains or schemes changed.
  @Test(arguments: Backend.usable) func theReportSaysWhatTheLatestRunChanged(_ backend: Backend) async throws {
    let stores = try AuditStoreTests.Stores(backend)
    defer { stores.close() }
    let store = try stores.make()
    try await AuditStoreTests.record(
      AuditStoreTests.samples, into: store, label: "week-1", at: Date(timeIntervalSince1970: 1_790_000_000))
    func changesSection() throws -> String {
      let page = stores.folder.appendingPathComponent("report.html")
      let run = try CLI.run(["report", "--store", store, "-o", page.path, "-q"])
      #expect(run.status == 0, "\(run.stderr)")
      let html = try String(contentsOf: page, encoding: .utf8)
      let start = try #require(html.range(of: "<section id=\"changes\">"))
      let end = try #require(html.range(of: "</section>", range: start.upperBound..<html.endIndex))
      return String(html[start.lowerBound..<end.upperBound])
    }
    #expect(try changesSection().contains("week-1 is the store's first run: nothing to compare."))

    let refresh = try CLI.run([
      "refresh", "--store", store, "--run-label", "refresh-1", "--aasa-dir", CLI.sample("aasa/next"), "--aasa-dir",
      CLI.sample("aasa"),
    ])
    #expect(refresh.status == 1, "\(refresh.stderr)")
    let section = try changesSection()
    #expect(section.contains("What refresh-1 found changed since week-1."), "\(section)")
    #expect(section.contains(##"<code>shop.example.com</code></a>: rule changed for <a href="#app-"##), "\(section)")
    #expect(section.contains("<code>https://shop.example.com/help/</code> no-match → match"), "\(section)")

    // An inspection that finds the Store app with one more domain and scheme.
    var report = await BatchInspector.inspect(CLI.sample("Store.ipa"), fetches: nil)
    var ignored: [Diagnostic] = []
    report.bundles[0].associatedDomains.append(
      AssociatedDomain.parse("applinks:pay.example.com", diagnostics: &ignored))
    report.bundles[0].urlSchemes.append("storepay")
    let opened = try await AuditStoreTests.open(store)
    let later = Date() + 60
    let run = try await RunRecorder.begin(
      opened, command: "inspect", arguments: [], label: "week-2", shard: nil, at: later)
    try await run.record(report, retrievals: nil, at: later)
    try await run.finish(at: later)
    let changes = try #require(try await opened.runChanges())
    try await opened.close()
    #expect(changes.run == "week-2" && changes.previous == "refresh-1" && changes.hosts.isEmpty)
    let app = try #require(changes.apps.first { $0.appKey == "ST0REAPP42.com.example.store" })
    #expect(!app.first && app.domainsAdded == ["applinks:pay.example.com"] && app.schemesAdded == ["storepay"])
    #expect(changes.apps.count == 1)
    #expect(
      try changesSection().contains("+ <code>applinks:pay.example.com</code>, + URL scheme <code>storepay</code>"))
  }

  /// A label given to every run (`nightly`) names each run alone: "Changed since" compares the latest with the one
  /// before, told apart by their numbers. (Every run of the label was taken as one audit, with nothing before it:
  /// "the store's first run".)
  @Test func aLabelGivenToEveryRunNamesEachRunAlone() async throws {
    let stores = try AuditStoreTests.Stores(.sqlite)
    defer { stores.close() }
    let store = try stores.make()
    let aasa = ["--aasa-dir", CLI.sample("aasa")]
    for (dirs, time) in [(aasa, "1795615200"), (["--aasa-dir", CLI.sample("aasa/next")] + aasa, "1795701600")] {
      let run = try CLI.run(
        ["inspect", CLI.sample("Store.ipa"), "--store", store, "--run-label", "nightly", "-q"] + dirs,
        environment: ["SOURCE_DATE_EPOCH": time])
      #expect(run.status == 0, "\(run.stderr)")
    }
    let opened = try await AuditStoreTests.open(store)
    let changes = try #require(try await opened.runChanges())
    try await opened.close()
    #expect(changes.run == "nightly (run 2)" && changes.previous == "nightly (run 1)", "\(changes.run)")
    #expect(changes.hosts.map(\.host) == ["shop.example.com"], "\(changes.hosts.map(\.host))")
  }

  /// "Changed since" compares every shard of the latest label with the state before them; a refresh after them that
  /// changed nothing does not hide their changes; `report --since` chooses the comparison.
  @Test(arguments: Backend.usable) func changesComeFromEveryShardAndAQuietRunHidesNone(_ backend: Backend) async throws
  {
    let stores = try AuditStoreTests.Stores(backend)
    defer { stores.close() }
    let store = try stores.make()
    // Week 2's files: shop.example.com's (the Store app, in shard 1) and fat.example.com's (the Fat app, in 2).
    let next = stores.folder.appendingPathComponent("next")
    try FileManager.default.createDirectory(at: next, withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      at: CLI.samples.appendingPathComponent("aasa/next/shop.example.com.json"),
      to: next.appendingPathComponent("shop.example.com.json"))
    try Data(
      #"{"applinks":{"details":[{"appIDs":["FAT2SL1CE5.com.example.fat"],"components":[{"/":"/fat/*"}]}]}}"#.utf8
    )
    .write(to: next.appendingPathComponent("fat.example.com.json"))
    let samples = CLI.samples.path
    let week1 = try CLI.run(
      ["inspect", samples, "--aasa-dir", CLI.sample("aasa"), "--store", store, "--run-label", "week-1", "-q"])
    #expect(week1.status == 0, "\(week1.stderr)")
    for shard in ["1/2", "2/2"] {
      let run = try CLI.run([
        "inspect", samples, "--aasa-dir", next.path, "--aasa-dir", CLI.sample("aasa"), "--store", store, "--shard",
        shard,
        "--run-label", "week-2", "-q",
      ])
      #expect(run.status == 0, "\(run.stderr)")
    }
    func changed() async throws -> RunChanges {
      let opened = try await AuditStoreTests.open(store)
      defer { Task { try? await opened.close() } }
      return try #require(try await opened.runChanges())
    }
    let sharded = try await changed()
    #expect(sharded.run == "week-2 (2 runs)" && sharded.previous == "week-1" && sharded.quiet == nil)
    #expect(sharded.hosts.map(\.host) == ["fat.example.com", "shop.example.com"], "\(sharded.hosts.map(\.host))")
    // A refresh that finds the same files changes nothing: the section still shows week 2's changes, and says so.
    let refresh = try CLI.run(["refresh", "--store", store, "--aasa-dir", next.path, "--aasa-dir", CLI.sample("aasa")])
    #expect(refresh.status == 0, "\(refresh.stdout)\(refresh.stderr)")
    let quiet = try await changed()
    #expect(quiet.run == "week-2 (2 runs)" && quiet.previous == "week-1", "\(quiet.run) \(quiet.previous ?? "")")
    #expect(quiet.quiet?.hasSuffix(" UTC") == true && quiet.hosts.count == 2, "\(quiet.quiet ?? "")")
    let page = stores.folder.appendingPathComponent("since.html")
    let report = try CLI.run(["report", "--store", store, "--since", "week-1", "-o", page.path, "--no-progress"])
    #expect(report.status == 0, "\(report.stderr)")
    let html = try String(contentsOf: page, encoding: .utf8)
    #expect(html.contains("<h2>Changed since week-1</h2>"), "\(html.prefix(400))")
    #expect(html.contains(">fat.example.com</") && html.contains(">shop.example.com</"))
    let backwards = try CLI.run(
      ["report", "--store", store, "--since", "week-2", "--at", "week-1", "-o", page.path, "--no-progress"])
    #expect(
      backwards.status == 2 && backwards.stderr.contains("--since week-2 is after --at week-1"), "\(backwards.stderr)")
  }

  /// A store of one app, `appId`, that claims `hosts`, each with `file` retrieved a week ago: what a refresh then
  /// finds changed.
  static func seed(_ location: String, appId: String, hosts: [String], file: String) async throws {
    let store = try await AuditStoreTests.open(location)
    let week = Date() - 7 * 86_400
    let seed = try await RunRecorder.begin(
      store, command: "inspect", arguments: [], label: "seed", shard: nil, at: week)
    var bundle = BundleReport(path: "Payload/App.app", kind: .app)
    (bundle.bundleId, bundle.appId) = ("com.example.app", appId)
    var ignored: [Diagnostic] = []
    bundle.associatedDomains = hosts.map { AssociatedDomain.parse("applinks:" + $0, diagnostics: &ignored) }
    let retrievals = Dictionary(
      uniqueKeysWithValues: hosts.map {
        (
          AASARequest(host: $0),
          AASARetrieval(
            AASAFetchResult(host: $0, status: .ok, source: .directWellKnown, message: "ok", body: Array(file.utf8)))
        )
      })
    try await seed.record(
      InspectionReport(input: "app.ipa", inputKind: .ipa, bundles: [bundle]), retrievals: retrievals, at: week)
    try await seed.finish(at: week)
    try await store.close()
  }

  /// A refresh killed with SIGKILL midway leaves the store consistent: the run is marked unfinished, the hosts it
  /// recorded have their new file in the latest state, and every other host keeps the one it had.
  @Test(arguments: Backend.usable) func aRefreshKilledMidwayLeavesTheStoreConsistent(_ backend: Backend) async throws {
    let stores = try AuditStoreTests.Stores(backend)
    defer { stores.close() }
    let location = try stores.make()
    let (old, new) = (
      #"{"applinks":{"details":[{"appIDs":["KILLED1234.com.example.app"],"components":[{"/":"/old/*"}]}]}}"#,
      #"{"applinks":{"details":[{"appIDs":["KILLED1234.com.example.app"],"components":[{"/":"/newer/*"}]}]}}"#
    )
    let hosts = (0..<60).map { "k\($0).bench.test" }
    try await Self.seed(location, appId: "KILLED1234.com.example.app", hosts: hosts, file: old)

    let server = try await HTTPSTestServer.start()
    defer { Task { await server.stop() } }
    server.respond(path: "/.well-known/apple-app-site-association", with: .json(new, delay: .milliseconds(400)))
    let pem = stores.folder.appendingPathComponent("ca.pem")
    try Data(server.caPEM.utf8).write(to: pem)
    let process = Process()
    process.executableURL = CLI.binary
    process.arguments = [
      "refresh", "--store", location, "--source", "direct", "--ca-file", pem.path, "--allow-private",
      "--connect-to", server.connectToEverything, "--no-cache", "--concurrency", "4", "-f", "json",
    ]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    // 60 hosts, 4 at a time, 0.4 s each: 6 s in all; answers are recorded every half second. Killed once the
    // first are recorded, however slowly this machine runs it.
    let watcher = try await AuditStoreTests.open(location)
    let deadline = ContinuousClock.now + .seconds(60)
    while ContinuousClock.now < deadline,
      try await watcher.sqlRows(
        "SELECT COUNT(*) FROM retrievals r JOIN runs u ON u.id = r.run_id WHERE u.command = 'refresh'") == ["0"]
    {
      try await Task.sleep(for: .milliseconds(100))
    }
    try await watcher.close()
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    #expect(process.terminationReason == .uncaughtSignal)

    let reopened = try await AuditStoreTests.open(location)
    let unfinished = try await reopened.sqlRows("SELECT COUNT(*) AS n FROM runs WHERE finished_at IS NULL")
    #expect(unfinished == ["1"])
    let refreshed = Set(
      try await reopened.sqlRows(
        "SELECT r.host FROM retrievals r JOIN runs u ON u.id = r.run_id WHERE u.command = 'refresh'"))
    #expect(!refreshed.isEmpty && refreshed.count < hosts.count, "\(refreshed.count) of \(hosts.count) recorded")
    // Readers say what the unfinished refresh recorded: its hosts (it was said to have stored 0 inputs).
    let reader = try CLI.run(["who-claims", "k0.bench.test", "--store", location])
    #expect(
      reader.stderr.contains(
        "did not finish (killed, or still running): a refresh, it recorded the files of \(refreshed.count) host"),
      "\(reader.stderr)")
    // Each host's latest state: the new file where the refresh recorded it, the old one elsewhere.
    let newSHA = try await reopened.sqlRows(
      """
      SELECT r.host FROM latest_retrievals l JOIN retrievals r ON r.id = l.retrieval
        JOIN retrieval_observations o ON o.id = r.observation JOIN aasa_files f ON f.sha256 = o.file_sha256
        WHERE l.definite = 1 AND f.size = \(new.utf8.count)
      """)
    #expect(Set(newSHA) == refreshed)
    let latest = try await reopened.latestReports()
    try await reopened.close()
    let domains = try #require(latest.first?.bundles.first?.associatedDomains)
    #expect(domains.count == hosts.count)
    for domain in domains {
      let rules = domain.aasa?.appLinks?.rules.compactMap(\.path) ?? []
      #expect(rules.contains(refreshed.contains(domain.host) ? "/newer/*" : "/old/*"), "\(domain.host): \(rules)")
    }
  }

  /// A host that rewrites its file on every retrieval without changing what opens (a generated timestamp) is no
  /// change to `refresh`, and one version, flagged unstable, to `history`.
  @Test func aFileRewrittenWithoutChangingBehaviourIsOneVersion() async throws {
    let stores = try AuditStoreTests.Stores(.sqlite)
    defer { stores.close() }
    let store = try stores.make()
    try await AuditStoreTests.record(["Store.ipa"], into: store, at: Date(timeIntervalSince1970: 1_790_000_000))
    let original = try String(
      contentsOf: CLI.samples.appendingPathComponent("aasa/shop.example.com.json"), encoding: .utf8)
    for generation in 1...3 {
      let folder = stores.folder.appendingPathComponent("generation-\(generation)")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      let rewritten = "{\"generated\": \"2026-11-\(generation)\"," + original.drop { $0 != "{" }.dropFirst()
      try Data(rewritten.utf8).write(to: folder.appendingPathComponent("shop.example.com.json"))
      let run = try CLI.run(
        ["refresh", "--store", store, "--aasa-dir", folder.path, "--aasa-dir", CLI.sample("aasa"), "-f", "json"])
      #expect(run.status == 0, "\(run.stderr)")
      #expect(try Self.hosts(run)["shop.example.com"]?["outcome"] as? String == "rewritten")
    }
    let history = try CLI.run(["history", "--host", "shop.example.com", "--store", store, "-f", "json"])
    #expect(history.json?["unstable"] as? Bool == true)
    let versions = try #require(history.json?["versions"] as? [[String: Any]])
    #expect(versions.count == 1 && versions.first?["files"] as? Int == 4, "\(versions)")
    let text = try CLI.run(["history", "--host", "shop.example.com", "--store", store])
    #expect(text.stdout.contains("unstable: it rewrites its file without changing what opens"), "\(text.stdout)")
    #expect(text.stdout.contains(", 4 files alike"), "\(text.stdout)")
  }

  /// The text says the apps a change affects as the JSON's `affects` does: a file removed that never listed the
  /// store's app affects no app in the store, though the app claims the host.
  @Test func theTextAndTheJSONAgreeOnWhatAChangeAffects() async throws {
    let stores = try AuditStoreTests.Stores(.sqlite)
    defer { stores.close() }
    let store = try stores.make()
    let others = stores.folder.appendingPathComponent("others")
    try FileManager.default.createDirectory(at: others, withIntermediateDirectories: true)
    try Data(#"{"applinks":{"details":[{"appIDs":["OTHER12345.com.example.other"],"components":[{"/":"/*"}]}]}}"#.utf8)
      .write(to: others.appendingPathComponent("shop.example.com.json"))
    let seed = try CLI.run(
      [
        "inspect", CLI.sample("Store.ipa"), "--aasa-dir", others.path, "--aasa-dir", CLI.sample("aasa"), "--store",
        store, "-q",
      ])
    #expect(seed.status == 0, "\(seed.stderr)")
    let copy = stores.folder.appendingPathComponent("copy.db").path
    try FileManager.default.copyItem(atPath: store, toPath: copy)
    let empty = stores.folder.appendingPathComponent("no-files")
    try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
    let json = try CLI.run(["refresh", "--store", store, "--aasa-dir", empty.path, "-f", "json"])
    let host = try #require(try Self.hosts(json)["shop.example.com"], "\(json.stdout)")
    #expect(host["outcome"] as? String == "removed")
    let affects = Set((host["changes"] as? [[String: Any]] ?? []).flatMap { $0["affects"] as? [String] ?? [] })
    #expect(affects.isEmpty, "\(host)")
    let text = try CLI.run(["refresh", "--store", copy, "--aasa-dir", empty.path])
    let block = try #require(
      text.stdout.components(separatedBy: "\n\n").first { $0.hasPrefix("shop.example.com: removed") },
      "\(text.stdout)")
    #expect(block.hasSuffix("  affects no app in the store"), "\(block)")
  }

  /// Hosts watched without an app (`refresh --host`), as a web-view developer with no IPAs keeps them: kept in the
  /// store and retrieved by every refresh; every app a host's file lists is taken to claim it, by `blocklist`,
  /// `who-claims` and `report`, said to be assumed; an outage keeps the last good file, and a host never answered
  /// fails closed.
  @Test(arguments: Backend.usable) func watchedHostsAreRefreshedAndClaimedByTheAppsTheirFilesList(
    _ backend: Backend
  ) async throws {
    let stores = try AuditStoreTests.Stores(backend)
    defer { stores.close() }
    let store = try stores.make()
    let (next, aasa) = (CLI.sample("aasa/next"), CLI.sample("aasa"))
    let first = try CLI.run([
      "refresh", "--store", store, "--host", "Shop.Example.com", "--host", "gone.example.net", "--aasa-dir", aasa,
      "-f", "json",
    ])
    #expect(first.status == 0, "\(first.stderr)")
    #expect(first.json?["watched"] as? Int == 2 && first.json?["appCount"] as? Int == 0, "\(first.stdout)")
    let shop = try #require(try Self.hosts(first)["shop.example.com"])
    #expect(shop["status"] as? String == "ok" && shop["apps"] as? [String] == ["ST0REAPP42.com.example.store"])
    #expect(try Self.hosts(first)["gone.example.net"]?["status"] as? String == "not-found")

    // The lists and who-claims take the app the file lists to claim the host, and say so.
    let domains = try CLI.run(["blocklist", "--store", store, "--format", "domains"])
    #expect(domains.status == 0 && domains.stdout == "shop.example.com\n", "\(domains.stdout)\(domains.stderr)")
    #expect(domains.stderr.contains("claims assumed from the AASA files of 1 host for 1 app"), "\(domains.stderr)")
    #expect(domains.stderr.contains("gone.example.net: no AASA file"), "\(domains.stderr)")
    #expect(try Self.verdict("https://shop.example.com/buy/x", store: store) == "match")
    #expect(try Self.verdict("https://shop.example.com/help/", store: store) == "no-match")

    // Kept in the store: a refresh without --host retrieves them again, and a new file changes what opens for the
    // apps it lists.
    let changed = try CLI.run(["refresh", "--store", store, "--aasa-dir", next, "--aasa-dir", aasa, "-f", "json"])
    #expect(changed.status == 1, "\(changed.stderr)")
    let rule = try #require(
      (try Self.hosts(changed)["shop.example.com"]?["changes"] as? [[String: Any]])?.first {
        $0["kind"] as? String == "rule changed"
      })
    #expect(rule["affects"] as? [String] == ["ST0REAPP42.com.example.store"], "\(rule)")
    #expect(try Self.verdict("https://shop.example.com/help/", store: store) == "match")

    // An outage keeps the last good file; a host never answered is unknown, and fails closed.
    let cache = stores.folder.appendingPathComponent("empty-cache").path
    let outage = try CLI.run([
      "refresh", "--store", store, "--offline", "--cache-dir", cache, "--host", "unknown.example.org", "-f", "json",
    ])
    #expect(outage.status == 2, "\(outage.stderr)")
    #expect(try Self.hosts(outage).values.allSatisfy { $0["outcome"] as? String == "stale" })
    // A stale host lists the apps its kept file lists, which its lists still block (it listed none).
    #expect(try Self.hosts(outage)["shop.example.com"]?["apps"] as? [String] == ["ST0REAPP42.com.example.store"])
    #expect(try Self.hosts(outage)["unknown.example.org"]?["apps"] as? [String] == [])
    #expect(outage.json?["watched"] as? Int == 3)
    #expect(try Self.verdict("https://shop.example.com/help/", store: store) == "match")
    let open = try CLI.run(["blocklist", "--store", store, "--format", "domains", "--uncovered", "skip"])
    #expect(open.status == 1 && open.stdout == "shop.example.com\n", "\(open.stdout)\(open.stderr)")
    #expect(open.stderr.contains("uncovered: * unknown.example.org: its AASA file is unknown"), "\(open.stderr)")
    // Blocked whole by default.
    let closed = try CLI.run(["blocklist", "--store", store, "--format", "domains"])
    #expect(closed.status == 1, "\(closed.stderr)")
    #expect(closed.stdout == "shop.example.com\nunknown.example.org\n", "\(closed.stdout)")

    // The report says which claims are assumed.
    let page = stores.folder.appendingPathComponent("report.html")
    let report = try CLI.run(["report", "--store", store, "-o", page.path])
    // Partial, as blocklist says: a watched host's file is unknown, and another's is gone.
    #expect(report.status == 1, "\(report.stderr)")
    let html = try String(contentsOf: page, encoding: .utf8)
    #expect(html.contains("The claims of 1 app are assumed from the AASA files of 1 host"), "\(html.prefix(600))")

    // A host an app of the store claims is that app's, not assumed: inspecting the Store app takes it over.
    try await AuditStoreTests.record(["Store.ipa"], into: store, at: Date())
    let owned = try CLI.run(["refresh", "--store", store, "--aasa-dir", next, "--aasa-dir", aasa, "-f", "json"])
    #expect(owned.json?["watched"] as? Int == 2, "\(owned.stdout)")

    // A host added by a refresh killed before it retrieved the host has no answer at all: unknown, and said so.
    let opened = try await AuditStoreTests.open(store)
    try await opened.sqlRows(
      "INSERT INTO watched_hosts (host, added_at, run_id) VALUES ('killed.example.org', '2026-01-01T00:00:00.000Z', 1)")
    try await opened.close()
    let never = try CLI.run(["blocklist", "--store", store, "--format", "domains"])
    #expect(never.status == 1, "\(never.stderr)")
    #expect(
      never.stderr.contains("killed.example.org: its AASA file is unknown: never retrieved (aasa.never-retrieved)"),
      "\(never.stderr)")
  }
}
