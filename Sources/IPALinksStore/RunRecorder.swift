import Crypto
import Foundation
import IPALinksKit
import NIOConcurrencyHelpers
import NIOCore
import SQLKit

/// Records one run into the store as it goes: the run first, then its inputs, each whole in a transaction (the
/// input, its apps with their domains and schemes, and the AASA retrievals they used, each retrieval once per run),
/// so a crash or Ctrl-C never leaves half an app; ``finish()`` marks the run finished.
public actor RunRecorder {
  /// The store written to.
  public let store: AuditStore
  /// The run's row.
  public let run: Int
  /// Retrievals this run records: each is claimed (``unrecorded(_:)``) before its input is prepared, so the inputs
  /// after the first that used it neither prepare nor write it again. Behind a lock of its own, so a command claims
  /// them without waiting for a transaction under way.
  private let recorded = NIOLockedValueBox<Set<AASARequest>>([])
  /// How many inputs, and retrievals outside inputs, this run has stored: after a lost connection, what tells
  /// whether the transaction under way was committed.
  public private(set) var storedInputs = 0
  /// The observation of each app this run's state holds so far (``Choice``).
  private var chosen: [String: Choice] = [:]
  private var storedRetrievals = 0

  /// Runs on its store's event loop, where the connection's answers arrive: below the command's threads when the
  /// store records in the background of an inspection (``StoreThreads``).
  public nonisolated var unownedExecutor: UnownedSerialExecutor {
    store.threads.loop.executor.asUnownedSerialExecutor()
  }

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
    let started = AuditStore.timestamp(time)
    // The last run before this one, so that an insert lost with its answer (the connection given up on as the
    // server committed it) is found, and this run not started twice.
    var last: Int?
    var id: Int?
    try await store.failing("cannot start a run") {
      try await store.resilient(
        committed: {
          guard let last else { return false }
          id =
            try await store.sql.raw(
              """
              SELECT MIN(id) AS id FROM runs WHERE id > \(bind: last) AND command = \(bind: command)
                AND started_at = \(bind: started) AND machine = \(bind: InputDigests.thisMachine)
                AND arguments = \(bind: argumentsJSON)
              """
            ).first(decodingColumn: "id", as: Int?.self) ?? nil
          return id != nil
        }
      ) {
        if last == nil, store.dialect == .postgres {
          last = try await store.sql.raw("SELECT COALESCE(MAX(id), 0) AS id FROM runs").first(
            decodingColumn: "id", as: Int.self)
        }
        id = try await store.sql.raw(
          """
          INSERT INTO runs (label, command, started_at, tool_version, machine, shard, arguments)
          VALUES (\(bind: label), \(bind: command), \(bind: started), \(bind: ToolVersion.current),
            \(bind: InputDigests.thisMachine), \(bind: shard), \(bind: argumentsJSON)) RETURNING id
          """
        ).first(decodingColumn: "id", as: Int.self)
      }
    }
    guard let id else { throw AuditStore.Failure(description: "\(store.location): cannot start a run") }
    return RunRecorder(store: store, run: id)
  }

  /// Why this run, started at `time`, will not read as the store's newest, or nil: the store orders its state by
  /// time, so a run whose clock is more than a minute before an earlier run's start never replaces what that run
  /// saw (and `refresh` would find the same change again each time), and two runs of one instant cannot be told
  /// apart by `--at`, `diff --since` or `history`. Both come of a clock or `SOURCE_DATE_EPOCH` set behind; said,
  /// not refused, as shards on machines whose clocks differ a little write one store too.
  public func clockNote(at time: Date) async -> String? {
    let started = AuditStore.timestamp(time)
    guard
      let rows = try? await store.sql.raw(
        """
        SELECT id, started_at FROM runs WHERE id < \(bind: run) AND command <> 'store import'
        ORDER BY started_at DESC, id DESC LIMIT 1
        """
      ).all(),
      let row = rows.first, let id = try? row.decode(column: "id", as: Int.self),
      let latest = try? row.decode(column: "started_at", as: String.self),
      let latestTime = AuditStore.date(latest)
    else { return nil }
    let shown = { (timestamp: String) in StoreText.time(timestamp) + " UTC" }
    if latest == started {
      return "warning: run \(id) started at the same instant (\(shown(started))): --at, diff --since and history "
        + "cannot tell the two apart; is SOURCE_DATE_EPOCH set to the same time for each run?"
    }
    guard latestTime.timeIntervalSince(time) > 60 else { return nil }
    return "warning: this run's clock (\(shown(started))) is before the start of run \(id) (\(shown(latest))): "
      + "the store orders its state by time, so what this run sees will not replace what that run saw; is the "
      + "clock or SOURCE_DATE_EPOCH behind?"
  }

  /// Records one input as it was inspected at `time`, with the `retrievals` its domains used (bodies included), in
  /// one transaction; nil for an inventory read back from a file, whose apps keep the files' results they were saved
  /// with.
  public func record(
    _ report: InspectionReport, retrievals: [AASARequest: AASARetrieval]?, at time: Date = AuditStore.now
  ) async throws(AuditStore.Failure) {
    try await record(Self.prepare(report, retrievals: retrievals.map { unrecorded($0) }, at: time))
  }

  /// Of `requests`, those this run has not recorded yet, which it now counts as recorded: their retrievals go with
  /// the input being prepared, and no later one.
  public nonisolated func unrecorded(_ requests: some Sequence<AASARequest>) -> [AASARequest] {
    recorded.withLockedValue { recorded in requests.filter { recorded.insert($0).inserted } }
  }

  /// Of `retrievals`, those this run has not recorded yet (``unrecorded(_:)``).
  nonisolated func unrecorded(_ retrievals: [AASARequest: AASARetrieval]) -> [AASARequest: AASARetrieval] {
    let fresh = Set(unrecorded(retrievals.keys))
    return retrievals.filter { fresh.contains($0.key) }
  }

  /// One input's rows, made ready away from the store's connection: the input's hash, the JSON, the files' digests.
  /// ``RecordingRun`` prepares inputs while the previous ones are written.
  public struct Prepared: Sendable {
    let input: String
    let size: Int?
    let sha256: String?
    let kind: String
    let status: String
    let observed: String
    let diagnostics: String
    /// The key of the input file this is (``StoreObservations/inputKey(path:size:sha256:kind:status:diagnostics:)``).
    let file: String
    /// The digest to remember the input file's by, when it was read now and is not changing
    /// (``InputDigests/facts(_:now:)``).
    let digest: (machine: String, stamp: InputDigests.Stamp)?
    let apps: [App]
    let retrievals: [Retrieval]

    struct App: Sendable {
      let key: String
      let bundle: BundleReport
      /// The report's canonical JSON (``CanonicalJSON/text(_:)``), and the key of the observation it is.
      let report: String
      let observation: String
      let domains: [[any Encodable & Sendable]]
      let schemes: [[any Encodable & Sendable]]
    }

    struct Retrieval: Sendable {
      let request: AASARequest
      let result: AASAFetchResult
      /// The answer's status as reports give it (``AASARetrieval/answer``): what the `status` column records.
      let status: AASAFetchResult.Status
      let sha256: String?
      let body: Data?
      let json: String
      let findings: String
      /// The key of the observation the result and findings are
      /// (``StoreObservations/retrievalKey(result:findings:file:)``).
      let observation: String
      /// When the site gave this answer, for a cached copy (``AASAFetchResult/cachedAt``, never after the input's
      /// time); nil for an answer retrieved for this input, which is recorded at the input's time.
      let retrievedAt: String?
    }
  }

  /// ``Prepared`` rows for `report`, with the `retrievals` of its domains this run has not recorded yet; nil for an
  /// inventory read back from a file, whose apps keep the files' results they were saved with. The input file is
  /// hashed unless `digests` know it as it is.
  public static func prepare(
    _ report: InspectionReport, retrievals: [AASARequest: AASARetrieval]?, at time: Date,
    digests: InputDigests = InputDigests()
  ) -> Prepared {
    prepare(report, retrievals: retrievals, at: time, digests: digests, file: digests.facts(report.input))
  }

  /// ``prepare(_:retrievals:at:digests:)`` of an input whose `file` facts were found already (on
  /// ``StoreThreads/hashing``, for a large one).
  static func prepare(
    _ report: InspectionReport, retrievals: [AASARequest: AASARetrieval]?, at time: Date, digests: InputDigests,
    file: InputDigests.Facts?
  ) -> Prepared {
    let apps = report.bundles.map { original in
      var bundle = original
      // The files come back from the retrievals, this input's or those recorded with an input before it.
      if retrievals != nil {
        for d in bundle.associatedDomains.indices { bundle.associatedDomains[d].aasa = nil }
      }
      let domains: [[any Encodable & Sendable]] = bundle.associatedDomains.enumerated().map { position, domain in
        [
          position, domain.raw, domain.service.name, domain.host, domain.wildcard ? 1 : 0,
          domain.modes.joined(separator: "+"), domain.active ? 1 : 0,
        ]
      }
      let schemes: [[any Encodable & Sendable]] =
        bundle.urlSchemes.map { [$0, 0] } + bundle.queriedURLSchemes.map { [$0, 1] }
      let report = CanonicalJSON.text(bundle)
      return Prepared.App(
        key: bundle.appId ?? bundle.bundleId ?? bundle.path, bundle: bundle, report: report,
        observation: StoreObservations.appKey(report: report), domains: domains, schemes: schemes)
    }
    let prepared = (retrievals ?? [:]).sorted {
      ($0.key.host, $0.key.developerMode ? 1 : 0) < ($1.key.host, $1.key.developerMode ? 1 : 0)
    }
    .map { request, retrieval in
      var result = retrieval.result
      let body = result.body
      result.body = nil
      let (json, findings) = (CanonicalJSON.text(result), CanonicalJSON.text(retrieval.findings))
      let sha256 = body.map { hex(SHA256.hash(data: $0)) }
      return Prepared.Retrieval(
        request: request, result: result, status: retrieval.answer.status, sha256: sha256, body: body.map { Data($0) },
        json: json,
        findings: findings, observation: StoreObservations.retrievalKey(result: json, findings: findings, file: sha256),
        // A copy cached last week is last week's answer: recorded as now, it stood for the site's file over a newer
        // answer another machine had recorded (the latest state keeps the latest by time), and rolled lists back.
        retrievedAt: result.source == .cache ? result.cachedAt.map { AuditStore.timestamp(min($0, time)) } : nil)
    }
    let diagnostics = CanonicalJSON.text(report.diagnostics)
    return Prepared(
      input: report.input, size: file?.size, sha256: file?.sha256, kind: report.inputKind.rawValue,
      status: report.status.rawValue, observed: AuditStore.timestamp(time), diagnostics: diagnostics,
      file: StoreObservations.inputKey(
        path: report.input, size: file?.size, sha256: file?.sha256, kind: report.inputKind.rawValue,
        status: report.status.rawValue, diagnostics: diagnostics),
      digest: file.flatMap { facts in facts.known ? nil : facts.stamp.map { (digests.machine, $0) } },
      apps: apps, retrievals: prepared)
  }

  /// Writes a prepared input in one transaction: a statement per row kind, several rows each.
  public func record(_ input: Prepared) async throws(AuditStore.Failure) { try await record([input]) }

  /// Writes prepared inputs, oldest first, in one transaction: each of them whole, or none. A statement per row
  /// kind serves them all, so many inputs cost about what one does. Each input's retrievals are written as given:
  /// claimed with ``unrecorded(_:)`` before it was prepared.
  public func record(_ inputs: [Prepared]) async throws(AuditStore.Failure) {
    guard let first = inputs.first else { return }
    let (store, run) = (store, run)
    let new = inputs.flatMap { input in input.retrievals.map { ($0, $0.retrievedAt ?? input.observed) } }
    let queued = inputs.count == 2 ? "the input" : "the \(inputs.count - 1) inputs"
    let what = first.input + (inputs.count > 1 ? " and \(queued) queued with it" : "")
    let before = storedInputs
    // The choices these inputs change, kept once their transaction is committed.
    var changed: [String: Choice] = [:]
    try store.checkFile()
    // Held apart while the transaction reads it, and let go before the change below, which then copies nothing.
    do {
      let held = chosen
      try await store.failing("cannot record \(what)") {
        try await store.resilient(committed: { try await Self.count("inputs", of: run, in: store) > before }) {
          changed = try await store.transaction {
            try await store.sharePruneLock()
            if !new.isEmpty { try await Self.insert(new, run: run, in: store) }
            let ids = try await Self.insert(inputs, run: run, in: store)
            let apps = zip(ids, inputs).flatMap { id, input in
              input.apps.map {
                (input: id, observed: input.observed, app: $0, rank: Self.rank(input.kind), path: input.input)
              }
            }
            return apps.isEmpty ? [:] : try await Self.insert(apps, run: run, chosen: held, in: store)
          }
        }
      }
    }
    chosen.merge(changed) { $1 }
    storedInputs += inputs.count
  }

  /// How much of an app an input shows, to choose between two observations of one app in one run: a whole bundle
  /// (an IPA, an app folder) shows its schemes and every entitlement source; a bare Mach-O its signature's
  /// entitlements; an entitlements plist or a profile, those alone.
  static func rank(_ kind: String) -> Int {
    switch kind {
    case InspectionReport.InputKind.ipa.rawValue, InspectionReport.InputKind.appFolder.rawValue: 3
    case InspectionReport.InputKind.executable.rawValue: 2
    case InspectionReport.InputKind.entitlementsPlist.rawValue, InspectionReport.InputKind.provisioningProfile.rawValue:
      1
    default: 0
    }
  }

  /// ``rank(_:)`` in SQL, of the input kind in `column`.
  static func rankSQL(_ column: String) -> String {
    let kinds: [InspectionReport.InputKind] = [.ipa, .appFolder, .executable, .entitlementsPlist, .provisioningProfile]
    return "(CASE \(column) " + kinds.map { "WHEN '\($0.rawValue)' THEN \(rank($0.rawValue)) " }.joined()
      + "ELSE 0 END)"
  }

  /// The observation of an app this run's state holds: the richest input that showed it, then the first by path,
  /// so that the choice does not depend on the order inputs finish in.
  struct Choice: Sendable {
    let rank: Int
    let input: String
    let id: Int

    /// Whether an observation from an input of `rank` at `input` is the better one.
    func isBeaten(byRank rank: Int, input: String) -> Bool {
      rank > self.rank || (rank == self.rank && input < self.input)
    }
  }

  /// How many rows of `table` belong to `run`.
  private static func count(_ table: String, of run: Int, in store: AuditStore) async throws -> Int {
    try await store.sql.raw("SELECT COUNT(*) AS n FROM \(ident: table) WHERE run_id = \(bind: run)")
      .first(decodingColumn: "n", as: Int.self) ?? 0
  }

  /// Writes the retrievals of a prepared input, without the input, in one transaction: what a refresh records.
  func recordRetrievals(_ input: Prepared) async throws(AuditStore.Failure) {
    let (store, run) = (store, run)
    guard !input.retrievals.isEmpty else { return }
    // One line whatever the batch's size: the first host names it.
    let first = input.retrievals.map(\.request.host).min() ?? ""
    let hosts =
      input.retrievals.count > 1
      ? "\(first) and \(TerminalText.count(input.retrievals.count - 1, "other host"))" : first
    let before = storedRetrievals
    try store.checkFile()
    try await store.failing("cannot record the retrieval of \(hosts)") {
      try await store.resilient(committed: { try await Self.count("retrievals", of: run, in: store) > before }) {
        try await store.transaction {
          try await store.sharePruneLock()
          try await Self.insert(input.retrievals.map { ($0, $0.retrievedAt ?? input.observed) }, run: run, in: store)
        }
      }
    }
    storedRetrievals += input.retrievals.count
  }

  /// Removes the run when it holds nothing (no input, no retrieval); whether it did.
  func discard() async throws -> Bool {
    let (store, run) = (store, run)
    let held = try await store.sql.raw(
      """
      SELECT (SELECT COUNT(*) FROM inputs WHERE run_id = \(bind: run))
        + (SELECT COUNT(*) FROM retrievals WHERE run_id = \(bind: run)) AS n
      """
    ).first(decodingColumn: "n", as: Int.self)
    guard held == 0 else { return false }
    try await store.sql.raw("DELETE FROM runs WHERE id = \(bind: run)").run()
    return true
  }

  /// Marks the run finished; a run without it did not finish (a crash, Ctrl-C, a machine lost).
  public func finish(at time: Date = AuditStore.now) async throws(AuditStore.Failure) {
    let (store, run) = (store, run)
    try store.checkFile()
    try await store.failing("cannot finish the run") {
      try await store.resilient(committed: { false }) {
        try await store.sql.raw(
          "UPDATE runs SET finished_at = \(bind: AuditStore.timestamp(time)) WHERE id = \(bind: run)"
        ).run()
      }
    }
  }

  /// The inputs' rows, in one statement, each pointing to its file as it was (stored once); their IDs, in the same
  /// order. An input's file tells its row apart.
  private static func insert(_ inputs: [Prepared], run: Int, in store: AuditStore) async throws -> [Int] {
    // The digests of the files read now, one row per file (the last read), in the order of the key, as every
    // writer takes the rows' locks (two writers that update the same rows in two orders could deadlock).
    var digests: [String: [any Encodable & Sendable]] = [:]
    for input in inputs {
      guard let (machine, stamp) = input.digest, let sha256 = input.sha256 else { continue }
      digests[machine + "\u{0}" + input.input] = [
        machine, input.input, stamp.device, stamp.inode, stamp.size, stamp.modified, stamp.changed, sha256,
      ]
    }
    try await store.insert(
      into: "input_digests",
      columns: ["machine", "path", "device", "inode", "size", "modified_ns", "changed_ns", "file_sha256"],
      rows: digests.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }.map(\.value)
    ) {
      $0.onConflict(with: ["machine", "path"]) {
        $0.set(excludedValueOf: "device").set(excludedValueOf: "inode").set(excludedValueOf: "size")
          .set(excludedValueOf: "modified_ns").set(excludedValueOf: "changed_ns").set(excludedValueOf: "file_sha256")
      }
    }
    let files = try await store.observations(
      in: "input_files", columns: AuditStore.inputFileColumns,
      rows: Dictionary(inputs.map { ($0.file, $0) }, uniquingKeysWith: { a, _ in a }).values.map {
        [$0.file, $0.input, $0.size, $0.sha256, $0.kind, $0.status, $0.diagnostics]
      }, inserted: { _ in })
    return try await store.insertReturningIDs(
      into: "inputs", columns: ["run_id", "file", "observed_at"],
      rows: inputs.map { [run, files[$0.file] ?? 0, $0.observed] }, keys: inputs.map { "\(files[$0.file] ?? 0)" },
      keyColumns: ["file"]
    ) { "\(try $0.decode(column: "file", as: Int.self))" }
  }

  /// Apps, with their domains and schemes, and the latest state moved on to them; an app this run saw already is
  /// one observation in its state, the better of the two (``Choice``), and the other is marked superseded. Returns
  /// the run's choices these apps changed: only theirs are read or made, whatever the number of apps before.
  private static func insert(
    _ apps: [(input: Int, observed: String, app: Prepared.App, rank: Int, path: String)], run: Int,
    chosen before: [String: Choice], in store: AuditStore
  ) async throws -> [String: Choice] {
    // Which of these apps the run's state holds: by index here, or an earlier batch's row, beaten or not.
    var winner: [String: (rank: Int, input: String, index: Int?)] = [:]
    for app in apps {
      if let held = before[app.app.key] { winner[app.app.key] = (held.rank, held.input, nil) }
    }
    var superseded = Array(repeating: false, count: apps.count)
    for (index, app) in apps.enumerated() {
      if let held = winner[app.app.key] {
        let beaten = Choice(rank: held.rank, input: held.input, id: 0).isBeaten(byRank: app.rank, input: app.path)
        if !beaten {
          superseded[index] = true
          continue
        }
        if let previous = held.index { superseded[previous] = true }
      }
      winner[app.app.key] = (app.rank, app.path, index)
    }
    // Each distinct observation once: those the store has are pointed to, the others inserted with their domains
    // and schemes.
    let distinct = Dictionary(apps.map { ($0.app.observation, $0.app) }, uniquingKeysWith: { a, _ in a })
    let observations = try await store.observations(
      in: "app_observations", columns: AuditStore.appObservationColumns,
      rows: distinct.values.map { app in
        let bundle = app.bundle
        return [
          app.observation, bundle.path, bundle.kind.rawValue, bundle.bundleId, bundle.appId, bundle.teamId,
          bundle.name, bundle.version, bundle.build, bundle.distribution, app.report,
          bundle.appId.flatMap(BundleReport.bundleID(ofAppID:)),
        ]
      }
    ) { new in
      let added = new.sorted { $0.key < $1.key }.compactMap { key, id in distinct[key].map { (id, $0) } }
      try await store.insert(
        into: "app_domains",
        columns: ["observation", "position", "raw", "service", "host", "wildcard", "modes", "active"],
        rows: added.flatMap { id, app in app.domains.map { [id] + $0 } })
      try await store.insert(
        into: "app_schemes", columns: ["observation", "scheme", "queried"],
        rows: added.flatMap { id, app in app.schemes.map { [id] + $0 } })
      try await store.insert(
        into: "unread_entitlements", columns: ["observation"],
        rows: added.compactMap { id, app in app.bundle.entitlementsUnread ? [id] : nil })
    }
    let rows: [[any Encodable & Sendable]] = zip(apps, superseded).map { entry, superseded in
      [
        entry.input, run, entry.app.key, superseded ? 1 : 0, observations[entry.app.observation] ?? 0,
      ]
    }
    // When it was seen is its input's time.
    let columns = ["input_id", "run_id", "app_key", "superseded", "observation"]
    // An input's bundles are distinct observations (their paths differ), which is how the rows' IDs are told apart.
    let ids = try await store.insertReturningIDs(
      into: "apps", columns: columns, rows: rows,
      keys: apps.map { "\($0.input)/\(observations[$0.app.observation] ?? 0)" },
      keyColumns: ["input_id", "observation"]
    ) {
      "\(try $0.decode(column: "input_id", as: Int.self))/\(try $0.decode(column: "observation", as: Int.self))"
    }
    // Earlier batches' rows that these beat leave the run's state.
    let beaten = winner.compactMap { key, held in held.index != nil ? before[key]?.id : nil }
    if !beaten.isEmpty {
      try await store.sql.raw("UPDATE apps SET superseded = 1 WHERE id IN (\(binds: beaten))").run()
    }
    // The latest state moves on unless a later observation is already there (an import of an older inventory);
    // within the batch, the last observation of an app is the one that can, of those the run's state holds.
    var latest: [String: (id: Int, observed: String)] = [:]
    for (index, app) in apps.enumerated() where !superseded[index] {
      if let kept = latest[app.app.key], (kept.observed, kept.id) > (app.observed, ids[index]) { continue }
      latest[app.app.key] = (ids[index], app.observed)
    }
    try await store.insert(
      into: "latest_apps", columns: ["app_key", "app", "observed_at"],
      rows: latest.sorted { $0.key < $1.key }.map { [$0.key, $0.value.id, $0.value.observed] }
    ) {
      $0.onConflict(with: ["app_key"]) {
        $0.set(excludedValueOf: "app").set(excludedValueOf: "observed_at")
          .where(
            SQLRaw(
              "excluded.observed_at > latest_apps.observed_at OR (excluded.observed_at = latest_apps.observed_at "
                + "AND excluded.app > latest_apps.app)"))
      }
    }
    var changed: [String: Choice] = [:]
    for (key, held) in winner {
      if let index = held.index { changed[key] = Choice(rank: held.rank, input: held.input, id: ids[index]) }
    }
    return changed
  }

  /// Retrievals; each file's bytes once per distinct content, keyed by their SHA-256.
  private static func insert(
    _ retrievals: [(retrieval: Prepared.Retrieval, observed: String)], run: Int, in store: AuditStore
  ) async throws {
    var files: [String: (body: Data, observed: String)] = [:]
    for (r, observed) in retrievals {
      if let sha256 = r.sha256, let body = r.body, files[sha256] == nil { files[sha256] = (body, observed) }
    }
    try await store.insert(
      into: "aasa_files", columns: ["sha256", "size", "body", "first_seen"],
      rows: files.sorted { $0.key < $1.key }.map { [$0.key, $0.value.body.count, $0.value.body, $0.value.observed] }
    ) { $0.ignoringConflicts(with: "sha256") }
    let observations = try await store.observations(
      in: "retrieval_observations", columns: AuditStore.retrievalObservationColumns,
      rows: Dictionary(retrievals.map { ($0.retrieval.observation, $0.retrieval) }, uniquingKeysWith: { a, _ in a })
        .values.map { r in
          [
            r.observation, r.result.source.rawValue, r.result.httpStatus, r.result.url, r.result.message, r.sha256,
            r.json, r.findings,
          ]
        }, inserted: { _ in })
    let rows = try await store.insert(
      into: "retrievals",
      columns: ["run_id", "host", "developer_mode", "retrieved_at", "status", "settles", "observation"],
      rows: retrievals.map { r, observed in
        [
          run, r.request.host, r.request.developerMode ? 1 : 0, observed, r.status.rawValue,
          r.status.settles ? 1 : 0, observations[r.observation] ?? 0,
        ]
      },
      returning: ["id", "host", "developer_mode"])
    // Each host's latest retrieval, and its latest one that settles what the file is, which the latest state reads.
    let definite = Set(retrievals.filter { $0.retrieval.status.settles }.map(\.retrieval.request))
    let observed = Dictionary(retrievals.map { ($0.retrieval.request, $0.observed) }, uniquingKeysWith: { a, _ in a })
    var latest: [(request: AASARequest, definite: Int, row: [any Encodable & Sendable])] = []
    for row in rows {
      let request = AASARequest(
        host: try row.decode(column: "host", as: String.self),
        developerMode: try row.decode(column: "developer_mode", as: Int.self) != 0)
      let id = try row.decode(column: "id", as: Int.self)
      for kind in definite.contains(request) ? [0, 1] : [0] {
        latest.append(
          (request, kind, [request.host, request.developerMode ? 1 : 0, kind, id, observed[request] ?? ""]))
      }
    }
    try await store.insert(
      into: "latest_retrievals", columns: ["host", "developer_mode", "definite", "retrieval", "retrieved_at"],
      // In the order of the key, as every writer takes the rows' locks: two writers that move the same hosts on at
      // once would otherwise each hold a row the other waits for (PostgreSQL saw it deadlock).
      rows: latest.sorted {
        ($0.request.host, $0.request.developerMode ? 1 : 0, $0.definite)
          < ($1.request.host, $1.request.developerMode ? 1 : 0, $1.definite)
      }.map(\.row)
    ) {
      $0.onConflict(with: ["host", "developer_mode", "definite"]) {
        $0.set(excludedValueOf: "retrieval").set(excludedValueOf: "retrieved_at")
          .where(
            SQLRaw(
              "excluded.retrieved_at > latest_retrievals.retrieved_at OR (excluded.retrieved_at = "
                + "latest_retrievals.retrieved_at AND excluded.retrieval > latest_retrievals.retrieval)"))
      }
    }
  }
}

