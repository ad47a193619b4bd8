import Foundation
import Testing

@testable import IPALinksKit

/// The loading every audit command and `blocklist` share.
@Suite struct LoadedInventoryTests {
  static func sample(_ name: String) -> String { Fixtures.samples.appendingPathComponent(name).path }

  private func load(_ paths: [String], inventories: [String] = [], order: LoadedInventory.Order) async -> (
    loaded: LoadedInventory, problems: [String], inspected: [String]
  ) {
    var problems: [String] = []
    var inspected: [String] = []
    let loaded = await LoadedInventory.load(
      paths, inventories: inventories, order: order, fetcher: nil, jobs: 2, problem: { problems.append($0) },
      inspected: { inspected.append($0.input) })
    return (loaded, problems, inspected)
  }

  @Test func reportsComeByInputOrAsNamedWhateverOrderInputsFinish() async throws {
    let paths = [Self.sample("Store.ipa"), Self.sample("Nested.ipa"), Self.sample("Fat.ipa")]
    let byInput = await load(paths, order: .byInput)
    #expect(byInput.loaded.reports.map(\.input) == paths.sorted())
    #expect(Set(byInput.inspected) == Set(paths))
    let asNamed = await load(paths, order: .asNamed)
    #expect(asNamed.loaded.reports.map(\.input) == paths)
    #expect(asNamed.loaded.readable == 3 && !asNamed.loaded.partial && asNamed.problems.isEmpty)
  }

  @Test func savedInventoriesAreReadInTheirPlaceAndBadOnesNamed() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ipalinks-loaded-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let saved = folder.appendingPathComponent("saved.jsonl")
    let lines = ["z.ipa", "a.ipa"].map { #"{"input":"\#($0)","bundles":[]}"# }.joined(separator: "\n")
    try Data(lines.utf8).write(to: saved)
    let missing = folder.appendingPathComponent("missing.json").path

    let store = Self.sample("Store.ipa")
    let asNamed = await load([saved.path, store], inventories: [missing], order: .asNamed)
    #expect(asNamed.loaded.reports.map(\.input) == ["z.ipa", "a.ipa", store])
    #expect(asNamed.loaded.readable == 2 && asNamed.loaded.partial)
    #expect(asNamed.problems.count == 1 && asNamed.problems[0].hasPrefix(missing))
    #expect(asNamed.inspected == [store], "saved reports are not inspected")

    let byInput = await load([store, saved.path], order: .byInput)
    #expect(byInput.loaded.reports.map(\.input) == ["a.ipa", store, "z.ipa"].sorted())
  }

  @Test func unreadableInputsAreReportedButNotReadable() async {
    let result = await load([Fixtures.samples.appendingPathComponent("nothing-here.ipa").path], order: .byInput)
    #expect(result.loaded.reports.count == 1)
    #expect(result.loaded.readable == 0 && result.loaded.partial)
  }
}
