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

  /// Loaded about one host (`who-claims HOST`), only the apps that may claim it are kept, and every question on it
  /// is answered as from every app: each host the samples name, as itself, as a wildcard, below and above, and in a
  /// URL. Most apps are left out of most answers, so the memory is the claims', not the inventory's.
  @Test func aboutOneHostKeepsEveryAppItsAnswerShows() async throws {
    var options = AASAFetchOptions()
    options.aasaDirectories = [Fixtures.samples.appendingPathComponent("aasa")]
    let fetcher = try AASAFetcher(options: options)
    let all = await LoadedInventory.load(
      [Fixtures.samples.path], fetcher: fetcher, jobs: 2, problem: { _ in }, inspected: { _ in })
    let bundles = all.reports.flatMap(\.bundles)
    let hosts = Set(bundles.flatMap(\.associatedDomains).map(\.host))
    #expect(hosts.count > 5 && bundles.count > 5)
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    var (answered, leftOut) = (0, 0)
    for host in hosts.sorted() {
      let apex = host.split(separator: ".").suffix(2).joined(separator: ".")
      for query in [host, "*.\(host)", "menu.\(host)", apex, "*.\(apex)", "https://\(host)/promo/spring/1"] {
        let claimsAbout = LoadedInventory.claims(about: try #require(HostClaims.host(ofQuery: query)))
        let kept = all.reports.compactMap { LoadedInventory.report($0, keeping: claimsAbout) }
        let (whole, part) = (HostClaims(query: query, reports: all.reports), HostClaims(query: query, reports: kept))
        #expect(try encoder.encode(whole) == encoder.encode(part), "\(query)")
        if whole?.claims.isEmpty == false { answered += 1 }
        if kept.flatMap(\.bundles).count < bundles.count { leftOut += 1 }
      }
    }
    #expect(answered > 10 && leftOut > 10, "\(answered) \(leftOut)")
    // The loading itself keeps those apps, and still says what it read.
    let about = await LoadedInventory.load(
      [Fixtures.samples.path], fetcher: fetcher, jobs: 2, about: "https://shop.example.com/x", problem: { _ in },
      inspected: { _ in })
    #expect(about.reports.flatMap(\.bundles).compactMap(\.bundleId) == ["com.example.store"])
    #expect(about.readable == all.readable && about.partial == all.partial)
  }

  @Test func unreadableInputsAreReportedButNotReadable() async {
    let result = await load([Fixtures.samples.appendingPathComponent("nothing-here.ipa").path], order: .byInput)
    #expect(result.loaded.reports.count == 1)
    #expect(result.loaded.readable == 0 && result.loaded.partial)
  }
}