/// `value` as compact JSON for a column: keys unsorted, nothing escaped for a terminal (the text is escaped when it
/// is printed), so recording costs as little as it can.
func json<T: Encodable>(_ value: T) -> String {
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.withoutEscapingSlashes]
  return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
}

/// Bytes as lower-case hex: a digest as the store keeps it.
func hex<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
  // One buffer, no array per byte: every key a run writes is made here.
  var out: [UInt8] = []
  out.reserveCapacity(max(bytes.underestimatedCount, 32) * 2)
  for byte in bytes {
    out.append(CanonicalJSON.hexDigit(byte >> 4))
    out.append(CanonicalJSON.hexDigit(byte & 0xF))
  }
  return String(decoding: out, as: UTF8.self)
}

extension AuditStore {
  /// How many values one statement binds at most: under SQLite's limit (32,766) and PostgreSQL's (65,535).
  static let bindLimit = 30_000

  /// `values` in pieces of at most ``bindLimit``, one statement's binds each.
  static func bindable<T>(_ values: [T]) -> [[T]] {
    stride(from: 0, to: values.count, by: bindLimit).map { Array(values[$0..<min(values.count, $0 + bindLimit)]) }
  }
  /// The most rows a statement whose text is kept has (a full transaction's domains: 128 inputs, about four each), and
  /// the most texts kept: a few megabytes at most.
  static let (keptShapeRows, keptShapes) = (512, 256)

