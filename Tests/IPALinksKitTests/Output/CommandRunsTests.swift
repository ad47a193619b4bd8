import Foundation
import Testing

@testable import IPALinksKit

/// What the commands do once their arguments are parsed, where the command-line tests do not reach: names that do
/// or do not say a blocklist's format, the edge cases of the checks, and the exit codes of the failure paths.
@Suite struct CommandRunsTests {
  private static func folder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ipalinks-runs-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
  }

  @Test func aBlocklistFormatIsWhatIsAskedForElseWhatTheOutputNameSays() throws {
    #expect(try BlocklistFormat.chosen(nil, output: nil) == .swift)
    #expect(try BlocklistFormat.chosen(nil, output: "-") == .swift)
    #expect(try BlocklistFormat.chosen(nil, output: "out/Guard.SWIFT") == .swift)
    #expect(try BlocklistFormat.chosen(nil, output: "site/guard.js") == .js)
    // Only the file's own name counts: a dot in a folder's name, or a name that starts with one, is no extension.
    #expect(try BlocklistFormat.chosen(nil, output: "lists.v2/guard") == .swift)
    #expect(try BlocklistFormat.chosen(nil, output: ".guard") == .swift)
    // Asked for, a format is taken whatever the name.
    #expect(try BlocklistFormat.chosen(.regex, output: "rules.json") == .regex)
  }

  @Test func aNameThatCouldBeSeveralFormatsIsRefusedNamingThem() {
    #expect {
      try BlocklistFormat.chosen(nil, output: "www/rules.json")
    } throws: { error in
      let text = "\(error)"
      return text.hasPrefix("rules.json could be either of two formats")
        && text.contains("--format rules ") && text.contains("--format wkcontentrules ")
    }
    #expect {
      try BlocklistFormat.chosen(nil, output: "hosts\u{1B}[2J.txt")
    } throws: { error in
      // The name is escaped: it reaches the terminal.
      "\(error)"
        == #"Give --format for hosts\u{1b}[2J.txt: wkcontentrules, swift, js, domains, patterns, regex, rules."#
    }
  }

  @Test func aListIsMadeFromSomethingReadOrFromHostsToBlockWhole() {
    var nothing = LoadedInventory()
    #expect(!BlocklistOutput.canMake(from: nothing, uncovered: .skip, output: nil))
    #expect(!BlocklistOutput.canMake(from: nothing, uncovered: .block, output: "rules.json"))
    // A host whose file could not be read: nothing was read, but blocking it whole is a list that fails closed.
    let host = InspectionReport(
      input: "shop.example.com", inputKind: .host,
      diagnostics: [Diagnostic(.error, .inputUnreadable, "shop.example.com: timed out")])
    nothing.reports = [host]
    #expect(!BlocklistOutput.canMake(from: nothing, uncovered: .skip, output: nil))
    #expect(BlocklistOutput.canMake(from: nothing, uncovered: .block, output: nil))
    let read = LoadedInventory(reports: [InspectionReport(input: "a.ipa", inputKind: .ipa)])
    #expect(BlocklistOutput.canMake(from: read, uncovered: .skip, output: nil))
  }

  @Test func anAASAFileThatCannotBeReadExits66AndOneThatIsNotAASA65() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let missing = folder.appendingPathComponent("missing.json").path
    #expect {
      try AASAInput.load(missing)
    } throws: { ($0 as? AASAInput.Failure)?.exitCode == 66 }
    let garbage = folder.appendingPathComponent("garbage.json")
    try Data("not json".utf8).write(to: garbage)
    #expect {
      try AASAInput.load(garbage.path)
    } throws: { ($0 as? AASAInput.Failure)?.exitCode == 65 }
    #expect(AASAInput.Failure.tooLarge(path: "big.json").exitCode == 65)
  }

  @Test func sampleURLsAreThoseGivenThenTheListsOrNilForAListThatCannotBeRead() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    #expect(InventoryDiff.sampleURLs(["https://a.example/1"], listedIn: nil) == ["https://a.example/1"])
    let list = folder.appendingPathComponent("urls.txt")
    try Data("# samples\nhttps://b.example/2\n\n  https://c.example/3  \n".utf8).write(to: list)
    #expect(
      InventoryDiff.sampleURLs(["https://a.example/1"], listedIn: list.path)
        == ["https://a.example/1", "https://b.example/2", "https://c.example/3"])
    #expect(InventoryDiff.sampleURLs([], listedIn: folder.appendingPathComponent("none.txt").path) == nil)
  }

  @Test func aSideWithoutABundleIsTroubleNotADifference() {
    let read = LoadedInventory(reports: [InspectionReport(input: "a.ipa", inputKind: .ipa)])
    #expect(InventoryDiff.compare(read, read, urls: [], format: .json) == 2)
  }

  @Test func whoClaimsAsksAboutHostsWildcardsAndURLsButNotFiles() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    #expect(HostClaims.problem(query: nil) == "Give a HOST (or a URL), or --urls FILE.")
    for query in ["shop.example.com", "*.example.com", "https://shop.example.com/a?b"] {
      #expect(HostClaims.problem(query: query) == nil, "\(query)")
    }
    #expect(HostClaims.problem(query: "shop example") == "'shop example' is not a host name")
    let file = folder.appendingPathComponent("App.ipa")
    try Data().write(to: file)
    #expect(HostClaims.problem(query: file.path)?.contains("is a file, not a host: the host comes first") == true)
    #expect(HostClaims.answer("", claims: ClaimsIndex(reports: []), format: .json, brief: false, trouble: false) == 64)
  }

  @Test func theReportPageIsWrittenToItsFileAndAFileThatCannotBeWrittenIsTrouble() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    var loaded = LoadedInventory(reports: [InspectionReport(input: "a.ipa", inputKind: .ipa)])
    let page = folder.appendingPathComponent("report.html").path
    #expect(HTMLReporter.deliver(loaded, title: "t", to: page, quiet: true) == 0)
    #expect(try String(contentsOfFile: page, encoding: .utf8).hasPrefix("<!doctype html>"))
    loaded.partial = true
    #expect(HTMLReporter.deliver(loaded, title: "t", to: page, quiet: true) == 1)
    let nowhere = folder.appendingPathComponent("missing/report.html").path
    #expect(HTMLReporter.deliver(loaded, title: "t", to: nowhere, quiet: true) == 2)
    #expect(!FileManager.default.fileExists(atPath: nowhere))
  }
}
