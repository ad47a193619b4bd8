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

  /// A pipe's lines come as they are written: the reader does not wait for a full chunk or the end.
  @Test(.timeLimit(.minutes(1))) func linesFromAPipeComeAsTheyAreWritten() throws {
    let pipe = Pipe()
    let reader = try #require(LineReader(path: "/dev/fd/\(pipe.fileHandleForReading.fileDescriptor)"))
    pipe.fileHandleForWriting.write(Data("a\r\nb".utf8))
    // With a reader that waited for 64 KiB or the end, this would never return.
    #expect(reader.next() == "a")
    #expect(!reader.hasBufferedLine && reader.mayWait)
    pipe.fileHandleForWriting.write(Data("\nc\n".utf8))
    #expect(reader.next() == "b")
    #expect(reader.hasBufferedLine && !reader.mayWait)
    #expect(reader.next() == "c")
    try pipe.fileHandleForWriting.close()
    #expect(reader.next() == nil)
  }

  /// A line over ``LineReader/maximumLineBytes`` is cut there, flagged, and the rest of it skipped: the lines after
  /// it keep their numbers, and a file without line breaks holds the reader to one cut line.
  @Test func anOverlongLineIsCutAndTheRestOfItSkipped() throws {
    let limit = LineReader.maximumLineBytes
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("long-\(UUID().uuidString).txt")
    var bytes = Data("first\n".utf8)
    bytes += Data(repeating: UInt8(ascii: "x"), count: 2 * limit + 10)
    bytes += Data("\nlast\n".utf8) + Data(repeating: UInt8(ascii: "y"), count: limit + 1)
    try bytes.write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    let reader = try #require(LineReader(path: url.path))
    var lines: [(count: Int, cut: Bool)] = []
    while let line = reader.next() {
      lines.append((line.utf8.count, reader.cut))
      // A file never waits for a writer, whatever is buffered.
      #expect(!reader.mayWait)
    }
    #expect(lines.map(\.count) == [5, limit, 4, limit])
    #expect(lines.map(\.cut) == [false, true, false, true])
  }
}
