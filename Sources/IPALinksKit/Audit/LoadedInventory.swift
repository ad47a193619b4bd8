import UniversalLinks

/// The reports of what a user names, loaded the same way for `blocklist`, `diff`, `report` and `who-claims`: saved
/// inventories (`.json`, `.jsonl`, `-`, and every `inventories` file) are read, anything else is inspected like
/// `inspect` does (folders walked for *.ipa, each host's AASA file fetched once for all inputs).
public struct LoadedInventory: Sendable {
  /// How the reports are ordered. Inputs are inspected several at a time and finish in any order, so either way
  /// the order is fixed afterwards, and outputs do not depend on timing.
  public enum Order: Sendable {
    /// By input path, whichever argument named it.
    case byInput
    /// In the order the paths, then the inventories, were named; a folder's inputs by path, an inventory's reports
    /// in the file's order. For outputs that keep the apps in the order the user gave them.
    case asNamed
  }

  /// Every report, in the order asked for.
  public var reports: [InspectionReport] = []
  /// Something could not be read (an input, a file, a domain); the rest is here.
  public var partial = false
  /// What was named and gave something: inventories read, and inputs that were not unreadable.
  public var readable = 0
  /// What was named and gave nothing: inventories that could not be read, missing paths, unreadable inputs, and
  /// the lines of an inventory that are not reports (each an input lost).
  public var unreadable = 0
  /// What was named and could not be read, a line each as it was told (a missing path, an inventory that is none, a
  /// line of one that is not a report): the `report` page lists them, as it has no report of theirs to show.
  public var notRead: [String] = []
  /// What was named and gave no report at all: inventories that could not be read, their lines that are not
  /// reports, paths that are not there. A `report` page counts them among its inputs, as not read.
  public var lost = 0
  /// What the latest run of a store read as an input changed, when it was asked for.
  public var changes: RunChanges?

  /// Whether something was read: ``readable``, and of the reports, if any, one that is not of an unreadable input.
  /// An inventory or a store read as a whole counts as readable even when it holds only inputs that could not be
  /// read (a list made from one blocked nothing, written over a good one); an inventory of no app (`[]`) is read.
  /// For commands that keep every report; `who-claims HOST` keeps only those that may claim the host.
  public var readSomeInput: Bool {
    readable > 0 && (reports.isEmpty || reports.contains { $0.status != .unreadable })
  }

  /// Reports already read as a whole, such as a store's state.
  public init(reports: [InspectionReport] = []) {
    self.reports = reports
    readable = reports.isEmpty ? 0 : 1
  }

