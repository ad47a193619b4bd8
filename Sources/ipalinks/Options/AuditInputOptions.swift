import ArgumentParser
import Foundation
import IPALinksKit

/// The options every audit command shares for inputs that still need inspecting.
struct AuditInputOptions: ParsableArguments {
  @Flag(name: .customLong("no-fetch"), help: "Do not look up the AASA files of inspected inputs.")
  var noFetch = false

  // Optional, so the help says "the number of CPU cores" rather than the count of the machine that built the page.
  @Option(
    name: .customLong("jobs"),
    help: ArgumentHelp(
      "How many inputs to inspect at once, and threads for saved inventories and --urls (default: the number of CPU cores).",
      valueName: "n"))
  var requestedJobs: Int?
  var jobs: Int { requestedJobs ?? ProcessInfo.processInfo.activeProcessorCount }

  @Flag(name: .customLong("no-progress"), help: "No progress bar, even when stderr is a terminal.")
  var noProgress = false

  @Flag(name: .shortAndLong, help: "Print only errors on stderr: no progress bar, no notes.")
  var quiet = false

  func validate() throws {
    if !(1...256).contains(jobs) { throw ValidationError("--jobs must be from 1 to 256") }
  }

  /// The library's ``LoadedInventory`` with these options, with the progress bar of a batch while inputs are
  /// inspected; each problem goes to stderr as it is found, one line per input, and each failing AASA host once at
  /// the end, as `inspect` reports them.
  func load(
    _ paths: [String], inventories: [String] = [], order: LoadedInventory.Order = .byInput, fetch: FetchOptions
  ) async throws -> LoadedInventory {
    let fetcher = noFetch ? nil : try fetch.makeFetcher()
    let console = BatchConsole(progress: !noProgress, quiet: quiet)
    let loaded = await LoadedInventory.load(
      paths, inventories: inventories, order: order, fetcher: fetcher, jobs: jobs, problem: console.problem,
      willInspect: console.begin(total:), started: console.started, inspected: console.finished)
    console.end()
    return loaded
  }
}
