internal import CZip
import Foundation

/// A zip archive opened read-only with libzip. It owns the `zip_t` and discards it on deinit.
///
/// Entries are never extracted to disk; small ones are read whole under a size cap and large ones
/// are read in ranges through ``ZipEntrySource``.
public final class ZipArchive: FileContainer {
  /// An IPA with more entries than this is refused rather than listed (real apps have tens of thousands).
  public static let maximumEntries = 1_000_000
  /// The most bytes one entry is inflated to: executables are streamed, never held, but inflating a 4 GiB zip
  /// bomb to reach its last bytes would still cost minutes. The largest real app executables are a few hundred MB.
  public static let maximumInflatedBytes: UInt64 = 2 << 30
  /// This archive's cap on inflated bytes per entry (``maximumInflatedBytes`` unless a test lowers it).
  public let inflatedLimit: UInt64
  /// The most bytes all of one archive's reads inflate together: entries of the central directory that point at one
  /// entry's data each inflate it again (250 names for one 2 GiB executable took five minutes), where a real app's
  /// reads (its plists, and its executables up to their signatures) come to a few GiB at most.
  public static let maximumInflatedPerArchive: UInt64 = 8 << 30
  /// This archive's cap on the bytes its reads inflate together.
  public let archiveLimit: UInt64
  private let spentLock = NSLock()
  private var spent: UInt64 = 0

  /// The archive's path, or the name given to an in-memory one, used to label errors.
  public let name: String
  /// File entries in archive order, without directories, unsafe names, or repeats of a name (the first copy wins).
  public private(set) var paths: [String] = []
  /// Names that more than one entry has, in archive order: the first copy is read, an extractor may take another.
  public private(set) var duplicatePaths: [String] = []
  /// Entry names refused because they are absolute or climb out with `..`; kept so the report can warn about each.
  public private(set) var unsafePaths: [String] = []
  fileprivate let handle: OpaquePointer
  private var indexByPath: [String: UInt64] = [:]

  /// The bytes behind an in-memory archive; libzip reads them in place, so they live as long as the handle.
  private let buffer: UnsafeMutableRawBufferPointer?

  /// Opens the archive at `path`; fails with ``ArchiveError/notAZip(file:detail:)`` for anything libzip rejects,
  /// and with ``ArchiveError/tooManyEntries(file:count:limit:)`` past `maximumEntries`.
  public init(
    path: String, maximumEntries: Int = ZipArchive.maximumEntries,
    maximumInflatedBytes: UInt64 = ZipArchive.maximumInflatedBytes,
    maximumInflatedPerArchive: UInt64 = ZipArchive.maximumInflatedPerArchive
  ) throws(ArchiveError) {
    name = path
    inflatedLimit = maximumInflatedBytes
    archiveLimit = maximumInflatedPerArchive
    buffer = nil
    var code: Int32 = 0
    guard let h = zip_open(path, ZIP_RDONLY, &code) else {
      let head = (try? FileByteSource(path: path).read(at: 0, count: 4)) ?? []
      throw Self.openError(code: code, file: path, head: head)
    }
    handle = h
    try loadNames(limit: maximumEntries)
  }

  /// Opens an archive held in memory (an IPA received over a pipe, or a fuzzer's input) without touching disk.
  public init(bytes: [UInt8], name: String = "<memory>") throws(ArchiveError) {
    self.name = name
    inflatedLimit = Self.maximumInflatedBytes
    archiveLimit = Self.maximumInflatedPerArchive
    let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
    copy.copyBytes(from: bytes)
    var error = zip_error_t()
    zip_error_init(&error)
    defer { zip_error_fini(&error) }
    guard let source = zip_source_buffer_create(copy.baseAddress, UInt64(bytes.count), 0, &error) else {
      copy.deallocate()
      throw .unreadable(file: name, detail: String(cString: zip_error_strerror(&error)))
    }
    guard let h = zip_open_from_source(source, ZIP_RDONLY, &error) else {
      // On failure the source still belongs to us.
      zip_source_free(source)
      copy.deallocate()
      throw Self.openError(code: zip_error_code_zip(&error), file: name, head: Array(bytes.prefix(4)))
    }
    buffer = copy
    handle = h
    try loadNames(limit: Self.maximumEntries)
  }