  /// Reads `inventories` and the inventories among `paths`, and inspects the other paths, `jobs` at a time;
  /// `fetcher` looks up their AASA files (nil: not looked up). A file that cannot be read, or a folder without an
  /// IPA, is passed to `problem` as one line naming it; each inspected report is passed to `inspected` as it is
  /// done, for the caller to say what went wrong in it.
  ///
  /// A saved inventory's reading is passed to `reading` as it goes: opened (its name, and how many reports it holds
  /// when a regular file is `countingAhead`), each batch of reports read, and closed.
  ///
  /// `hosts` add the apps their AASA files list (``HostInputs``), after the rest, leaving out the apps already read.
  ///
  /// With `about` (a host, a `*.` wildcard or a URL: `who-claims HOST`), only the apps with an entry on that host,
  /// on a domain above it (a wildcard's) or, for a wildcard, below it are kept, as the store's state is read for the
  /// same question: an inventory of any size is then answered in the memory of the apps that claim the host.
  public static func load(
    _ paths: [String], inventories: [String] = [], hosts: [String] = [], order: Order = .byInput,
    fetcher: AASAFetcher?, jobs: Int, about query: String? = nil,
    problem: (String) -> Void, countingAhead: Bool = false, reading: (Reading) -> Void = { _ in },
    willInspect: (Int) -> Void = { _ in }, started: (String) -> Void = { _ in },
    inspected: (InspectionReport) -> Void
  ) async -> LoadedInventory {
    var loaded = LoadedInventory()
    // Every app read, kept or not: `hosts` leave them out.
    var seen = Set<String>()
    let claimsAbout = query.flatMap(HostClaims.host(ofQuery:)).map { Self.claims(about: $0) }
    func kept(_ report: InspectionReport) -> InspectionReport? {
      seen.formUnion(report.bundles.lazy.compactMap(\.appId))
      return claimsAbout.map { Self.report(report, keeping: $0) } ?? report
    }
    // Told as it comes, and kept for a page.
    func notRead(_ line: String) {
      problem(line)
      loaded.notRead.append(line)
    }
    var keyed: [(key: (Int, String, Int), report: InspectionReport)] = []
    func add(_ report: InspectionReport, named index: Int, byPath: Bool) {
      let key =
        order == .byInput ? (0, report.input, keyed.count) : (index, byPath ? report.input : "", keyed.count)
      keyed.append((key, report))
    }
    let named = paths + inventories
    let savedAmongPaths = paths.indices.filter { InventoryReader.looksLikeInventory(paths[$0]) }
    for index in Array(paths.count..<named.count) + savedAmongPaths {
      do {
        // A batch at a time, so the file's bytes are never held with its reports, and a line that is not a report
        // (a file cut short as it was written) costs that line, not the file: each is named, and the answer is
        // partial. Every report kept, the file must fit the limit; about one host, only its claims are kept.
        let stream = try InventoryStream(
          path: named[index], workers: jobs, byteLimit: claimsAbout == nil ? InventoryReader.maximumBytes : nil,
          counting: countingAhead)
        reading(.opened(stream.name, reports: stream.expected))
        defer { reading(.closed) }
        var (reports, read, skipped) = ([InspectionReport](), 0, 0)
        while let batch = try stream.next(1024) {
          defer { reading(.read(read + skipped)) }
          reports += batch.reports.compactMap(kept)
          read += batch.reports.count
          loaded.counting(batch.reports)
          // Told as an inspection of the input would have told it.
          batch.reports.compactMap(InspectReporter.problemLine).forEach(problem)
          for line in batch.skipped {
            skipped += 1
            if skipped <= InventoryStream.skippedLinesNamed { notRead(line.description) }
          }
        }
        for report in reports { add(report, named: index, byPath: false) }
        if skipped > 0 {
          notRead(
            InventoryStream.skippedSummary(stream.name, skipped: skipped)
              + "; \(read) other \(read == 1 ? "input" : "inputs") read")
          (loaded.partial, loaded.unreadable) = (true, loaded.unreadable + skipped)
          loaded.lost += skipped
        }
        loaded.readable += 1
      } catch {
        notRead("\(error)")
        loaded.partial = true
        loaded.unreadable += 1
        loaded.lost += 1
      }
    }
    let fetches = fetcher.map { SharedAASAFetches(fetcher: $0) }
    _ = await BatchInspector.run(
      paths.filter { !InventoryReader.looksLikeInventory($0) }, jobs: jobs, fetches: fetches,
      problem: { line in
        notRead(line)
        loaded.partial = true
        loaded.unreadable += 1
        loaded.lost += 1
      }, note: problem, willInspect: { willInspect($0.count) }, started: started
    ) { report in
      inspected(report)
      if report.status != .complete { loaded.partial = true }
      if report.status != .unreadable { loaded.readable += 1 } else { loaded.unreadable += 1 }
      if let report = kept(report) {
        add(report, named: paths.firstIndex { names($0, report.input) } ?? paths.count, byPath: true)
      }
    }
    loaded.reports = keyed.sorted { $0.key < $1.key }.map(\.report)
    if !hosts.isEmpty {
      // With --no-fetch no file is looked up: each host's apps are unknown (uncovered), not left out unsaid.
      let reports =
        if let fetches {
          await HostInputs.reports(for: hosts, fetches: fetches, leavingOut: seen)
        } else {
          HostInputs.reports(for: hosts, files: [:], leavingOut: seen, missing: "not looked up (--no-fetch)")
        }
      for report in reports {
        inspected(report)
        if report.status != .complete { loaded.partial = true }
        if report.status != .unreadable { loaded.readable += 1 } else { loaded.unreadable += 1 }
        if let report = kept(report) { loaded.reports.append(report) }
      }
    }
    return loaded
  }

