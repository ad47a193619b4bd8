import Foundation

/// A one-line progress bar on stderr for batches: done/total, rate, ETA and the file being read.
///
/// Only made when stderr is a terminal, so logs and pipes never see carriage returns. Redraws are limited to ten
/// a second so a fast batch is not slowed by its own progress output.
final class ProgressBar {
  let total: Int
  let startedAt: Date
  private var done = 0
  private var running: [String] = []
  private var lastDraw = Date.distantPast
  private var visible = false

  init(total: Int, startedAt: Date) {
    self.total = total
    self.startedAt = startedAt
  }

  func started(_ input: String) {
    running.append(input)
    draw()
  }

  func finished(_ input: String) {
    done += 1
    if let index = running.firstIndex(of: input) { running.remove(at: index) }
    draw(force: done == total)
  }

  /// Erases the bar, before another line is printed or at the end.
  func clear() {
    guard visible else { return }
    write("\r\u{1B}[2K")
    visible = false
  }

  func draw(force: Bool = false) {
    let now = Date()
    guard force || now.timeIntervalSince(lastDraw) >= 0.1 else { return }
    lastDraw = now
    write(
      "\r\u{1B}[2K"
        + Self.line(
          done: done, total: total, elapsed: now.timeIntervalSince(startedAt),
          current: running.last, width: Self.columns()))
    visible = true
  }

  /// `[#####.....]  12/40  30%  3.1/s  ETA 0:09  current.ipa`, cut to the terminal's width.
  static func line(done: Int, total: Int, elapsed: Double, current: String?, width: Int) -> String {
    let fraction = total == 0 ? 1 : Double(done) / Double(total)
    let barWidth = 20
    let filled = Int((fraction * Double(barWidth)).rounded(.down))
    let rate = elapsed > 0 ? Double(done) / elapsed : 0
    let eta = rate > 0 ? Int((Double(total - done) / rate).rounded()) : nil
    var text = "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: barWidth - filled) + "] "
    text += "\(done)/\(total) \(Int(fraction * 100))% " + String(format: "%.1f/s", rate)
    text += " ETA " + (eta.map { String(format: "%d:%02d", $0 / 60, $0 % 60) } ?? "-:--")
    if let current {
      // Terminal control characters in a file name must not reach the terminal.
      let name = String(
        (current.split(separator: "/").last.map(String.init) ?? current).unicodeScalars.map {
          $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0)
        })
      text += "  " + name
    }
    return text.count > width - 1 ? String(text.prefix(max(0, width - 1))) : text
  }

  static func columns() -> Int {
    var size = winsize()
    if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
    return Int(ProcessInfo.processInfo.environment["COLUMNS"] ?? "") ?? 80
  }

  private func write(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
  }
}
