import ArgumentParser
import Foundation
import IPALinksKit
import IPALinksStore

/// The options of every command that inspects inputs in a batch: `inspect`, `blocklist`, `diff`, `report` and
/// `who-claims`.
struct BatchOptions: ParsableArguments {
  @Flag(name: .customLong("no-fetch"), help: "Report the apps only; do not look up the domains' AASA files.")
  var noFetch = false

  // Optional, so the help says "the number of CPU cores" rather than the count of the machine that built the page.
  @Option(
    name: .customLong("jobs"),
    help: ArgumentHelp(
      "How many inputs to inspect, and threads to use, at once (default: the number of CPU cores).", valueName: "n"))
  var requestedJobs: Int?
  var jobs: Int { requestedJobs ?? ProcessInfo.processInfo.activeProcessorCount }

  @OptionGroup var progress: ProgressOptions
  var noProgress: Bool { progress.noProgress }
  var quiet: Bool { progress.quiet }

  @Flag(name: .shortAndLong, help: "List every AASA host that failed, not the first five of each status.")
  var verbose = false

  /// The console of a batch with these options.
  var console: BatchConsole { console(side: nil) }

  /// The console of one batch; `side` names it in its lines, for a command that reads two (`diff`).
  func console(side: String?) -> BatchConsole {
    BatchConsole(progress: !noProgress, quiet: quiet, verbose: verbose, side: side)
  }

  func validate() throws {
    if !(1...256).contains(jobs) { throw ValidationError("--jobs must be from 1 to 256") }
  }

  /// The AASA fetches a batch shares, one per host, keeping each retrieval for `keepingRetrievals` (the store's
  /// run); nil with `--no-fetch`.
  func fetches(_ fetch: FetchOptions, keepingRetrievals: Bool) throws -> SharedAASAFetches? {
    noFetch ? nil : SharedAASAFetches(fetcher: try fetch.makeFetcher(), keepingRetrievals: keepingRetrievals)
  }

  /// The library's ``LoadedInventory`` with these options, under their ``BatchConsole``, and the latest state of
  /// the `store` when one is given (saying how many of its files are older than `filesOlderThan`, when given).
  func load(
    _ paths: [String], inventories: [String] = [], hosts: (named: [String], files: [String]) = ([], []),
    store: StoreReadOptions? = nil, about: String? = nil, changes: Bool = false, since: StoreTime? = nil,
    order: LoadedInventory.Order = .byInput, filesOlderThan: TimeInterval? = nil,
    fetch: FetchOptions, side: String? = nil
  ) async throws -> LoadedInventory {
    let readers = [("an input", paths), ("--inventory", inventories), ("--hosts", hosts.files)]
    if let problem = StandardInput.problem(readers) { throw ValidationError(problem) }
    let fetcher = noFetch ? nil : try fetch.makeFetcher()
    let console = console(side: side)
    let listed = try usageError { try HostInputs.hosts(hosts.named, files: hosts.files) }
    var loaded = await LoadedInventory.load(
      paths, inventories: inventories, hosts: listed, order: order, fetcher: fetcher, jobs: jobs,
      flags: try fetch.makeFetchOptions().flagsGiven, console: console, about: about)
    // The store's latest state is one more input; one it cannot read is trouble, as a file would be.
    if let store, let location = try store.location(besideInputs: !(paths + inventories + listed).isEmpty) {
      let read = await AuditStore.state(
        location, at: store.at, about: about, withChanges: changes, since: since, filesOlderThan: filesOlderThan,
        note: console.say, warn: console.problem)
      loaded.add(read.state, told: read.told)
      // Its inputs not read wholly are told as a saved inventory's are, as their inspection told them.
      read.state?.compactMap(InspectReporter.problemLine).forEach(console.problem)
      loaded.changes = read.changes
      // Changes asked for and not read (the connection lost while reading them) leave a page without its section:
      // partial, and the page says what it lacks. The section was dropped silently, exit 0.
      if read.state != nil && changes && read.changes == nil {
        loaded.partial = true
        let what = "what changed since " + (since.map { "\($0)" } ?? "the previous run")
        let why = read.changesUnread.isEmpty ? ["could not be read"] : read.changesUnread
        loaded.notRead += why.map { "\(what): \($0)" }
      }
    }
    // Hosts given with --host, and those a store watches: their claims are assumed.
    HostInputs.notes(loaded.reports).forEach(console.say)
    return loaded
  }
}
