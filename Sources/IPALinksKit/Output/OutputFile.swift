import Foundation

/// Writing a command's output file (`-o`): through a temporary file beside it and a rename, so that a reader (a web
/// server publishing a blocklist, an app downloading it) sees the old file or the new one, never half of one; a
/// device or a pipe (`-o /dev/stdout`) is written to, not replaced.
public enum OutputFile {
  /// Why a file could not be written: one line naming it.
  public struct Failure: Error, Sendable, CustomStringConvertible {
    /// The message.
    public var description: String
  }

  /// Whether `path` already holds exactly `text`: what `--if-changed` leaves alone.
  public static func holds(_ text: String, at path: String) -> Bool {
    // Read at most one byte more than the text, so a huge file is never read whole.
    guard let handle = existingFile(path) else { return false }
    defer { try? handle.close() }
    let bytes = Data(text.utf8)
    return (try? handle.read(upToCount: bytes.count + 1)) ?? Data() == bytes
  }

  /// The regular file at `path` (through any links), open for reading; nil for none, or for a device, a pipe or a
  /// socket, which hold no list to compare with and may block or never end when read.
  public static func existingFile(_ path: String) -> FileHandle? {
    var info = stat()
    guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
    return FileHandle(forReadingAtPath: path)
  }

  /// Whether `path` names something written through rather than replaced: a device, a pipe, a socket, or a name
  /// under /dev or /proc (`/dev/stdout`, `/dev/fd/3`), as `>` in a shell writes to them. Replacing such a name
  /// would put a regular file where the device or the link was, for every other program too.
  public static func isStream(_ path: String) -> Bool {
    if case .through = destination(of: path) { return true }
    return false
  }

  /// Writes `text` to `path`. A regular file (or a new name) is replaced through a temporary file beside it and a
  /// rename: an existing file keeps its permissions, and a new one gets what `>` in a shell would give (0666 less
  /// the umask), not the 0600 of a temporary file. A link to a regular file replaces the file it points at, and the
  /// link stays; a device, a pipe or a socket is written to as it is (``isStream(_:)``).
  public static func write(_ text: String, to path: String) throws(Failure) {
    switch destination(of: path) {
    case .replace(let file): try replace(file, with: text, named: path)
    case .through: try writeThrough(text, to: path)
    }
  }

  /// Why `path` cannot be written, as ``write(_:to:)`` would say it, or nil: said before the work that makes the
  /// text (a batch of IPAs or a corpus's inventory takes minutes) rather than after it. A file is made in its
  /// folder, which must be a folder this process can write in; a folder itself cannot be written. A write that
  /// passes may still fail (a full disk), and is then said as it always was.
  public static func problem(writing path: String) -> Failure? {
    var info = stat()
    switch destination(of: path) {
    case .replace(let file):
      let folder = URL(fileURLWithPath: file).deletingLastPathComponent().path
      guard stat(folder, &info) == 0 else { return failure(path, errno) }
      guard info.st_mode & S_IFMT == S_IFDIR else { return failure(path, ENOTDIR) }
      return access(folder, W_OK | X_OK) == 0 ? nil : failure(path, errno)
    case .through:
      return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR ? failure(path, EISDIR) : nil
    }
  }

  /// Whether every one of `paths` can be written (``problem(writing:)``), standard output (`-`) and nil aside; the
  /// first that cannot is said on standard error. What `blocklist` and `report` ask before they read anything.
  /// An output that is one of `inputs` (the same file, by any name) is refused too: `report week.jsonl -o
  /// week.jsonl` replaced the inventory with the page.
  public static func canWrite(_ paths: [String?], readingFrom inputs: [String] = []) -> Bool {
    let outputs = paths.compactMap { $0 }.filter { $0 != "-" }
    if let (output, input) = outputs.lazy.compactMap({ output in
      inputs.first { sameFile(output, $0) }.map { (output, $0) }
    }).first {
      Terminal.warn(
        "\(TerminalText.escape(output)) is an input too" + (input == output ? "" : " (\(TerminalText.escape(input)))")
          + ": writing it would replace what is read; give -o another file")
      return false
    }
    guard let problem = outputs.lazy.compactMap(problem(writing:)).first else { return true }
    Terminal.warn(problem.description)
    return false
  }

  /// Whether `a` and `b` name one existing regular file (links followed).
  static func sameFile(_ a: String, _ b: String) -> Bool {
    guard b != "-" else { return false }
    var (x, y) = (stat(), stat())
    guard stat(a, &x) == 0, stat(b, &y) == 0, x.st_mode & S_IFMT == S_IFREG else { return false }
    return x.st_dev == y.st_dev && x.st_ino == y.st_ino
  }

  /// How `path` is written: the regular file to replace by a rename, or `through`, opened and written in place.
  private enum Destination {
    case replace(String)
    case through
  }

  private static func destination(of path: String) -> Destination {
    // Names the kernel makes up (standard output, a descriptor) point at what another program opened.
    if path.hasPrefix("/dev/") || path.hasPrefix("/proc/") { return .through }
    var info = stat()
    guard lstat(path, &info) == 0 else { return .replace(path) }
    switch info.st_mode & S_IFMT {
    case S_IFREG: return .replace(path)
    case S_IFLNK:
      // A dangling link is written through, which creates the file it names, as `>` does.
      guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, let resolved = realpath(path, nil) else {
        return .through
      }
      defer { free(resolved) }
      let file = String(cString: resolved)
      return file.hasPrefix("/dev/") || file.hasPrefix("/proc/") ? .through : .replace(file)
    default: return .through  // a directory too: opening it for writing says "Is a directory"
    }
  }

  private static func replace(_ file: String, with text: String, named path: String) throws(Failure) {
    let target = URL(fileURLWithPath: file)
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
    let keep = stat(file, &info) == 0 ? info.st_mode & 0o7777 : nil
    try send(text, to: descriptor, named: path)
    // The data reaches the disk before the name points at it, so a crash leaves the old file, not an empty one.
    guard keep.map({ fchmod(descriptor, $0) }) ?? 0 == 0, fsync(descriptor) == 0 else {
      let code = errno
      close(descriptor)
      throw failure(path, code)
    }
    close(descriptor)
    guard rename(temporary, file) == 0 else { throw failure(path, errno) }
    written = true
  }

  private static func writeThrough(_ text: String, to path: String) throws(Failure) {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
    guard descriptor >= 0 else { throw failure(path, errno) }
    try send(text, to: descriptor, named: path)
    // A device or a pipe has nothing to sync (fsync says EINVAL); a file a dangling link made is synced as any.
    var info = stat()
    let synced = fstat(descriptor, &info) != 0 || info.st_mode & S_IFMT != S_IFREG || fsync(descriptor) == 0
    let code = errno
    guard close(descriptor) == 0 || errno == EINTR, synced else { throw failure(path, synced ? errno : code) }
  }

  /// Writes all of `text` to `descriptor`; a failure (a full disk, a closed pipe) closes it and names `path`.
  private static func send(_ text: String, to descriptor: Int32, named path: String) throws(Failure) {
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
  }

  private static func failure(_ path: String, _ code: Int32) -> Failure {
    Failure(description: "\(TerminalText.escape(path)): cannot write: \(String(cString: strerror(code)))")
  }
}
