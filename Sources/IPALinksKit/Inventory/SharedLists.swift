import Foundation

/// The lists of app IDs that reports read back from one inventory share, each kept once.
///
/// Every app on a host carries the whole list of apps its AASA file names (``DomainAASA/listedApps``), so an
/// inventory of apps that share hosts repeats each list once per app: three quarters of the bytes of
/// `make bench-store`'s. Decoded, each copy was a list of strings of its own; shared, an inventory's reports take
/// about the memory of what differs between them. The threads that decode lines share one, each comparing lists
/// outside its lock.
final class SharedLists: @unchecked Sendable {
  /// What tells one host's list from another's cheaply; lists are compared whole before one is shared.
  private struct Key: Hashable {
    let host: String
    let url: String?
    let bytes: Int?
    let count: Int
    let first: String
    let last: String
  }

  /// Guards `kept` and `keptBytes`, which are all the state there is.
  private let lock = NSLock()
  private var kept: [Key: [String]] = [:]
  /// Lists of this many apps or more are shared: shorter ones cost little.
  private static let shortest = 4
  /// The bytes of the lists kept and their keys' strings.
  private var keptBytes = 0
  /// At most this many bytes are kept (the 90 lists worth sharing among `make bench-store`'s 10,000 apps take
  /// 0.5 MB): a reader that keeps few reports (`who-claims HOST`) reads an inventory of any size, and what a
  /// hostile one makes this hold beside them stays bounded.
  private let mostBytes: Int

  /// Keeps lists up to `mostBytes` in all (32 MiB unless a test says less).
  init(mostBytes: Int = 32 << 20) { self.mostBytes = mostBytes }

  /// Points each of `report`'s lists that equals one seen before at that one.
  func share(_ report: inout InspectionReport) {
    for b in report.bundles.indices {
      for d in report.bundles[b].associatedDomains.indices {
        guard let aasa = report.bundles[b].associatedDomains[d].aasa,
          aasa.listedApps.count >= Self.shortest, let first = aasa.listedApps.first,
          let last = aasa.listedApps.last
        else { continue }
        let key = Key(
          host: aasa.fetch.host, url: aasa.fetch.url, bytes: aasa.fetch.bytes, count: aasa.listedApps.count,
          first: first, last: last)
        var held = lock.withLock { kept[key] }
        if held == nil {
          // Kept unless another thread kept one first, or the bound is reached.
          let bytes = aasa.listedApps.reduce(key.host.utf8.count + (key.url?.utf8.count ?? 0)) { $0 + $1.utf8.count }
          held = lock.withLock {
            if let first = kept[key] { return first }
            if keptBytes + bytes <= mostBytes { (kept[key], keptBytes) = (aasa.listedApps, keptBytes + bytes) }
            return nil
          }
        }
        if let held, held == aasa.listedApps { report.bundles[b].associatedDomains[d].aasa?.listedApps = held }
      }
    }
  }
}
