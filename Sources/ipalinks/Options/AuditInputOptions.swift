import ArgumentParser
import Foundation
import IPALinksKit

/// The options every audit command shares for inputs that still need inspecting.
struct AuditInputOptions: ParsableArguments {
  @Flag(name: .customLong("no-fetch"), help: "Do not look up the AASA files of inspected inputs.")
  var noFetch = false

  @Option(help: "How many inputs to inspect at once.")
  var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

  func validate() throws {
    if !(1...256).contains(jobs) { throw ValidationError("--jobs must be from 1 to 256") }
  }

  /// The library's ``LoadedInventory`` with these options; each problem goes to stderr as it is found, one line
  /// per input, as a batch reports it.
  func load(_ paths: [String], inventories: [String] = [], fetch: FetchOptions) async throws -> LoadedInventory {
    let fetcher = noFetch ? nil : try fetch.makeFetcher()
    return await LoadedInventory.load(
      paths, inventories: inventories, fetcher: fetcher, jobs: jobs, problem: Terminal.warn,
      inspected: { InspectReporter.problemLine($0).map(Terminal.warn) })
  }
}
