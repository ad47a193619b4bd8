import Foundation
import IPALinksKit
import SQLKit

/// A point in the store's history as a user names it: `--at` and `--since` take a date (`2026-03-01`), an RFC 3339
/// time (`2026-03-01T09:30:00Z`), a time as ipalinks prints it (`2026-03-01 09:30:00`, `2026-03-01 09:30`, UTC, with
/// ` UTC` or without), a run label (`week-47`), and `--since` also an age (`7d`, `12h`, `2w`).
public enum StoreTime: Sendable, Equatable, CustomStringConvertible {
  /// A day, UTC: `--at` reads the state at its end, `--since` from its start.
  case day(Date)
  /// A minute, UTC (`2026-03-01 09:30`, as the history tables print times): read as a day is, at its end or from
  /// its start.
  case minute(Date)
  /// An instant.
  case instant(Date)
  /// An age before now, and how the user wrote it (`2w` stays `2w` in what is said).
  case ago(TimeInterval, written: String)
  /// The moment a labelled run ended: the last of its runs (shards) to record anything.
  case label(String)

  /// Parses what the user wrote; anything that is not a date, a time or (when `allowingAge`) an age is a label.
  public init(parsing text: String, allowingAge: Bool = false) {
    // `YYYY-MM-DD` exactly: the formatter alone took `2026/11/19` and `2026-1-019`.
    let digits = text.utf8.enumerated().allSatisfy { i, c in i == 4 || i == 7 ? c == UInt8(ascii: "-") : c &- 48 < 10 }
    if text.utf8.count == 10, digits, let day = Self.dayFormatter.date(from: text) {
      self = .day(day)
    } else if let (printed, whole) = Self.printed(text) {
      self = whole ? .minute(printed) : .instant(printed)
    } else if let instant = Self.instant(text) {
      self = .instant(instant)
    } else if allowingAge, let age = Self.age(text) {
      self = .ago(age, written: text.hasPrefix("-") ? String(text.dropFirst()) : text)
    } else {
      self = .label(text)
    }
  }

  /// As the user wrote it, or an instant as ipalinks prints times.
  public var description: String {
    switch self {
    case .day(let day): Self.dayFormatter.string(from: day)
    case .minute(let minute): StoreText.minute(AuditStore.timestamp(minute))
    // As lines print times (`2026-11-19 09:00:30 UTC`), to the millisecond only when there is one to say.
    case .instant(let instant):
      instant.timeIntervalSince1970.rounded(.down) == instant.timeIntervalSince1970
        ? StoreText.time(AuditStore.timestamp(instant)) + " UTC" : AuditStore.timestamp(instant)
    case .ago(_, let written): written
    case .label(let label): label
    }
  }

  /// How `--at` and `--since` read a day.
  public enum DayEdge: Sendable {
    /// The state on that day: its end.
    case end
    /// Changes since that day: its start.
    case start
  }

  private static var dayFormatter: DateFormatter { formatter("yyyy-MM-dd") }

  /// A formatter of `format` in UTC, whatever the machine's locale.
  private static func formatter(_ format: String) -> DateFormatter {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = format
    return formatter
  }

  /// A time as ipalinks prints it: `2026-03-01 09:30:07` or `2026-03-01 09:30` (`whole`: a minute), UTC, with
  /// ` UTC` after it or not.
  private static func printed(_ text: String) -> (Date, whole: Bool)? {
    let text = text.hasSuffix(" UTC") ? String(text.dropLast(4)) : text
    let bytes = Array(text.utf8)
    guard bytes.count == 16 || bytes.count == 19, bytes[10] == UInt8(ascii: " ") else { return nil }
    let shape = bytes.count == 16 ? "dddd-dd-dd dd:dd" : "dddd-dd-dd dd:dd:dd"
    for (c, s) in zip(bytes, shape.utf8) where s == UInt8(ascii: "d") ? c &- 48 >= 10 : c != s { return nil }
    return formatter(bytes.count == 16 ? "yyyy-MM-dd HH:mm" : "yyyy-MM-dd HH:mm:ss").date(from: text)
      .map { ($0, bytes.count == 16) }
  }

  private static func instant(_ text: String) -> Date? {
    // RFC 3339 allows `t` and `z` in lower case; the formatter reads only upper case.
    let text = text.uppercased()
    let formatter = ISO8601DateFormatter()
    if let date = formatter.date(from: text) { return date }
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.date(from: text)
  }

