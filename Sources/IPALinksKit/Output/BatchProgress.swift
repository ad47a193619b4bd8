import Foundation

/// What a batch's progress bar shows: done out of total, the rate and time left, and the input being read.
///
/// The rate comes from the last completions, not the whole run, so a slow start (the first AASA lookups) does not
/// make the estimate wrong. The command line writes ``redraw(width:force:now:)`` and ``erase()`` to a terminal.
public struct BatchProgress: Sendable {
  /// Inputs in the batch; nil when only its end tells (an inventory read from a pipe).
  public let total: Int?
  /// When the batch began.
  public let startedAt: Date
  /// Inputs finished.
  public private(set) var done = 0
  /// Those finished before the bar began.
  private let initial: Int
  /// The inputs under way, oldest first, with when each started.
  private var running: [(name: String, since: Date)] = []
  /// What a wait after the batch is doing, shown in place of the inputs (``label(_:)``).
  private var labelText: String?
  /// How long an input runs before the bar names it, with its time so far, in place of the newest: what holds a
  /// batch back (a host that stalls until its timeout) is then on the screen, not the inputs that come and go.
  static let slowAfter: TimeInterval = 5
  /// When the last completions happened, and the count each brought the batch to, for the rate: one per completion,
  /// or per step of ``advance(to:at:)``, which may count many at once (an inventory's inputs stored 128 at a time).
  private var recent: [(at: Date, done: Int)] = []
  private static let window = 32
  /// When the bar was last drawn, and whether it is on the screen now.
  private var drawn = Date.distantPast
  private var shown = false

  /// A batch of `total` inputs (nil: not known ahead) that began at `startedAt`, `done` of them finished already (not
  /// counted in the rate).
  public init(total: Int?, startedAt: Date, done: Int = 0) {
    self.total = total
    self.startedAt = startedAt
    self.done = done
    initial = done
  }

  /// An input started at `now`.
  public mutating func started(_ input: String, at now: Date = Date()) { running.append((input, now)) }

  /// An input finished at `now`.
  public mutating func finished(_ input: String, at now: Date = Date()) {
    done += 1
    remember(now)
    if let index = running.firstIndex(where: { $0.name == input }) { running.remove(at: index) }
  }

  private mutating func remember(_ now: Date) {
    recent.append((now, done))
    if recent.count > Self.window { recent.removeFirst(recent.count - Self.window) }
  }

  /// The bar's label is `text` rather than the inputs under way: what a wait after the batch is doing.
  public mutating func label(_ text: String) { labelText = text }

  /// `count` inputs are finished by `now` (a count that only grows, such as the inputs made ready for a store): the
  /// bar moves on by as many completions as it gained, in one step.
  public mutating func advance(to count: Int, at now: Date = Date()) {
    guard count > done else { return }
    done = count
    remember(now)
  }

  /// What redraws the bar in place on a terminal `width` columns wide; nil when it was drawn less than a tenth of
  /// a second ago and `force` is not set, so a fast batch is not slowed by its own progress.
  public mutating func redraw(width: Int, force: Bool = false, now: Date = Date()) -> String? {
    guard force || now.timeIntervalSince(drawn) >= 0.1 else { return nil }
    (drawn, shown) = (now, true)
    return "\r\u{1B}[2K" + line(width: width, now: now)
  }

  /// What erases the bar, before another line is written or at the end; nil when it is not on the screen.
  public mutating func erase() -> String? {
    guard shown else { return nil }
    shown = false
    return "\r\u{1B}[2K"
  }

  /// Completions per second over the last ones (from the start while there are few, or while they all came at
  /// once).
  public func rate(_ now: Date) -> Double {
    guard let first = recent.first else { return 0 }
    let span = now.timeIntervalSince(first.at)
    if recent.count < 4 || span <= 0 {
      let elapsed = now.timeIntervalSince(startedAt)
      return elapsed > 0 ? Double(done - initial) / elapsed : 0
    }
    return Double(done - first.done) / span
  }

  /// The usual time between completions (or steps of them), as they came: over the last ones, or from the start
  /// while there are few.
  var gap: TimeInterval {
    guard let last = recent.last else { return 0 }
    if recent.count < 4 { return last.at.timeIntervalSince(startedAt) / Double(max(1, recent.count)) }
    return last.at.timeIntervalSince(recent[0].at) / Double(recent.count - 1)
  }

  /// `[#####.....]  12/40  30%  3.1/s  ETA 0:09  current.ipa`, cut to `width`; `slow.ipa for 0:42` when an input
  /// has run longer than ``slowAfter``, its name cut first so its time stays; `ETA -:--` when nothing has finished
  /// for that long and three times the usual gap. A batch of no known total shows `12 so far 3.1/s` alone.
  public func line(width: Int, now: Date = Date()) -> String {
    let rate = rate(now)
    var text: String
    if let total {
      let fraction = total == 0 ? 1 : min(1, Double(done) / Double(total))
      let barWidth = 20
      let filled = Int((fraction * Double(barWidth)).rounded(.down))
      // Nothing finished for three of the usual gaps, and five seconds at least: a stall, whose end no rate tells.
      let stalled = recent.last.map { now.timeIntervalSince($0.at) >= max(Self.slowAfter, 3 * gap) } ?? false
      let eta = rate > 0 && !stalled ? Int((Double(max(0, total - done)) / rate).rounded()) : nil
      text = "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: barWidth - filled) + "] "
      text += "\(done)/\(total) \(Int(fraction * 100))% " + String(format: "%.1f/s", rate)
      text += " ETA " + (eta.map(Self.clock) ?? "-:--")
    } else {
      text = "\(done) so far " + String(format: "%.1f/s", rate)
    }
    var name: String?
    var suffix = ""
    if let labelText {
      name = labelText
    } else if let oldest = running.first, now.timeIntervalSince(oldest.since) >= Self.slowAfter {
      name = oldest.name
      suffix = " for " + Self.clock(Int(now.timeIntervalSince(oldest.since)))
    } else {
      name = running.last?.name
    }
    if let name {
      // Terminal control characters in a file name must not reach the terminal.
      // Cut by the columns it takes: a name of wide characters (日本語) counted as characters made the bar wrap,
      // and each redraw, which clears one line, left a row behind.
      var shown = TerminalText.escape(name.split(separator: "/").last.map(String.init) ?? name)
      let room = Self.columns(width) - text.count - 2 - suffix.count
      if TerminalText.columns(shown) > room && room >= 8 {
        shown = TerminalText.prefix(shown, columns: room - 1) + "…"
      }
      text += "  " + shown + suffix
    }
    let columns = Self.columns(width)
    guard TerminalText.columns(text) > columns else { return text }
    guard text.utf8.allSatisfy({ $0 < 0x80 }) else { return TerminalText.prefix(text, columns: columns) }
    // Whole fields: `31% 1` would read as a rate of 1.
    let cut = text.prefix(columns)
    let next = text[text.index(text.startIndex, offsetBy: columns)]
    return next == " " ? String(cut) : String(cut[..<(cut.lastIndex(of: " ") ?? cut.endIndex)])
  }

  /// The columns a bar may take on a terminal `width` wide: three fewer, so that the `^C` a terminal echoes when
  /// Ctrl-C is pressed fits after it on its line, where clearing the line takes both away (on the next line, it
  /// would leave the bar above the summary).
  static func columns(_ width: Int) -> Int { max(0, width - 3) }

  /// Seconds as `m:ss`.
  static func clock(_ seconds: Int) -> String { String(format: "%d:%02d", seconds / 60, seconds % 60) }
}
