import ArgumentParser
import Foundation
import IPALinksKit

/// Reports from what a user names: saved inventories (`.json`, `.jsonl`, `-`) are read, anything else is inspected
/// like `inspect` does (folders walked for *.ipa, AASA files fetched once per host). Shared by `diff`, `report` and
/// `who-claims`.
struct LoadedInventory {
  var reports: [InspectionReport] = []
  /// Something could not be read (an input, a file, a domain); the rest is here.
  var partial = false
  /// Paths that gave nothing at all.
  var failed = 0

  /// Reads and inspects `paths`; every problem is printed on stderr, naming the file.
  static func load(
    _ paths: [String], inventories: [String] = [], fetch: FetchOptions, noFetch: Bool, jobs: Int
  ) async throws -> LoadedInventory {
    var loaded = LoadedInventory()
    for path in inventories + paths.filter(InventoryReader.looksLikeInventory) {
      do {
        loaded.reports += try InventoryReader.read(path: path)
      } catch {
        Terminal.printError("ipalinks: \(error)")
        loaded.partial = true
        loaded.failed += 1
      }
    }
    let collected = BatchInputs.collect(paths.filter { !InventoryReader.looksLikeInventory($0) })
    for problem in collected.problems {
      Terminal.printError("ipalinks: \(problem)")
      loaded.partial = true
      loaded.failed += 1
    }
    let toInspect = collected.inputs
    guard !toInspect.isEmpty else {
      loaded.sortByInput()
      return loaded
    }
    let fetches = noFetch ? nil : SharedAASAFetches(fetcher: try AASARetrieval.makeFetcher(fetch))
    await BatchInspector(jobs: jobs, fetches: fetches).run(toInspect) { report in
      if let line = Inspect.problemLine(report) { Terminal.printError(line) }
      if report.status != .complete { loaded.partial = true }
      if report.status == .unreadable { loaded.failed += 1 }
      loaded.reports.append(report)
    }
    loaded.sortByInput()
    return loaded
  }

  /// Batches (and inventories saved from them) hold reports in the order inputs finished; sorting, stably, makes
  /// every output independent of that timing.
  mutating func sortByInput() {
    reports = reports.enumerated().sorted { ($0.element.input, $0.offset) < ($1.element.input, $1.offset) }.map(
      \.element)
  }
}
