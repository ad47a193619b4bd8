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

  @Flag(name: .customLong("no-progress"), help: "No progress bar, even when stderr is a terminal.")
  var noProgress = false

  @Flag(name: .shortAndLong, help: "Print only errors on stderr: no progress bar, no summary, no notes.")
  var quiet = false

  @Flag(name: .shortAndLong, help: "List every AASA host that failed, not the first five of each status.")
  var verbose = false

  /// The console of a batch with these options.
  var console: BatchConsole { BatchConsole(progress: !noProgress, quiet: quiet, verbose: verbose) }

  func validate() throws {
    if !(1...256).contains(jobs) { throw ValidationError("--jobs must be from 1 to 256") }
  }

  /// Runs the library's one batch pipeline (``BatchInspector/run(_:shard:jobs:fetches:problem:note:willInspect:started:finished:)``)
  /// under a ``BatchConsole``: the progress bar, a problem line per input as it is found, each failing AASA host
  /// once at the end, and Ctrl-C. What `willInspect` and `finished` return goes to standard output, with the bar out
  /// of the way; `finished` also gets the shared fetches, which keep each retrieval for `keepingRetrievals`.
  func inspect(
    _ paths: [String], shard: Shard? = nil, fetch: FetchOptions, keepingRetrievals: Bool = false,
    willInspect: (Int) -> String, finished: (InspectionReport, SharedAASAFetches?) async -> String
  ) async throws -> BatchInspector.Outcome {
    let console = console
    let fetches =
      noFetch ? nil : SharedAASAFetches(fetcher: try fetch.makeFetcher(), keepingRetrievals: keepingRetrievals)
    let outcome = await BatchInspector.run(
      paths, shard: shard, jobs: jobs, fetches: fetches, problem: console.problem, note: console.problem,
      willInspect: {
        console.output(willInspect($0))
        console.begin(total: $0)
      }, started: console.started
    ) { report in
      console.output(await finished(report, fetches))
      console.finished(report)
    }
    console.end()
    return outcome
  }

  /// The library's ``LoadedInventory`` with these options, inspected as
  /// ``inspect(_:shard:fetch:keepingRetrievals:willInspect:finished:)`` does, and the latest state of the `store`
  /// when one is given.
  func load(
    _ paths: [String], inventories: [String] = [], hosts: (named: [String], files: [String]) = ([], []),
    store: StoreReadOptions? = nil, about: String? = nil, changes: Bool = false, since: StoreTime? = nil,
    order: LoadedInventory.Order = .byInput,
    fetch: FetchOptions
  ) async throws -> LoadedInventory {
    let fetcher = noFetch ? nil : try fetch.makeFetcher()
    let console = console
    let listed: [String]
    do throws(HostInputs.ListError) { listed = try HostInputs.hosts(hosts.named, files: hosts.files) } catch {
      throw ValidationError(error.description)
    }
    let flags = try fetch.makeFetchOptions().flagsGiven
    if let note = LoadedInventory.unusedFlags(flags, paths: paths, inventories: inventories) {
      console.say(note)
    }
    var loaded = await LoadedInventory.load(
      paths, inventories: inventories, hosts: listed, order: order, fetcher: fetcher, jobs: jobs,
      problem: console.problem,
      willInspect: console.begin(total:), started: console.started, inspected: console.finished)
    console.end()
    // The store's latest state is one more input; one it cannot read is trouble, as a file would be.
    if let store, let location = try store.location(besideInputs: !(paths + inventories + listed).isEmpty) {
      let read = await AuditStore.state(
        location, at: store.at, about: about, withChanges: changes, since: since, warn: console.problem)
      loaded.add(read.state)
      loaded.changes = read.changes
    }
    // Hosts given with --host, and those a store watches: their claims are assumed.
    HostInputs.notes(loaded.reports).forEach(console.say)
    return loaded
  }
}
