import Foundation
import Testing
import UniversalLinks

@testable import IPALinksKit

@Suite struct InventoryReaderTests {
  static let names = ["Store.ipa", "Nested.ipa", "Fat.ipa", "Enterprise.ipa", "Profile.ipa", "XcentOnly.ipa"]

  /// A report with more bundles than `inspect` ever writes, or a bundle with ten times the domain entries, is no report:
  /// refused before its elements are decoded, where 500,000 empty bundles in 6 MB took 400 MB of memory.
  @Test func aReportLargerThanInspectWritesIsRefused() throws {
    func report(bundles: Int, domains: Int = 0) -> Data {
      let domain = #"{"raw":"applinks:a.example","service":"applinks","host":"a.example","wildcard":false}"#
      let bundle =
        #"{"path":"Payload/A.app","associatedDomains":["#
        + Array(repeating: domain, count: domains).joined(separator: ",") + "]}"
      return Data(
        (#"{"input":"a.ipa","bundles":["# + Array(repeating: bundle, count: bundles).joined(separator: ",") + "]}")
          .utf8)
    }
    let decoder = JSONDecoder()
    #expect(try decoder.decode(InspectionReport.self, from: report(bundles: 256, domains: 2)).bundles.count == 256)
    #expect(
      try decoder.decode(InspectionReport.self, from: report(bundles: 1, domains: 10_000)).bundles[0]
        .associatedDomains.count == 10_000)
    for (bundles, domains) in [(257, 0), (500_000, 0), (1, 10_001)] {
      #expect(throws: DecodingError.self, "\(bundles) bundles, \(domains) domains") {
        try decoder.decode(InspectionReport.self, from: report(bundles: bundles, domains: domains))
      }
    }
  }

  /// A report from a newer ipalinks, with a diagnostic code, an AASA status and a bundle kind this one does not know,
  /// is read: the finding keeps its severity with its code in its message, the file is unknown (not definite), the
  /// bundle is an app. The whole line was refused, and the app with it.
  @Test func aReportFromANewerVersionIsRead() throws {
    let line = """
      {"input":"a.ipa","diagnostics":[{"severity":"error","code":"archive.future-problem","message":"m"}],
      "bundles":[{"path":"Payload/A.app","kind":"future-kind","associatedDomains":[{"raw":"applinks:a.example",
      "service":"applinks","host":"a.example","wildcard":false,"aasa":{"host":"a.example",
      "status":"rate-limited","message":"slow down"}}]}]}
      """
    let report = try JSONDecoder().decode(InspectionReport.self, from: Data(line.utf8))
    #expect(report.diagnostics.first?.code == .inventoryUnknownCode)
    #expect(report.diagnostics.first?.message == "[archive.future-problem] m")
    #expect(report.status != .complete, "an error of an unknown code still counts")
    #expect(report.bundles.first?.kind == .app)
    let result = try #require(report.bundles.first?.associatedDomains.first?.aasa?.fetch, "\(report)")
    #expect(result.status == .unreadable && !result.status.isDefinite)
    #expect(result.message == "status rate-limited, which this ipalinks does not know: the file is unknown (slow down)")
  }

  /// Saved inventories must read back to the same report: encoding what was read gives the same bytes.
  @Test func savedReportsReadBackToTheSameJSON() async throws {
    let reports = try await InspectedSamples.reports(Self.names)
    for report in reports {
      let saved = JSONReporter.render(report)
      let read = try InventoryReader.read(Data(saved.utf8), name: "saved.json")
      #expect(read.count == 1)
      #expect(JSONReporter.render(read[0]) == saved, "\(report.input)")
      #expect(read[0].status == report.status)
    }
    // The rules come back with the bundle's app id, so the matcher and blocklists work on them.
    let store = try InventoryReader.read(Data(JSONReporter.render(reports[0]).utf8), name: "s.json")[0]
    let shop = try #require(store.bundles[0].associatedDomains.first { $0.host == "shop.example.com" }?.aasa?.appLinks)
    #expect(shop.appID == "ST0REAPP42.com.example.store")
    #expect(AASAMatcher(rules: shop).verdict(for: "https://shop.example.com/buy/1").verdict == .match)
  }

  @Test func objectArrayAndJSONLinesAreTheSameInventory() async throws {
    let reports = try await InspectedSamples.reports(Self.names)
    let lines = reports.map { JSONReporter.render($0, pretty: false) }.joined(separator: "\n") + "\n\n"
    let array = JSONReporter.render(reports)
    let fromLines = try InventoryReader.read(Data(lines.utf8), name: "x.jsonl")
    let fromArray = try InventoryReader.read(Data(array.utf8), name: "x.json")
    #expect(fromLines.count == Self.names.count)
    #expect(JSONReporter.render(fromLines) == array)
    #expect(JSONReporter.render(fromArray) == array)
  }

  @Test func aBadLineIsNamedWithItsNumber() {
    let text = #"{"input":"a.ipa","bundles":[]}"# + "\n" + #"{"input":"b.ipa","bundles":[{"kind":"app"}]}"# + "\n"
    #expect {
      try InventoryReader.read(Data(text.utf8), name: "inv.jsonl")
    } throws: { error in
      "\(error)" == #"inv.jsonl: line 2 is not an ipalinks inventory: bundles[0]: missing key "path""#
    }
    #expect(throws: InventoryReader.Failure.self) { try InventoryReader.read(Data("[1]".utf8), name: "x") }
    #expect(throws: InventoryReader.Failure.self) { try InventoryReader.read(Data("\n \n".utf8), name: "x") }
    // What cannot be opened or read is said with the system's reason.
    #expect(
      throws: InventoryReader.Failure(description: "/nonexistent/inv.json: cannot read: No such file or directory")
    ) {
      try InventoryStream(path: "/nonexistent/inv.json")
    }
    let folder = FileManager.default.temporaryDirectory.path
    #expect(throws: InventoryReader.Failure(description: "\(folder): cannot read: Is a directory")) {
      try InventoryStream(path: folder)
    }
    // Past the limit (here 1 MiB of an endless file), the store is named as where a larger inventory goes.
    #expect {
      try InventoryStream(path: "/dev/zero", byteLimit: 1 << 20)
    } throws: { error in
      "\(error)" == "/dev/zero: larger than the 1 MiB an inventory may have; `ipalinks store import` reads JSON "
        + "Lines of any size into a store, which the readers take with --store"
    }
  }

  /// Lines decoded on several threads come back in file order, and the first bad line is the one named, whichever
  /// thread decoded it.
  @Test func linesDecodedInParallelKeepTheirOrder() throws {
    let good = (0..<400).map { #"{"input":"app\#($0).ipa","bundles":[]}"# }
    let text = good.joined(separator: "\n") + "\n"
    for workers in [1, 2, 4] {
      let read = try InventoryReader.read(Data(text.utf8), name: "x.jsonl", workers: workers)
      #expect(read.map(\.input) == (0..<400).map { "app\($0).ipa" }, "\(workers) workers")
    }
    // Bad lines at 351 and 12 (blank lines count): the earlier one is named.
    var lines = good
    lines.insert("", at: 5)
    lines[350] = #"{"input":"x.ipa","bundles":[{"kind":"app"}]}"#
    lines[11] = "{"
    for workers in [1, 2, 4] {
      #expect {
        try InventoryReader.read(Data(lines.joined(separator: "\n").utf8), name: "x.jsonl", workers: workers)
      } throws: { error in
        "\(error)".hasPrefix("x.jsonl: line 12 is not an ipalinks inventory")
      }
    }
  }

  /// Apps on one host each carry its file's list of apps; read back, equal lists are one list in memory (75% of
  /// `make bench-store`'s inventory is these lists: reading it for `blocklist` took 1.3 GB, now 0.36), and a list
  /// that only looks the same (same host, length, first and last app) keeps what it says. Read either way (a
  /// stream of lines or a whole document), the reports encode to the bytes they were saved as.
  @Test func equalListsOfAppsAreKeptOnce() async throws {
    var report = try #require(try await InspectedSamples.reports(["Store.ipa"]).first)
    let domain = try #require(report.bundles[0].associatedDomains.firstIndex { $0.aasa?.status == .ok })
    let listed = (0..<6).map { "TEAM\($0).com.example.app\($0)" }
    func copy(_ name: String, listing apps: [String]) -> InspectionReport {
      var copy = report
      copy.input = name
      copy.bundles[0].associatedDomains[domain].aasa?.listedApps = apps
      return copy
    }
    var other = listed
    other[2] = "TEAM9.com.example.other"
    report = copy("a.ipa", listing: listed)
    let reports = [
      report, copy("b.ipa", listing: listed), copy("c.ipa", listing: other), copy("d.ipa", listing: listed),
    ]
    let lines = reports.map { JSONReporter.render($0, pretty: false) }.joined(separator: "\n") + "\n"
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("shared-\(UUID().uuidString).jsonl")
    try Data(lines.utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let stream = try InventoryStream(path: file.path, workers: 2)
    var streamed: [InspectionReport] = []
    while let batch = try stream.next(2) { streamed += batch.reports }
    for read in [streamed, try InventoryReader.read(Data(lines.utf8), name: "x.jsonl", workers: 2)] {
      try #require(read.count == 4)
      #expect(JSONReporter.render(read) == JSONReporter.render(reports))
      let lists = read.map { $0.bundles[0].associatedDomains[domain].aasa?.listedApps ?? [] }
      let storage = lists.map { $0.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } }
      #expect(lists == [listed, listed, other, listed])
      #expect(storage[0] == storage[1] && storage[0] == storage[3], "equal lists are one")
      #expect(storage[2] != storage[0], "a list that differs is its own")
    }
    // What is kept is bounded in bytes: past the bound, lists stay each report's own, as they read.
    let small = SharedLists(mostBytes: 100)
    var copies = try lines.split(separator: "\n").map {
      try JSONDecoder().decode(InspectionReport.self, from: Data($0.utf8))
    }
    for index in copies.indices { small.share(&copies[index]) }
    let lists = copies.map { $0.bundles[0].associatedDomains[domain].aasa?.listedApps ?? [] }
    #expect(lists == [listed, listed, other, listed])
    let storage = lists.map { $0.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } }
    #expect(Set(storage).count == 4, "nothing shared past the bound")
  }
}

