import Foundation
import TestServers
import Testing

@testable import IPALinksKit

@Suite struct BatchInputsTests {
  func scratch() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("ipalinks-batch-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  @Test func foldersAreWalkedForRegularIPAFilesOnly() throws {
    let root = try scratch()
    defer { try? FileManager.default.removeItem(at: root) }
    let fm = FileManager.default
    func file(_ path: String) throws {
      let url = root.appendingPathComponent(path)
      try fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data("x".utf8).write(to: url)
    }
    try file("a/x.ipa")
    try file("b/c/y.IPA")
    try file(".hidden/z.ipa")
    try file("notes.txt")
    try file("Some.app/Info.plist")
    // A FIFO would block the reader forever; a link back to the root would loop.
    #expect(mkfifo(root.appendingPathComponent("fifo.ipa").path, 0o600) == 0)
    try fm.createSymbolicLink(atPath: root.appendingPathComponent("loop").path, withDestinationPath: root.path)
    try fm.createSymbolicLink(
      atPath: root.appendingPathComponent("link.ipa").path,
      withDestinationPath: root.appendingPathComponent("a/x.ipa").path)
    try fm.createSymbolicLink(
      atPath: root.appendingPathComponent("dangling.ipa").path, withDestinationPath: "/nonexistent")
    // An unzipped IPA named as the file was: one app, its insides not walked (its plug-in's IPA-named folder too).
    try file("Unzipped.ipa/Payload/X.app/Info.plist")
    try file("Unzipped.ipa/Payload/X.app/PlugIns/Inner.ipa/Info.plist")
    try fm.createDirectory(at: root.appendingPathComponent("plain.ipa/d"), withIntermediateDirectories: true)

    let (inputs, problems, notes) = BatchInputs.collect([root.path])
    #expect(problems.isEmpty)
    // The link to nothing is an input, whose error record then names it: a symlink farm's missing IPA is said.
    var report = InspectionReport(input: root.path + "/dangling.ipa", inputKind: .ipa)
    #expect(try InputLocator.locate(root.path + "/dangling.ipa", into: &report) == nil)
    #expect(
      report.diagnostics.map(\.message) == ["\(root.path)/dangling.ipa: a link to /nonexistent, which does not exist"])
    #expect(
      inputs == ["Unzipped.ipa", "a/x.ipa", "b/c/y.IPA", "dangling.ipa", "link.ipa"].map { root.path + "/" + $0 })
    #expect(
      notes == [
        "\(root.path): skipped 1 entry named .ipa that is not a file (a FIFO, a device or a socket, which a read "
          + "could wait on forever): \(root.path)/fifo.ipa",
        "\(root.path): skipped 1 link to a folder, which a walk does not follow (a link may lead back up and loop); "
          + "name it to walk it: \(root.path)/loop",
      ], "notes.txt and an app's Info.plist are not inputs of their own: \(notes)")
    // Named, as the note says, the link is walked, its inputs keeping the name it was given by; it found nothing.
    let linked = BatchInputs.collect([root.path + "/loop"])
    #expect(linked.problems.isEmpty, "\(linked.problems)")
    #expect(
      linked.inputs
        == ["Unzipped.ipa", "a/x.ipa", "b/c/y.IPA", "dangling.ipa", "link.ipa"].map { root.path + "/loop/" + $0 })
  }

  /// Files `inspect` reads when named, which a folder's walk passes over, are counted by kind and said.
  @Test func aWalkSaysWhatItSkipped() throws {
    let root = try scratch()
    defer { try? FileManager.default.removeItem(at: root) }
    let fm = FileManager.default
    try Data("x".utf8).write(to: root.appendingPathComponent("App.ipa"))
    try Data("<plist/>".utf8).write(to: root.appendingPathComponent("App.xcent"))
    try Data("<plist/>".utf8).write(to: root.appendingPathComponent("Other.entitlements"))
    try fm.copyItem(
      at: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "../../Fixtures/macho/thin64-xml-der.bin"
      ).standardized, to: root.appendingPathComponent("AppBinary"))
    try Data("not a Mach-O".utf8).write(to: root.appendingPathComponent("LICENSE"))
    let (inputs, problems, notes) = BatchInputs.collect([root.path])
    #expect(inputs == [root.path + "/App.ipa"] && problems.isEmpty)
    #expect(
      notes == [
        "\(root.path): skipped 1 Mach-O executable, 2 entitlements plists: a folder is walked for .ipa files only; "
          + "name them to inspect them"
      ])
  }

  @Test func appFoldersMissingFilesAndEmptyFoldersAreHandledOneByOne() throws {
    let root = try scratch()
    defer { try? FileManager.default.removeItem(at: root) }
    let app = root.appendingPathComponent("Unzipped.app")
    try FileManager.default.createDirectory(at: app, withIntermediateDirectories: true)
    let empty = root.appendingPathComponent("empty")
    try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
    // An unzipped IPA (a folder with Payload/) is one input, not a folder to walk.
    let unzipped = root.appendingPathComponent("unzipped")
    try FileManager.default.createDirectory(
      at: unzipped.appendingPathComponent("Payload/X.app"), withIntermediateDirectories: true)
    let (inputs, problems, _) = BatchInputs.collect([
      app.path, "/nonexistent/x.ipa", empty.path, app.path, unzipped.path,
    ])
    // The missing file stays an input so the inspector gives it its own error record; duplicates collapse.
    #expect(inputs == ["/nonexistent/x.ipa", app.path, unzipped.path])
    #expect(problems == ["\(empty.path): no .ipa files found in this folder"])
  }

  @Test func shardsPartitionTheSortedInputs() {
    let items = (0..<23).map { "in-\($0)" }
    for n in 1...7 {
      let shards = (1...n).map { Shard(index: $0, count: n).select(items) }
      #expect(shards.flatMap { $0 }.sorted() == items.sorted(), "n=\(n)")
      #expect(Set(shards.flatMap { $0 }).count == items.count, "n=\(n): overlap")
      let sizes = shards.map(\.count)
      #expect(sizes.max()! - sizes.min()! <= 1, "n=\(n): \(sizes)")
    }
    #expect(Shard(index: 2, count: 8).select(items) == ["in-1", "in-9", "in-17"])
  }

  @Test func shardSyntax() {
    #expect(Shard(parsing: "2/8") == Shard(index: 2, count: 8))
    #expect(Shard(parsing: "1/1") == Shard(index: 1, count: 1))
    for bad in ["0/3", "4/3", "a/b", "1/0", "1/2/3", "", "/", "-1/3", "2"] {
      #expect(Shard(parsing: bad) == nil, "\(bad)")
    }
  }
}

