import Foundation
import IPALinksKit
import NIOCore
import SQLKit
import UniversalLinks

extension AuditStore {
  /// One run, as `store runs` lists it.
  public struct Run: Sendable, Codable, Equatable {
    /// Its row.
    public var id: Int
    /// `--run-label`, when one was given.
    public var label: String?
    /// The command that ran: `inspect`, `refresh`, `store import`.
    public var command: String
    /// When it started.
    public var startedAt: String
    /// When it finished; nil for a run that did not (a crash, Ctrl-C, a machine lost).
    public var finishedAt: String?
    /// The ipalinks that ran it.
    public var toolVersion: String
    /// The machine it ran on.
    public var machine: String
    /// `--shard`, when one was given.
    public var shard: String?
    /// Inputs recorded.
    public var inputs: Int
    /// Apps (bundles) recorded.
    public var apps: Int
    /// Hosts whose AASA files it recorded a retrieval of: what a `refresh` run records.
    public var hosts: Int
    /// When `store prune` removed what this run saw but for what history needs; nil for a whole run.
    public var prunedAt: String?
  }

  /// Every run, oldest first.
  public func runs() async throws(Failure) -> [Run] {
    try await failing("cannot list the runs") {
      try await sql.raw(
        """
        SELECT r.id, r.label, r.command, r.started_at, r.finished_at, r.tool_version, r.machine, r.shard, r.pruned_at,
          (SELECT COUNT(*) FROM inputs i WHERE i.run_id = r.id) AS inputs,
          (SELECT COUNT(*) FROM apps a WHERE a.run_id = r.id) AS apps,
          (SELECT COUNT(DISTINCT t.host) FROM retrievals t WHERE t.run_id = r.id) AS hosts
        FROM runs r ORDER BY r.started_at, r.id
        """
      ).all().map { row in
        Run(
          id: try row.decode(column: "id", as: Int.self), label: try row.decode(column: "label", as: String?.self),
          command: try row.decode(column: "command", as: String.self),
          startedAt: try row.decode(column: "started_at", as: String.self),
          finishedAt: try row.decode(column: "finished_at", as: String?.self),
          toolVersion: try row.decode(column: "tool_version", as: String.self),
          machine: try row.decode(column: "machine", as: String.self),
          shard: try row.decode(column: "shard", as: String?.self),
          inputs: try row.decode(column: "inputs", as: Int.self), apps: try row.decode(column: "apps", as: Int.self),
          hosts: try row.decode(column: "hosts", as: Int.self),
          prunedAt: try row.decode(column: "pruned_at", as: String?.self))
      }
    }
  }

