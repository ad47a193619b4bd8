import Foundation
import IPALinksKit
import SQLKit
import UniversalLinks

extension AuditStore {
  /// One run, as `store runs` lists it.
  public struct Run: Sendable, Codable, Equatable {
    /// Its row.
    public var id: Int
    /// `--run-label`, when one was given.
    public var label: String?
    /// The command that ran: `inspect`, `store import`.
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
  }

  /// Every run, oldest first.
  public func runs() async throws(Failure) -> [Run] {
    try await failing("cannot list the runs") {
      try await sql.raw(
        """
        SELECT r.id, r.label, r.command, r.started_at, r.finished_at, r.tool_version, r.machine, r.shard,
          (SELECT COUNT(*) FROM inputs i WHERE i.run_id = r.id) AS inputs,
          (SELECT COUNT(*) FROM apps a WHERE a.run_id = r.id) AS apps
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
          inputs: try row.decode(column: "inputs", as: Int.self), apps: try row.decode(column: "apps", as: Int.self))
      }
    }
  }

  /// The latest state, or the state at `time`: each app as it was last inspected, grouped by the input it came
  /// from, and each domain's AASA file as it was last retrieved. What `who-claims`, `report`, `blocklist` and
  /// `diff` read from a store. With `about`, only the apps with an entry on that host, on a domain above it (a
  /// wildcard's) or, for a wildcard, below it, and without their entitlements: all that `who-claims HOST` needs,
  /// read through the host index.
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
        keys = "AND EXISTS (SELECT 1 FROM app_domains d WHERE d.app = a.id AND (d.host IN (\(binds: above))\(under)))"
      }
      // The latest state as it was written, one row per app whatever the number of runs; at a time, the latest row
      // of each app then (none of the same app is newer; ties go to the later row), found in the (app_key,
      // observed_at) index before any report is read.
      let latest: SQLQueryString =
        time == nil
        ? "SELECT app FROM latest_apps"
        : """
        SELECT x.id FROM apps x WHERE x.observed_at <= \(bind: at) AND NOT EXISTS (
          SELECT 1 FROM apps y WHERE y.app_key = x.app_key AND y.observed_at <= \(bind: at)
            AND (y.observed_at > x.observed_at OR (y.observed_at = x.observed_at AND y.id > x.id)))
        """
      let rows = try await sql.raw(
        """
        SELECT a.report, a.input_id, i.path, i.kind, i.diagnostics FROM apps a JOIN inputs i ON i.id = a.input_id
        WHERE a.id IN (\(latest)) \(keys)
        ORDER BY i.path, a.input_id, a.id
        """
      ).all()
      // The files that decide on one host without a wildcard are known before the apps are (its own and its
      // domains' above), and so are every host's for the whole state: they are read and parsed while the apps are
      // decoded. A wildcard's are known from its apps.
      let exact = pattern.map { !$0.wildcard } ?? true
      async let early =
        files && exact ? latestRetrievals(at: time == nil ? nil : at, hosts: pattern.map { _ in Set(above) }) : nil
      var reports = try Self.reports(rows, claimsOnly: host != nil || !files)
      guard files else { return reports }
      let results: [AASARequest: ParsedAASA]
      if exact {
        results = try await early ?? [:]
      } else {
        // For a wildcard, only the files that decide on it: its own, and its domains' above or below.
        let hosts = Set(
          UniversalLinkInventory.requests(for: reports).map(\.host).filter { above.contains($0) || below($0) })
        results = try await latestRetrievals(at: time == nil ? nil : at, hosts: hosts)
      }
      Self.rejoin(&reports, with: results)
      return reports
    }
  }

  /// Whether the store holds an app observed at `time` or before (at all, when nil).
  func holdsApps(at time: Date?) async throws -> Bool {
    let at = AuditStore.timestamp(time ?? .distantFuture)
    return try await sql.raw("SELECT 1 FROM apps WHERE observed_at <= \(bind: at) LIMIT 1").first() != nil
  }

  /// The apps' rows (report, input_id, path, kind, diagnostics; ordered by input) as reports, one per input, each
  /// app's report decoded on every core: decoding is most of what reading the latest state costs. With
  /// `claimsOnly`, without the entitlements themselves (``BundleReport/claimsOnly``).
  static func reports(_ rows: [any SQLRow], claimsOnly: Bool) throws -> [InspectionReport] {
    let bundles = try concurrentMap(try rows.map { try $0.decode(column: "report", as: String.self) }) {
      let decoder = JSONDecoder()
      decoder.userInfo[BundleReport.claimsOnly] = claimsOnly
      return try decoder.decode(BundleReport.self, from: Data($0.utf8))
    }
    let decoder = JSONDecoder()
    var reports: [InspectionReport] = []
    var lastInput = -1
    for (row, bundle) in zip(rows, bundles) {
      let input = try row.decode(column: "input_id", as: Int.self)
      if input != lastInput {
        lastInput = input
        let kind = InspectionReport.InputKind(rawValue: try row.decode(column: "kind", as: String.self)) ?? .unknown
        let diagnostics = try decoder.decode(
          [Diagnostic].self, from: Data(try row.decode(column: "diagnostics", as: String.self).utf8))
        reports.append(
          InspectionReport(
            input: try row.decode(column: "path", as: String.self), inputKind: kind, diagnostics: diagnostics))
      }
      reports[reports.count - 1].bundles.append(bundle)
    }
    return reports
  }

  /// Each bundle of `reports` joined to `files` (``UniversalLinkInventory/rejoin(_:with:)``), on every core.
  static func rejoin(_ reports: inout [InspectionReport], with files: [AASARequest: ParsedAASA]) {
    let places = reports.indices.flatMap { r in reports[r].bundles.indices.map { (r, $0) } }
    let all = reports
    let joined = parallelMap(places.count, workers: ProcessInfo.processInfo.activeProcessorCount, minimumChunk: 32) {
      var bundle = all[places[$0].0].bundles[places[$0].1]
      UniversalLinkInventory.rejoin(&bundle, with: files)
      return bundle
    }
    for (k, place) in places.enumerated() { reports[place.0].bundles[place.1] = joined[k] }
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
  private func latestRetrievals(at: String?, hosts: Set<String>?) async throws -> [AASARequest: ParsedAASA] {
    var rows: [any SQLRow] = []
    let only: SQLQueryString = hosts.map { "AND r.host IN (\(binds: $0.sorted()))" } ?? ""
    if hosts?.isEmpty == true { return [:] }
    // The definite ones come second and so replace the others below.
    guard let at else {
      rows = try await sql.raw(
        """
        SELECT r.host, r.developer_mode, r.result, f.body FROM latest_retrievals l
        JOIN retrievals r ON r.id = l.retrieval LEFT JOIN aasa_files f ON f.sha256 = r.file_sha256
        WHERE 1 = 1 \(only) ORDER BY l.definite
        """
      ).all()
      return try parsed(rows)
    }
    for onlyDefinite in [false, true] {
      let filter: SQLQueryString =
        onlyDefinite
        ? "AND \(Self.settling("r")) \(only)" : only
      let sameFilter: SQLQueryString =
        onlyDefinite ? "AND \(Self.settling("s"))" : ""
      rows += try await sql.raw(
        """
        SELECT r.host, r.developer_mode, r.result, f.body FROM retrievals r
        LEFT JOIN aasa_files f ON f.sha256 = r.file_sha256
        WHERE r.retrieved_at <= \(bind: at) \(filter) AND NOT EXISTS (
          SELECT 1 FROM retrievals s WHERE s.host = r.host AND s.developer_mode = r.developer_mode
            AND s.retrieved_at <= \(bind: at) \(sameFilter)
            AND (s.retrieved_at > r.retrieved_at OR (s.retrieved_at = r.retrieved_at AND s.id > r.id)))
        """
      ).all()
    }
    return try parsed(rows)
  }

  /// Retrieval rows (host, mode, result, body) as parsed files, each parsed and validated once, on every core; a
  /// later row of a host replaces an earlier one.
  private func parsed(_ rows: [any SQLRow]) throws -> [AASARequest: ParsedAASA] {
    let read = try rows.map { row in
      (
        AASARequest(
          host: try row.decode(column: "host", as: String.self),
          developerMode: try row.decode(column: "developer_mode", as: Int.self) != 0),
        try row.decode(column: "result", as: String.self), try row.decode(column: "body", as: Data?.self)
      )
    }
    let parsed = try Self.concurrentMap(read) { request, json, body in
      var result = try JSONDecoder().decode(AASAFetchResult.self, from: Data(json.utf8))
      result.body = body.map { [UInt8]($0) }
      return (request, ParsedAASA(result))
    }
    return Dictionary(parsed, uniquingKeysWith: { $1 })
  }
}

extension AuditStore {
  /// The condition that the retrieval row `alias` settles what its host's file is (``settles(_:)``): by its
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
