import Foundation
import Testing

@testable import IPALinksKit

struct LineReaderTests {
  @Test func linesAcrossChunksWithCRLFAndNoFinalNewline() throws {
    let long = String(repeating: "x", count: 100_000)
    let text = "first\r\nsecond\n\n\(long)\nlast"
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("lines-\(UUID().uuidString).txt")
    try Data(text.utf8).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    let reader = try #require(LineReader(path: url.path))
    var lines: [String] = []
    while let line = reader.next() { lines.append(line) }
    #expect(lines == ["first", "second", "", long, "last"])
    #expect(LineReader(path: url.path + ".missing") == nil)
  }
}