  /// Maps libzip's open error to ours; `head` tells a cut-off zip (it starts with a local header) from a non-zip.
  private static func openError(code: Int32, file: String, head: [UInt8]) -> ArchiveError {
    var error = zip_error_t()
    zip_error_init_with_code(&error, code)
    defer { zip_error_fini(&error) }
    let detail = String(cString: zip_error_strerror(&error))
    if code == ZIP_ER_NOENT || code == ZIP_ER_OPEN || code == ZIP_ER_READ {
      return .unreadable(file: file, detail: detail)
    }
    if code == ZIP_ER_NOZIP || code == ZIP_ER_INCONS {
      if head == [0x50, 0x4B, 0x03, 0x04] {
        return .corrupt(
          file: file, detail: code == ZIP_ER_NOZIP ? "no central directory; the file may be cut off" : detail)
      }
      return .notAZip(file: file, detail: code == ZIP_ER_NOZIP ? "" : detail)
    }
    return .notAZip(file: file, detail: detail)
  }

  deinit {
    zip_discard(handle)
    buffer?.deallocate()
  }

  private func loadNames(limit: Int) throws(ArchiveError) {
    // A set beside the list: a million entries of one name must not be a million searches of the list.
    var duplicated = Set<String>()
    let count = zip_get_num_entries(handle, 0)
    guard count >= 0 else { throw .notAZip(file: name, detail: "cannot count entries") }
    guard count <= limit else {
      throw .tooManyEntries(file: name, count: Int(count), limit: limit)
    }
    for index in 0..<UInt64(count) {
      // A name is its bytes when they are UTF-8, as Info.plist names the executable and as iOS reads them, whatever
      // the name's flag (bit 11) says: libzip's guess (ZIP_FL_ENC_GUESS) read a name with a control byte as CP437,
      // and `Evil\u{1b}` became `Evil←`, an executable "not found" whose entitlements were never read. Other bytes
      // are an old archiver's CP437, which the guess decodes.
      guard let bytes = zip_get_name(handle, index, ZIP_FL_ENC_RAW) else { continue }
      let utf8 = String(validatingCString: bytes)
      guard let raw = utf8 ?? zip_get_name(handle, index, ZIP_FL_ENC_GUESS).map({ String(cString: $0) }) else {
        continue
      }
      if EntryNames.isUnsafe(raw) {
        unsafePaths.append(raw)
        continue
      }
      // Known by where an extractor writes it: a second executable named `Payload/T.app/./T` was not a duplicate,
      // and `unzip` installed it over the one read.
      let entry = EntryNames.canonical(raw)
      if entry.hasSuffix("/") || entry.isEmpty { continue }
      if indexByPath[entry] == nil {
        indexByPath[entry] = index
        paths.append(entry)
      } else if duplicated.insert(entry).inserted {
        duplicatePaths.append(entry)
      }
    }
  }

  fileprivate func stat(_ path: String) throws(ArchiveError) -> (index: UInt64, info: zip_stat_t) {
    guard let index = indexByPath[path] else { throw .entryMissing(entry: path) }
    var info = zip_stat_t()
    guard zip_stat_index(handle, index, 0, &info) == 0 else {
      throw .readFailed(entry: path, detail: lastError())
    }
    if info.valid & UInt64(ZIP_STAT_ENCRYPTION_METHOD) != 0 && info.encryption_method != ZIP_EM_NONE {
      throw .entryEncrypted(entry: path)
    }
    return (index, info)
  }

  fileprivate func lastError() -> String { String(cString: zip_strerror(handle)) }

  /// Counts `bytes` read from `entry` against ``archiveLimit``, refusing the read that goes past it.
  fileprivate func spend(_ bytes: Int, reading entry: String) throws(ArchiveError) {
    spentLock.lock()
    spent += UInt64(bytes)
    let over = spent > archiveLimit
    spentLock.unlock()
    if over { throw .archiveInflatesTooMuch(file: name, entry: entry, limit: archiveLimit) }
  }

  /// Inflates at most `limit` + 1 bytes whatever the entry's header claims, since a header can lie about the size.
  public func contents(of path: String, limit: Int) throws(ArchiveError) -> [UInt8] {
    let (index, info) = try stat(path)
    let file = try ZipEntryFile(archive: self, index: index, entry: path)
    // Read one byte past the limit: the header's size field may lie, the inflated stream cannot.
    let first = Int(min(UInt64(limit), info.size)) + 1
    var bytes = try file.read(count: first)
    if bytes.count == first && first <= limit {
      bytes += try file.read(count: limit + 1 - first)
    }
    guard bytes.count <= limit else { throw .entryTooLarge(entry: path, limit: limit) }
    return bytes
  }

  /// Ranged reads over an entry without inflating it whole; stored (uncompressed) entries seek instead of inflating.
  public func byteSource(for path: String) throws(ArchiveError) -> any ByteSource {
    let (index, info) = try stat(path)
    return ZipEntrySource(archive: self, index: index, entry: path, size: info.size, stored: info.comp_method == 0)
  }
}

