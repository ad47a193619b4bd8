import Foundation
import Testing

@testable import IPALinksKit

@Suite struct InventoryStreamTests {
  /// A file of `text` in a folder of its own, removed with it.
  final class Scratch {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stream-\(UUID().uuidString)")
    init() throws { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(at: folder) }

    func file(_ name: String, _ bytes: Data) throws -> String {
      let url = folder.appendingPathComponent(name)
      try bytes.write(to: url)
      return url.path
    }
  }

  static func line(_ n: Int, padding: Int = 0) -> String {
    #"{"input":"app\#(n)\#(String(repeating: "x", count: padding)).ipa","bundles":[]}"#
  }

  /// Every report of a stream, in order, with what it skipped; and the most bytes it held at once.
  static func drain(_ stream: InventoryStream, batch: Int) throws -> (inputs: [String], skipped: [String], held: Int) {
    var (inputs, skipped, held) = ([String](), [String](), 0)
    while let next = try stream.next(batch) {
      #expect(next.reports.count + next.skipped.count <= batch)
      inputs += next.reports.map(\.input)
      skipped += next.skipped.map(\.description)
      held = max(held, stream.bufferedBytes)
    }
    return (inputs, skipped, held)
  }

  /// 20,000 lines of 1 KB (20 MB) come in order, 128 at a time, and the stream never holds more than a batch's lines
  /// and a chunk: the file is never in memory whole, whatever its size. It counted them ahead.
  @Test func aLargeInventoryIsReadABatchAtATime() throws {
    let scratch = try Scratch()
    let count = 20_000
    let text = (0..<count).map { Self.line($0, padding: 1_000) }.joined(separator: "\n") + "\n"
    let path = try scratch.file("big.jsonl", Data(text.utf8))
    let stream = try InventoryStream(path: path, workers: 2)
    #expect(stream.expected == count)
    let read = try Self.drain(stream, batch: 128)
    #expect(read.inputs == (0..<count).map { "app\($0)\(String(repeating: "x", count: 1_000)).ipa" })
    #expect(read.skipped.isEmpty)
    // 128 lines of about 1 KB and the chunk read past them, with the room an array keeps to grow: far from 20 MB.
    #expect(read.held > 0 && read.held <= 2 * (128 * 1_100 + 2 * InventoryStream.chunk), "held \(read.held) bytes")
    #expect(try stream.next(128) == nil, "the end stays the end")
  }

