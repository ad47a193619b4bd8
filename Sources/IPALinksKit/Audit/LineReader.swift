import Foundation

/// Reads a file (or standard input, for `-`) a line at a time in bounded memory.
public final class LineReader {
  private let handle: FileHandle
  private var buffer: [UInt8] = []
  private var start = 0
  private var atEnd = false

  /// A reader of `path`, or of standard input for `-`; nil when the file cannot be opened.
  public init?(path: String) {
    if path == "-" {
      handle = FileHandle.standardInput
    } else {
      guard let file = FileHandle(forReadingAtPath: path) else { return nil }
      handle = file
    }
  }

  /// The next line without its line break (LF or CRLF), decoded as UTF-8; nil at the end.
  public func next() -> String? {
    while true {
      if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
        var line = buffer[start..<newline]
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        start = newline + 1
        return String(decoding: line, as: UTF8.self)
      }
      if atEnd {
        guard start < buffer.count else { return nil }
        let line = buffer[start...]
        start = buffer.count
        return String(decoding: line, as: UTF8.self)
      }
      buffer.removeFirst(start)
      start = 0
      let chunk = handle.readData(ofLength: 1 << 16)
      if chunk.isEmpty { atEnd = true } else { buffer += chunk }
    }
  }
}
