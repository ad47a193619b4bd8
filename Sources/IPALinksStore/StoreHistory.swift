import Foundation
import IPALinksKit
import SQLKit
import UniversalLinks

/// `history --host`: each distinct version of a host's AASA file the store has seen, and between consecutive
/// versions what behaves differently, as `aasa diff` computes it.
public struct HostHistory: Sendable, Encodable {
  /// One version: a run of retrievals with the same answer (the same bytes, or the same definite failure).
  public struct Version: Sendable, Codable, Equatable {
    /// 1 for the first seen.
    public var version: Int
    /// The file's SHA-256; nil when there was no file (a definite failure such as `not-found`).
    public var sha256: String?
    /// The file's size in bytes.
    public var size: Int?
    /// The retrieval's status: `ok`, or the definite failure.
    public var status: String
    /// The first retrieval that got it.
    public var firstSeen: String
    /// The last retrieval that got it before the next version.
    public var lastSeen: String
    /// How many retrievals got it.
    public var retrievals: Int
    /// Where it came from: `cdn`, `direct-well-known`, `aasa-dir`…, each once.
    public var sources: [String]
    /// The label of the first run that got it, when it had one.
    public var firstRun: String?
    /// That run's number, as `store runs` shows it and `--at` takes it: what names a run without a label.
    public var firstRunNumber: Int?
    /// The apps the file's `applinks` lists.
    public var appIds: [String]
    /// How many distinct files behaved as this version: more than one when the host rewrote its file without
    /// changing what opens (``sha256`` and ``size`` are the first's).
    public var files = 1
  }

  /// One behavioural change between two consecutive versions, for every app it is the same for: the change's own
  /// fields (``AASAComparison/SharedChange``) beside `from`, `to` and `at`.
  @dynamicMemberLookup
  public struct Change: Sendable, Encodable, Equatable {
    /// The version before.
    public var from: Int
    /// The version after.
    public var to: Int
    /// When the new version was first seen.
    public var at: String
    /// The change, with the apps it is for.
    public var change: AASAComparison.SharedChange

    /// The change's fields (`kind`, `appIds`, `example`…), read through.
    public subscript<T>(dynamicMember field: KeyPath<AASAComparison.SharedChange, T>) -> T { change[keyPath: field] }

    private enum CodingKeys: String, CodingKey { case from, to, at }

    /// One flat object: `from`, `to` and `at` beside the change's fields.
    public func encode(to encoder: any Encoder) throws {
      try change.encode(to: encoder)
      var c = encoder.container(keyedBy: CodingKeys.self)
      try c.encode(from, forKey: .from)
      try c.encode(to, forKey: .to)
      try c.encode(at, forKey: .at)
    }
  }

  /// The host.
  public var host: String
  /// Every version, oldest first.
  public var versions: [Version]
  /// Every change, oldest first.
  public var changes: [Change]
  /// Retrievals without a definite answer (a timeout, a TLS or DNS error): they say nothing of the file and are
  /// left out of the versions.
  public var unanswered: Int
  /// Whether the host rewrites its file without changing what opens: some version spans at least
  /// ``unstableFiles`` distinct files.
  public var unstable = false
  /// How many distinct files of one behaviour make a host unstable.
  public static let unstableFiles = 3
  /// True for the retrievals for associated domains in developer mode (`?mode=developer`), from the site itself;
  /// nil for the others, so that their document is as it was.
  public var developerMode: Bool? = nil
  /// How many retrievals of the other mode's timeline there are, which this history leaves out.
  public var otherModeRetrievals = 0
  /// Each version's file, parsed (an empty file for a definite failure), for the text's rules.
  var files: [AASAFile] = []
  /// Each version against the one before (from the second on), as the text shows them.
  var comparisons: [AASAComparison] = []

  private enum CodingKeys: String, CodingKey {
    case host, developerMode, versions, changes, unanswered, unstable
  }
}

/// `history --app`: the versions of an app the store has seen, and the associated domains and URL schemes added or
/// removed over time; one timeline per app key (an app ID, else a bundle ID), since a bundle ID signed by two teams
/// is two apps.
public struct AppHistory: Sendable, Codable {
  /// One app's timeline.
  public struct Timeline: Sendable, Codable, Equatable {
    /// The app ID, or the bundle ID when the app ID is unknown.
    public var appKey: String
    /// Its bundle ID.
    public var bundleId: String?
    /// Its app ID.
    public var appId: String?
    /// Its name, as last seen.
    public var name: String?
    /// Each version (and build) seen, in the order first seen.
    public var versions: [Version]
    /// Each observation that changed something, the first included (everything added).
    public var changes: [Change]
  }

