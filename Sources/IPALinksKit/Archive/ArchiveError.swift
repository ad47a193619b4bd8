/// Why an archive, a folder or one of its entries could not be read. Each case names the file.
public enum ArchiveError: Error, CustomStringConvertible, Equatable, Sendable {
  case notAZip(file: String, detail: String)
  /// Starts like a zip but its central directory is missing or damaged, typically a cut-off download.
  case corrupt(file: String, detail: String)
  case unreadable(file: String, detail: String)
  case tooManyEntries(file: String, count: Int, limit: Int)
  case entryMissing(entry: String)
  case entryTooLarge(entry: String, limit: Int)
  case entryEncrypted(entry: String)
  case readFailed(entry: String, detail: String)
  case outOfBounds(entry: String, offset: UInt64, count: Int, size: UInt64)

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
    }
  }
}

extension Int {
  /// "8 MiB" rather than "8388608" in messages people read.
  var byteCount: String {
    if self >= 1 << 20 && self % (1 << 20) == 0 { return "\(self >> 20) MiB" }
    if self >= 1 << 10 && self % (1 << 10) == 0 { return "\(self >> 10) KiB" }
    return "\(self) bytes"
  }
}
