import Crypto
import Foundation
import SQLKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The SHA-256 of each input file a store recorded from this machine, with the file as it was when hashed (its
/// device, inode, size, and when it was last modified and changed): a run hashes again only the files that are not
/// as they were. An input's digest reads every byte of it, which for IPAs of hundreds of megabytes is most of what
/// recording costs, and most inputs of a weekly run did not change (issue 46).
///
/// A file is taken as unchanged only when all five agree: writing it changes its change time, which no one can set
/// back. A file changed within ``settling`` of being hashed, or while it was read, is not remembered, since a second
/// write in the same clock tick could leave its times as they were (what git calls a racy entry).
public struct InputDigests: Sendable {
  /// A regular file as `fstat` describes it: what tells whether it changed since it was hashed.
  public struct Stamp: Hashable, Sendable {
    /// The device and inode: the file itself, not just its path.
    public var device: Int64
    /// The inode on ``device``.
    public var inode: Int64
    /// The size in bytes.
    public var size: Int64
    /// When it was last modified, in nanoseconds since 1970.
    public var modified: Int64
    /// When its inode was last changed (written, renamed into place, its times set), in nanoseconds since 1970.
    public var changed: Int64
  }

  /// What an input file is: its size and SHA-256, and the stamp to remember the digest by (nil when the file may
  /// still be changing); `known` when the digest is the one the store had, so nothing was read.
  public struct Facts: Sendable {
    /// The size in bytes.
    public var size: Int
    /// The SHA-256 of its bytes, in lower-case hex.
    public var sha256: String
    /// The stamp the digest is remembered by; nil when the file changed within ``InputDigests/settling`` or while
    /// it was read.
    public var stamp: Stamp?
    /// Whether the digest came from the store, the file being as it was when hashed.
    public var known: Bool
  }

  /// How long after a file last changed its digest is remembered: longer than the coarsest clock tick of a file
  /// system's times (2 s on FAT).
  public static let settling: Int64 = 3_000_000_000

  /// The machine whose files these are: a path names another file elsewhere.
  public let machine: String
  /// This machine's name, as a run records it: asked once, as Foundation may ask the resolver for it.
  public static let thisMachine = ProcessInfo.processInfo.hostName
  /// Each path's stamp and digest.
  let known: [String: (stamp: Stamp, sha256: String)]

  /// None known: every file is hashed.
  public init(machine: String = thisMachine) {
    self.machine = machine
    known = [:]
  }

  init(machine: String, known: [String: (stamp: Stamp, sha256: String)]) {
    self.machine = machine
    self.known = known
  }

  /// The digests `store` holds of `machine`'s files at `paths`: only theirs, whatever else the store holds.
  public static func load(
    _ store: AuditStore, machine: String = thisMachine, paths: [String]
  ) async throws -> InputDigests {
    var known: [String: (stamp: Stamp, sha256: String)] = [:]
    let select = "SELECT path, device, inode, size, modified_ns, changed_ns, file_sha256 FROM input_digests"
    let distinct = Array(Set(paths))
    if store.dialect == .postgres {
      // One array, as the rows are written (``AuditStore/insert(into:columns:rows:returning:_:)``): one value to
      // encode and send rather than one per path.
      try await store.sql.raw(
        "\(unsafeRaw: select) WHERE machine = \(bind: machine) AND path = ANY(\(bind: distinct))"
      ).all().forEach { try add($0, to: &known) }
    } else {
      // The machine's bind with a chunk's stays within one statement's limit.
      for chunk in AuditStore.bindable(distinct) {
        try await store.sql.raw(
          "\(unsafeRaw: select) WHERE machine = \(bind: machine) AND path IN (\(binds: chunk))"
        ).all().forEach { try add($0, to: &known) }
      }
    }
    return InputDigests(machine: machine, known: known)
  }

  /// One row of `input_digests` added to `known`.
  private static func add(_ row: any SQLRow, to known: inout [String: (stamp: Stamp, sha256: String)]) throws {
    let stamp = Stamp(
      device: try row.decode(column: "device", as: Int64.self),
      inode: try row.decode(column: "inode", as: Int64.self),
      size: try row.decode(column: "size", as: Int64.self),
      modified: try row.decode(column: "modified_ns", as: Int64.self),
      changed: try row.decode(column: "changed_ns", as: Int64.self))
    known[try row.decode(column: "path", as: String.self)] = (
      stamp, try row.decode(column: "file_sha256", as: String.self)
    )
  }

  /// The size and SHA-256 of the input at `path` when it is a regular file, read only when the store does not know
  /// it as it is; nil for a folder, standard input, or a file that cannot be read. Each block read is told to `read`
  /// (its size), for a bar to show how far a large input got.
  public func facts(_ path: String, now: Int64 = Self.now(), read told: ((Int) -> Void)? = nil) -> Facts? {
    guard path != "-" else { return nil }
    // O_NONBLOCK: a named pipe given as an input must not hold the run until something writes to it.
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    guard let before = Self.stamp(descriptor) else { return nil }
    if let held = known[path], held.stamp == before {
      return Facts(size: Int(before.size), sha256: held.sha256, stamp: before, known: true)
    }
    // One buffer for the whole file: a fresh megabyte per read costs the kernel more (mapping and zeroing it) than
    // the copy does.
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 << 10, alignment: 16)
    defer { buffer.deallocate() }
    var hasher = SHA256()
    var size = 0
    while true {
      let count = read(descriptor, buffer.baseAddress, buffer.count)
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else {
        if count < 0 { return nil }
        break
      }
      hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
      size += count
      told?(count)
    }
    let settled =
      Self.stamp(descriptor) == before && Int64(size) == before.size && now - before.changed >= Self.settling
    return Facts(size: size, sha256: hex(hasher.finalize()), stamp: settled ? before : nil, known: false)
  }

  /// The size of the regular file at `path`, without opening it; nil for anything else (standard input, a folder, a
  /// named pipe, a missing file).
  static func size(ofRegularFile path: String) -> Int64? {
    var info = stat()
    guard path != "-", stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
    return Int64(info.st_size)
  }

  /// The stamp of an open regular file; nil for anything else.
  static func stamp(_ descriptor: Int32) -> Stamp? {
    var info = stat()
    guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
    #if canImport(Darwin)
      let (modified, changed) = (info.st_mtimespec, info.st_ctimespec)
    #else
      let (modified, changed) = (info.st_mtim, info.st_ctim)
    #endif
    return Stamp(
      device: Int64(truncatingIfNeeded: info.st_dev), inode: Int64(truncatingIfNeeded: info.st_ino),
      size: Int64(info.st_size), modified: Int64(modified.tv_sec) * 1_000_000_000 + Int64(modified.tv_nsec),
      changed: Int64(changed.tv_sec) * 1_000_000_000 + Int64(changed.tv_nsec))
  }

  /// The time now, in nanoseconds since 1970, as a file's times are.
  public static func now() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_REALTIME, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
  }
}
