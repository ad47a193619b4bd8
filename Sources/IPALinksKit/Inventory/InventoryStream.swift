import Foundation

/// A saved inventory read a batch of reports at a time, so a command that handles each report once (`store import`)
/// holds a batch in memory rather than the file: an inventory of JSON Lines may be of any size, and a line that is not
/// a report is skipped and told, the lines around it read.
///
/// A document that is one JSON value (an array, or a report spread over several lines) is read whole, as
/// ``InventoryReader`` reads it, within ``InventoryReader/maximumBytes``; so is a file whose first line is not a
/// report, which then fails as it does there.
public final class InventoryStream {
  /// Reports in file order, and the lines among them that are not reports.
  public struct Batch: Sendable {
    /// The reports of the batch's lines, in file order.
    public var reports: [InspectionReport]
    /// The lines of the batch that are not reports, each said (`FILE: line 12 is not an ipalinks inventory, skipped:
    /// …`), and skipped.
    public var skipped: [InventoryReader.Failure]
  }

  /// The file's name as messages give it: its path, or "standard input" for `-`.
  public let name: String
  /// How many reports the file holds: its lines that are not blank, counted ahead in a regular file of JSON Lines
  /// (skipped ones among them); the reports of a document read whole; nil for JSON Lines from a pipe or standard
  /// input, which tell their size only at the end.
  public private(set) var expected: Int?

  private let handle: FileHandle
  private let workers: Int
  /// The longest line kept: a longer one is read and dropped, so no line holds more memory than that.
  private let lineLimit: Int
  /// The bytes read and not yet handed out, from `start`; `scanned` is how far the search for the next newline got.
  private var buffer: [UInt8] = []
  private var start = 0
  private var scanned = 0
  /// Lines handed out so far, for the number of the next one.
  private var line = 0
  /// Whether the end of the file was read.
  private var ended = false
  /// The reports of a document read whole, handed out a batch at a time from `served`.
  private var whole: [InspectionReport]?
  private var served = 0
  /// The lists of apps the reports read so far hold, each kept once.
  private let shared = SharedLists()

  /// The memory the buffer holds: a batch's lines and a chunk, or a line up to the limit, never the file.
  var bufferedBytes: Int { buffer.capacity }

  /// How much is read at a time, into `block`.
  static let chunk = 1 << 20
  private let block = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
  /// Whether the file is a regular one, which never pauses; a pipe may.
  private var regular = false
  /// How many bytes may be read at most, and how many were.
  private let byteLimit: Int?
  private var bytesRead = 0

  deinit { block.deallocate() }

  /// How many skipped lines a command names, one line each; the rest are counted (``skippedSummary(_:)``).
  public static let skippedLinesNamed = 10

