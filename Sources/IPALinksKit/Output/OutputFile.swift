import Foundation

/// Writing a command's output file (`-o`): through a temporary file beside it and a rename, so that a reader (a web
/// server publishing a blocklist, an app downloading it) sees the old file or the new one, never half of one.
public enum OutputFile {
  /// Why a file could not be written: one line naming it.
  public struct Failure: Error, Sendable, CustomStringConvertible {
    /// The message.
    public var description: String
  }

  /// Whether `path` already holds exactly `text`: what `--if-changed` leaves alone.
  public static func holds(_ text: String, at path: String) -> Bool {
    // Read at most one byte more than the text, so a huge file is never read whole.
    guard let handle = FileHandle(forReadingAtPath: path) else { return false }
    defer { try? handle.close() }
    let bytes = Data(text.utf8)
    return (try? handle.read(upToCount: bytes.count + 1)) ?? Data() == bytes
  }

  /// Writes `text` to `path` and renames it into place. An existing file keeps its permissions; a new one gets
  /// what `>` in a shell would give (0666 less the umask), not the 0600 of a temporary file.
  public static func write(_ text: String, to path: String) throws(Failure) {
    let target = URL(fileURLWithPath: path)
    let folder = target.deletingLastPathComponent().path
    // Created by open(2) with 0666, which the umask then narrows: mkstemp would make it 0600, and reading the umask
    // means setting it, for every thread at once.
    var descriptor: Int32 = -1
    var temporary = ""
    for _ in 0..<8 where descriptor < 0 {
      temporary = folder + "/." + target.lastPathComponent + "." + String(UInt32.random(in: .min ... .max), radix: 36)
      descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
      if descriptor < 0 && errno != EEXIST { break }
    }
    guard descriptor >= 0 else { throw failure(path, errno) }
    var written = false
    defer { if !written { unlink(temporary) } }
    var info = stat()
    let keep = stat(path, &info) == 0 ? info.st_mode & 0o7777 : nil
    let bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
      let count = bytes[offset...].withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else {
        let code = errno
        close(descriptor)
        throw failure(path, code)
      }
      offset += count
    }
    // The data reaches the disk before the name points at it, so a crash leaves the old file, not an empty one.
    guard keep.map({ fchmod(descriptor, $0) }) ?? 0 == 0, fsync(descriptor) == 0 else {
      let code = errno
      close(descriptor)
      throw failure(path, code)
    }
    close(descriptor)
    guard rename(temporary, path) == 0 else { throw failure(path, errno) }
    written = true
  }

  private static func failure(_ path: String, _ code: Int32) -> Failure {
    Failure(description: "\(TerminalText.escape(path)): cannot write: \(String(cString: strerror(code)))")
  }
}