  /// Inserts `rows` into `table`'s `columns`, in as many statements as ``bindLimit`` needs, each shaped by
  /// `modify` (a conflict clause); returns the `returning` columns of every row inserted.
  ///
  /// The text of each statement is made once per shape and kept (``statementTexts``): only the values change from
  /// one batch to the next, and making the text again costs more than the database's work on small rows. A table's
  /// statements are shaped one way here (`modify` is the same for every insert into it), so the shape is its table,
  /// columns, number of rows and `returning` columns.
  ///
  /// PostgreSQL takes rows whose columns each hold integers, strings or bytes, and nulls, as arrays
  /// (`SELECT … FROM unnest($1, $2, …)`, ``columnArrays(_:width:)``): one statement of one shape for any number of
  /// rows, which the server parses and plans in a time that no longer grows with them, and the arrays are sent
  /// without a value-by-value encoding.
  @discardableResult
  func insert(
    into table: String, columns: [String], rows: [[any Encodable & Sendable]], returning: [String] = [],
    _ modify: (SQLInsertBuilder) -> Void = { _ in }
  ) async throws -> [any SQLRow] {
    /// The statement's text for `rows` rows (a count, or `unnest`), with the values `values` adds.
    func text(_ rows: String, keeping: Bool = true, _ values: (SQLInsertBuilder) -> SQLInsertBuilder) -> String {
      keptText(
        shape: [table, columns.joined(separator: ","), rows, returning.joined(separator: ",")], keeping: keeping
      ) {
        let builder = values(sql.insert(into: table).columns(columns))
        modify(builder)
        if !returning.isEmpty { builder.insert.returning = SQLReturning(returning.map { SQLColumn($0) }) }
        return sql.serialize(builder.insert).sql
      }
    }
    func run(_ text: String, _ binds: [any Encodable & Sendable]) async throws -> [any SQLRow] {
      let statement = KeptStatement(text: text, binds: binds, database: sql)
      if !returning.isEmpty { return try await statement.all() }
      try await statement.run()
      return []
    }
    if dialect == .postgres, !rows.isEmpty, let (arrays, kinds) = Self.columnArrays(rows, width: columns.count) {
      // unnest($1, …) AS u(c0, m0, c1, …): a column's values, then the mask of its nulls when it has some.
      var names: [String] = []
      var select: [any SQLExpression] = []
      for (index, kind) in kinds.enumerated() {
        switch kind {
        case .values:
          names.append("c\(index)")
          select.append(SQLRaw("u.c\(index)"))
        case .nullable:
          names += ["c\(index)", "m\(index)"]
          select.append(SQLRaw("CASE WHEN u.m\(index) THEN NULL ELSE u.c\(index) END"))
        case .null:
          select.append(SQLRaw("NULL"))
        }
      }
      let unnest = SQLAlias(
        SQLFunction("unnest", args: names.map { _ in SQLBind(0) }), as: SQLRaw("u(\(names.joined(separator: ", ")))"))
      let statement = text("unnest " + kinds.map(\.rawValue).joined()) { $0.select { $0.columns(select).from(unnest) } }
      return try await run(statement, arrays)
    }
    var returned: [any SQLRow] = []
    let size = max(1, Self.bindLimit / max(1, columns.count))
    for start in stride(from: 0, to: rows.count, by: size) {
      let chunk = rows[start..<min(rows.count, start + size)]
      // Kept only for the small shapes a run repeats: an app with thousands of domains must not make the kept
      // texts grow without bound.
      let statement = text(String(chunk.count), keeping: chunk.count <= Self.keptShapeRows) {
        $0.rows(Array(repeating: Array(repeating: SQLBind(0), count: columns.count), count: chunk.count))
      }
      returned += try await run(statement, chunk.flatMap { $0 })
    }
    return returned
  }

