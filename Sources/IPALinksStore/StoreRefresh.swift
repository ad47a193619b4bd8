import Crypto
import Foundation
import IPALinksKit
import NIOConcurrencyHelpers
import SQLKit
import UniversalLinks

/// `refresh`: every host the store's latest apps claim, retrieved again, and what each new answer changes.
///
/// Each retrieval is recorded (a file's bytes once per distinct content), so every reader of the store decides with
/// the host's current version afterwards. An answer that says nothing of the file (a timeout, DNS, TLS, offline) is
/// not a change: the last definite answer stays current and the host is reported stale, so an outage never unblocks
/// anything.
public struct Refresh: Sendable, Encodable {
  /// What a host's new answer is, against the one the store held.
  public enum Outcome: String, Sendable, Codable, CaseIterable {
    /// A new version of the file that behaves differently.
    case changed
    /// A definite answer without a file (a 404, an invalid file) where there was one: nothing opens the apps.
    case removed
    /// New bytes that behave the same for every app: the same behaviour, retrieved again.
    case rewritten
    /// The same answer as before.
    case unchanged
    /// The first definite answer the store has for the host: nothing to compare with.
    case first
    /// No answer that settles what the file is (a timeout, DNS, TLS, offline; or a redirect, a body over the limit,
    /// a private address or a body that is no AASA file, which a captive portal, a rebinding DNS or an error page
    /// gives as readily as the site): the last one that did stays current.
    case stale
    /// An answer the store could not record, as it was lost midway (the refresh exits 2): the store keeps what it
    /// held for the host.
    case notRecorded = "not-recorded"
  }

  /// One behavioural change the new answer makes, for every app it is the same for: the change's own fields
  /// (``AASAComparison/SharedChange``) beside `affects`.
  @dynamicMemberLookup
  public struct Change: Sendable, Encodable, Equatable {
    /// The change, with the apps (as the file lists them) it is for.
    public var change: AASAComparison.SharedChange
    /// The apps in the store it affects: those of its `appIds` that claim the host.
    public var affects: [String]

    /// The change's fields (`kind`, `appIds`, `example`…), read through.
    public subscript<T>(dynamicMember field: KeyPath<AASAComparison.SharedChange, T>) -> T { change[keyPath: field] }

    private enum CodingKeys: String, CodingKey { case affects }

    /// One flat object: `affects` beside the change's fields.
    public func encode(to encoder: any Encoder) throws {
      try change.encode(to: encoder)
      var c = encoder.container(keyedBy: CodingKeys.self)
      try c.encode(affects, forKey: .affects)
    }
  }

  /// One host's refresh.
  public struct Host: Sendable, Encodable {
    /// The host whose file was retrieved.
    public var host: String
    /// Whether it was retrieved as a developer-mode domain (direct, from `/.well-known/` only).
    public var developerMode: Bool
    /// What the answer is, against the one the store held.
    public var outcome: Outcome
    /// This retrieval's status.
    public var status: AASAFetchResult.Status
    /// Where it came from.
    public var source: AASAFetchResult.Source
    /// Why there is no file, for an answer without one.
    public var message: String?
    /// The file's SHA-256, for an answer with one.
    public var sha256: String?
    /// The status the store held before.
    public var previousStatus: AASAFetchResult.Status?
    /// The file the store held before.
    public var previousSha256: String?
    /// When the store's last definite answer was retrieved: what a stale host keeps.
    public var lastGood: String?
    /// Its age in seconds at this refresh.
    public var lastGoodAge: Int?
    /// The apps in the store that claim the host (app IDs, else bundle IDs).
    public var apps: [String]
    /// The behavioural changes, for `changed` and `removed`.
    public var changes: [Change]
    /// The comparison and both files, for the text.
    var comparison: AASAComparison?
    var files: (old: AASAFile, new: AASAFile)?

    private enum CodingKeys: String, CodingKey {
      case host, developerMode, outcome, status, source, message, sha256, previousStatus, previousSha256, lastGood,
        lastGoodAge, apps, changes
    }

    /// Whether it is a change: `changed` or `removed`.
    public var isChange: Bool { outcome == .changed || outcome == .removed }
  }

