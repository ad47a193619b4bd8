import Foundation
import Testing

@testable import IPALinksKit

/// `who-claims --urls`'s text and JSON documents in bounded memory: grouped text past its budget goes to files that
/// give back exactly what memory would have, and the JSON document written a batch at a time is the encoder's.
@Suite struct GroupedTextTests {
  /// Random items under a few keys, some with characters of two to four bytes.
  static func items(_ count: Int) -> [(key: String, text: String)] {
    var rng = SystemRandomNumberGenerator()
    let words = ["a", "é", "ü🙂", "中文", "x/y", "\u{1F1EB}\u{1F1F7}", "\t"]
    return (0..<count).map { k in
      let text = (0..<Int.random(in: 1...6, using: &rng)).map { _ in words.randomElement(using: &rng)! }.joined()
      return ("app\(Int.random(in: 0..<5, using: &rng))", "\(k) \(text)\n")
    }
  }

  /// The grouping made by hand: keys in the order they first come, each key's items in order.
  static func expected(_ items: [(key: String, text: String)]) -> String {
    var order: [String] = []
    var byKey: [String: [String]] = [:]
    for (key, text) in items {
      if byKey[key] == nil { order.append(key) }
      byKey[key, default: []].append(text)
    }
    return order.enumerated().map { k, key in
      (k > 0 ? "--\n" : "") + "\(key) \(byKey[key]!.count)\n" + byKey[key]!.joined()
    }.joined()
  }

  static func written(_ grouped: GroupedText) -> String {
    var out = ""
    grouped.write({ out += $0 }, header: { "\($0) \($1)\n" }, separator: "--\n")
    return out
  }

  @Test func pastItsBudgetTextGoesToFilesAndComesBackTheSame() throws {
    let items = Self.items(2_000)
    // A budget of a few items, and files read back 7 bytes at a time, so characters are cut between reads.
    let grouped = GroupedText(budget: 100, chunk: 7, parent: FileManager.default.temporaryDirectory)
    for (key, text) in items { grouped.append(text, to: key) }
    let folder = try #require(grouped.folderForTests, "the text went to files")
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == Set(items.map(\.key)).count)
    #expect(grouped.problem == nil)
    #expect(Self.written(grouped) == Self.expected(items))
    #expect(!FileManager.default.fileExists(atPath: folder.path), "the folder is removed once written")
  }

  @Test func withinItsBudgetNothingTouchesTheDisk() {
    let items = Self.items(200)
    let grouped = GroupedText()
    for (key, text) in items { grouped.append(text, to: key) }
    #expect(grouped.folderForTests == nil)
    var firsts: [String] = []
    for (key, _) in items where !firsts.contains(key) { firsts.append(key) }
    #expect(grouped.keys == firsts)
    #expect(Self.written(grouped) == Self.expected(items))
  }

  /// A temporary directory that cannot hold the folder: the text stays in memory, says so once, and is all there.
  @Test func withNowhereToWriteTheTextStaysInMemory() throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-folder-\(UUID().uuidString)")
    try Data("x".utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let items = Self.items(500)
    let grouped = GroupedText(budget: 100, chunk: 1 << 20, parent: file)
    for (key, text) in items { grouped.append(text, to: key) }
    #expect(grouped.folderForTests == nil)
    #expect(grouped.problem?.hasPrefix("cannot make a temporary folder in ") == true)
    #expect(Self.written(grouped) == Self.expected(items))
  }

  /// A file removed behind its back (a cleaner of the temporary directory, say) is reported, not silently lost.
  @Test func aFileGoneBeforeItIsReadBackIsReported() throws {
    let grouped = GroupedText(budget: 1, chunk: 1 << 20, parent: FileManager.default.temporaryDirectory)
    grouped.append("first\n", to: "a")
    grouped.append("second\n", to: "b")
    let folder = try #require(grouped.folderForTests)
    try FileManager.default.removeItem(at: folder.appendingPathComponent("0"))
    #expect(Self.written(grouped) == "a 1\n--\nb 1\nsecond\n")
    #expect(grouped.problem?.contains("some of the text under a is missing") == true)
  }

  /// Keys are untrusted text (app IDs from inspected files): they never name a file.
  @Test func keysNeverNameFiles() throws {
    let grouped = GroupedText(budget: 1, chunk: 1 << 20, parent: FileManager.default.temporaryDirectory)
    let keys = ["../../escape", "/etc/passwd", "a\u{0}b", ""]
    for key in keys { grouped.append("x\n", to: key) }
    let folder = try #require(grouped.folderForTests)
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["0", "1", "2", "3"])
    grouped.discard()
    #expect(!FileManager.default.fileExists(atPath: folder.path))
    #expect(grouped.count(of: "/etc/passwd") == 1)
  }

  @Test func theJSONDocumentWrittenABatchAtATimeIsTheEncoders() {
    let claim = URLScan.Claim(appId: "TEAM.app", pointer: "/applinks/details/0/components/1")
    let lines = [
      URLScan.Line(url: "https://a.example/1", apps: [claim], excludedBy: []),
      URLScan.Line(url: "https://b.example/\u{1B}[31m\"é", apps: [], excludedBy: [claim, claim]),
      URLScan.Line(url: "https://c.example/", apps: [], excludedBy: []),
    ]
    for count in 0...lines.count {
      // In batches of one and of the rest, as the command writes them between problem lines.
      let batches = [Array(lines.prefix(min(count, 1))), Array(lines.prefix(count).dropFirst())]
      let records = batches.filter { !$0.isEmpty }.map(URLScanSummary.JSONStream.records).joined(separator: ",\n")
      #expect(
        URLScanSummary.JSONStream.head + records + URLScanSummary.JSONStream.tail
          == JSONReporter.document(URLScanSummary.Document(urls: Array(lines.prefix(count)))), "\(count) records")
    }
  }
}