/// One open entry stream. It keeps its archive alive, as the `zip_file_t` points into it.
final class ZipEntryFile {
  let archive: ZipArchive
  let entry: String
  private let file: OpaquePointer
  private(set) var position: UInt64 = 0

  init(archive: ZipArchive, index: UInt64, entry: String) throws(ArchiveError) {
    self.archive = archive
    self.entry = entry
    guard let f = zip_fopen_index(archive.handle, index, 0) else {
      let detail = archive.lastError()
      if detail.localizedCaseInsensitiveContains("password") || detail.localizedCaseInsensitiveContains("encrypt") {
        throw .entryEncrypted(entry: entry)
      }
      throw .readFailed(entry: entry, detail: detail)
    }
    file = f
  }

  deinit { zip_fclose(file) }

  /// Reads up to `count` bytes, fewer only at the end of the entry.
  func read(count: Int) throws(ArchiveError) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: count)
    var filled = 0
    while filled < count {
      let n = out.withUnsafeMutableBytes { buffer in
        zip_fread(file, buffer.baseAddress! + filled, UInt64(count - filled))
      }
      if n < 0 {
        throw .readFailed(entry: entry, detail: String(cString: zip_error_strerror(zip_file_get_error(file))))
      }
      if n == 0 { break }
      filled += Int(n)
      try archive.spend(Int(n), reading: entry)
    }
    position += UInt64(filled)
    if filled < count { out.removeSubrange(filled...) }
    return out
  }

  /// Moves forward to `offset`: a seek for stored entries, otherwise inflate-and-discard in fixed chunks.
  func advance(to offset: UInt64, stored: Bool) throws(ArchiveError) {
    guard offset > position else { return }
    if stored, zip_fseek(file, Int64(offset), SEEK_SET) == 0 {
      position = offset
      return
    }
    let chunk = 1 << 20
    var scratch = [UInt8](repeating: 0, count: chunk)
    while position < offset {
      let want = Int(min(UInt64(chunk), offset - position))
      let n = scratch.withUnsafeMutableBytes { zip_fread(file, $0.baseAddress!, UInt64(want)) }
      if n <= 0 {
        throw .readFailed(
          entry: entry,
          detail: n < 0 ? String(cString: zip_error_strerror(zip_file_get_error(file))) : "unexpected end of data")
      }
      position += UInt64(n)
      try archive.spend(Int(n), reading: entry)
    }
  }
}

/// Random access over a zip entry. Forward reads stream; a backward read reopens the entry and
/// inflates again from the start, so recent bytes are kept in a small window: parsers that step back
/// a few bytes (a blob header, then the blob) never pay for a second pass over a 300 MB executable.
final class ZipEntrySource: ByteSource {
  /// Bytes fetched per read at least; also how far back a read can step without reopening.
  static let windowSize = 64 << 10

  let name: String
  let size: UInt64
  private let archive: ZipArchive
  private let index: UInt64
  private let stored: Bool
  private var file: ZipEntryFile?
  private var window: [UInt8] = []
  private var windowStart: UInt64 = 0
  /// How many times the entry was opened; tests use it to prove reads stay forward-only.
  private(set) var opens = 0

  init(archive: ZipArchive, index: UInt64, entry: String, size: UInt64, stored: Bool) {
    self.archive = archive
    self.index = index
    self.name = entry
    self.size = size
    self.stored = stored
  }

  func read(at offset: UInt64, count: Int) throws(ArchiveError) -> [UInt8] {
    guard count >= 0, offset <= size, UInt64(count) <= size - offset else {
      throw .outOfBounds(entry: name, offset: offset, count: count, size: size)
    }
    if !stored, offset + UInt64(count) > archive.inflatedLimit {
      throw .entryTooLarge(entry: name, limit: Int(clamping: archive.inflatedLimit))
    }
    if offset >= windowStart, offset + UInt64(count) <= windowStart + UInt64(window.count) {
      let from = Int(offset - windowStart)
      return Array(window[from..<from + count])
    }
    if file == nil || file!.position > offset {
      file = try ZipEntryFile(archive: archive, index: index, entry: name)
      opens += 1
    }
    try file!.advance(to: offset, stored: stored)
    let want = Int(min(UInt64(max(count, Self.windowSize)), size - offset))
    let bytes = try file!.read(count: want)
    guard bytes.count >= count else { throw .outOfBounds(entry: name, offset: offset, count: count, size: size) }
    window = bytes
    windowStart = offset
    return Array(bytes[0..<count])
  }
}