  /// The run the retrievals were recorded in.
  public var run: Int
  /// When the refresh started.
  public var startedAt: String
  /// How many apps of the latest state claim the hosts (a bundle that claims none, such as a share extension, is
  /// not counted).
  public var appCount: Int
  /// How many hosts the store watches without an app that claims them (`refresh --host`).
  public var watched = 0
  /// Why the store stopped recording the answers, when it did: those after it are `not-recorded`.
  public var problem: String?
  /// How many of those were in a transaction lost as it committed, which the store may hold after all.
  public var uncertain = 0
  /// Why this run will not read as the store's newest (``RunRecorder/clockNote(at:)``), when it will not.
  public var clockNote: String?
  /// Every host, in the order the store's apps claim them.
  public var hosts: [Host]

  /// How many hosts had each outcome.
  public func count(_ outcome: Outcome) -> Int { hosts.filter { $0.outcome == outcome }.count }
  /// How many hosts changed (`changed` or `removed`).
  public var changes: Int { hosts.filter(\.isChange).count }
}

extension AuditStore {
  /// Retrieves again, with `fetcher`, the file of every host the latest apps claim (each host once), records each
  /// retrieval in a run of its own labelled `label`, and compares each answer with the one the store held.
  /// The retrievals are recorded as they arrive, a batch per transaction, so a refresh killed midway leaves the
  /// hosts of every finished batch recorded and the others as they were. `willFetch` hears how many hosts there
  /// are, `fetching` of each host as its fetch begins, and `progress` of each host as it is done.
  ///
  /// `watching` adds hosts to watch without an app (`refresh --host`), kept in the store: from then on every refresh
  /// retrieves them too, and the readers take every app their files list to claim them.
  public func refresh(
    with fetcher: AASAFetcher, label: String?, arguments: [String], watching: [String] = [],
    willFetch: ((Int) -> Void)? = nil, fetching: (@Sendable (String) -> Void)? = nil,
    progress: (@Sendable (Refresh.Host) -> Void)? = nil
  ) async throws(Failure) -> Refresh {
    let started = AuditStore.now
    let reports = try await rereading { () async throws(Failure) in try await latestReports(files: false) }
    // The apps that claim each request, by app ID (as AASA files name apps) and by the key the store knows them by.
    var claimants: [AASARequest: [(appId: String?, key: String)]] = [:]
    var requests: [AASARequest] = []
    for bundle in reports.flatMap(\.bundles) {
      let key = bundle.appId ?? bundle.bundleId ?? bundle.path
      for request in Set(bundle.associatedDomains.compactMap(\.request)) {
        if claimants[request] == nil { requests.append(request) }
        claimants[request, default: []].append((bundle.appId, key))
      }
    }
    let previous = try await definiteRetrievals()
    let recorder = try await RunRecorder.begin(
      self, command: "refresh", arguments: arguments, label: label, shard: nil, at: started)
    // Hosts watched without an app: each app its file lists is taken to claim it (as with `blocklist --host`).
    let watched = try await watch(watching, run: recorder.run, at: started)
    var assumed: Set<AASARequest> = []
    for host in watched {
      let request = AASARequest(host: host, developerMode: false)
      if claimants[request] == nil {
        requests.append(request)
        assumed.insert(request)
      }
    }
    requests.sort { ($0.host, $0.developerMode ? 1 : 0) < ($1.host, $1.developerMode ? 1 : 0) }
    var refresh = Refresh(
      run: recorder.run, startedAt: AuditStore.timestamp(started),
      appCount: Set(claimants.values.joined().map(\.key)).count, hosts: [])
    refresh.clockNote = await recorder.clockNote(at: started)
    refresh.watched = assumed.count
    // Ctrl-C ends the command where it is: what the store holds is said with how many hosts were done.
    let recorded = NIOLockedValueBox(0)
    InterruptWatch.note { [location, run = recorder.run, total = requests.count] in
      let held = recorded.withLockedValue { $0 }
      return "\(location): the store holds \(held) of the \(TerminalText.count(total, "host")) in run \(run), left "
        + "unfinished; the others keep their last answer"
    }
    // Each result is compared and recorded as it arrives, while the others are fetched.
    let (arrivals, sink) = AsyncStream<Arrival>.makeStream()
    let wanted = requests
    willFetch?(requests.count)
    let fetching = Task {
      await fetcher.fetchEach(wanted, started: { fetching?($0.host) }) { sink.yield(.answer($0, $1)) }
      sink.finish()
    }
    // A batch is written once it is half a second old even when no answer follows it: hosts that stall until their
    // timeout must not hold back the recording (and the progress) of those that answered.
    let ticking = Task {
      while !Task.isCancelled {
        try? await Task.sleep(for: Self.refreshBatchAge / 2)
        sink.yield(.tick)
      }
    }
    var done: [AASARequest: Refresh.Host] = [:]
    // Recorded in batches, one transaction each: a transaction per host would hold the fetches back at a few
    // hundred answers a second. A batch is at most `refreshBatchSize` answers or `refreshBatchAge` of them, what a
    // refresh killed midway can lose; the hosts of every batch before it are recorded whole.
    var batch: [(AASARequest, AASAFetchResult)] = []
    var opened = ContinuousClock.now
    // Once the store is lost (told by `problem`), the answers still come, and are reported as not recorded.
    func flush() async {
      guard !batch.isEmpty else { return }
      let time = AuditStore.now
      let retrievals = Dictionary(batch.map { ($0.0, AASARetrieval($0.1)) }, uniquingKeysWith: { a, _ in a })
      if refresh.problem == nil {
        do throws(Failure) {
          try await recorder.record(retrievals: retrievals, at: time)
          recorded.withLockedValue { $0 += retrievals.count }
        } catch {
          refresh.problem = error.description
          refresh.uncertain = error.commitUnknown ? retrievals.count : 0
        }
      }
      // Whether this batch is in the store: a comparison that fails below loses the store, not the batch.
      let recorded = refresh.problem == nil
      for (request, fetched) in batch {
        // Compared as reports give it: a 2xx whose body is no AASA file is `invalid-json`, not a file.
        var result = fetched
        if let answer = retrievals[request]?.answer, answer.status != fetched.status {
          (result.status, result.message) = (answer.status, answer.message)
        }
        var host: Refresh.Host
        do throws(Failure) {
          // Once the store is gone, a recorded answer is not compared with a file that cannot be read: each try
          // would wait for the store again.
          guard !recorded || refresh.problem == nil else { throw Failure(description: refresh.problem ?? "") }
          host = try await compare(
            request, result, with: previous[request], apps: claimants[request] ?? [],
            assumed: assumed.contains(request), recorded: recorded, at: time)
        } catch {
          // The answer is recorded, but the file it is compared with cannot be read: the store is gone. Whether it
          // changed is judged by its hash alone.
          refresh.problem = refresh.problem ?? error.description
          let held = previous[request]
          host = Self.answer(request, result, with: held, apps: claimants[request] ?? [])
          if !result.status.settles {
            host.outcome = .stale
          } else if held == nil {
            host.outcome = .first
          } else if held?.status != result.status || held?.sha256 != host.sha256 {
            host.outcome = host.sha256 == nil ? .removed : .changed
          }
        }
        done[request] = host
        progress?(host)
      }
      batch = []
    }
    for await arrival in arrivals {
      if case .answer(let request, let result) = arrival {
        if batch.isEmpty { opened = .now }
        batch.append((request, result))
      }
      if !batch.isEmpty, batch.count >= Self.refreshBatchSize || ContinuousClock.now - opened >= Self.refreshBatchAge {
        await flush()
      }
    }
    ticking.cancel()
    await flush()
    await fetching.value
    if refresh.problem == nil {
      do throws(Failure) { try await recorder.finish() } catch { refresh.problem = error.description }
    }
    refresh.hosts = requests.compactMap { done[$0] }
    return refresh
  }

