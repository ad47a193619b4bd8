import Crypto
import Foundation
import IPALinksKit
import SQLKit

/// Records one run into the store as it goes: the run first, then each input in a transaction of its own (the input,
/// its apps with their domains and schemes, and the AASA retrievals they used, each retrieval once per run), so a
/// crash or Ctrl-C never leaves half an app; ``finish()`` marks the run finished.
public actor RunRecorder {
  /// The store written to.
  public let store: AuditStore
  /// The run's row.
  public let run: Int
  /// Retrievals already recorded in this run.
  private var recorded: Set<AASARequest> = []

  private init(store: AuditStore, run: Int) {
    self.store = store
    self.run = run
  }

  /// Starts a run of `command` with its `arguments` (any secret in them already masked), under `label`, for `shard`.
  public static func begin(
    _ store: AuditStore, command: String, arguments: [String], label: String?, shard: String?,
    at time: Date = AuditStore.now
  ) async throws(AuditStore.Failure) -> RunRecorder {
    let argumentsJSON = String(decoding: (try? JSONEncoder().encode(arguments)) ?? Data("[]".utf8), as: UTF8.self)
    let id = try await store.failing("cannot start a run") {
      try await store.sql.raw(
        """
        INSERT INTO runs (label, command, started_at, tool_version, machine, shard, arguments)
        VALUES (\(bind: label), \(bind: command), \(bind: AuditStore.timestamp(time)), \(bind: ToolVersion.current),
          \(bind: ProcessInfo.processInfo.hostName), \(bind: shard), \(bind: argumentsJSON)) RETURNING id
        """
      ).first(decodingColumn: "id", as: Int.self)
    }
    guard let id else { throw AuditStore.Failure(description: "\(store.location): cannot start a run") }
    return RunRecorder(store: store, run: id)
  }

  /// Records one input as it was inspected at `time`, with the `retrievals` its domains used (bodies included), in
  /// one transaction. Inventories read back from files have no retrievals: their apps keep the files' results they
  /// were saved with.
  public func record(
    _ report: InspectionReport, retrievals: [AASARequest: AASAFetchResult], at time: Date = AuditStore.now
  )
    async throws(AuditStore.Failure)
  {
    let file = Self.fileFacts(report.input)
    let (store, run) = (store, run)
    let new = retrievals.filter { !recorded.contains($0.key) }
    try await store.failing("cannot record \(report.input)") {
      try await store.transaction {
        for (request, result) in new.sorted(by: { $0.key.host < $1.key.host }) {
          try await Self.insert(result, for: request, run: run, in: store, at: time)
        }
        let observed = AuditStore.timestamp(time)
        let diagnostics = JSONReporter.render(report.diagnostics, pretty: false)
        let input = try await store.sql.raw(
          """
          INSERT INTO inputs (run_id, path, size, sha256, kind, status, observed_at, diagnostics)
          VALUES (\(bind: run), \(bind: report.input), \(bind: file?.size), \(bind: file?.sha256),
            \(bind: report.inputKind.rawValue), \(bind: report.status.rawValue), \(bind: observed), \(bind: diagnostics))
          RETURNING id
          """
        ).first(decodingColumn: "id", as: Int.self)
        for var bundle in report.bundles {
          // The files come back from the retrievals; a report read from a saved inventory keeps its own.
          if !retrievals.isEmpty {
            for d in bundle.associatedDomains.indices { bundle.associatedDomains[d].aasa = nil }
          }
          try await Self.insert(bundle, input: input ?? 0, run: run, observed: observed, in: store)
        }
      }
    }
    recorded.formUnion(new.keys)
  }

  /// Marks the run finished; a run without it did not finish (a crash, Ctrl-C, a machine lost).
  public func finish(at time: Date = AuditStore.now) async throws(AuditStore.Failure) {
    let (store, run) = (store, run)
    try await store.failing("cannot finish the run") {
      try await store.sql.raw(
        "UPDATE runs SET finished_at = \(bind: AuditStore.timestamp(time)) WHERE id = \(bind: run)"
      ).run()
    }
  }

  private static func insert(
    _ bundle: BundleReport, input: Int, run: Int, observed: String, in store: AuditStore
  ) async throws {
    let key = bundle.appId ?? bundle.bundleId ?? bundle.path
    let app =
      try await store.sql.raw(
        """
        INSERT INTO apps (input_id, run_id, app_key, path, kind, bundle_id, app_id, team_id, name, version, build,
          distribution, observed_at, report)
        VALUES (\(bind: input), \(bind: run), \(bind: key), \(bind: bundle.path), \(bind: bundle.kind.rawValue),
          \(bind: bundle.bundleId), \(bind: bundle.appId), \(bind: bundle.teamId), \(bind: bundle.name),
          \(bind: bundle.version), \(bind: bundle.build), \(bind: bundle.distribution), \(bind: observed),
          \(bind: JSONReporter.render(bundle, pretty: false)))
        RETURNING id
        """
      ).first(decodingColumn: "id", as: Int.self) ?? 0
    for (position, domain) in bundle.associatedDomains.enumerated() {
      try await store.sql.raw(
        """
        INSERT INTO app_domains (app, position, raw, service, host, wildcard, modes, active)
        VALUES (\(bind: app), \(bind: position), \(bind: domain.raw), \(bind: domain.service.name),
          \(bind: domain.host), \(bind: domain.wildcard ? 1 : 0), \(bind: domain.modes.joined(separator: "+")),
          \(bind: domain.active ? 1 : 0))
        """
      ).run()
    }
    for (scheme, queried) in bundle.urlSchemes.map({ ($0, 0) }) + bundle.queriedURLSchemes.map({ ($0, 1) }) {
      try await store.sql.raw(
        "INSERT INTO app_schemes (app, scheme, queried) VALUES (\(bind: app), \(bind: scheme), \(bind: queried))"
      ).run()
    }
  }

  /// One retrieval; its file's bytes once per distinct content, keyed by their SHA-256.
  private static func insert(
    _ result: AASAFetchResult, for request: AASARequest, run: Int, in store: AuditStore, at time: Date
  ) async throws {
    var sha256: String? = nil
    if let body = result.body {
      let digest = SHA256.hash(data: body).map { String(format: "%02x", $0) }.joined()
      sha256 = digest
      try await store.sql.raw(
        """
        INSERT INTO aasa_files (sha256, size, body, first_seen)
        VALUES (\(bind: digest), \(bind: body.count), \(bind: Data(body)), \(bind: AuditStore.timestamp(time)))
        ON CONFLICT (sha256) DO NOTHING
        """
      ).run()
    }
    let findings = JSONReporter.render(ParsedAASA(result).findings, pretty: false)
    try await store.sql.raw(
      """
      INSERT INTO retrievals (run_id, host, developer_mode, retrieved_at, source, status, http_status, url, message,
        file_sha256, result, findings)
      VALUES (\(bind: run), \(bind: request.host), \(bind: request.developerMode ? 1 : 0),
        \(bind: AuditStore.timestamp(time)), \(bind: result.source.rawValue), \(bind: result.status.rawValue),
        \(bind: result.httpStatus), \(bind: result.url), \(bind: result.message), \(bind: sha256),
        \(bind: JSONReporter.render(result, pretty: false)), \(bind: findings))
      """
    ).run()
  }

  /// The size and SHA-256 of an input that is a regular file; nil for a folder, standard input or a missing file.
  static func fileFacts(_ path: String) -> (size: Int, sha256: String)? {
    var info = stat()
    guard path != "-", stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
      let handle = FileHandle(forReadingAtPath: path)
    else { return nil }
    defer { try? handle.close() }
    var hasher = SHA256()
    var size = 0
    while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty {
      hasher.update(data: chunk)
      size += chunk.count
    }
    return (size, hasher.finalize().map { String(format: "%02x", $0) }.joined())
  }
}

extension AuditStore {
  /// Runs `body`, turning a driver's error into one naming the store, with any password masked.
  func failing<T>(_ what: String, _ body: () async throws -> T) async throws(Failure) -> T {
    do {
      return try await body()
    } catch let failure as Failure {
      throw failure
    } catch {
      throw Failure(description: "\(location): \(what): \(location.masking(Self.describe(error)))")
    }
  }
}
