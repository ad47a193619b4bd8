import Foundation
import IPALinksKit

/// A one-line progress bar on stderr for batches: done/total, rate, ETA and the file being read.
///
/// Only made when stderr is a terminal, so logs and pipes never see carriage returns. Redraws are limited to ten
/// a second so a fast batch is not slowed by its own progress output. The rate and ETA come from the last
/// completions, not the whole run, so a slow start (the first AASA lookups) does not make the estimate wrong.
final class ProgressBar {
  let total: Int
  let startedAt: Date
  private(set) var done = 0
  private var running: [String] = []
  private var lastDraw = Date.distantPast
  private var visible = false
  /// When the last completions happened, for the rate.
  private var recent: [Date] = []
  private static let window = 32

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
    recent.append(Date())
    if recent.count > Self.window { recent.removeFirst(recent.count - Self.window) }
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
        + Self.line(done: done, total: total, rate: rate(now), current: running.last, width: Terminal.stderrWidth))
    visible = true
  }

  /// Completions per second over the last ones (from the start while there are few).
  func rate(_ now: Date) -> Double {
    guard let first = recent.first else { return 0 }
    if recent.count < 4 {
      let elapsed = now.timeIntervalSince(startedAt)
      return elapsed > 0 ? Double(done) / elapsed : 0
    }
    let span = now.timeIntervalSince(first)
    return span > 0 ? Double(recent.count - 1) / span : 0
  }

  /// `[#####.....]  12/40  30%  3.1/s  ETA 0:09  current.ipa`, cut to the terminal's width.
  static func line(done: Int, total: Int, rate: Double, current: String?, width: Int) -> String {
    let fraction = total == 0 ? 1 : Double(done) / Double(total)
    let barWidth = 20
    let filled = Int((fraction * Double(barWidth)).rounded(.down))
    let eta = rate > 0 ? Int((Double(total - done) / rate).rounded()) : nil
    var text = "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: barWidth - filled) + "] "
    text += "\(done)/\(total) \(Int(fraction * 100))% " + String(format: "%.1f/s", rate)
    text += " ETA " + (eta.map { String(format: "%d:%02d", $0 / 60, $0 % 60) } ?? "-:--")
    if let current {
      // Terminal control characters in a file name must not reach the terminal.
      text += "  " + TerminalText.escape(current.split(separator: "/").last.map(String.init) ?? current)
    }
    return text.count > width - 1 ? String(text.prefix(max(0, width - 1))) : text
  }

  private func write(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
  }
}

/// What a command that walks many inputs writes on stderr while it runs, so every such command behaves the same:
/// the progress bar (on a terminal, unless `--no-progress` or `--quiet`), problem lines written with the bar cleared
/// first and redrawn after, report text on stdout likewise, AASA lookup failures told once per host at the end, and
/// on Ctrl-C the bar cleared and what finished summarised before exit 130.
final class BatchConsole: @unchecked Sendable {
  private let showProgress: Bool
  /// `--quiet`: errors only, no bar, no summary.
  let quiet: Bool
  private let lock = NSLock()
  private var bar: ProgressBar?
  private var failures: HostFailures
  private var interrupt: InterruptWatch?
  private var total = 0
  private var done = 0
  private let startedAt = Date()

  init(progress: Bool, quiet: Bool) {
    showProgress = progress && !quiet && isatty(STDERR_FILENO) == 1
    self.quiet = quiet
    failures = HostFailures(errorsOnly: quiet)
  }

  /// The batch has `total` inputs to inspect: the bar appears, and Ctrl-C now ends with a summary.
  func begin(total: Int) {
    locked {
      self.total = total
      if showProgress { bar = ProgressBar(total: total, startedAt: startedAt) }
    }
    interrupt = InterruptWatch { [self] in
      locked {
        bar?.clear()
        bar = nil
        let line = "interrupted: \(done) of \(TerminalText.count(total, "input")) finished"
        FileHandle.standardError.write(Data(("\nipalinks: " + line + "\n").utf8))
      }
      // _exit: no atexit handlers racing the threads still running; every write so far was unbuffered.
      _exit(130)
    }
  }