  /// Inserts `rows` and returns their IDs, in the same order. A row is told apart by its key: `keys` gives each
  /// row's, and `key` makes it from a returned row's `keyColumns`. Rows whose keys repeat (an inventory that names a
  /// bundle's path twice, a batch that names a file twice) are inserted one by one instead.
  func insertReturningIDs(
    into table: String, columns: [String], rows: [[any Encodable & Sendable]], keys: [String], keyColumns: [String],
    key: (any SQLRow) throws -> String
  ) async throws -> [Int] {
    guard Set(keys).count == keys.count else {
      var ids: [Int] = []
      for row in rows {
        let returned = try await insert(into: table, columns: columns, rows: [row], returning: ["id"])
        ids.append(try returned.first?.decode(column: "id", as: Int.self) ?? 0)
      }
      return ids
    }
    var byKey: [String: Int] = [:]
    for row in try await insert(into: table, columns: columns, rows: rows, returning: ["id"] + keyColumns) {
      byKey[try key(row)] = try row.decode(column: "id", as: Int.self)
    }
    return keys.map { byKey[$0] ?? 0 }
  }

  /// The text of a statement of `shape`, made by `make` the first time, and kept when `keeping`; only so many are
  /// kept (``keptShapes``), so inputs whose row counts all differ cannot make them grow without bound.
  private func keptText(shape: [String], keeping: Bool = true, make: () -> String) -> String {
    let key = shape.joined(separator: "\u{0}")
    if let text = statementTexts.withLockedValue({ $0[key] }) { return text }
    let text = make()
    if keeping {
      statementTexts.withLockedValue {
        if $0.count >= Self.keptShapes { $0.removeAll() }
        $0[key] = text
      }
    }
    return text
  }