@Suite struct BatchInspectorTests {
  @Test func eachInputGetsItsOwnReportAndABadOneStopsNothing() async throws {
    let inputs = [
      Fixtures.samples.appendingPathComponent("Store.ipa").path, "/nonexistent/Gone.ipa",
      Fixtures.path("bad/not-a-zip.ipa"), Fixtures.samples.appendingPathComponent("Nested.ipa").path,
      Fixtures.samples.appendingPathComponent("Fat.ipa").path,
    ]
    var running = 0
    var mostRunning = 0
    var order: [String] = []
    var reports: [String: InspectionReport] = [:]
    await BatchInspector(jobs: 2, fetches: nil).run(
      inputs,
      started: { _ in
        running += 1
        mostRunning = max(mostRunning, running)
      },
      finished: { report in
        running -= 1
        order.append(report.input)
        reports[report.input] = report
      })
    #expect(order.count == inputs.count)
    #expect(Set(order) == Set(inputs))
    #expect(mostRunning == 2)
    #expect(reports["/nonexistent/Gone.ipa"]?.status == .unreadable)
    #expect(reports[Fixtures.path("bad/not-a-zip.ipa")]?.status == .unreadable)
    #expect(reports[inputs[0]]?.status == .complete)
    #expect(reports[inputs[3]]?.bundles.count == 5)

    var summary = BatchSummary()
    for input in inputs { summary.add(reports[input]!) }
    #expect((summary.inputs, summary.complete, summary.unreadable) == (5, 3, 2))
    #expect(summary.exitStatus == .partial)
  }

  @Test func summaryStatus() {
    var summary = BatchSummary()
    #expect(summary.exitStatus == .complete)
    summary.add(
      InspectionReport(input: "x", inputKind: .unknown, diagnostics: [Diagnostic(.error, .inputUnreadable, "x")]))
    #expect(summary.exitStatus == .unreadable)
  }
}

@Suite struct SharedAASAFetchesTests {
  /// Forty apps inspected at once that all claim one host: the server sees one request for it.
  @Test func aHostClaimedByFortyAppsIsFetchedOnce() async throws {
    try await FetchHarness.run { h in
      h.server.respond(
        host: "shared.example.test", path: FetchHarness.wellKnown,
        with: .json(FetchHarness.sampleJSON, delay: .milliseconds(300)))
      for i in 0..<40 {
        h.server.respond(
          host: "own\(i).example.test", path: FetchHarness.wellKnown, with: .json(FetchHarness.sampleJSON))
      }
      // The test counts requests, not time: a generous timeout keeps a loaded machine from failing a fetch, and
      // every result is checked, so a fetch that fails anyway is named rather than seen as a missing request.
      let fetches = SharedAASAFetches(fetcher: try AASAFetcher(options: h.options(timeout: TestTiming.seconds(60))))
      let results = await withTaskGroup(of: [AASAFetchResult?].self) { group in
        for i in 0..<40 {
          group.addTask {
            let shared = AASARequest(host: "shared.example.test")
            let own = AASARequest(host: "own\(i).example.test")
            let got = await fetches.results(for: [shared, own])
            return [got[shared]?.result, got[own]?.result]
          }
        }
        return await group.reduce(into: [AASAFetchResult?]()) { $0 += $1 }
      }
      #expect(results.count == 80)
      for result in results { #expect(result?.status == .ok, "\(String(describing: result))") }
      #expect(h.server.requests(host: "shared.example.test").count == 1)
      #expect(h.server.requests.count == 41)
      #expect(await fetches.fetched == 41)
      #expect(await fetches.requested == 80)
    }
  }
}