@Suite struct InventoryDiffTests {
  /// Three apps share shop.example.com's file, and one edit removes a rule from it: the change is told once, under
  /// the file, naming the three, and a URL whose verdict stays while another rule decides is told apart.
  @Test func aSharedFilesChangeIsToldOnceWithTheAppsItAffects() async throws {
    let store = try await InspectedSamples.report("Store.ipa")
    func apps(_ edit: (inout AppLinkRules) -> Void) throws -> [InspectionReport] {
      try (1...3).map { number in
        var report = store
        report.input = "app\(number).ipa"
        report.bundles[0].bundleId = "com.example.app\(number)"
        report.bundles[0].appId = "ST0REAPP42.com.example.app\(number)"
        let shop = try #require(report.bundles[0].associatedDomains.firstIndex { $0.host == "shop.example.com" })
        var rules = try #require(report.bundles[0].associatedDomains[shop].aasa?.appLinks)
        rules.appID = "ST0REAPP42.com.example.app\(number)"
        edit(&rules)
        report.bundles[0].associatedDomains[shop].aasa?.appLinks = rules
        return report
      }
    }
    let old = try apps { _ in }
    // /buy/gift/* is dropped, so /buy/gift/card opens the apps; /buy/1 is still a match, by the same rule.
    let new = try apps { $0.rules.removeFirst() }
    let diff = InventoryDiff(
      old: old, new: new, urls: ["https://shop.example.com/buy/gift/card", "https://shop.example.com/buy/1"])
    #expect(diff.bundles.count == 3)
    let files = diff.files
    #expect(files.count == 1 && files[0].domain == "shop.example.com")
    #expect(files[0].changes.count == 1)
    #expect(files[0].changes[0].appIds == (1...3).map { "ST0REAPP42.com.example.app\($0)" })
    // In JSON, a change of `files` is flat, as history and refresh write theirs: `appIds` beside `kind`.
    let json = try #require(
      JSONSerialization.jsonObject(with: JSONEncoder().encode(diff)) as? [String: Any])
    let shared = try #require(((json["files"] as? [[String: Any]])?.first?["changes"] as? [[String: Any]])?.first)
    #expect(shared["kind"] as? String == "rule removed" && shared["appIds"] as? [String] == files[0].changes[0].appIds)
    #expect(shared["change"] == nil && shared["appId"] == nil, "\(shared)")
    let text = AuditTextReporter(useColor: false, width: 80).render(diff)
    #expect(text.components(separatedBy: "~ rule removed").count == 2, "\(text)")
    #expect(text.contains("applinks:shop.example.com, for 3 apps: ST0REAPP42.com.example.app1,"), "\(text)")
    // The bundles' own sections hold nothing else, so they are not printed.
    #expect(!text.contains("com.example.app1 (Store Sample)"), "\(text)")
    #expect(text.hasSuffix("3 bundles differ; 1 AASA file behaves differently; 1 of 2 URLs changed verdict\n"))
    #expect(text.contains("URLs that changed verdict (1 of 2)\n  ~ https://shop.example.com/buy/gift/card\n"))
    #expect(text.contains("\n    → match ST0REAPP42.com.example.app1 /applinks/details/0/components/1"), "\(text)")
    #expect(!text.contains("URLs with the same verdict"))
  }

  /// A URL whose verdict stays but whose deciding rule moves is told apart from one whose verdict changed.
  @Test func aRuleThatMovesIsNotAChangedVerdict() async throws {
    let old = try await InspectedSamples.report("Store.ipa")
    var new = old
    let shop = try #require(new.bundles[0].associatedDomains.firstIndex { $0.host == "shop.example.com" })
    var rules = try #require(new.bundles[0].associatedDomains[shop].aasa?.appLinks)
    // Another rule, listed first, now opens /buy/1.
    var first = rules.rules[1]
    first.reference = MatchedRule(
      detailIndex: 0, componentIndex: 9, kind: .component, pattern: #"{"/": "/buy/1"}"#, exclude: false,
      pointer: "/applinks/details/0/components/9")
    first.path = "/buy/1"
    rules.rules.insert(first, at: 0)
    new.bundles[0].associatedDomains[shop].aasa?.appLinks = rules
    let diff = InventoryDiff(old: [old], new: [new], urls: ["https://shop.example.com/buy/1"])
    #expect(diff.verdicts.count == 1 && !diff.verdicts[0].verdictChanged)
    let text = AuditTextReporter(useColor: false, width: 80).render(diff)
    #expect(text.contains("No sample URL changed verdict (1 compared)."), "\(text)")
    #expect(
      text.contains(
        """
        URLs with the same verdict, decided by another app or rule (1 of 1)
          ~ https://shop.example.com/buy/1
              match ST0REAPP42.com.example.store /applinks/details/0/components/1
            → match ST0REAPP42.com.example.store /applinks/details/0/components/9
        """), "\(text)")
  }

  /// A second app of the same bundle id (another team's build, claiming a domain of its own) is added, and one that
  /// went is removed, beside the app the sides share; only the first of each bundle id was compared, and the
  /// second app read as no difference.
  @Test func aSecondAppOfTheSameBundleIDIsAChangeOfItsOwn() async throws {
    let store = try await InspectedSamples.report("Store.ipa")
    var other = store
    other.input = "enterprise/Store.ipa"
    other.bundles[0].appId = "TEAMBBBBB2.com.example.store"
    other.bundles[0].teamId = "TEAMBBBBB2"
    other.bundles[0].urlSchemes = ["otherapp"]
    let added = InventoryDiff(old: [store], new: [store, other])
    #expect(added.hasDifferences && added.bundles.count == 1, "\(added.bundles)")
    #expect(added.bundles.first?.change == .added && added.bundles.first?.new?.appId == other.bundles[0].appId)
    #expect(added.bundles.first?.schemesAdded == ["otherapp"])
    let removed = InventoryDiff(old: [other, store], new: [store])
    #expect(removed.bundles.map(\.change) == [.removed] && removed.bundles[0].old?.input == "enterprise/Store.ipa")
    // Both sides with both apps, in either order: nothing differs.
    #expect(!InventoryDiff(old: [store, other], new: [other, store]).hasDifferences)
    let text = AuditTextReporter(useColor: false, width: 80).render(added)
    #expect(text.hasPrefix("+ bundle com.example.store (Store Sample) in enterprise/Store.ipa\n"), "\(text)")
  }

  /// The same `?mode=developer` entry in a development build (active) and in the App Store build (inactive) differs:
  /// it no longer opens anything. It read as no difference, as did the distribution.
  @Test func anEntryThatStopsBeingActiveIsAChange() async throws {
    let release = try await InspectedSamples.report("Store.ipa")
    var development = release
    let dev = try #require(development.bundles[0].associatedDomains.firstIndex { $0.host == "dev.example.com" })
    #expect(development.bundles[0].associatedDomains[dev].inactiveReason == .developerModeUnavailable)
    development.bundles[0].associatedDomains[dev].inactiveReason = nil
    development.bundles[0].distribution = "development"
    let diff = InventoryDiff(old: [development], new: [release])
    let change = try #require(diff.bundles.first)
    #expect(change.fields.map(\.field) == ["distribution"])
    let domain = try #require(change.domains.first { $0.domain == "dev.example.com?mode=developer" })
    #expect(domain.oldActive == true && domain.newActive == false)
    #expect(domain.inactiveReason == InactiveReason.developerModeUnavailable.message)
    let text = AuditTextReporter(useColor: false, width: 80).render(diff)
    #expect(
      text.contains(
        """
          applinks:dev.example.com?mode=developer
            ~ active: yes → no: developer mode works only in development-signed builds
                (get-task-allow)
        """), "\(text)")
  }

  @Test func identicalInventoriesHaveNoDifferences() async throws {
    let reports = try await InspectedSamples.reports(InventoryReaderTests.names)
    let diff = InventoryDiff(old: reports, new: reports, urls: ["https://shop.example.com/buy/1"])
    #expect(!diff.hasDifferences)
    #expect(diff.urlsCompared == 1)
  }

  /// Version 8.2 of the store app: a domain and a scheme added, one of each removed, rules reordered and changed.
  @Test func changesBetweenVersionsAreReportedPerBundle() async throws {
    let old = try await InspectedSamples.report("Store.ipa")
    var new = old
    new.bundles[0].version = "8.2"
    new.bundles[0].urlSchemes = ["storeapp", "storeapp-v2"]
    var diagnostics: [Diagnostic] = []
    new.bundles[0].associatedDomains.removeAll { $0.service == .webcredentials }
    new.bundles[0].associatedDomains.append(
      AssociatedDomain.parse("applinks:new.example.com", diagnostics: &diagnostics))
    let shop = try #require(new.bundles[0].associatedDomains.firstIndex { $0.host == "shop.example.com" })
    var rules = try #require(new.bundles[0].associatedDomains[shop].aasa?.appLinks)
    // The exclusion moves from first to last: /buy/gift/* now opens the app, as the verdicts must show.
    rules.rules.append(rules.rules.removeFirst())
    rules.rules.removeAll { $0.path == "/help/*" }
    new.bundles[0].associatedDomains[shop].aasa?.appLinks = rules

    let diff = InventoryDiff(
      old: [old], new: [new],
      urls: [
        "https://shop.example.com/buy/gift/card", "https://shop.example.com/help/x#app",
        "https://shop.example.com/buy/1",
      ])
    #expect(diff.hasDifferences)
    let change = try #require(diff.bundles.first)
    #expect(diff.bundles.count == 1)
    #expect(change.key == "com.example.store" && change.change == .changed)
    #expect(change.fields == [InventoryDiff.FieldChange(field: "version", old: "1.2.3", new: "8.2")])
    #expect(change.domainsAdded == [InventoryDiff.Entry(service: .applinks, domain: "new.example.com")])
    #expect(change.domainsRemoved == [InventoryDiff.Entry(service: .webcredentials, domain: "example.com")])
    #expect(change.schemesAdded == ["storeapp-v2"])
    #expect(change.schemesRemoved == ["fb1234567890"])
    let domain = try #require(change.domains.first { $0.domain == "shop.example.com" })
    // Compared by behaviour, as `aasa diff` compares files: each change with an example URL on the domain.
    #expect(domain.changes.map(\.kind) == [.ruleRemoved, .rulesReordered])
    let removed = domain.changes[0]
    #expect(removed.appId == "ST0REAPP42.com.example.store")
    #expect(removed.new.isEmpty && removed.old.count == 1)
    #expect(removed.example?.hasPrefix("https://shop.example.com/help/") == true)
    #expect(removed.oldVerdict == .match && removed.newVerdict == .noMatch)
    let reordered = domain.changes[1]
    #expect(reordered.example?.hasPrefix("https://shop.example.com/buy/gift/") == true)
    #expect(reordered.oldVerdict == .exclude && reordered.newVerdict == .match)

    #expect(
      diff.verdicts.map(\.url) == ["https://shop.example.com/buy/gift/card", "https://shop.example.com/help/x#app"])
    #expect(diff.verdicts[0].old.verdict == .exclude && diff.verdicts[0].new.verdict == .match)
    #expect(diff.verdicts[1].old.verdict == .match && diff.verdicts[1].new.verdict == .noMatch)

    let text = AuditTextReporter(useColor: false).render(diff)
    #expect(text.contains("~ version: 1.2.3 → 8.2"))
    #expect(text.contains("+ applinks:new.example.com"))
    #expect(text.contains("- URL scheme fb1234567890"))
    #expect(text.contains("    ~ rules reordered"))
    #expect(text.contains("      e.g. https://shop.example.com/buy/gift/"))
    #expect(text.contains("URLs that changed verdict (2 of 3)"))
  }

  @Test func bundlesAddedAndRemovedAndUnknownFilesAreNotCompared() async throws {
    let old = try await InspectedSamples.reports(["Store.ipa", "Fat.ipa"])
    var new = try await InspectedSamples.reports(["Store.ipa", "Enterprise.ipa"])
    let shop = try #require(new[0].bundles[0].associatedDomains.firstIndex { $0.host == "shop.example.com" })
    new[0].bundles[0].associatedDomains[shop].aasa?.fetch.status = .timeout
    let diff = InventoryDiff(old: old, new: new)
    #expect(
      diff.bundles.map { "\($0.change.rawValue) \($0.key)" }.sorted() == [
        "added com.example.enterprise", "changed com.example.store", "removed com.example.fat",
      ])
    let domain = try #require(diff.bundles.first { $0.change == .changed }?.domains.first)
    // A timeout says nothing about the rules: they are not reported as removed.
    #expect(domain.oldStatus == "ok" && domain.newStatus == "timeout")
    #expect(!domain.rulesCompared && domain.changes.isEmpty)
  }

  /// Rules written another way (a legacy `paths` entry for a `/` component, new pointers) but matching the same
  /// URLs are no change; a rule whose pattern differs is one, with an example URL.
  @Test func rewritingWithoutChangingBehaviourIsNoDifference() async throws {
    let old = try await InspectedSamples.report("Store.ipa")
    var new = old
    let shop = try #require(new.bundles[0].associatedDomains.firstIndex { $0.host == "shop.example.com" })
    var rules = try #require(new.bundles[0].associatedDomains[shop].aasa?.appLinks)
    for i in rules.rules.indices where rules.rules[i].query == nil && rules.rules[i].fragment == nil {
      rules.rules[i].reference.kind = .path
      rules.rules[i].reference.pattern = (rules.rules[i].exclude ? "NOT " : "") + (rules.rules[i].path ?? "")
      rules.rules[i].reference.pointer = "/applinks/details/0/paths/\(i)"
    }
    new.bundles[0].associatedDomains[shop].aasa?.appLinks = rules
    #expect(!InventoryDiff(old: [old], new: [new]).hasDifferences)

    let buy = try #require(rules.rules.firstIndex { $0.path == "/buy/*" })
    rules.rules[buy].path = "/buy/?*"
    new.bundles[0].associatedDomains[shop].aasa?.appLinks = rules
    let diff = InventoryDiff(old: [old], new: [new])
    let change = try #require(diff.bundles.first?.domains.first?.changes.first)
    #expect(change.kind == .ruleChanged)
    #expect(change.oldVerdict == .match && change.newVerdict == .noMatch)
  }
}