  /// `7d`, `12h`, `2w`, `30min`; `-7d` too, as one may write an age before now. Not `6m`, which reads as six
  /// months as readily as six minutes (it was minutes, and `store prune --before 6m` took six months to mean them).
  private static func age(_ text: String) -> TimeInterval? {
    var text = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
    var unit = text.last.map(String.init) ?? ""
    if text.hasSuffix("min") {
      (text, unit) = (text.dropLast(2), "min")
    }
    guard let count = Int(text.dropLast()), count >= 0, !text.dropLast().hasPrefix("+") else { return nil }
    let seconds: TimeInterval
    switch unit {
    case "min": seconds = TimeInterval(count) * 60
    case "h": seconds = TimeInterval(count) * 3_600
    case "d": seconds = TimeInterval(count) * 86_400
    case "w": seconds = TimeInterval(count) * 7 * 86_400
    default: return nil
    }
    // Older than any store, and still a time one can write: `99999999999999999d` trapped converting to Int64.
    return min(seconds, maximumAge)
  }

  /// The oldest age read: 1,000 years, before any run, and a time whose year still has four digits.
  static let maximumAge: TimeInterval = 1_000 * 365 * 86_400

  /// Why `label` cannot name a run (`--run-label`), or nil: empty, or read as a date, a time, an age or a run's
  /// number (`run 3`) wherever a run is named, so that `--at` would never reach it.
  public static func labelProblem(_ label: String) -> String? {
    if label.isEmpty { return "an empty label" }
    let ageLike = StoreTime(parsing: label, allowingAge: true)
    if Self.isMisshapenTime(label) {
      return
        "\(label) reads as a date that does not exist, which --at, --since and --before refuse; choose another label"
    }
    if case .label = ageLike, Self.runNumber(label) == nil { return nil }
    return "\(label) reads as "
      + {
        switch ageLike {
        case .day: "a date"
        case .minute, .instant: "a time"
        case .ago: "an age"
        case .label: "a run's number"
        }
      }() + " where a run is named (--at, --since, --before), so no run could be found by it; choose another label"
  }

  /// Whether `text` is written as a date or time is (`2026-13-45`, `2026-02-30 25:00`, `2026-13-01T00:00:00Z`) and
  /// is none: a mistake to say as one, not a run label to look for (which said "no run labelled 2026-13-45", exit 2).
  /// `2026-11-19-nightly` is a label.
  public static func isMisshapenTime(_ text: String) -> Bool {
    let written = Array((text.hasSuffix(" UTC") ? String(text.dropLast(4)) : text).utf8)
    func fits(_ bytes: ArraySlice<UInt8>, _ shape: String) -> Bool {
      bytes.count == shape.utf8.count
        && zip(bytes, shape.utf8).allSatisfy { c, s in s == UInt8(ascii: "d") ? c &- 48 < 10 : c == s }
    }
    let rfc3339 = written.count > 11 && fits(written.prefix(10), "dddd-dd-dd") && "Tt".utf8.contains(written[10])
    guard
      rfc3339 || ["dddd-dd-dd", "dddd-dd-dd dd:dd", "dddd-dd-dd dd:dd:dd"].contains(where: { fits(written[...], $0) })
    else { return false }
    if case .label = StoreTime(parsing: text) { return true }
    return false
  }

  /// The number in `run 3`, as `history` names a run without a label.
  static func runNumber(_ text: String) -> Int64? {
    guard text.hasPrefix("run "), let number = Int64(text.dropFirst(4)), number > 0 else { return nil }
    return number
  }
}

extension AuditStore {
  /// The instant `time` names in this store; a label no run has is an error that says which labels there are.
  public func resolve(_ time: StoreTime, day edge: StoreTime.DayEdge, now: Date = AuditStore.now) async throws(Failure)
    -> Date
  {
    // The state at a time to come is not known: refused, rather than read as the latest state. (A store may hold
    // runs stamped ahead of this clock, as SOURCE_DATE_EPOCH makes them; its last run bounds the time too.)
    let named: Date? =
      switch time {
      case .day(let day): day
      case .minute(let minute): minute
      case .instant(let instant): instant
      case .ago, .label: nil
      }
    if let named, named > now {
      let last = try await lastRecorded()
      if last.map({ named > $0 }) ?? true {
        throw Failure(
          description: "\(location): \(time) is in the future (it is \(StoreText.time(Self.timestamp(now))) UTC now"
            + (last.map { ", and the store's last run ended at \(StoreText.time(Self.timestamp($0))) UTC" } ?? "")
            + ")")
      }
    }
    switch time {
    case .day(let day): return edge == .start ? day : day + 86_400 - 0.001
    case .minute(let minute): return edge == .start ? minute : minute + 60 - 0.001
    case .instant(let instant): return instant
    case .ago(let seconds, _): return now - seconds
    case .label(let label):
      // A label, else a run's number as `store runs` and `inspect --store` give it (a run labelled "3" comes first).
      let number = label.allSatisfy(\.isASCII) ? Int64(label) ?? StoreTime.runNumber(label) : nil
      func ended(_ which: SQLQueryString) async throws(Failure) -> String? {
        try await failing("cannot read the runs") {
          try await sql.raw(
            """
            SELECT MAX(COALESCE(r.finished_at, (SELECT MAX(i.observed_at) FROM inputs i WHERE i.run_id = r.id),
              r.started_at)) AS ended
            FROM runs r WHERE \(which)
            """
          ).first(decodingColumn: "ended", as: String?.self) ?? nil
        }
      }
      var (which, name): (SQLQueryString, String) = ("r.label = \(bind: label)", label)
      var end = try await ended(which)
      if end == nil, let number, number > 0 {
        (which, name) = ("r.id = \(bind: number)", "run \(number)")
        end = try await ended(which)
      }
      if let ended = end { try await refuseSharedInstant(ended, of: which, named: name) }
      guard let ended = end, let date = Self.date(ended) else {
        let labels = (try? await runs())?.compactMap(\.label) ?? []
        var seen = Set<String>()
        let known = Array(labels.reversed().filter { seen.insert($0).inserted }.prefix(5))
        let minutes = label.hasSuffix("m") && Int(label.dropLast().drop { $0 == "-" }) != nil
        throw Failure(
          description: "\(location): no run is labelled \(label)" + (number == nil ? "" : " or numbered \(label)")
            + " (nor is it a date like 2026-03-01, a time like "
            + "2026-03-01T09:30:00Z or an age like 7d)"
            + (minutes ? "; an age in minutes is written \(label)in, months as weeks or days (26w, 180d)" : "")
            + (known.isEmpty ? "" : "; recent labels: " + known.joined(separator: ", ")))
      }
      return date
    }
  }