  /// The latest state, or the state at `time`: each app as it was last inspected, grouped by the input it came
  /// from, and each domain's AASA file as it was last retrieved. What `who-claims`, `report`, `blocklist` and
  /// `diff` read from a store. With `about`, only the apps with an entry on that host, on a domain above it (a
  /// wildcard's) or, for a wildcard, below it, and those whose entitlements could not be read (which may claim it),
  /// without their entitlements: all that `who-claims HOST` needs, read through the host index.
  ///
  /// Without `files`, the apps come without their hosts' files and entitlements: what `refresh` needs to know which
  /// hosts to retrieve, for the cost of the apps alone.
  public func latestReports(at time: Date? = nil, about host: String? = nil, files: Bool = true) async throws(Failure)
    -> [InspectionReport]
  {
    let at = AuditStore.timestamp(time ?? Date.distantFuture)
    return try await failing("cannot read the latest state") {
      // With a host, the apps with an entry on it, on a domain above it (a wildcard's) or, for a wildcard, below it.
      let pattern = host.map(LinkRuntime.HostPattern.init)
      let labels = pattern?.host.split(separator: ".") ?? []
      let above = labels.indices.map { labels[$0...].joined(separator: ".") }
      func below(_ name: String) -> Bool { pattern.map { $0.wildcard && name.hasSuffix("." + $0.host) } ?? false }
      var keys: SQLQueryString = ""
      if let pattern {
        let under: SQLQueryString = pattern.wildcard ? " OR d.host LIKE \(bind: "%." + pattern.host)" : ""
        // And those whose entitlements could not be read: what they claim is unknown, which `who-claims` says. One
        // set of observations, found through the host index and the unread table's key, which each app is looked
        // up in (not a probe of both for every app).
        keys = """
          AND a.observation IN (
            SELECT d.observation FROM app_domains d WHERE d.host IN (\(binds: above))\(under)
            UNION ALL SELECT u.observation FROM unread_entitlements u)
          """
      }
      // The latest state as it was written, one row per app whatever the number of runs; at a time, the latest row
      // of each app then (ties go to the later row), numbered in one pass over the sightings before any report is
      // read.
      let latest: SQLQueryString =
        time == nil
        ? "SELECT app FROM latest_apps"
        : """
        SELECT t.id FROM (
          SELECT x.id, ROW_NUMBER() OVER (PARTITION BY x.app_key ORDER BY i.observed_at DESC, x.id DESC) AS n
          FROM apps x JOIN inputs i ON i.id = x.input_id WHERE i.observed_at <= \(bind: at) AND x.superseded = 0) t
        WHERE t.n = 1
        """
      // The files that decide on one host without a wildcard are known before the apps are (its own and its
      // domains' above): they are read first, and parsed while the server finds the apps, so that each app is
      // joined to them as it is decoded.
      let streamed = StreamedApps(claimsOnly: host != nil || !files)
      let oneHost = files && pattern.map { !$0.wildcard } == true
      let fileRows = oneHost ? retrievalRows(at: time == nil ? nil : at, hosts: Set(above)) : nil
      async let early: Void = join(streamed, to: fileRows)
      // Unordered, so that the server sends each app as it finds it, and each is decoded while it finds the rest.
      try await sql.raw(
        """
        SELECT a.id, o.report, a.input_id, i.observed_at, f.path, f.kind, f.diagnostics FROM apps a
        JOIN inputs i ON i.id = a.input_id
        JOIN input_files f ON f.id = i.file JOIN app_observations o ON o.id = a.observation
        WHERE a.id IN (\(latest)) \(keys)
        """
      ).run { streamed.add($0) }
      try await early
      // The whole state's files, every host's, are many: read after the apps, while the last of them are decoded.
      if files && pattern == nil { streamed.join(try await latestRetrievals(at: time == nil ? nil : at, hosts: nil)) }
      var apps = try await streamed.finish()
      if files, let pattern, pattern.wildcard {
        // For a wildcard, only the files that decide on it: its own, and its domains' above or below.
        let hosts = Set(
          apps.flatMap { $0.bundle.associatedDomains.compactMap(\.request?.host) }.filter {
            above.contains($0) || below($0)
          })
        apps = StreamedApps.joining(apps, to: try await latestRetrievals(at: time == nil ? nil : at, hosts: hosts))
      }
      var reports = try Self.reports(apps)
      // Inputs that could not be read are part of the state too, as a report from files lists them: each path whose
      // latest input gave no app. Asked about one host too, since any of them might claim it (an app read in part
      // is read only when it has an entry on the host, as an inventory's apps are kept).
      if files {
        reports += try await unreadableInputs(at: time == nil ? nil : at)
      }
      // The hosts watched without an app (`refresh --host`), each a report of the apps its file lists, as a host
      // given with `--host` is; the file is the last one that settled what it is, so an outage keeps it.
      if files {
        let watched = try await watchedHosts(at: time == nil ? nil : at).filter { watched in
          pattern.map { $0.wildcard ? watched.hasSuffix("." + $0.host) : watched == $0.host } ?? true
        }
        if !watched.isEmpty {
          let known = Set(reports.flatMap(\.bundles).compactMap(\.appId))
          let files = try await latestRetrievals(at: time == nil ? nil : at, hosts: Set(watched))
          reports += HostInputs.reports(for: watched, files: files.parsed, leavingOut: known)
        }
      }
      return reports
    }
  }