  /// A version and build of the app, and when it was seen.
  public struct Version: Sendable, Codable, Equatable {
    /// `CFBundleShortVersionString`.
    public var version: String?
    /// `CFBundleVersion`.
    public var build: String?
    /// The first observation of it.
    public var firstSeen: String
    /// The last observation of it.
    public var lastSeen: String
    /// How many times it was inspected.
    public var observations: Int
  }

  /// What one observation changed.
  public struct Change: Sendable, Codable, Equatable {
    /// When it was inspected.
    public var at: String
    /// The run's label, when it had one.
    public var run: String?
    /// The run's number, as `store runs` shows it and `--at` takes it.
    public var runNumber: Int?
    /// The version inspected.
    public var version: String?
    /// The build inspected.
    public var build: String?
    /// Associated domains entries added, as written (`applinks:shop.example.com`).
    public var domainsAdded: [String] = []
    /// Associated domains entries removed.
    public var domainsRemoved: [String] = []
    /// URL schemes the app registers, added.
    public var schemesAdded: [String] = []
    /// URL schemes removed.
    public var schemesRemoved: [String] = []
    /// Schemes the app may query (`LSApplicationQueriesSchemes`), added.
    public var queriedSchemesAdded: [String] = []
    /// Schemes it may query, removed.
    public var queriedSchemesRemoved: [String] = []

    var isEmpty: Bool {
      [domainsAdded, domainsRemoved, schemesAdded, schemesRemoved, queriedSchemesAdded, queriedSchemesRemoved]
        .allSatisfy(\.isEmpty)
    }
  }

  /// The bundle ID or app ID asked for.
  public var query: String
  /// One timeline per app key that has it.
  public var apps: [Timeline]
}

