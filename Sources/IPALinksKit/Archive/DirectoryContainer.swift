import Foundation

/// An unzipped app folder (or a folder holding `Payload/`), read in place.
///
/// Symbolic links are skipped, so an untrusted folder cannot make us read files outside it.
public final class DirectoryContainer: FileContainer {
  /// Bounds the walk of a hostile or huge folder.
  public static let maximumFiles = 1_000_000

  /// The folder path as given, used to label errors.
  public let name: String
  /// Regular files found by the walk, relative to the folder and led by the init's `prefix`; symbolic links left out.
  public private(set) var paths: [String] = []
  /// Always empty: paths come from walking the disk below the root, so none can be absolute or climb out with `..`.
  public let unsafePaths: [String] = []
  private let root: URL

  /// Lists every regular file under `path` up front, never following symbolic links. `prefix` goes in front of each
  /// path so a bare `.app` folder reads like an IPA (`Payload/Name.app/...`) to the code that inspects it.
  public init(path: String, prefix: String = "") throws(ArchiveError) {
    name = path
    root = URL(fileURLWithPath: path, isDirectory: true)
    guard
      let walker = FileManager.default.enumerator(
        at: root, includingPropertiesForKeys: [.isRegularFileKey, .isSymbolicLinkKey], options: [])
    else { throw .unreadable(file: path, detail: "cannot list folder") }
    let base = root.standardizedFileURL.path
    for case let url as URL in walker {
      let values = try? url.resourceValues(forKeys: [.isRegularFileKey, .isSymbolicLinkKey])
      if values?.isSymbolicLink == true {
        walker.skipDescendants()
        continue
      }
      guard values?.isRegularFile == true else { continue }
      let full = url.standardizedFileURL.path
      guard full.hasPrefix(base + "/") else { continue }
      paths.append(prefix + String(full.dropFirst(base.count + 1)))
      if paths.count > Self.maximumFiles {
        throw .tooManyEntries(file: path, count: paths.count, limit: Self.maximumFiles)
      }
    }
    self.prefix = prefix
  }

  private let prefix: String

  private func url(for path: String) throws(ArchiveError) -> URL {
    guard path.hasPrefix(prefix), paths.contains(path) else { throw .entryMissing(entry: path) }
    return root.appendingPathComponent(String(path.dropFirst(prefix.count)))
  }

  /// The whole file, refused with ``ArchiveError/entryTooLarge(entry:limit:)`` when its size on disk exceeds `limit`.
  public func contents(of path: String, limit: Int) throws(ArchiveError) -> [UInt8] {
    let source = try byteSource(for: path)
    guard source.size <= UInt64(limit) else { throw .entryTooLarge(entry: path, limit: limit) }
    return try source.read(at: 0, count: Int(source.size))
  }

  /// Opens the file for ranged reads; only paths found by the walk are accepted, so a caller cannot reach outside.
  public func byteSource(for path: String) throws(ArchiveError) -> any ByteSource {
    try FileByteSource(path: url(for: path).path, name: path)
  }
}

/// Random access to a file on disk through a file handle; nothing is read until asked for.
public final class FileByteSource: ByteSource {
  /// Labels errors: the entry path when the file belongs to a container, otherwise the disk path.
  public let name: String
  /// Measured once when the file is opened; if the file shrinks later, reads fail as out of bounds.
  public let size: UInt64
  private let handle: FileHandle

  /// Opens `path` and measures it; `name` replaces the disk path in errors when the file is a container entry.
  public init(path: String, name: String? = nil) throws(ArchiveError) {
    self.name = name ?? path
    guard let h = FileHandle(forReadingAtPath: path) else {
      throw .unreadable(file: path, detail: "cannot open")
    }
    handle = h
    do {
      size = try h.seekToEnd()
    } catch {
      throw .unreadable(file: path, detail: "\(error)")
    }
  }

  deinit { try? handle.close() }

  /// Reads exactly `count` bytes; a short read throws ``ArchiveError/outOfBounds(entry:offset:count:size:)``, an I/O
  /// error ``ArchiveError/readFailed(entry:detail:)``.
  public func read(at offset: UInt64, count: Int) throws(ArchiveError) -> [UInt8] {
    do {
      try handle.seek(toOffset: offset)
      let data = try handle.read(upToCount: count) ?? Data()
      guard data.count == count else {
        throw ArchiveError.outOfBounds(entry: name, offset: offset, count: count, size: size)
      }
      return [UInt8](data)
    } catch let error as ArchiveError {
      throw error
    } catch {
      throw .readFailed(entry: name, detail: "\(error)")
    }
  }
}