  /// The app IDs a file lists under `applinks`, in order.
  static func listed(_ file: AASAFile) -> [String] {
    var out: [String] = []
    for detail in file.applinks?.details ?? [] {
      for id in detail.appIDs where !out.contains(id) { out.append(id) }
    }
    return out
  }

  /// The most answers a refresh records in one transaction.
  static let refreshBatchSize = 256
  /// How long the first answer of a batch waits for others before the batch is recorded.
  static let refreshBatchAge = Duration.milliseconds(500)

  /// What the refresh's loop hears: an answer, or the time passing (so that a batch is recorded on time without a
  /// next answer).
  private enum Arrival: Sendable {
    case answer(AASARequest, AASAFetchResult)
    case tick
  }

  /// A definite retrieval the store held: what a new answer is compared with.
  struct HeldRetrieval: Sendable {
    var status: AASAFetchResult.Status
    var sha256: String?
    var retrievedAt: String
  }

  /// Each host's latest definite retrieval, without its file.
  private func definiteRetrievals() async throws(Failure) -> [AASARequest: HeldRetrieval] {
    var held: [AASARequest: HeldRetrieval] = [:]
    // Read again on a connection made again, as each write is: a restart as the run starts cost it the run.
    try await failing("cannot read the latest retrievals") {
      try await resilient(committed: { false }) {
        held = [:]
        for row in try await sql.raw(
          """
          SELECT r.host, r.developer_mode, r.status, o.file_sha256, r.retrieved_at FROM latest_retrievals l
          JOIN retrievals r ON r.id = l.retrieval JOIN retrieval_observations o ON o.id = r.observation
          WHERE l.definite = 1
          """
        ).all() {
          let request = AASARequest(
            host: try row.decode(column: "host", as: String.self),
            developerMode: try row.decode(column: "developer_mode", as: Int.self) != 0)
          held[request] = HeldRetrieval(
            status: AASAFetchResult.Status(rawValue: try row.decode(column: "status", as: String.self)) ?? .ok,
            sha256: try row.decode(column: "file_sha256", as: String?.self),
            retrievedAt: try row.decode(column: "retrieved_at", as: String.self))
        }
      }
    }
    return held
  }