extension AuditStore {
  /// The history of `host`'s AASA file up to `time` (the whole of it when nil), as retrieved for associated domains
  /// in developer mode (`?mode=developer`, from the site itself) or not (through Apple's CDN, unless `--source`
  /// said otherwise): two files that may differ for as long as the CDN keeps its copy, so two timelines.
  public func hostHistory(
    _ host: String, at time: Date? = nil, developerMode: Bool = false
  ) async throws(Failure) -> HostHistory {
    let at = AuditStore.timestamp(time ?? .distantFuture)
    let mode = developerMode ? 1 : 0
    let rows = try await failing("cannot read the history of \(host)") {
      try await sql.raw(
        """
        SELECT r.retrieved_at, o.source, r.status, r.settles, o.file_sha256, f.size, u.label, u.id AS run_number
        FROM retrievals r
        JOIN runs u ON u.id = r.run_id JOIN retrieval_observations o ON o.id = r.observation
        LEFT JOIN aasa_files f ON f.sha256 = o.file_sha256
        WHERE r.host = \(bind: host) AND r.developer_mode = \(bind: mode) AND r.retrieved_at <= \(bind: at)
        ORDER BY r.retrieved_at, r.id
        """
      ).all()
    }
    let otherMode = try await failing("cannot read the history of \(host)") {
      try await sql.raw(
        """
        SELECT COUNT(*) AS n FROM retrievals
        WHERE host = \(bind: host) AND developer_mode = \(bind: 1 - mode) AND retrieved_at <= \(bind: at)
        """
      ).first(decodingColumn: "n", as: Int.self) ?? 0
    }
    var history = HostHistory(host: host, versions: [], changes: [], unanswered: 0)
    (history.developerMode, history.otherModeRetrievals) = (developerMode ? true : nil, otherMode)
    do {
      for row in rows {
        let status = try row.decode(column: "status", as: String.self)
        let settles = try row.decode(column: "settles", as: Int?.self).map { $0 != 0 }
        guard settles ?? AASAFetchResult.Status(rawValue: status)?.isDefinite ?? false else {
          history.unanswered += 1
          continue
        }
        let (time, source) = (
          try row.decode(column: "retrieved_at", as: String.self), try row.decode(column: "source", as: String.self)
        )
        let sha256 = try row.decode(column: "file_sha256", as: String?.self)
        if let last = history.versions.last, last.sha256 == sha256, last.status == status {
          history.versions[history.versions.count - 1].lastSeen = time
          history.versions[history.versions.count - 1].retrievals += 1
          if !last.sources.contains(source) { history.versions[history.versions.count - 1].sources.append(source) }
          continue
        }
        history.versions.append(
          HostHistory.Version(
            version: history.versions.count + 1, sha256: sha256, size: try row.decode(column: "size", as: Int?.self),
            status: status, firstSeen: time, lastSeen: time, retrievals: 1, sources: [source],
            firstRun: try row.decode(column: "label", as: String?.self),
            firstRunNumber: try row.decode(column: "run_number", as: Int.self), appIds: []))
      }
    } catch {
      throw Failure(description: "\(location): cannot read the history of \(host): \(error)")
    }
    // Each distinct file once; a definite failure reads as a file that lists no app.
    var parsed: [String: AASAFile] = [:]
    for sha256 in Set(history.versions.compactMap(\.sha256)) {
      parsed[sha256] = try await failing("cannot read a file of \(host)") { try await storedFile(sha256) }
    }
    history.files = history.versions.map { $0.sha256.flatMap { parsed[$0] } ?? Self.listingNoApp }
    // Each version against the one before, on every core.
    let files = history.files
    history.comparisons = try await failing("cannot compare the versions of \(host)") {
      try Self.concurrentMap(Array(files.indices.dropFirst()), chunk: 1) { i in
        AASAComparison(old: files[i - 1], new: files[i], host: host)
      }
    }
    // A file rewritten without a change in behaviour (a generated timestamp in it, say) is the same version, seen
    // in one more file: a host that does it on every retrieval would otherwise flood the history.
    var merged: [Int] = history.versions.isEmpty ? [] : [0]
    for i in history.versions.indices.dropFirst() {
      let (last, version) = (history.versions[merged[merged.count - 1]], history.versions[i])
      if history.comparisons[i - 1].equivalent, last.sha256 != nil, version.sha256 != nil {
        let into = merged[merged.count - 1]
        history.versions[into].lastSeen = version.lastSeen
        history.versions[into].retrievals += version.retrievals
        history.versions[into].files += version.files
        for source in version.sources where !last.sources.contains(source) {
          history.versions[into].sources.append(source)
        }
      } else {
        merged.append(i)
      }
    }
    // Each kept version's comparison is the one with the raw version before it, which behaves as the kept one before.
    history.comparisons = merged.dropFirst().map { history.comparisons[$0 - 1] }
    history.files = merged.map { history.files[$0] }
    history.versions = merged.enumerated().map { number, i in
      var version = history.versions[i]
      version.version = number + 1
      return version
    }
    history.unstable = history.versions.contains { $0.files >= HostHistory.unstableFiles }
    for i in history.versions.indices {
      history.versions[i].appIds = history.files[i].appLinksAppIDs
      guard i > 0 else { continue }
      let comparison = history.comparisons[i - 1]
      history.changes += comparison.shared.map { shared in
        HostHistory.Change(from: i, to: i + 1, at: history.versions[i].firstSeen, change: shared)
      }
    }
    return history
  }