  /// Opens `path` (`-` for standard input) and reads up to its first line that is not blank: JSON Lines when that
  /// line is a report, else one document read whole. Lines are decoded on up to `workers` threads; one longer than
  /// `lineLimit` bytes is skipped. With a `byteLimit`, reading fails past that many bytes of the file (a command that
  /// keeps every report in memory); a regular file is `counting` its lines ahead, for a bar's total.
  public init(
    path: String, workers: Int = 1, lineLimit: Int = InventoryReader.maximumBytes, byteLimit: Int? = nil,
    counting: Bool = true
  ) throws(InventoryReader.Failure) {
    name = path == "-" ? "standard input" : path
    self.workers = max(1, workers)
    self.lineLimit = lineLimit
    self.byteLimit = byteLimit
    if path == "-" {
      guard !Terminal.stdinIsTerminal else {
        throw InventoryReader.Failure(
          description: "standard input is a terminal, not an inventory: pipe one in, as in `ipalinks inspect ipas/ "
            + "--format jsonl | ipalinks …`, or name its file")
      }
      handle = FileHandle.standardInput
    } else {
      // open(2), for the system's reason when it fails (a directory is told by the first read).
      let descriptor = open(path, O_RDONLY | O_CLOEXEC)
      guard descriptor >= 0 else {
        throw InventoryReader.Failure(description: "\(path): cannot read: \(String(cString: strerror(errno)))")
      }
      handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }
    var info = stat()
    regular = fstat(handle.fileDescriptor, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    /// The next line that is not blank, if any within what an inventory's first lines may take.
    func nonBlank() throws(InventoryReader.Failure) -> Range<Int>? {
      while true {
        if let newline = try nextNewline() {
          let range = start..<newline
          (start, scanned, line) = (newline + 1, newline + 1, line + 1)
          if !Self.blank(buffer[range]) { return range }
        } else if ended {
          guard start < buffer.count, !Self.blank(buffer[start...]) else { return nil }
          defer { start = buffer.count }
          return start..<buffer.count
        } else if buffer.count > InventoryReader.maximumBytes {
          return nil
        }
      }
    }
    func isReport(_ range: Range<Int>) -> Bool {
      buffer[range].first(where: { !Self.whitespace($0) }) != UInt8(ascii: "[")
        && (try? JSONDecoder().decode(InspectionReport.self, from: Data(buffer[range]))) != nil
    }
    // The first line that is not blank says what the file is; when it is not a report but the next one is, the
    // file is JSON Lines whose first line was cut or garbled: it is skipped and named, as any other such line,
    // where the whole file was refused.
    // A first line that opens an array it does not close is a document's, whatever follows (`[`, then a report on a
    // line of its own); one that is a whole value (`[]`) is a line like any other.
    func opensAnArray(_ range: Range<Int>) -> Bool {
      buffer[range].first(where: { !Self.whitespace($0) }) == UInt8(ascii: "[")
        && (try? JSONSerialization.jsonObject(with: Data(buffer[range]), options: [.fragmentsAllowed])) == nil
    }
    var lines = false
    if let first = try nonBlank() {
      if isReport(first) {
        lines = true
      } else if !opensAnArray(first), let second = try nonBlank() {
        lines = isReport(second)
      }
    }
    if lines {
      // JSON Lines: from the first line again, and counted ahead when the file can be read twice.
      (start, scanned, line) = (0, 0, 0)
      expected = counting ? countLines() : nil
      return
    }
    // One document: the rest of it, as much as an inventory may have.
    while !ended && buffer.count <= InventoryReader.maximumBytes { try fill() }
    guard buffer.count <= InventoryReader.maximumBytes else {
      // Only a first line that is not a report, or one JSON value, comes here: JSON Lines have no such limit.
      throw InventoryReader.Failure(
        description: "\(name): larger than the \(InventoryReader.maximumBytes >> 20) MiB a JSON document may have; "
          + "JSON Lines (`inspect --format jsonl`) may be of any size")
    }
    let reports = try InventoryReader.read(Data(buffer), name: name, workers: self.workers)
    (whole, expected, buffer) = (reports, reports.count, [])
  }

  /// The next `count` reports at most, with the lines among them that are not reports; nil once the file is done.
  public func next(_ count: Int) throws(InventoryReader.Failure) -> Batch? {
    if let whole {
      guard served < whole.count else { return nil }
      defer { served = min(whole.count, served + count) }
      return Batch(reports: Array(whole[served..<min(whole.count, served + count)]), skipped: [])
    }
    // What earlier batches took goes, so the buffer holds this batch's lines and a chunk.
    buffer.removeSubrange(0..<start)
    (scanned, start) = (scanned - start, 0)
    var lines: [(number: Int, range: Range<Int>)] = []
    var skipped: [(number: Int, failure: InventoryReader.Failure)] = []
    while lines.count + skipped.count < count {
      if !(lines.isEmpty && skipped.isEmpty) && !worthWaiting() { break }
      if let newline = try nextNewline(skipping: &skipped) {
        let range = start..<newline
        (start, scanned, line) = (newline + 1, newline + 1, line + 1)
        if !Self.blank(buffer[range]) { lines.append((line, range)) }
      } else if ended {
        if start < buffer.count {
          let range = start..<buffer.count
          (start, scanned, line) = (buffer.count, buffer.count, line + 1)
          if !Self.blank(buffer[range]) { lines.append((line, range)) }
        }
        break
      }
    }
    guard !lines.isEmpty || !skipped.isEmpty else { return nil }
    let (bytes, found, name, shared) = (buffer, lines, name, shared)
    let decoded = parallelMap(found.count, workers: workers, minimumChunk: 16) {
      k -> Result<InspectionReport, InventoryReader.Failure> in
      do {
        var report = try JSONDecoder().decode(InspectionReport.self, from: Data(bytes[found[k].range]))
        shared.share(&report)
        return .success(report)
      } catch {
        return .failure(
          InventoryReader.Failure(
            description:
              "\(name): line \(found[k].number) is not an ipalinks inventory, skipped: "
              + InventoryReader.describe(error)))
      }
    }
    var batch = Batch(reports: [], skipped: [])
    for (k, result) in decoded.enumerated() {
      switch result {
      case .success(let report): batch.reports.append(report)
      case .failure(let failure): skipped.append((found[k].number, failure))
      }
    }
    // In file order, whichever way each was found.
    batch.skipped = skipped.sorted { $0.number < $1.number }.map(\.failure)
    return batch
  }

  /// The index of the next newline from `start`, reading more as needed; nil at the end of the file. A line longer
  /// than `lineLimit` is dropped as it is read, and said in `skipped`.
  private func nextNewline(
    skipping skipped: inout [(number: Int, failure: InventoryReader.Failure)]
  ) throws(InventoryReader.Failure) -> Int? {
    while true {
      if let found = try nextNewline() { return found }
      if ended { return nil }
      // The line so far is past the limit: the rest of it is read and dropped.
      guard buffer.count - start > lineLimit else { continue }
      line += 1
      skipped.append(
        (
          line,
          InventoryReader.Failure(
            description: "\(name): line \(line) is larger than the \(lineLimit >> 20) MiB a report may have, skipped")
        ))
      // The batch's earlier lines, before `start`, stay where they are.
      buffer.removeSubrange(start...)
      scanned = start
      while !ended {
        try fill()
        if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
          buffer.removeSubrange(start...newline)
          break
        }
        buffer.removeSubrange(start...)
      }
    }
  }