  /// Adds `hosts` to the watched hosts (those already there stay as they were), in `run`; every watched host.
  private func watch(_ hosts: [String], run: Int, at time: Date) async throws(Failure) -> [String] {
    var watched: [String] = []
    // Hosts already there are left as they were, so sending the insert again does no harm.
    try await failing("cannot record the hosts to watch") {
      try await resilient(committed: { false }) {
        if !hosts.isEmpty {
          try await insert(
            into: "watched_hosts", columns: ["host", "added_at", "run_id"],
            rows: hosts.map { [$0.lowercased(), AuditStore.timestamp(time), run] }
          ) { $0.ignoringConflicts(with: "host") }
        }
        watched = try await watchedHosts()
      }
    }
    return watched
  }

  /// `result` against the answer the store held for `request`, and what it changes for `apps`; for a host watched
  /// without an app (`assumed`), every app its files list.
  /// The answer for `request`, beside what the store held, before it is compared: outcome `unchanged`.
  private static func answer(
    _ request: AASARequest, _ result: AASAFetchResult, with held: HeldRetrieval?,
    apps: [(appId: String?, key: String)]
  ) -> Refresh.Host {
    Refresh.Host(
      host: request.host, developerMode: request.developerMode, outcome: .unchanged, status: result.status,
      source: result.source,
      // Fetch messages start with the host, which the output already names.
      message: result.status == .ok
        ? nil : String(result.message.trimmingPrefix(request.host + ": ")),
      sha256: result.status == .ok ? result.body.map { hex(SHA256.hash(data: $0)) } : nil,
      previousStatus: held?.status, previousSha256: held?.sha256, lastGood: held?.retrievedAt,
      lastGoodAge: nil, apps: apps.map(\.key), changes: [])
  }