  /// The inputs whose latest observation (up to `at`) could not be read, each a report without bundles with the
  /// diagnostics that say why, sorted by path.
  func unreadableInputs(at: String? = nil) async throws -> [InspectionReport] {
    let until: SQLQueryString = at.map { "AND i.observed_at <= \(bind: $0)" } ?? ""
    let later: SQLQueryString = at.map { "AND j.observed_at <= \(bind: $0)" } ?? ""
    let rows = try await sql.raw(
      """
      SELECT f.path, f.kind, f.diagnostics FROM input_files f JOIN inputs i ON i.file = f.id
      WHERE f.status = \(bind: InspectionReport.Status.unreadable.rawValue) \(until)
        AND NOT EXISTS (
          SELECT 1 FROM input_files g JOIN inputs j ON j.file = g.id WHERE g.path = f.path \(later)
            AND (j.observed_at > i.observed_at OR (j.observed_at = i.observed_at AND j.id > i.id)))
      ORDER BY f.path
      """
    ).all()
    let decoder = JSONDecoder()
    return try rows.map { row in
      InspectionReport(
        input: try row.decode(column: "path", as: String.self),
        inputKind: InspectionReport.InputKind(rawValue: try row.decode(column: "kind", as: String.self)) ?? .unknown,
        diagnostics: try decoder.decode(
          [Diagnostic].self, from: Data(try row.decode(column: "diagnostics", as: String.self).utf8)))
    }
  }

  /// The hosts watched without an app (`refresh --host`), in the order they were added; at `at`, those added by
  /// then.
  func watchedHosts(at: String? = nil) async throws -> [String] {
    let when: SQLQueryString = at.map { "WHERE added_at <= \(bind: $0)" } ?? ""
    return try await sql.raw("SELECT host FROM watched_hosts \(when) ORDER BY added_at, host").all().map {
      try $0.decode(column: "host", as: String.self)
    }
  }

  /// Of the latest state's files (each host's last that settled what its file is, else its last retrieval), how
  /// many were retrieved before `cutoff`, and the oldest's host and time; nil when none was.
  func oldFiles(before cutoff: Date) async throws -> (count: Int, host: String, at: Date)? {
    let rows = try await sql.raw(
      """
      SELECT host, COALESCE(MAX(CASE WHEN definite = 1 THEN retrieved_at END), MAX(retrieved_at)) AS used
      FROM latest_retrievals GROUP BY host, developer_mode
      """
    ).all()
    let cutoff = AuditStore.timestamp(cutoff)
    var old: [(host: String, at: String)] = []
    for row in rows {
      let used = try row.decode(column: "used", as: String.self)
      if used < cutoff { old.append((try row.decode(column: "host", as: String.self), used)) }
    }
    guard let oldest = old.min(by: { ($0.at, $0.host) < ($1.at, $1.host) }), let at = AuditStore.date(oldest.at)
    else { return nil }
    return (Set(old.map(\.host)).count, oldest.host, at)
  }

  /// Whether the store holds an app observed at `time` or before (at all, when nil).
  func holdsApps(at time: Date?) async throws -> Bool {
    let at = AuditStore.timestamp(time ?? .distantFuture)
    return try await sql.raw(
      "SELECT 1 FROM apps a JOIN inputs i ON i.id = a.input_id WHERE i.observed_at <= \(bind: at) LIMIT 1"
    ).first() != nil
  }

  /// The latest run started by `time` (at all, when nil) when it did not finish: killed, or still running. Its
  /// number, label and how many inputs it stored.
  func unfinishedLatestRun(at time: Date?) async throws -> (run: Int, label: String?, inputs: Int, hosts: Int?)? {
    let at = AuditStore.timestamp(time ?? .distantFuture)
    guard
      let row = try await sql.raw(
        """
        SELECT r.id, r.label, r.finished_at, r.command, (SELECT COUNT(*) FROM inputs i WHERE i.run_id = r.id) AS inputs,
          (SELECT COUNT(DISTINCT x.host) FROM retrievals x WHERE x.run_id = r.id) AS hosts
        FROM runs r WHERE r.started_at <= \(bind: at) ORDER BY r.started_at DESC, r.id DESC LIMIT 1
        """
      ).first(), try row.decodeNil(column: "finished_at")
    else { return nil }
    // A refresh records hosts' retrievals, never inputs.
    let refresh = try row.decode(column: "command", as: String.self) == "refresh"
    return (
      try row.decode(column: "id", as: Int.self), try row.decode(column: "label", as: String?.self),
      try row.decode(column: "inputs", as: Int.self), refresh ? try row.decode(column: "hosts", as: Int.self) : nil
    )
  }