  /// How a column of rows travels as an array (``columnArrays(_:width:)``).
  enum ArrayColumn: String {
    /// Its values, none of them null.
    case values = "v"
    /// Its values, a null's place taken by 0, an empty string or no bytes, then a mask of the nulls.
    case nullable = "n"
    /// Nothing: every row's value is null, written as `NULL`.
    case null = "0"
  }

  /// `rows` as arrays, a column's values and the mask of its nulls (``ArrayColumn``), when each column holds only
  /// integers, only strings or only bytes, besides nulls; nil otherwise.
  static func columnArrays(
    _ rows: [[any Encodable & Sendable]], width: Int
  ) -> (arrays: [any Encodable & Sendable], kinds: [ArrayColumn])? {
    enum Kind { case integer, string, bytes }
    var arrays: [any Encodable & Sendable] = []
    var kinds: [ArrayColumn] = []
    for column in 0..<width {
      var kind: Kind?
      var nulls = Array(repeating: false, count: rows.count)
      for (index, row) in rows.enumerated() {
        let value = row[column]
        let found: Kind
        if value is Int {
          found = .integer
        } else if value is String {
          found = .string
        } else if value is Data {
          found = .bytes
        } else if let optional = value as? any OptionalValue, optional.isNil {
          nulls[index] = true
          continue
        } else {
          return nil
        }
        guard kind == nil || kind == found else { return nil }
        kind = found
      }
      switch kind {
      case nil:
        kinds.append(.null)
        continue
      case .integer: arrays.append(rows.map { $0[column] as? Int ?? 0 })
      case .string: arrays.append(rows.map { $0[column] as? String ?? "" })
      case .bytes: arrays.append(rows.map { ($0[column] as? Data).map { ByteBuffer(bytes: $0) } ?? ByteBuffer() })
      }
      if nulls.contains(true) {
        arrays.append(nulls)
        kinds.append(.nullable)
      } else {
        kinds.append(.values)
      }
    }
    return arrays.isEmpty ? nil : (arrays, kinds)
  }