  private func compare(
    _ request: AASARequest, _ result: AASAFetchResult, with held: HeldRetrieval?,
    apps claimed: [(appId: String?, key: String)], assumed: Bool, recorded: Bool, at time: Date
  ) async throws(Failure) -> Refresh.Host {
    var apps = claimed
    if assumed, result.status == .ok, let file = result.body.flatMap({ try? AASAFile(bytes: $0) }) {
      apps = Self.listed(file).map { ($0, $0) }
    }
    var host = Self.answer(request, result, with: held, apps: apps)
    let sha256 = host.sha256
    guard recorded else {
      host.outcome = .notRecorded
      return host
    }
    guard result.status.settles else {
      host.outcome = .stale
      host.lastGoodAge = held.flatMap { AuditStore.date($0.retrievedAt) }.map { Int(time.timeIntervalSince($0)) }
      // A watched host's apps are those its kept file lists, which its lists still block: they read as none.
      if assumed, let held, held.sha256 != nil {
        var kept = Self.listingNoApp
        try await failing("cannot read a file of \(request.host)") {
          try await resilient(committed: { false }) { kept = try await storedFile(held.sha256) }
        }
        host.apps = Self.listed(kept)
      }
      return host
    }
    guard let held else {
      host.outcome = .first
      return host
    }
    if held.status == result.status && held.sha256 == sha256 { return host }
    // A definite answer without a file reads as a file that lists no app.
    var old = Self.listingNoApp
    try await failing("cannot read a file of \(request.host)") {
      try await resilient(committed: { false }) { old = try await storedFile(held.sha256) }
    }
    let new =
      sha256 == nil ? Self.listingNoApp : (result.body.flatMap { try? AASAFile(bytes: $0) } ?? Self.listingNoApp)
    let comparison = AASAComparison(old: old, new: new, host: request.host)
    if assumed {
      apps = Array(Set(Self.listed(old) + Self.listed(new))).sorted().map { ($0, $0) }
      host.apps = apps.map(\.key)
    }
    let claiming = Dictionary(
      apps.compactMap { app in app.appId.map { ($0, app.key) } }, uniquingKeysWith: { a, _ in a })
    host.changes = comparison.shared.map { shared in
      Refresh.Change(change: shared, affects: shared.appIds.compactMap { claiming[$0] })
    }
    host.comparison = comparison
    host.files = (old, new)
    host.outcome =
      sha256 == nil && held.sha256 != nil ? .removed : comparison.equivalent ? .rewritten : .changed
    return host
  }
}

extension RunRecorder {
  /// Records retrievals made outside any input (a refresh), at `time`, in one transaction: each file's bytes once
  /// per distinct content, and the latest state moved on.
  public func record(
    retrievals: [AASARequest: AASARetrieval], at time: Date
  ) async throws(AuditStore.Failure) {
    let prepared = Self.prepare(
      InspectionReport(input: "", inputKind: .unknown, diagnostics: []), retrievals: unrecorded(retrievals), at: time)
    try await recordRetrievals(prepared)
  }
}

extension StoreText {
  /// `refresh` in `format`: the text (each host that changed, was removed, rewritten, first answered or stale, then
  /// the counts), one JSON document with `hosts`, or one JSON object per host.
  public static func refresh(_ refresh: Refresh, format: OutputFormat, style: TextStyle) -> String {
    switch format {
    case .json: return JSONReporter.document(refresh) + "\n"
    case .jsonl: return refresh.hosts.map { JSONReporter.render($0, pretty: false) + "\n" }.joined()
    case .text: break
    }
    let e = { (text: String) in TerminalText.escape(text) }
    let file = { (sha256: String?, status: AASAFetchResult.Status?) in
      sha256.map { "file " + String($0.prefix(8)) } ?? status?.rawValue ?? "nothing"
    }
    let apps = { (apps: [String]) in
      TerminalText.pack(
        apps.isEmpty ? ["no", "app", "in", "the", "store"] : apps.dropLast().map { e($0) + "," } + [e(apps.last!)],
        width: style.width, rest: "    ", separator: " ")
    }
    // A line in words, broken between them to fit the width; continuation lines indented.
    let fit = { (line: String, indent: String) in
      TerminalText.pack(
        line.split(separator: " ").map(String.init), width: style.width, first: indent,
        rest: indent + "  ", separator: " "
      ).map { $0 + "\n" }.joined()
    }
    var out = ""
    for host in refresh.hosts where host.outcome != .unchanged {
      let name = style.bold(e(host.host)) + (host.developerMode ? " (developer mode)" : "")
      let was = file(host.previousSha256, host.previousStatus)
      switch host.outcome {
      case .changed, .removed:
        out += fit("\(name): \(host.outcome.rawValue), \(file(host.sha256, host.status)) (was \(was))", "")
        if let message = host.message { out += fit(e(message), "  ") }
        if let comparison = host.comparison, let files = host.files {
          out += AASADiffReporter.text(
            comparison, old: "the stored file", new: "the new answer", files: files, style: style)
        }
        // The apps the changes affect, as the JSON's `affects` says: a host's claimants that its file never listed
        // lose nothing when it goes.
        let affected = Array(Set(host.changes.flatMap(\.affects))).sorted()
        out += apps(affected).enumerated().map { ($0 == 0 ? "  affects " : "") + $1 + "\n" }.joined() + "\n"
      case .rewritten:
        out += fit(
          "\(name): rewritten, \(file(host.sha256, host.status)) (was \(was)); it behaves the same for every app", "")
      case .first:
        out += fit("\(name): first answer, \(file(host.sha256, host.status))", "")
      case .stale:
        let ago = host.lastGoodAge.map { " (\(age($0)))" } ?? ""
        out += fit(
          "\(name): stale: \(e(host.message ?? host.status.rawValue)); "
            + (host.lastGood.map { "keeps the answer retrieved \(time($0)) UTC\(ago)" }
              ?? "the store has no answer from it"),
          "")
      case .notRecorded:
        out += fit("\(name): not-recorded, \(file(host.sha256, host.status))", "")
      case .unchanged: break
      }
    }
    let counts = Refresh.Outcome.allCases.compactMap { outcome in
      refresh.count(outcome) > 0 ? "\(refresh.count(outcome)) \(outcome.rawValue)" : nil
    }
    out += out.isEmpty || out.hasSuffix("\n\n") ? "" : "\n"
    out += fit(
      "refreshed \(TerminalText.count(refresh.hosts.count, "host")) claimed by "
        + "\(TerminalText.count(refresh.appCount, "app"))"
        + (refresh.watched > 0 ? " or watched (\(refresh.watched))" : "") + " (run \(refresh.run)): "
        + (counts.isEmpty ? "nothing to do" : counts.joined(separator: ", ")), "")
    return out
  }
}

