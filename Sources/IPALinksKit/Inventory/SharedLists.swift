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

  /// Guards `kept`, which is all the state there is.
  private let lock = NSLock()
  private var kept: [Key: [String]] = [:]
  /// Lists of this many apps or more are shared: shorter ones cost little.
  private static let shortest = 4
  /// At most this many lists are kept (one per host and file, so far more than a corpus has), so what a hostile
  /// inventory makes this hold stays bounded.
  private static let most = 1 << 16

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
        let held = lock.withLock {
          let held = kept[key]
          if held == nil && kept.count < Self.most { kept[key] = aasa.listedApps }
          return held
        }
        if let held, held == aasa.listedApps { report.bundles[b].associatedDomains[d].aasa?.listedApps = held }
      }
    }
  }
}