  /// Runs `body`, turning a driver's error into one naming the store, with any password masked.
  func failing<T>(_ what: String, _ body: () async throws -> T) async throws(Failure) -> T {
    do {
      return try await body()
    } catch let failure as Failure {
      throw failure
    } catch {
      var commitUnknown = false
      if case .gone(_, _, true) = error as? StoreFault { commitUnknown = true }
      throw Failure(
        description: "\(location): \(what): \(location.masking(Self.describe(error)))", commitUnknown: commitUnknown,
        lost: PostgresLink.isLost(error))
    }
  }
}

/// A statement whose text was made before, with this time's values: a query SQLKit runs as it is.
private final class KeptStatement: SQLQueryFetcher, SQLExpression {
  let text: String
  let binds: [any Encodable & Sendable]
  let database: any SQLDatabase
  var query: any SQLExpression { self }

  init(text: String, binds: [any Encodable & Sendable], database: any SQLDatabase) {
    (self.text, self.binds, self.database) = (text, binds, database)
  }

  func serialize(to serializer: inout SQLSerializer) {
    serializer.write(text)
    serializer.binds += binds
  }
}

/// An optional, whatever it wraps: how a row's value is told to be null.
private protocol OptionalValue {
  var isNil: Bool { get }
}

extension Optional: OptionalValue {
  fileprivate var isNil: Bool { self == nil }
}