extension StoreText {
  /// An age in words: `40 s ago`, `12 min ago`, `5 h ago`, `7 days ago`. A time after now (this run's clock is
  /// behind the one that stored it) is said so, not as `0 s ago`, which read as fresh.
  static func age(_ seconds: Int) -> String {
    if seconds < 0 {
      let after = age(-seconds).dropLast(4)
      return "\(after) after this run's clock: is the clock or SOURCE_DATE_EPOCH behind?"
    }
    return switch seconds {
    case ..<120: "\(seconds) s ago"
    case ..<7_200: "\(seconds / 60) min ago"
    case ..<172_800: "\(seconds / 3_600) h ago"
    default: "\(seconds / 86_400) days ago"
    }
  }
}

extension AuditStore {
  /// `refresh`: the store at `location` refreshed with `fetcher` (see ``refresh(with:label:arguments:progress:)``)
  /// and its text in `format`, with the exit code: 0 nothing changed; 1 a host changed; 2 the store cannot be read
  /// or written, holds no app, or no host gave a definite answer (told to `warn`). A bar shows the hosts on a
  /// terminal unless `progress` is false.
  public static func refresh(
    _ location: StoreLocation, with fetcher: AASAFetcher, label: String?, arguments: [String],
    watching: [String] = [], format: OutputFormat, style: TextStyle, progress: Bool = true, warn: (String) -> Void
  ) async -> (text: String?, status: Int32) {
    // A progress bar on a terminal, as batches have: 10,000 hosts take a while even 64 at a time.
    let console = BatchConsole(progress: progress, quiet: false, unit: "host")
    // A refresh that adds hosts to watch may start a store; one that only refreshes needs one.
    let refresh = await reading(location, creating: !watching.isEmpty, warn: warn) { store in
      try await store.refresh(
        with: fetcher, label: label, arguments: arguments, watching: watching, willFetch: console.begin(total:),
        fetching: console.started, progress: { console.advanced($0.host) })
    }
    console.end()
    guard let refresh else { return (nil, 2) }
    if let note = refresh.clockNote { warn(note) }
    let text = StoreText.refresh(refresh, format: format, style: style)
    if let problem = refresh.problem {
      let missing = refresh.count(.notRecorded)
      let held = refresh.hosts.count - missing
      warn(
        "\(problem); \(missing) of \(TerminalText.count(refresh.hosts.count, "host")) not recorded: run \(refresh.run) "
          + "holds \(held) and is left unfinished"
          + (refresh.uncertain > 0
            ? " (or \(held + refresh.uncertain), if the transaction of \(refresh.uncertain) lost as it committed "
              + "went through)" : ""))
      return (text, 2)
    }
    if refresh.hosts.isEmpty {
      warn("\(location): no app in the store claims a host, and it watches none (refresh --host HOST adds one)")
      return (text, 2)
    }
    if refresh.count(.stale) == refresh.hosts.count {
      warn("no host gave a definite answer; the store keeps the answers it had")
      return (text, 2)
    }
    return (text, refresh.changes > 0 ? 1 : 0)
  }
}