  /// The history of the apps with bundle ID or app ID `id`, up to `time` (the whole of it when nil); an app known
  /// by its app ID alone is found by its bundle ID too.
  public func appHistory(_ id: String, at time: Date? = nil) async throws(Failure) -> AppHistory {
    let at = AuditStore.timestamp(time ?? .distantFuture)
    let which = "the history of \(id)"
    let (rows, domains, schemes) = try await failing("cannot read \(which)") {
      // By bundle ID or app ID, and an app known by its app ID alone (an entitlements file, a bare Mach-O) by its
      // bundle ID too, the one its app ID names (each of the three indexed).
      // Observations a run superseded (``RunRecorder/Choice``) are not the app's history.
      // The apps' sightings are found by their key (what the latest state keys apps by, as an observation's
      // columns give it), through the app key index, not by reading every sighting.
      let filter: SQLQueryString =
        """
        a.app_key IN (
          SELECT COALESCE(m.app_id, m.bundle_id, m.path) FROM app_observations m
          WHERE m.bundle_id = \(bind: id) OR m.app_id = \(bind: id) OR m.named_bundle_id = \(bind: id))
        AND (o.bundle_id = \(bind: id) OR o.app_id = \(bind: id) OR o.named_bundle_id = \(bind: id))
        AND i.observed_at <= \(bind: at) AND a.superseded = 0
        """
      let rows = try await sql.raw(
        """
        SELECT a.id, a.app_key, o.bundle_id, o.app_id, o.name, o.version, o.build, i.observed_at, u.label,
          u.id AS run_number
        FROM apps a JOIN inputs i ON i.id = a.input_id JOIN app_observations o ON o.id = a.observation
        JOIN runs u ON u.id = a.run_id
        WHERE \(filter) ORDER BY i.observed_at, a.id
        """
      ).all()
      let domains = try await sql.raw(
        """
        SELECT a.id AS app, d.raw FROM app_domains d JOIN apps a ON a.observation = d.observation
        JOIN inputs i ON i.id = a.input_id JOIN app_observations o ON o.id = a.observation WHERE \(filter)
        ORDER BY d.position
        """
      ).all()
      let schemes = try await sql.raw(
        """
        SELECT a.id AS app, s.scheme, s.queried FROM app_schemes s JOIN apps a ON a.observation = s.observation
        JOIN inputs i ON i.id = a.input_id JOIN app_observations o ON o.id = a.observation WHERE \(filter)
        """
      ).all()
      return (rows, domains, schemes)
    }
    do {
      var entries: [Int: [String]] = [:]
      for row in domains {
        entries[try row.decode(column: "app", as: Int.self), default: []].append(
          try row.decode(column: "raw", as: String.self))
      }
      var registered: [Int: [String]] = [:]
      var queried: [Int: [String]] = [:]
      for row in schemes {
        let app = try row.decode(column: "app", as: Int.self)
        let scheme = try row.decode(column: "scheme", as: String.self)
        if try row.decode(column: "queried", as: Int.self) != 0 {
          queried[app, default: []].append(scheme)
        } else {
          registered[app, default: []].append(scheme)
        }
      }
      var timelines: [AppHistory.Timeline] = []
      var last: [String: (domains: [String], schemes: [String], queried: [String])] = [:]
      for row in rows {
        let app = try row.decode(column: "id", as: Int.self)
        let key = try row.decode(column: "app_key", as: String.self)
        if try row.decode(column: "bundle_id", as: String?.self) != id,
          let appId = try row.decode(column: "app_id", as: String?.self), appId != id,
          BundleReport.bundleID(ofAppID: appId) != id
        {
          continue
        }
        let observed = try row.decode(column: "observed_at", as: String.self)
        let (version, build) = (
          try row.decode(column: "version", as: String?.self), try row.decode(column: "build", as: String?.self)
        )
        let t = timelines.firstIndex { $0.appKey == key } ?? timelines.count
        if t == timelines.count {
          timelines.append(
            AppHistory.Timeline(appKey: key, bundleId: nil, appId: nil, name: nil, versions: [], changes: []))
        }
        // The latest that is known: an entitlements file's row knows no bundle ID or name of its own.
        timelines[t].bundleId = try row.decode(column: "bundle_id", as: String?.self) ?? timelines[t].bundleId
        timelines[t].appId = try row.decode(column: "app_id", as: String?.self) ?? timelines[t].appId
        timelines[t].name = try row.decode(column: "name", as: String?.self) ?? timelines[t].name
        if let v = timelines[t].versions.firstIndex(where: { $0.version == version && $0.build == build }) {
          timelines[t].versions[v].lastSeen = observed
          timelines[t].versions[v].observations += 1
        } else {
          timelines[t].versions.append(
            AppHistory.Version(version: version, build: build, firstSeen: observed, lastSeen: observed, observations: 1)
          )
        }
        let now = (entries[app] ?? [], registered[app] ?? [], queried[app] ?? [])
        let before = last[key] ?? ([], [], [])
        last[key] = now
        var change = AppHistory.Change(
          at: observed, run: try row.decode(column: "label", as: String?.self),
          runNumber: try row.decode(column: "run_number", as: Int.self), version: version, build: build)
        (change.domainsAdded, change.domainsRemoved) = Self.delta(before.domains, now.0)
        (change.schemesAdded, change.schemesRemoved) = Self.delta(before.schemes, now.1)
        (change.queriedSchemesAdded, change.queriedSchemesRemoved) = Self.delta(before.queried, now.2)
        if !change.isEmpty { timelines[t].changes.append(change) }
      }
      return AppHistory(query: id, apps: timelines)
    } catch {
      throw Failure(description: "\(location): cannot read \(which): \(error)")
    }
  }

  /// What `new` has that `old` had not, and the reverse, each in its list's order.
  static func delta(_ old: [String], _ new: [String]) -> (added: [String], removed: [String]) {
    let (before, after) = (Set(old), Set(new))
    return (new.filter { !before.contains($0) }, old.filter { !after.contains($0) })
  }
}
