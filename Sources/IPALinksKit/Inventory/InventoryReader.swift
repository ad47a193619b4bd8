import Foundation

/// Reads inventories saved by `ipalinks inspect --format json|jsonl` back into reports, so `blocklist`, `diff`,
/// `report` and `who-claims` work the same on saved inventories as on IPAs.
public enum InventoryReader {
  /// Why an inventory could not be read; the message names the file and, for JSON Lines, the line.
  public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The message to show, naming the file and, for JSON Lines, the line.
    public var description: String

    /// A failure saying `description`.
    public init(description: String) { self.description = description }
  }

  /// Inventories of whole corpora are large, but still bounded: the path may name anything, even an endless pipe.
  public static let maximumBytes = 1 << 30

  /// Accepts one report object, an array of them, or JSON Lines (one report per line, blank lines ignored), whose
  /// lines are decoded on up to `workers` threads.
  public static func read(_ data: Data, name: String, workers: Int = 1) throws(Failure) -> [InspectionReport] {
    if data.starts(with: [0x50, 0x4B, 0x03, 0x04]) {
      throw Failure(
        description: "\(name): a zip archive (an IPA?), not a saved inventory, which `inspect --format json` or "
          + "`jsonl` writes")
    }
    let decoder = JSONDecoder()
    let first = data.first { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }
    if first == UInt8(ascii: "[") {
      do { return sharingLists(try decoder.decode([InspectionReport].self, from: data)) } catch {
        throw Failure(description: "\(name): not an ipalinks inventory: \(describe(error))")
      }
    }
    if let one = try? decoder.decode(InspectionReport.self, from: data) { return [one] }
    // JSON Lines: the lines found in one pass over the bytes, then decoded on every core (decoding is most of
    // the time of reading a corpus's inventory); the first bad line is the one reported.
    var found: [Range<Int>] = []
    data.withUnsafeBytes { raw in
      let bytes = raw.bindMemory(to: UInt8.self)
      var start = 0
      while start < bytes.count {
        let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
        found.append(start..<end)
        start = end + 1
      }
    }
    let lines = found
    let shared = SharedLists()
    let decoded = parallelMap(lines.count, workers: workers, minimumChunk: 16) {
      k -> Result<InspectionReport?, Failure> in
      let line = data[data.startIndex + lines[k].lowerBound..<data.startIndex + lines[k].upperBound]
      if line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) { return .success(nil) }
      do {
        var report = try JSONDecoder().decode(InspectionReport.self, from: line)
        shared.share(&report)
        return .success(report)
      } catch {
        return .failure(
          Failure(description: "\(name): line \(k + 1) is not an ipalinks inventory: \(describe(error))"))
      }
    }
    var reports: [InspectionReport] = []
    for result in decoded {
      if let report = try result.get() { reports.append(report) }
    }
    if reports.isEmpty { throw Failure(description: "\(name): no inventory found") }
    return reports
  }

  /// `reports` with their lists of apps each kept once (``SharedLists``).
  private static func sharingLists(_ reports: [InspectionReport]) -> [InspectionReport] {
    let lists = SharedLists()
    var reports = reports
    for index in reports.indices { lists.share(&reports[index]) }
    return reports
  }

  /// Why a file over `limit` bytes is not read: a command that keeps every report holds them all in memory. The
  /// store is where a corpus that large goes: an import reads JSON Lines a batch at a time.
  static func tooLarge(_ path: String, limit: Int) -> Failure {
    Failure(
      description: "\(path): larger than the \(limit >> 20) MiB an inventory may have; `ipalinks store import` "
        + "reads JSON Lines of any size into a store, which the readers take with --store")
  }

  /// Whether a path names a saved inventory rather than something to inspect: by its extension, or as a pipe
  /// (`<(ipalinks inspect … --format json)`), which cannot be read as an archive is, by seeking.
  public static func looksLikeInventory(_ path: String) -> Bool {
    let lower = path.lowercased()
    return lower.hasSuffix(".json") || lower.hasSuffix(".jsonl") || lower.hasSuffix(".ndjson") || path == "-"
      || isPipe(path)
  }

  /// Whether `path` is a pipe or a socket (through links: `/dev/fd/63` of a shell's `<(…)`), read only once, in order.
  public static func isPipe(_ path: String) -> Bool {
    var info = stat()
    guard stat(path, &info) == 0 else { return false }
    return info.st_mode & S_IFMT == S_IFIFO || info.st_mode & S_IFMT == S_IFSOCK
  }

  /// DecodingError's description is a wall of text; the key path and the reason are what a user needs.
  static func describe(_ error: any Error) -> String {
    guard let error = error as? DecodingError else { return "\(error)" }
    let context: DecodingError.Context
    switch error {
    case .typeMismatch(_, let c), .valueNotFound(_, let c), .keyNotFound(_, let c), .dataCorrupted(let c): context = c
    @unknown default: return "\(error)"
    }
    let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    // Foundation's sentence, in the words of every other message.
    var reason =
      context.debugDescription == "The given data was not valid JSON." ? "not JSON" : context.debugDescription
    if case .keyNotFound(let key, _) = error { reason = "missing key \"\(key.stringValue)\"" }
    // `Expected to decode Dictionary<String, Any> but found an array instead.`: Swift's names, in words.
    if case .typeMismatch(let type, _) = error, let found = context.debugDescription.range(of: "but found ") {
      let what = context.debugDescription[found.upperBound...].replacingOccurrences(of: " instead.", with: "")
      let wanted = "\(type)".hasPrefix("Dictionary") ? "an object" : "\(type)".hasPrefix("Array") ? "an array" : nil
      if let wanted { reason = "\(what), not \(wanted)" }
    }
    return path.isEmpty ? reason : "\(path.hasPrefix(".") ? String(path.dropFirst()) : path): \(reason)"
  }
}