  /// The index of the next newline from `start`, reading one more chunk when there is none yet; nil when the buffer
  /// holds none after that chunk (or at the end), for the caller to decide whether to read on.
  private func nextNewline() throws(InventoryReader.Failure) -> Int? {
    if let found = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) { return found }
    scanned = buffer.count
    guard !ended else { return nil }
    try fill()
    return buffer[scanned...].firstIndex(of: UInt8(ascii: "\n"))
  }

  /// One more chunk into the buffer, as much as the file has ready up to ``chunk`` (a pipe's writer may pause);
  /// `ended` at the end of the file.
  private func fill() throws(InventoryReader.Failure) {
    while true {
      let count = read(handle.fileDescriptor, block.baseAddress, block.count)
      if count < 0 && errno == EINTR { continue }
      guard count >= 0 else {
        throw InventoryReader.Failure(description: "\(name): cannot read: \(String(cString: strerror(errno)))")
      }
      if count == 0 { ended = true }
      bytesRead += count
      if let byteLimit, bytesRead > byteLimit { throw InventoryReader.tooLarge(name, limit: byteLimit) }
      buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: block[..<count]))
      return
    }
  }

  /// Whether a batch that has lines should wait for more: not when they come through a pipe (an `inspect` writing
  /// into it) that has nothing more within ``patience``, so what it wrote is stored while it works on.
  private func worthWaiting() -> Bool {
    guard !regular, !ended, buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) == nil else { return true }
    var ready = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
    return poll(&ready, 1, Self.patience) != 0
  }

  /// How long, in milliseconds, a batch from a pipe waits for its next line before it is handed out as it is.
  static let patience: Int32 = 200

  /// The lines that are not blank in a regular file, read from its start without moving the handle; nil for
  /// anything else (a pipe, standard input from one) or when it cannot be read.
  private func countLines() -> Int? {
    guard regular else { return nil }
    let descriptor = handle.fileDescriptor
    let block = UnsafeMutableRawBufferPointer.allocate(byteCount: 4 << 20, alignment: 16)
    defer { block.deallocate() }
    var (offset, count, content) = (0, 0, false)
    while true {
      let read = pread(descriptor, block.baseAddress, block.count, off_t(offset))
      if read < 0 && errno == EINTR { continue }
      guard read >= 0 else { return nil }
      guard read > 0 else { break }
      offset += read
      // Past a line's first byte that is not blank, memchr finds its end: the bytes between are never looked at.
      let bytes = UnsafeRawBufferPointer(rebasing: block[..<read])
      var at = 0
      while at < read {
        if !content {
          let byte = bytes[at]
          at += 1
          if !Self.whitespace(byte) { content = true }
          continue
        }
        guard let end = memchr(bytes.baseAddress! + at, 0x0A, read - at) else { break }
        at = bytes.baseAddress!.distance(to: UnsafeRawPointer(end)) + 1
        (count, content) = (count + 1, false)
      }
    }
    return count + (content ? 1 : 0)
  }

  /// The line that ends a file's named skipped lines: `FILE: 12 lines skipped (the first 10 named above)`, for the
  /// command to say what it did with the rest.
  public static func skippedSummary(_ name: String, skipped: Int) -> String {
    "\(name): \(TerminalText.count(skipped, "line")) skipped"
      + (skipped > skippedLinesNamed ? " (the first \(skippedLinesNamed) named above)" : "")
  }

  private static func whitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }

  private static func blank(_ bytes: ArraySlice<UInt8>) -> Bool { bytes.allSatisfy(whitespace) }
}