  /// How the reading of a saved inventory goes, for a progress bar.
  public enum Reading: Sendable {
    /// The file (its name as messages give it) is open; it holds `reports` lines, when counted ahead.
    case opened(String, reports: Int?)
    /// So many of its lines are read.
    case read(Int)
    /// It is read, or failed.
    case closed
  }

  /// Whether a bundle has an entry on `host`, on a domain above it, or, for a `*.` wildcard, below it: the apps
  /// whose claims `who-claims` may show for it (``HostClaims`` decides which do).
  static func claims(about host: String) -> @Sendable (BundleReport) -> Bool {
    let pattern = LinkRuntime.HostPattern(host)
    let labels = pattern.host.split(separator: ".")
    let above = Set(labels.indices.map { labels[$0...].joined(separator: ".") })
    let below = "." + pattern.host
    return { bundle in
      // One whose entitlements could not be read may claim it: kept, to be said.
      bundle.entitlementsUnread
        || bundle.associatedDomains.contains {
          above.contains($0.host) || (pattern.wildcard && $0.host.hasSuffix(below))
        }
    }
  }

  /// `report` with the bundles `keeping` keeps; nil when it had bundles and keeps none. One without any (an input
  /// that could not be read, a host whose file was not found) stays: what it says is still told.
  static func report(_ report: InspectionReport, keeping: (BundleReport) -> Bool) -> InspectionReport? {
    guard !report.bundles.isEmpty else { return report }
    var report = report
    report.bundles.removeAll { !keeping($0) }
    return report.bundles.isEmpty ? nil : report
  }

  /// What to say when retrieval `flags` were given for saved inventories, which keep the AASA files they were saved
  /// with; nil when there are none of either.
  public static func unusedFlags(_ flags: [String], paths: [String], inventories: [String]) -> String? {
    let saved = paths.filter(InventoryReader.looksLikeInventory) + inventories
    guard !saved.isEmpty, !flags.isEmpty else { return nil }
    return "\(flags.joined(separator: ", ")) \(flags.count == 1 ? "does" : "do") not apply to "
      + "\(saved.joined(separator: ", ")): a saved inventory keeps the AASA files it was saved with; inspect the apps "
      + "again to fetch them anew"
  }

  /// Whether `argument` named `input`: the path itself, or a folder it was found in.
  private static func names(_ argument: String, _ input: String) -> Bool {
    input == argument || input.hasPrefix(argument.hasSuffix("/") ? argument : argument + "/")
  }

  /// Adds the reports of one more input read as a whole (such as an audit store's latest state), or counts it
  /// unreadable when it could not be read (`nil`), with the lines that `told` why.
  public mutating func add(_ reports: [InspectionReport]?, told: [String] = []) {
    guard let reports else {
      (partial, unreadable) = (true, unreadable + 1)
      notRead += told
      return
    }
    self.reports += reports
    readable += 1
    counting(reports)
  }

  /// Counts what `reports`, read from a saved inventory or a store, say of their inputs as the inputs themselves
  /// would count: one not read wholly makes the answer partial, one not read at all is an input that could not be
  /// read. An inventory of broken apps otherwise read as if every app had been read (`report` exiting 0).
  mutating func counting(_ reports: [InspectionReport]) {
    for report in reports where report.status != .complete {
      partial = true
      if report.status == .unreadable { unreadable += 1 }
    }
  }
}