  /// When the earliest app the store holds was inspected (a stored timestamp); nil when it holds none. For a time
  /// before it, which finds nothing: the user is told where the store's history starts.
  func firstAppObserved() async throws -> String? {
    try await sql.raw(
      "SELECT MIN(i.observed_at) AS first FROM apps a JOIN inputs i ON i.id = a.input_id"
    ).first()?.decode(column: "first", as: String?.self)
  }

  /// The apps as reports, one per input, in the order of the inputs' paths (byte by byte, whatever the database's
  /// collation), then of the rows.
  static func reports(_ apps: [StreamedApps.App]) throws -> [InspectionReport] {
    let paths = apps.map { Array($0.path.utf8) }
    let order = apps.indices.sorted {
      paths[$0] != paths[$1]
        ? paths[$0].lexicographicallyPrecedes(paths[$1]) : (apps[$0].input, apps[$0].id) < (apps[$1].input, apps[$1].id)
    }
    let decoder = JSONDecoder()
    var reports: [InspectionReport] = []
    var lastInput = -1
    for app in order.map({ apps[$0] }) {
      if app.input != lastInput {
        lastInput = app.input
        reports.append(
          InspectionReport(
            input: app.path, inputKind: InspectionReport.InputKind(rawValue: app.kind) ?? .unknown,
            // Most inputs have none, and decoding even `[]` costs a decoder's start.
            diagnostics: app.diagnostics == "[]"
              ? [] : try decoder.decode([Diagnostic].self, from: Data(app.diagnostics.utf8))))
      }
      reports[reports.count - 1].bundles.append(app.bundle)
    }
    return reports
  }

  /// `transform` of each item, in order, done on every core in chunks of at least `chunk` items; the first error
  /// thrown, if any.
  static func concurrentMap<T: Sendable, U: Sendable>(
    _ items: [T], chunk: Int = 32, _ transform: @escaping @Sendable (T) throws -> U
  ) throws -> [U] {
    try parallelMap(items.count, workers: ProcessInfo.processInfo.activeProcessorCount, minimumChunk: chunk) { k in
      Result { try transform(items[k]) }
    }
    .map { try $0.get() }
  }

  /// The latest retrieval of each host's file (`at` or before), parsed once each: the latest with a definite answer
  /// (a file, a 404, a redirect…), so that a timeout or an outage never replaces a good file (which would unblock its
  /// links); a host that never had one, its latest.
  private func latestRetrievals(at: String?, hosts: Set<String>?) async throws -> StoredFiles {
    try parsed(try await retrievalRows(at: at, hosts: hosts).get())
  }

  /// `rows`' files parsed and given to `apps` to join (``StreamedApps/join(_:)``); nothing without rows.
  private func join(_ apps: StreamedApps, to rows: EventLoopFuture<[any SQLRow]>?) async throws {
    if let rows { apps.join(try parsed(try await rows.get())) }
  }

  /// The rows ``latestRetrievals(at:hosts:)`` parses. A future, so that its queries are queued on the connection
  /// when this returns, before any the caller sends next.
  private func retrievalRows(at: String?, hosts: Set<String>?) -> EventLoopFuture<[any SQLRow]> {
    let only: SQLQueryString = hosts.map { "AND r.host IN (\(binds: $0.sorted()))" } ?? ""
    if hosts?.isEmpty == true { return sql.eventLoop.makeSucceededFuture([]) }
    // The definite ones come second and so replace the others below.
    guard let at else {
      return sql.raw(
        """
        SELECT r.host, r.developer_mode, r.retrieved_at, o.result, f.body FROM latest_retrievals l
        JOIN retrievals r ON r.id = l.retrieval JOIN retrieval_observations o ON o.id = r.observation
        LEFT JOIN aasa_files f ON f.sha256 = o.file_sha256
        WHERE 1 = 1 \(only) ORDER BY l.definite
        """
      ).all()
    }
    let queries = [false, true].map { onlyDefinite in
      let filter: SQLQueryString = onlyDefinite ? "AND \(Self.settling("r")) \(only)" : only
      // Each host's latest row then (ties go to the later row), numbered in one pass over its retrievals.
      return sql.raw(
        """
        SELECT r.host, r.developer_mode, r.retrieved_at, o.result, f.body FROM (
          SELECT r.host, r.developer_mode, r.retrieved_at, r.observation,
            ROW_NUMBER() OVER (PARTITION BY r.host, r.developer_mode ORDER BY r.retrieved_at DESC, r.id DESC) AS n
          FROM retrievals r WHERE r.retrieved_at <= \(bind: at) \(filter)) r
        JOIN retrieval_observations o ON o.id = r.observation LEFT JOIN aasa_files f ON f.sha256 = o.file_sha256
        WHERE r.n = 1
        """
      ).all()
    }
    return queries[0].and(queries[1]).map { $0 + $1 }
  }

