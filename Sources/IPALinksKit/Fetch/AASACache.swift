import Foundation

/// The on-disk cache: one JSON file per (source, host) holding the body and what revalidation needs.
///
/// Only successful fetches are stored; failures are not, so a fixed server shows up on the next run (Apple's CDN
/// caches failures for up to an hour, which is confusing enough). Files are written to a temporary name in the same
/// folder and renamed, so a crash or a concurrent run never leaves a half-written entry.
struct AASACache: Sendable {
  /// The network source an entry belongs to. Direct entries remember whether they came from the root path.
  enum Kind: String, Sendable {
    case cdn, direct
  }

  struct Entry: Codable, Sendable, Equatable {
    var version = 1
    var host: String
    var url: String
    /// `cdn`, `direct-well-known` or `direct-root`.
    var source: AASAFetchResult.Source
    var fetchedAt: Date
    /// From `Cache-Control: max-age`; nil means stale at once (kept for revalidation, offline use and outages).
    var expiresAt: Date?
    var etag: String?
    var httpStatus: Int
    var contentType: String?
    var appleFrom: String?
    var body: Data

    func isFresh(at now: Date) -> Bool { expiresAt.map { now < $0 } ?? false }
  }

  let directory: URL
  /// Entries larger than this are ignored: the body is capped, so a bigger file was not written by us.
  let maximumFileSize: Int

  init(directory: URL, maximumBodyBytes: Int) {
    self.directory = directory
    self.maximumFileSize = maximumBodyBytes * 2 + 64 * 1024  // base64 plus metadata
  }

  /// The file for (kind, host). Hosts are validated before they get here; escaping anything outside
  /// `[a-z0-9._-]` is a second line of defence so a name can never hold `/` or start with a dot.
  func fileURL(kind: Kind, host: String) -> URL {
    directory.appendingPathComponent("\(kind.rawValue)_\(Self.fileSafe(host)).json", isDirectory: false)
  }

  static func fileSafe(_ name: String) -> String {
    var out = ""
    for byte in name.lowercased().utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"),
        UInt8(ascii: "_"):
        out.append(Character(UnicodeScalar(byte)))
      case UInt8(ascii: ".") where !out.isEmpty:
        out.append(".")
      default:
        out += String(format: "%%%02X", byte)
      }
    }
    return out
  }

  /// Why the cache holds nothing at all: its folder is not there (`/x/cache does not exist`), or is not a folder;
  /// nil when it is one. With `--offline`, every host would otherwise be "not in the cache", as if a mistyped
  /// `--cache-dir` were a cache that had not seen them.
  var missing: String? {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isFolder) else {
      return "the cache folder \(directory.path) does not exist"
    }
    return isFolder.boolValue ? nil : "the cache folder \(directory.path) is not a folder"
  }

  func read(kind: Kind, host: String) -> Entry? {
    if case .entry(let entry) = lookUp(kind: kind, host: host) { return entry }
    return nil
  }

  /// What the cache has for a host: its entry, nothing, or a file there that cannot be used, with why.
  enum Lookup {
    case entry(Entry)
    case absent
    case unusable(String)
  }

  /// The entry of `host`, or why a file in its place cannot be used (`--offline` says so rather than "not in the
  /// cache", which a damaged entry is not).
  func lookUp(kind: Kind, host: String) -> Lookup {
    let url = fileURL(kind: kind, host: host)
    guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else { return .absent }
    guard attributes[.type] as? FileAttributeType == .typeRegular else {
      return .unusable("\(url.path) is not a regular file")
    }
    guard let size = attributes[.size] as? NSNumber, size.intValue <= maximumFileSize else {
      return .unusable("\(url.path) is over the \(maximumFileSize.byteCount) a cache entry holds")
    }
    guard let data = try? Data(contentsOf: url) else { return .unusable("\(url.path) cannot be read") }
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    guard let entry = try? decoder.decode(Entry.self, from: data) else {
      return .unusable("\(url.path) is damaged (not an ipalinks cache entry)")
    }
    guard entry.version == 1, entry.host == host else {
      return .unusable("\(url.path) is an entry of another version or host")
    }
    return .entry(entry)
  }

  /// Writes atomically; returns why it could not, for the result's message.
  @discardableResult
  func write(_ entry: Entry, kind: Kind) -> String? {
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .iso8601
    encoder.outputFormatting = [.sortedKeys]
    do {
      try FileManager.default.createDirectory(
        at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
      let data = try encoder.encode(entry)
      let final = fileURL(kind: kind, host: entry.host)
      let temporary = directory.appendingPathComponent(".tmp-\(UUID().uuidString)", isDirectory: false)
      try data.write(to: temporary, options: [.withoutOverwriting])
      if rename(temporary.path, final.path) != 0 {
        let reason = String(cString: strerror(errno))
        try? FileManager.default.removeItem(at: temporary)
        return "cache not written: \(reason)"
      }
      return nil
    } catch {
      return "cache not written: \(error.localizedDescription)"
    }
  }
}

/// The parts of `Cache-Control` the cache honours.
struct CacheControl: Equatable {
  var maxAge: Int?
  var noStore = false
  var noCache = false

  init(_ header: String?) {
    guard let header else { return }
    for directive in header.split(separator: ",") {
      let parts = directive.split(separator: "=", maxSplits: 1).map {
        $0.trimmingCharacters(in: .whitespaces).lowercased()
      }
      switch parts.first {
      case "max-age":
        if parts.count == 2, let seconds = Int(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))) {
          maxAge = max(0, seconds)
        }
      case "no-store": noStore = true
      case "no-cache": noCache = true
      default: break
      }
    }
  }

  /// When a response fetched at `now` stops being fresh; nil when it must be revalidated at once.
  func expiry(from now: Date) -> Date? {
    guard !noCache, let maxAge, maxAge > 0 else { return nil }
    return now.addingTimeInterval(TimeInterval(min(maxAge, 365 * 24 * 3600)))
  }
}