  func started(_ input: String) { locked { bar?.started(input) } }

  /// One input is done: counts its lookup failures, and says what else went wrong in it.
  func finished(_ report: InspectionReport) {
    locked {
      done += 1
      failures.add(report)
      if let line = InspectReporter.problemLine(report) { warnLocked(line) }
      bar?.finished(report.input)
    }
  }

  /// Writes text on stdout with the bar out of the way.
  func output(_ text: String) {
    locked {
      bar?.clear()
      Terminal.write(text)
      bar?.draw(force: true)
    }
  }

  /// A problem line on stderr (always, even with `--quiet`).
  func problem(_ line: String) { locked { warnLocked(line) } }

  /// A line that is not an error (a summary, a note); `--quiet` drops it.
  func say(_ line: String) {
    guard !quiet else { return }
    locked { warnLocked(line) }
  }

  /// The batch is over: the bar goes, and each failing host is told once.
  func end() {
    locked {
      interrupt?.stop()
      interrupt = nil
      bar?.clear()
      bar = nil
      if !failures.isEmpty {
        Terminal.warn("AASA lookups that failed, once per host:")
        failures.lines().forEach { Terminal.warn("  " + $0) }
      }
    }
  }

  private func warnLocked(_ line: String) {
    bar?.clear()
    Terminal.warn(line)
    bar?.draw(force: true)
  }

  private func locked<T>(_ body: () -> T) -> T {
    lock.lock()
    defer { lock.unlock() }
    return body()
  }
}

/// The write end of the pipe that the SIGINT handler writes to.
///
/// A global, not a capture: a C signal handler cannot capture context.
nonisolated(unsafe) private var interruptPipe: Int32 = -1

/// Runs `onInterrupt` on a thread of its own when SIGINT arrives, until `stop()`.
///
/// Why not a `DispatchSource`: it runs its handler on a global queue, which inspections busy on every core hold up,
/// and on Linux SIGINT had to be ignored until the source was registered, asynchronously. Here the handler does the
/// one thing that is safe in a handler, on whichever thread the kernel picks: it writes a byte to a pipe, which a
/// thread of its own waits on.
final class InterruptWatch: @unchecked Sendable {
  private let writeEnd: Int32

  /// Installs the handler; `onInterrupt` runs on the watching thread and is expected not to return.
  init(onInterrupt: @escaping @Sendable () -> Void) {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else {
      writeEnd = -1
      return  // no pipe, no summary: Ctrl-C keeps its default meaning
    }
    writeEnd = ends[1]
    interruptPipe = ends[1]
    let readEnd = ends[0]
    let thread = Thread {
      // This thread takes SIGINT even if every other one blocks it (a mask inherited from whoever spawned us, or a
      // dispatch worker's), so the signal is never left pending.
      var only = sigset_t()
      sigemptyset(&only)
      sigaddset(&only, SIGINT)
      pthread_sigmask(SIG_UNBLOCK, &only, nil)
      var byte: UInt8 = 1
      while read(readEnd, &byte, 1) < 0 && errno == EINTR {}
      // 0 comes from the handler; 1 from stop().
      if byte == 0 { onInterrupt() }
    }
    thread.start()
    signal(SIGINT) { _ in
      let saved = errno
      var byte: UInt8 = 0
      _ = write(interruptPipe, &byte, 1)
      errno = saved
    }
  }

  /// Ctrl-C gets its default meaning back, and the watching thread ends.
  func stop() {
    signal(SIGINT, SIG_DFL)
    guard writeEnd >= 0 else { return }
    var byte: UInt8 = 1
    _ = write(writeEnd, &byte, 1)
  }
}