  /// Refuses a run named by `label` (the runs `which` selects) whose end, `ended`, is also when a later run recorded
  /// something: the state is ordered by time, so the state "after this run" would hold that run's observations too
  /// (`--at` gave the later run's apps, `diff --since` said nothing changed). Runs of one instant come of a clock or
  /// `SOURCE_DATE_EPOCH` held still, and `inspect --store` and `refresh` warned of them when they ran.
  private func refuseSharedInstant(_ ended: String, of which: SQLQueryString, named label: String) async throws(Failure)
  {
    let other = try await failing("cannot read the runs") {
      try await sql.raw(
        """
        SELECT o.id, o.label FROM runs o WHERE o.id > (SELECT MAX(r.id) FROM runs r WHERE \(which))
          AND (EXISTS (SELECT 1 FROM inputs i WHERE i.run_id = o.id AND i.observed_at = \(bind: ended))
            OR EXISTS (SELECT 1 FROM retrievals t WHERE t.run_id = o.id AND t.retrieved_at = \(bind: ended))
            OR EXISTS (SELECT 1 FROM watched_hosts w WHERE w.run_id = o.id AND w.added_at = \(bind: ended)))
        ORDER BY o.id LIMIT 1
        """
      ).first()
    }
    guard let other else { return }
    let id = (try? other.decode(column: "id", as: Int.self)) ?? 0
    let otherLabel = (try? other.decode(column: "label", as: String?.self)) ?? nil
    throw Failure(
      description: "\(location): the state after \(label) cannot be shown: run \(id)"
        + (otherLabel.map { " (\($0))" } ?? "") + " recorded at the instant \(label) ended, "
        + "\(StoreText.time(ended)) UTC, and the store orders its state by time (a clock or "
        + "SOURCE_DATE_EPOCH held still stamped both)")
  }

  /// When the store last recorded anything: the end of its latest run (its last input, for a run that did not
  /// finish); nil for a store without runs.
  func lastRecorded() async throws(Failure) -> Date? {
    let ended = try await failing("cannot read the runs") {
      try await sql.raw(
        """
        SELECT MAX(COALESCE(r.finished_at, (SELECT MAX(i.observed_at) FROM inputs i WHERE i.run_id = r.id),
          r.started_at)) AS ended
        FROM runs r
        """
      ).first(decodingColumn: "ended", as: String?.self) ?? nil
    }
    return ended.flatMap(Self.date)
  }

  /// The instant `time` names, or nil (the latest state) when there is none.
  public func instant(_ time: StoreTime?, day edge: StoreTime.DayEdge) async throws(Failure) -> Date? {
    guard let time else { return nil }
    return try await resolve(time, day: edge)
  }

  /// The state `time` names: ``latestReports(at:)`` at its instant (a day read at its end).
  public func latestReports(at time: StoreTime?) async throws(Failure) -> [InspectionReport] {
    try await latestReports(at: try await instant(time, day: .end))
  }

  /// Now, as runs record it and ages count back from it: ``Clock/now``, which `SOURCE_DATE_EPOCH` sets.
  public static var now: Date { Clock.now }

  /// A stored timestamp read back.
  static func date(_ text: String) -> Date? {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.date(from: text)
  }
}