  /// Retrieval rows (host, mode, time, result, body) as parsed files, each parsed and validated once, on every
  /// core; a later row of a host replaces an earlier one.
  private func parsed(_ rows: [any SQLRow]) throws -> StoredFiles {
    let read = try rows.map { row in
      (
        AASARequest(
          host: try row.decode(column: "host", as: String.self),
          developerMode: try row.decode(column: "developer_mode", as: Int.self) != 0),
        try row.decode(column: "retrieved_at", as: String.self),
        try row.decode(column: "result", as: String.self), try row.decode(column: "body", as: Data?.self)
      )
    }
    let parsed = try Self.concurrentMap(read) { request, _, json, body in
      var result = try JSONDecoder().decode(AASAFetchResult.self, from: Data(json.utf8))
      result.body = body.map { [UInt8]($0) }
      return (request, ParsedAASA(result))
    }
    return StoredFiles(
      parsed: Dictionary(parsed, uniquingKeysWith: { $1 }),
      retrievedAt: Dictionary(read.map { ($0.0, $0.1) }, uniquingKeysWith: { $1 }))
  }
}

extension AuditStore {
  /// The condition that the retrieval row `alias` settles what its host's file is (``AASAFetchResult/Status/settles``): by its
  /// `settles` column, or by its status for a row older than the column.
  static func settling(_ alias: String) -> SQLQueryString {
    let definite = AASAFetchResult.Status.allCases.filter(\.isDefinite).map(\.rawValue)
    return
      "(\(ident: alias).settles = 1 OR (\(ident: alias).settles IS NULL AND \(ident: alias).status IN (\(binds: definite))))"
  }

  /// A file that lists no app: what a definite answer without a file reads as, and a stored file that no longer
  /// parses.
  static let listingNoApp = (try? AASAFile(bytes: Array("{}".utf8)))!

  /// The stored file with `sha256`, parsed; ``listingNoApp`` for none, or for one that does not parse.
  func storedFile(_ sha256: String?) async throws -> AASAFile {
    guard let sha256 else { return Self.listingNoApp }
    let body = try await sql.raw("SELECT body FROM aasa_files WHERE sha256 = \(bind: sha256)")
      .first(decodingColumn: "body", as: Data.self)
    return body.flatMap { try? AASAFile(bytes: [UInt8]($0)) } ?? Self.listingNoApp
  }
}

/// The apps' rows decoded as they arrive: each batch of rows on a thread of its own while the server finds the next,
/// since decoding the apps' JSON is most of what reading the latest state costs. The rows come from the connection's
/// thread, which only takes their columns.
final class StreamedApps: @unchecked Sendable {
  /// One app's row, decoded.
  struct App: Sendable {
    var id: Int
    var input: Int
    /// When its input was inspected (an imported inventory's: when it was saved).
    var observed: String
    var path: String
    var kind: String
    var diagnostics: String
    var bundle: BundleReport
    /// Joined to the files given to ``StreamedApps/join(_:)``.
    var joined: Bool
  }

  private struct Row {
    var id: Int, input: Int, observed: String, path: String, kind: String, diagnostics: String, report: String
  }

  /// Rows a thread decodes at a time: enough to be worth a thread, few enough to start while the server works.
  private static let batch = 24
  private let claimsOnly: Bool
  private let lock = NSLock()
  private let group = DispatchGroup()
  private var pending: [Row] = []
  private var apps: [App] = []
  private var failure: (any Error)?
  private var files: StoredFiles?

  /// Decodes without the entitlements themselves when `claimsOnly` (``BundleReport/claimsOnly``).
  init(claimsOnly: Bool) { self.claimsOnly = claimsOnly }

