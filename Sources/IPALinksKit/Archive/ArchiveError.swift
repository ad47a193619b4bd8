/// Why an archive, a folder or one of its entries could not be read. Each case names the file.
public enum ArchiveError: Error, CustomStringConvertible, Equatable, Sendable {
  /// libzip rejected the file and it does not start like a zip; `detail` is libzip's reason, empty for a plain non-zip.
  case notAZip(file: String, detail: String)
  /// Starts like a zip but its central directory is missing or damaged, typically a cut-off download.
  case corrupt(file: String, detail: String)
  /// The file or folder could not be opened or listed at all (missing, no permission); its content is unknown.
  case unreadable(file: String, detail: String)
  /// More entries than the limit; refused before listing them, so a crafted archive cannot exhaust memory.
  case tooManyEntries(file: String, count: Int, limit: Int)
  /// A path the container does not hold, including names that were skipped as unsafe.
  case entryMissing(entry: String)
  /// An entry bigger than the limit for its read, judged by the bytes inflated rather than the size its header claims.
  case entryTooLarge(entry: String, limit: Int)
  /// A password-protected entry: we never have the password, so it is reported rather than read as garbage.
  case entryEncrypted(entry: String)
  /// Reading an entry failed partway (an I/O error or a damaged compressed stream); `detail` is the underlying message.
  case readFailed(entry: String, detail: String)
  /// A read past the end of a file, usually a parser following a bad offset in hostile data.
  case outOfBounds(entry: String, offset: UInt64, count: Int, size: UInt64)
  /// The archive's entries together inflated past the limit one archive may; `entry` is the one being read then.
  case archiveInflatesTooMuch(file: String, entry: String, limit: UInt64)

  /// One line naming the file or entry and the problem, as printed in diagnostics.
  public var description: String {
    switch self {
    case .notAZip(let file, let detail): "\(file): not a zip archive" + (detail.isEmpty ? "" : " (\(detail))")
    case .corrupt(let file, let detail): "\(file): truncated or corrupt zip archive (\(detail))"
    case .unreadable(let file, let detail): "\(file): cannot be read (\(detail))"
    case .tooManyEntries(let file, let count, let limit):
      "\(file): \(count) entries, over the limit of \(limit)"
    case .entryMissing(let entry): "\(entry): no such entry"
    case .entryTooLarge(let entry, let limit):
      "\(entry): entry inflates past the \(limit.byteCount) limit; refused (possible zip bomb)"
    case .entryEncrypted(let entry): "\(entry): entry is encrypted; encrypted zip entries are not supported"
    case .readFailed(let entry, let detail): "\(entry): read failed (\(detail))"
    case .outOfBounds(let entry, let offset, let count, let size):
      "\(entry): \(count) bytes at offset \(offset) lie outside the \(size)-byte file"
    case .archiveInflatesTooMuch(let file, let entry, let limit):
      "\(entry): \(file) has inflated past the \(Int(clamping: limit).byteCount) one archive may; refused (possible zip "
        + "bomb: entries that share their compressed data)"
    }
  }
}

extension Int {
  /// "8 MiB" rather than "8388608" in messages people read.
  var byteCount: String {
    if self >= 1 << 30 && self % (1 << 30) == 0 { return "\(self >> 30) GiB" }
    if self >= 1 << 20 && self % (1 << 20) == 0 { return "\(self >> 20) MiB" }
    if self >= 1 << 10 && self % (1 << 10) == 0 { return "\(self >> 10) KiB" }
    return "\(self) bytes"
  }
}