@Suite struct HostClaimsTests {
  @Test func exactAndWildcardEntriesClaimAHostAndTheRightOneDecides() async throws {
    let reports = try await InspectedSamples.reports(InventoryReaderTests.names)
    // shop.example.com is claimed exactly and through *.example.com; the exact entry decides.
    let shop = try #require(HostClaims(query: "SHOP.example.com", reports: reports))
    #expect(shop.claims.map(\.bundleId) == ["com.example.store"])
    let entries = shop.claims[0].entries
    #expect(entries.map(\.raw) == ["applinks:shop.example.com", "applinks:*.example.com"])
    #expect(entries.map(\.decides) == [true, false])
    #expect(shop.claims[0].rules.first?.exclude == true)

    // www.example.com only through the wildcard, whose file is the apex's.
    let www = try #require(HostClaims(query: "https://www.example.com/promo/summer/1", reports: reports))
    #expect(www.claims.count == 1)
    #expect(www.claims[0].verdict?.verdict == .match)
    #expect(www.claims[0].rules.first?.path == "/promo/$(campaign)/*")

    // The apex is not covered by *.example.com; only webcredentials and activitycontinuation name it.
    let apex = try #require(HostClaims(query: "example.com", reports: reports))
    #expect(apex.claims.count == 1)
    #expect(apex.claims[0].entries.allSatisfy { $0.service != .applinks })
    #expect(apex.claims[0].rules.isEmpty)

    // A batch saves reports in the order they finished; the answer must not depend on it.
    let forward = try #require(HostClaims(query: "menu.nested.example.com", reports: reports))
    let backward = try #require(HostClaims(query: "menu.nested.example.com", reports: reports.reversed()))
    #expect(forward.claims.count == 2)
    #expect(forward.claims.map(\.bundleId) == backward.claims.map(\.bundleId))

    let nobody = try #require(HostClaims(query: "unclaimed.test", reports: reports))
    #expect(nobody.claims.isEmpty)
    #expect(HostClaims(query: "https://", reports: reports) == nil)
  }

  /// The text of hundreds of apps, each app's block made on a core of its own, is each block in the claims' order:
  /// what the blocks of the same apps say one at a time.
  @Test func theTextOfManyAppsKeepsTheirOrder() async throws {
    let store = try await InspectedSamples.reports(["Store.ipa"])[0]
    let reports = (0..<300).map { k in
      var report = store
      report.input = "store-\(k).ipa"
      return report
    }
    let claims = try #require(HostClaims(query: "https://shop.example.com/buy/1", reports: reports))
    #expect(claims.claims.count == 300)
    let reporter = AuditTextReporter(useColor: false, width: 80)
    let whole = reporter.render(claims).split(separator: "\n", omittingEmptySubsequences: false)
    var alone: [Substring] = [whole[0]]
    for claim in claims.claims {
      var one = claims
      one.claims = [claim]
      alone += reporter.render(one).split(separator: "\n", omittingEmptySubsequences: false).dropFirst().dropLast()
    }
    #expect(whole.dropLast() == alone[...])
    #expect(Set(claims.claims.map(\.input)).count == 300)
  }
}