  /// Takes a row (id, report, input_id, path, kind, diagnostics), and starts decoding a batch when one is full.
  func add(_ sqlRow: any SQLRow) {
    let row: Row
    do {
      row = Row(
        id: try sqlRow.decode(column: "id", as: Int.self), input: try sqlRow.decode(column: "input_id", as: Int.self),
        observed: try sqlRow.decode(column: "observed_at", as: String.self),
        path: try sqlRow.decode(column: "path", as: String.self),
        kind: try sqlRow.decode(column: "kind", as: String.self),
        diagnostics: try sqlRow.decode(column: "diagnostics", as: String.self),
        report: try sqlRow.decode(column: "report", as: String.self))
    } catch {
      lock.withLock { failure = failure ?? error }
      return
    }
    let full: [Row]? = lock.withLock {
      pending.append(row)
      guard pending.count >= Self.batch else { return nil }
      defer { pending = [] }
      return pending
    }
    if let full { decode(full) }
  }

  /// Joins each app decoded from now on to `files` (``UniversalLinkInventory/rejoin(_:with:)``), and, at
  /// ``finish()``, those decoded before.
  func join(_ files: StoredFiles) { lock.withLock { self.files = files } }

  /// Every app once the last batch is decoded, each joined to the files if it was given them; the first problem
  /// met, if any.
  func finish() async throws -> [App] {
    let last: [Row] = lock.withLock {
      let rows = pending
      pending = []
      return rows
    }
    decode(last)
    await withCheckedContinuation { done in group.notify(queue: .global()) { done.resume() } }
    let (apps, files) = try lock.withLock {
      if let failure { throw failure }
      return (self.apps, self.files)
    }
    return files.map { Self.joining(apps, to: $0) } ?? apps
  }

  /// `apps` joined to `files` (``UniversalLinkInventory/rejoin(_:with:)``) on every core, but for those joined
  /// already.
  static func joining(_ apps: [App], to files: StoredFiles) -> [App] {
    guard apps.contains(where: { !$0.joined }) else { return apps }
    return parallelMap(apps.count, workers: ProcessInfo.processInfo.activeProcessorCount, minimumChunk: 32) {
      var app = apps[$0]
      if !app.joined {
        files.join(&app.bundle, observed: app.observed)
        app.joined = true
      }
      return app
    }
  }

  private func decode(_ rows: [Row]) {
    guard !rows.isEmpty else { return }
    DispatchQueue.global().async(group: group) { [self] in
      let decoder = JSONDecoder()
      decoder.userInfo[BundleReport.claimsOnly] = claimsOnly
      var done: [App] = []
      done.reserveCapacity(rows.count)
      do {
        for row in rows {
          let bundle = try decoder.decode(BundleReport.self, from: Data(row.report.utf8))
          done.append(
            App(
              id: row.id, input: row.input, observed: row.observed, path: row.path, kind: row.kind,
              diagnostics: row.diagnostics,
              bundle: bundle, joined: false))
        }
        if let files = lock.withLock({ self.files }) {
          for k in done.indices {
            files.join(&done[k].bundle, observed: done[k].observed)
            done[k].joined = true
          }
        }
        lock.withLock { apps += done }
      } catch {
        lock.withLock { failure = failure ?? error }
      }
    }
  }
}

/// Hosts' files as the store last retrieved them (at a time), with when each was retrieved.
struct StoredFiles: Sendable {
  /// Each host's file, parsed.
  var parsed: [AASARequest: ParsedAASA]
  /// When each was retrieved, as the store writes times.
  var retrievedAt: [AASARequest: String]

  /// `bundle`'s domains joined to these files (``UniversalLinkInventory/rejoin(_:with:)``). An app read back from an
  /// imported inventory has the results it was saved with, and keeps them for a host the store retrieved only before
  /// the app was observed: an older retrieval is not what the inventory saw.
  func join(_ bundle: inout BundleReport, observed: String) {
    let saved = bundle.associatedDomains.compactMap { $0.aasa == nil ? nil : $0.request }
    guard !saved.isEmpty else { return UniversalLinkInventory.rejoin(&bundle, with: parsed) }
    var files = parsed
    for request in saved where (retrievedAt[request] ?? "") <= observed { files[request] = nil }
    UniversalLinkInventory.rejoin(&bundle, with: files)
  }
}
