import Foundation

/// The version of ipalinks, as `ipalinks --version` prints it and every JSON document's `generator` field names it.
public enum ToolVersion {
  /// The release number; bumped by hand when a release is tagged.
  public static let current = "0.10.0"
  /// `ipalinks 0.10.0`: the `generator` value, so a saved document says which version wrote it.
  public static var generator: String { "ipalinks \(current)" }
}

/// Now, as ipalinks stamps what it writes and records: `SOURCE_DATE_EPOCH` (seconds since 1970) when set, as
/// reproducible-builds tools read it, so that examples and tests give the same output every time.
public enum Clock {
  /// The current instant, or `SOURCE_DATE_EPOCH`'s.
  public static var now: Date { fixed ?? Date() }

  /// `SOURCE_DATE_EPOCH`'s instant, read once: `ProcessInfo`'s `environment` copies the whole environment into a
  /// dictionary on each call, which cost `inspect --store` half a second per 10,000 inputs on its serial output.
  private static let fixed: Date? = ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"].flatMap(
    TimeInterval.init
  ).map { Date(timeIntervalSince1970: $0) }

  /// `date` as RFC 3339 in UTC, to the second (`2026-11-27T09:00:00Z`), or to the millisecond
  /// (`2026-11-27T09:00:00.250Z`), as the audit store keeps instants so that they sort as text.
  public static func rfc3339(_ date: Date, milliseconds: Bool = false) -> String {
    // By hand: a formatter costs more to make than the rest of a stored input's row, and is not Sendable to keep.
    let total = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    var seconds = time_t(total >= 0 ? total / 1000 : (total - 999) / 1000)
    var parts = tm()
    gmtime_r(&seconds, &parts)
    func padded(_ value: Int32, _ width: Int) -> String {
      let digits = String(value)
      return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
    let fraction = milliseconds ? "." + padded(Int32(((total % 1000) + 1000) % 1000), 3) : ""
    return padded(parts.tm_year + 1900, 4) + "-" + padded(parts.tm_mon + 1, 2) + "-" + padded(parts.tm_mday, 2) + "T"
      + padded(parts.tm_hour, 2) + ":" + padded(parts.tm_min, 2) + ":" + padded(parts.tm_sec, 2) + fraction + "Z"
  }
}
