import Foundation

/// Reads a file (or standard input, for `-`) a line at a time in bounded memory.
///
/// It reads what the input has ready (up to 64 KiB at a time), never waiting for a full chunk, so lines from a slow
/// pipe can be answered as they arrive (see ``mayWait``).
public final class LineReader {
  /// A line longer than this is cut here and the rest of it skipped (see ``cut``): a file without line breaks
  /// (`/dev/zero`, say) cannot make the reader hold more.
  public static let maximumLineBytes = 1 << 20

  /// Whether the line ``next()`` last returned was longer than ``maximumLineBytes``: it holds the first bytes only,
  /// and the next line is the one after it.
  public private(set) var cut = false

  private let handle: FileHandle
  /// A regular file never makes a read wait for a writer.
  private let regularFile: Bool
  private var buffer: [UInt8] = []
  private var start = 0
  private var atEnd = false
  /// Dropping the rest of a cut line, up to its line break.
  private var skipping = false

  /// A reader of `path`, or of standard input for `-`; nil when the file cannot be opened or is a folder (whose
  /// reads fail, which would read as an empty file). ``cannotRead(_:_:)`` says why.
  public init?(path: String) {
    if path == "-" {
      handle = FileHandle.standardInput
    } else {
      guard let file = FileHandle(forReadingAtPath: path) else { return nil }
      handle = file
    }
    var status = stat()
    let known = fstat(handle.fileDescriptor, &status) == 0
    guard !known || status.st_mode & S_IFMT != S_IFDIR else { return nil }
    regularFile = known && status.st_mode & S_IFMT == S_IFREG
  }

  /// The line that says a list cannot be read, with the system's reason (``WholeFile/unreadable(_:)``):
  /// `urls.txt: cannot read the URL list: Is a directory`.
  public static func cannotRead(_ path: String, _ what: String) -> String {
    "\(TerminalText.escape(path)): cannot read the \(what)" + (WholeFile.unreadable(path).map { ": \($0)" } ?? "")
  }

  /// Whether the next ``next()`` may wait for a writer: the input is a pipe or a terminal, and no whole line is
  /// buffered. What has been read so far is then worth answering first.
  public var mayWait: Bool { !regularFile && !hasBufferedLine }

  /// Whether ``next()`` can return a line without reading.
  var hasBufferedLine: Bool {
    !skipping && start < buffer.count
      && (atEnd || buffer[start...].contains(UInt8(ascii: "\n")) || buffer.count - start > Self.maximumLineBytes)
  }

  /// The next line without its line break (LF or CRLF), decoded as UTF-8; nil at the end.
  public func next() -> String? {
    cut = false
    while true {
      let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n"))
      if skipping {
        // The rest of a cut line: up to its break, or all that is buffered.
        if let newline {
          (start, skipping) = (newline + 1, false)
          continue
        }
        start = buffer.count
      } else {
        if (newline ?? buffer.count) - start > Self.maximumLineBytes {
          let line = buffer[start..<start + Self.maximumLineBytes]
          if let newline { start = newline + 1 } else { (start, skipping) = (buffer.count, true) }
          cut = true
          return String(decoding: line, as: UTF8.self)
        }
        if let newline {
          var line = buffer[start..<newline]
          if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
          start = newline + 1
          return String(decoding: line, as: UTF8.self)
        }
        if atEnd && start < buffer.count {
          let line = buffer[start...]
          start = buffer.count
          return String(decoding: line, as: UTF8.self)
        }
      }
      if atEnd { return nil }
      buffer.removeFirst(start)
      start = 0
      // read(2), not FileHandle.readData(ofLength:), which waits until it has the whole length or the end.
      let descriptor = handle.fileDescriptor
      let chunk = [UInt8](unsafeUninitializedCapacity: 1 << 16) { bytes, count in
        var n = 0
        repeat { n = read(descriptor, bytes.baseAddress, bytes.count) } while n < 0 && errno == EINTR
        count = max(n, 0)
      }
      if chunk.isEmpty { atEnd = true } else { buffer += chunk }
    }
  }
}