  /// A line that is not a report is skipped and named with its number (blank lines count, and are no input); the
  /// lines after it are read, and so is a last line cut short, which is named too. Line ends may be CRLF.
  @Test func linesThatAreNotReportsAreSkippedAndNamed() throws {
    let scratch = try Scratch()
    let lines = [
      Self.line(1), "{", "", Self.line(4) + "\r", #"{"input":"b.ipa","bundles":[{"kind":"app"}]}"#, "  ", Self.line(7),
      String(Self.line(8).prefix(20)),
    ]
    let path = try scratch.file("inv.jsonl", Data(lines.joined(separator: "\n").utf8))
    for (workers, batch) in [(1, 2), (2, 3), (4, 128)] {
      let stream = try InventoryStream(path: path, workers: workers)
      #expect(stream.expected == 6, "the lines that are not blank")
      let read = try Self.drain(stream, batch: batch)
      #expect(read.inputs == ["app1.ipa", "app4.ipa", "app7.ipa"], "\(workers) workers, \(batch) a batch")
      #expect(read.skipped.count == 3)
      #expect(
        read.skipped.first
          == "\(path): line 2 is not an ipalinks inventory, skipped: not JSON")
      #expect(
        read.skipped.dropFirst().first
          == #"\#(path): line 5 is not an ipalinks inventory, skipped: bundles[0]: missing key "path""#)
      #expect(read.skipped.last?.hasPrefix("\(path): line 8 is not an ipalinks inventory, skipped: ") == true)
    }
  }

  /// A line longer than the limit is read and dropped as it comes, never held whole, and named; the lines around
  /// it are read, and so is one too long at the very end.
  @Test func aLineLongerThanTheLimitIsDroppedAsItIsRead() throws {
    let scratch = try Scratch()
    let long = String(repeating: "y", count: 12 << 20)
    let text = [Self.line(1), long, "{", Self.line(4), long].joined(separator: "\n")
    let path = try scratch.file("long.jsonl", Data(text.utf8))
    let stream = try InventoryStream(path: path, workers: 2, lineLimit: 1 << 20)
    let read = try Self.drain(stream, batch: 128)
    #expect(read.inputs == ["app1.ipa", "app4.ipa"])
    // In file order, though the long line was dropped as it was read and the bad one found once decoded.
    #expect(
      read.skipped == [
        "\(path): line 2 is larger than the 1 MiB a report may have, skipped",
        "\(path): line 3 is not an ipalinks inventory, skipped: not JSON",
        "\(path): line 5 is larger than the 1 MiB a report may have, skipped",
      ])
    #expect(read.held <= 2 * ((1 << 20) + 2 * InventoryStream.chunk), "held \(read.held) bytes, not a 12 MiB line")
  }

  /// One document (a report over several lines, or an array) is read whole, as ``InventoryReader`` reads it; a file
  /// whose first line is not a report fails as it does there, before any report is handed out.
  @Test func aDocumentIsReadWholeAndAFileThatIsNoInventoryFails() throws {
    let scratch = try Scratch()
    let pretty = "{\n  \"input\" : \"one.ipa\",\n  \"bundles\" : []\n}\n"
    let array = "[" + (0..<5).map { Self.line($0) }.joined(separator: ",\n") + "]"
    for (name, text, inputs) in [
      ("one.json", pretty, ["one.ipa"]), ("all.json", array, (0..<5).map { "app\($0).ipa" }),
    ] {
      let stream = try InventoryStream(path: try scratch.file(name, Data(text.utf8)))
      #expect(stream.expected == inputs.count)
      #expect(try Self.drain(stream, batch: 2).inputs == inputs, "\(name)")
    }
    let wrong = try scratch.file("x.jsonl", Data("hello\n{\"name\":\"x\"}\n\(Self.line(2))\n".utf8))
    #expect {
      try InventoryStream(path: wrong)
    } throws: { error in
      "\(error)" == "\(wrong): line 1 is not an ipalinks inventory: not JSON"
    }
    // A first line that is not a report, followed by reports: JSON Lines cut or garbled at the start, the line
    // skipped and named (the whole file was refused, every report in it lost).
    // An array whose one report is on a line of its own is still a document.
    let single = try scratch.file("single.json", Data("[\n\(Self.line(7))\n]\n".utf8))
    #expect(try Self.drain(try InventoryStream(path: single), batch: 8).inputs == ["app7.ipa"])
    for first in ["{\"foo\":1}", "[]", "\"a note\"", "{\"input\":\"cut"] {
      let cut = try scratch.file("cut.jsonl", Data("\(first)\n\(Self.line(1))\n\(Self.line(2))\n".utf8))
      let read = try Self.drain(try InventoryStream(path: cut), batch: 8)
      #expect(read.inputs == ["app1.ipa", "app2.ipa"], "\(first)")
      #expect(
        read.skipped.count == 1 && read.skipped[0].hasPrefix("\(cut): line 1 is not an ipalinks inventory, skipped: "))
    }
    #expect(
      InventoryReader.describe(
        DecodingError.typeMismatch(
          [String: Int].self,
          .init(
            codingPath: [], debugDescription: "Expected to decode Dictionary<String, Any> but found an array instead."))
      )
        == "an array, not an object")
    let empty = try scratch.file("empty.jsonl", Data("\n \n".utf8))
    #expect {
      try InventoryStream(path: empty)
    } throws: { error in
      "\(error)" == "\(empty): no inventory found"
    }
    #expect(throws: InventoryReader.Failure.self) { try InventoryStream(path: scratch.folder.path + "/none.jsonl") }
  }

  /// From a pipe, which cannot be read twice, the reports come all the same, not counted ahead.
  @Test func aPipeIsReadWithoutACountAhead() throws {
    let scratch = try Scratch()
    let path = scratch.folder.appendingPathComponent("pipe").path
    #expect(mkfifo(path, 0o600) == 0)
    let text = (0..<1_000).map { Self.line($0) }.joined(separator: "\n") + "\n"
    let writer = Thread {
      guard let handle = FileHandle(forWritingAtPath: path) else { return }
      handle.write(Data(text.utf8))
      try? handle.close()
    }
    writer.start()
    let stream = try InventoryStream(path: path, workers: 2)
    #expect(stream.expected == nil)
    #expect(try Self.drain(stream, batch: 128).inputs == (0..<1_000).map { "app\($0).ipa" })
  }

  /// A pipe whose writer pauses (an `inspect` working on its next input) hands out the lines it has, after a short
  /// wait, rather than waiting for a batch to fill: what was written is stored while the writer works on.
  @Test func aPipeThatPausesHandsOutWhatItHas() throws {
    let scratch = try Scratch()
    let path = scratch.folder.appendingPathComponent("pipe").path
    #expect(mkfifo(path, 0o600) == 0)
    let lines = (0..<600).map { Self.line($0) + "\n" }
    let halfRead = DispatchSemaphore(value: 0)
    let writer = Thread {
      guard let handle = FileHandle(forWritingAtPath: path) else { return }
      handle.write(Data(lines[..<300].joined().utf8))
      // Paused until the reader has the first 300, or ten seconds: a reader that waits for full batches has 256.
      _ = halfRead.wait(timeout: .now() + 10)
      handle.write(Data(lines[300...].joined().utf8))
      try? handle.close()
    }
    writer.start()
    let stream = try InventoryStream(path: path, workers: 2)
    var inputs: [String] = []
    while inputs.count < 300, let batch = try stream.next(128) { inputs += batch.reports.map(\.input) }
    #expect(inputs.count == 300, "the first 300 handed out while the writer paused")
    halfRead.signal()
    while let batch = try stream.next(128) { inputs += batch.reports.map(\.input) }
    #expect(inputs == (0..<600).map { "app\($0).ipa" })
  }
}
