/// Random access to the bytes of one file, inside an archive or on disk.
///
/// Parsers read only the ranges they need through this, so a 300 MB executable never sits in memory.
public protocol ByteSource: AnyObject {
  /// The file's name as shown in diagnostics.
  var name: String { get }
  /// The file's size in bytes (its uncompressed size for archive entries).
  var size: UInt64 { get }
  /// Exactly `count` bytes starting at `offset`, or an error when they are not all there.
  func read(at offset: UInt64, count: Int) throws(ArchiveError) -> [UInt8]
}

extension ByteSource {
  /// Reads a range after checking it lies inside the file, so hostile offsets fail cleanly.
  public func checkedRead(at offset: UInt64, count: Int) throws(ArchiveError) -> [UInt8] {
    guard count >= 0, offset <= size, UInt64(count) <= size - offset else {
      throw .outOfBounds(entry: name, offset: offset, count: count, size: size)
    }
    return try read(at: offset, count: count)
  }
}

/// A container of files addressed by relative paths: a zip archive, or a folder on disk.
public protocol FileContainer: AnyObject {
  /// The container's own name (the .ipa or folder path) for diagnostics.
  var name: String { get }
  /// Every file path inside, with `/` separators, unsafe names already removed.
  var paths: [String] { get }
  /// Names that were skipped because they could escape the container (`..`, absolute paths).
  var unsafePaths: [String] { get }
  /// The whole content of a small file, refusing to inflate more than `limit` bytes.
  func contents(of path: String, limit: Int) throws(ArchiveError) -> [UInt8]
  /// Random access to a possibly large file.
  func byteSource(for path: String) throws(ArchiveError) -> any ByteSource
}

enum EntryNames {
  /// True for names that could point outside a container if someone did extract it.
  static func isUnsafe(_ name: String) -> Bool {
    if name.hasPrefix("/") || name.hasPrefix("\\") || name.contains("\\") { return true }
    return name.split(separator: "/", omittingEmptySubsequences: false).contains { $0 == ".." }
  }

  /// `name` as an extractor writes it: `Payload/T.app/./T`, `Payload/T.app//T` and `Payload/./T.app/T` are all
  /// `Payload/T.app/T`. Entries are known by it, so that two that land on one file are seen as duplicates, and one
  /// written oddly is read where it lands. A name that names a folder keeps its final `/`.
  static func canonical(_ name: String) -> String {
    guard name.contains("//") || name.hasPrefix("./") || name.contains("/./") || name.hasSuffix("/.") || name == "."
    else { return name }
    let parts = name.split(separator: "/", omittingEmptySubsequences: false)
    let kept = parts.filter { !$0.isEmpty && $0 != "." }
    let folder = parts.last.map { $0.isEmpty || $0 == "." } ?? false
    return kept.joined(separator: "/") + (folder ? "/" : "")
  }
}

/// Bytes already in memory (tests, fuzzing, small files) behind the same random-access interface.
public final class MemoryByteSource: ByteSource {
  /// Labels errors: `<memory>` unless the caller says where the bytes came from (the fuzz harness names its target).
  public let name: String
  /// The whole content; each read copies a slice of it.
  public let bytes: [UInt8]
  /// Derived from `bytes`, so the bounds check and the copy can never disagree.
  public var size: UInt64 { UInt64(bytes.count) }

  /// Wraps bytes already loaded, e.g. a fuzzer input or a test fixture built in code.
  public init(_ bytes: [UInt8], name: String = "<memory>") {
    self.bytes = bytes
    self.name = name
  }

  /// Copies the range out, or throws ``ArchiveError/outOfBounds(entry:offset:count:size:)`` when it passes the end.
  public func read(at offset: UInt64, count: Int) throws(ArchiveError) -> [UInt8] {
    guard count >= 0, offset <= size, UInt64(count) <= size - offset else {
      throw .outOfBounds(entry: name, offset: offset, count: count, size: size)
    }
    return Array(bytes[Int(offset)..<Int(offset) + count])
  }
}
