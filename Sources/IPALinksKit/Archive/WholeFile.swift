import Foundation

/// A file, or standard input for `-`, read whole up to a limit: how every small input is read (an AASA file, a
/// saved inventory, an IPA on standard input), so an endless pipe or a huge file cannot make ipalinks allocate
/// without bound.
public enum WholeFile {
  /// Why the bytes could not be had.
  public enum Failure: Error, Sendable, Equatable {
    /// The file could not be opened or read; the reason, in words.
    case unreadable(String)
    /// It holds more than the limit.
    case tooLarge
  }

  /// The bytes of `path` (`-` for standard input). Reading stops one chunk past `limit`, so at most
  /// `limit + chunk` bytes are ever held.
  public static func read(_ path: String, limit: Int, chunk: Int = 1 << 20) throws(Failure) -> Data {
    var data = Data()
    do {
      let handle =
        path == "-" ? FileHandle.standardInput : try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
      while data.count <= limit, let more = try handle.read(upToCount: chunk), !more.isEmpty { data += more }
    } catch {
      // Foundation's reason for a folder or a missing file is "NSCocoaErrorDomain error 256": the system's is said.
      throw .unreadable(unreadable(path) ?? (error as NSError).localizedDescription)
    }
    guard data.count <= limit else { throw .tooLarge }
    return data
  }

  /// Why `path` cannot be read, in the system's words (`No such file or directory`, `Is a directory`, `Permission
  /// denied`), or nil when it can (and for `-`). Nothing is opened: opening a FIFO waits for its writer.
  public static func unreadable(_ path: String) -> String? {
    guard path != "-" else { return nil }
    var info = stat()
    let code =
      stat(path, &info) != 0 ? errno : info.st_mode & S_IFMT == S_IFDIR ? EISDIR : access(path, R_OK) != 0 ? errno : 0
    return code == 0 ? nil : String(cString: strerror(code))
  }
}
