import Foundation

/// The version of ipalinks, as `ipalinks --version` prints it and every JSON document's `generator` field names it.
public enum ToolVersion {
  /// The release number; bumped by hand when a release is tagged.
  public static let current = "0.9.0"
  /// `ipalinks 0.9.0`: the `generator` value, so a saved document says which version wrote it.
  public static var generator: String { "ipalinks \(current)" }
}

/// Now, as ipalinks stamps what it writes and records: `SOURCE_DATE_EPOCH` (seconds since 1970) when set, as
/// reproducible-builds tools read it, so that examples and tests give the same output every time.
public enum Clock {
  /// The current instant, or `SOURCE_DATE_EPOCH`'s.
  public static var now: Date {
    ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"].flatMap(TimeInterval.init).map {
      Date(timeIntervalSince1970: $0)
    } ?? Date()
  }

  /// `date` as RFC 3339 in UTC, to the second: `2026-11-27T09:00:00Z`.
  public static func rfc3339(_ date: Date) -> String {
    var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
    var parts = tm()
    gmtime_r(&seconds, &parts)
    func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
    return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):"
      + "\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
  }
}
