import Atomics
import Foundation

/// What a command that walks many inputs writes on stderr while it runs, so every such command behaves the same:
/// the progress bar (on a terminal, unless `--no-progress` or `--quiet`), problem lines written with the bar cleared
/// first and redrawn after, report text on stdout likewise, AASA lookup failures told once per host at the end, and
/// on Ctrl-C the bar cleared and what finished summarised before exit 130.
public final class BatchConsole: @unchecked Sendable {
  private let showProgress: Bool
  /// `--quiet`: errors only, no bar, no summary.
  public let quiet: Bool
  private let lock = NSLock()
  /// The progress bar, only on a terminal, so logs and pipes never see carriage returns.
  private var bar: BatchProgress?
  private var failures: HostFailures
  /// `-v`: every failing host, not the first few of each status.
  private let verbose: Bool
  private var interrupt: InterruptWatch?
  /// Ctrl-C was pressed and its summary said: nothing more is drawn or written, so what it counted is what the
  /// output holds.
  private var interrupted = false
  private var total: Int? = 0
  private var done = 0
  /// What the batch counts, for the line Ctrl-C leaves: `input`, or `host` for a refresh.
  private let unit: String
  /// Which of a command's batches this is (`diff`'s `OLD old/`), said in its lines; nil for a command of one.
  private let side: String?
  /// Redraws the bar while nothing happens, so a quiet spell (a host that stalls) shows the last completions, a
  /// rate that falls and how long the slow input has run, not the screen of its start.
  private var ticker: Ticker?
  /// How often the ticker redraws.
  static let tick: TimeInterval = 0.5

  /// A console for one batch: a bar when `progress` and standard error is a terminal, nothing but errors when
  /// `quiet`, every failing host when `verbose`; it counts `unit`s.
  /// `side` names the batch in its lines, for a command that runs two (`diff OLD NEW`).
  public init(progress: Bool, quiet: Bool, verbose: Bool = false, unit: String = "input", side: String? = nil) {
    self.verbose = verbose
    self.unit = unit
    self.side = side
    showProgress = progress && !quiet && isatty(STDERR_FILENO) == 1
    self.quiet = quiet
    failures = HostFailures(errorsOnly: quiet)
  }

  /// The batch has `total` inputs to inspect, none done yet: the bar appears, and Ctrl-C now ends with a summary.
  /// Called again for another batch (`store import`'s next file), it counts that one, after ``end()``.
  public func begin(total: Int) { start(total: total) }

  /// A batch whose size only its end tells (an inventory read from a pipe): the bar counts what is done, without a
  /// total or a time left.
  public func beginUncounted() { start(total: nil) }

  private func start(total: Int?) {
    locked {
      (self.total, done) = (total, 0)
      if showProgress {
        bar = BatchProgress(total: total, startedAt: Date())
        startTicking()
      }
    }
    watchInterrupts()
  }

  /// Ctrl-C clears the bar, says how many inputs finished and the notes (``InterruptWatch/note(_:)``: what the store
  /// holds), then exits 130.
  private func watchInterrupts() {
    interrupt = InterruptWatch(newLine: false) { [self] in
      // The console's lock before the output's, the order every job takes them in (its report is written under the
      // console's lock): taken the other way round, Ctrl-C held the output's lock and waited on the console's while a
      // job held that and waited on the output's, and the process hung (seen in `ctrlCClearsTheBarAndCounts…`). A
      // second at most, as for the output's: a job stuck writing to a reader that stopped reading must not keep
      // Ctrl-C from ending the process.
      let held = lock.lock(before: Date().addingTimeInterval(1))
      defer { if held { lock.unlock() } }
      Terminal.closeOnInterrupt()
      do {
        interrupted = true
        // The bar's line (drawn, or erased for a line and not yet redrawn) holds the `^C` the terminal echoed, as
        // the bar leaves room for it: clearing the line takes both. Without a bar, the summary goes on a line of
        // its own past the `^C`.
        if bar != nil {
          _ = bar?.erase()
          Terminal.write(Data("\r\u{1B}[2K".utf8), to: STDERR_FILENO)
        } else if isatty(STDERR_FILENO) == 1 {
          Terminal.write(Data("\n".utf8), to: STDERR_FILENO)
        }
        removeBar()
        Terminal.warn(
          "interrupted: "
            + (total.map { "\(done) of \(TerminalText.count($0, unit))" } ?? TerminalText.count(done, unit))
            + (side.map { " of \($0)" } ?? "") + " finished")
        InterruptWatch.notes.forEach(Terminal.warn)
      }
    }
  }

  /// Whether a bar is drawn (a terminal, no `--no-progress`, no `--quiet`): whether ``waiting(for:done:total:)`` is
  /// worth calling as the work moves, rather than once.
  public var showsProgress: Bool { showProgress }

  /// The batch is over, and the command waits for `what` (the audit store writing the inputs still queued): a bar
  /// of its own, labelled `what`, shows `done` of `total` (its rate counts only what is done from now on), and
  /// Ctrl-C again ends with a summary. Called again as `done` grows, `what` saying how it goes; ``endWaiting()``
  /// ends it.
  public func waiting(for what: String, done count: Int, total: Int) {
    let arm = locked { () -> Bool in
      // A wait with no batch before it (one input's, stored after its report): what it waits for was all done.
      if self.total == 0 && done == 0 { (self.total, done) = (total, total) }
      return interrupt == nil
    }
    // Ctrl-C is watched before the bar is drawn: a user who presses it as the bar appears gets the summary.
    if arm { watchInterrupts() }
    locked {
      guard showProgress else { return }
      if bar == nil {
        bar = BatchProgress(total: total, startedAt: Date(), done: count)
        startTicking()
      }
      bar?.label(what)
      bar?.advance(to: count)
      drawBar()
    }
  }

  /// What ``waiting(for:done:total:)`` waited for is over: its bar goes, and Ctrl-C gets its default meaning back.
  public func endWaiting() {
    locked {
      interrupt?.stop()
      interrupt = nil
      removeBar()
    }
  }

  /// An input is being inspected: the bar names it.
  public func started(_ input: String) {
    locked {
      bar?.started(input)
      drawBar()
    }
  }

  /// One input is done: counts its lookup failures, and says what else went wrong in it.
  public func finished(_ report: InspectionReport) { finished(report, writing: "") }

  /// One input is done and `text` (its report) goes to stdout, in one step: Ctrl-C's count is then always the
  /// number of reports written.
  public func finished(_ report: InspectionReport, writing text: String) {
    locked {
      guard !interrupted else { return }
      if !text.isEmpty {
        clearBar()
        Terminal.write(text)
      }
      done += 1
      failures.add(report)
      if let line = InspectReporter.problemLine(report) { warnLocked(line) }
      bar?.finished(report.input)
      // Redrawn at once after a report erased it, as after any output.
      drawBar(force: !text.isEmpty || done == total)
    }
  }

  /// One item that is not an inspected input (a host a refresh retrieved) is done: the bar moves on.
  public func advanced(_ name: String) {
    locked {
      done += 1
      bar?.finished(name)
      drawBar(force: done == total)
    }
  }

  /// `count` of the batch's items are done (a count that only grows: the inputs of an inventory stored so far),
  /// and the bar moves on to it without naming them.
  public func moved(to count: Int) {
    locked {
      done = max(done, count)
      bar?.advance(to: count)
      drawBar(force: done == total)
    }
  }

  /// Writes text on stdout with the bar out of the way.
  public func output(_ text: String) {
    locked {
      guard !interrupted else { return }
      clearBar()
      Terminal.write(text)
      drawBar(force: true)
    }
  }

  /// A problem line on stderr (always, even with `--quiet`).
  public func problem(_ line: String) { locked { warnLocked((side.map { "\($0): " } ?? "") + line) } }

  /// A line that is not an error (a summary, a note); `--quiet` drops it.
  public func say(_ line: String) {
    guard !quiet else { return }
    locked { warnLocked(line) }
  }

  /// The batch is over: the bar goes, and each failing host is told once.
  public func end() {
    locked {
      interrupt?.stop()
      interrupt = nil
      removeBar()
      if !failures.isEmpty {
        Terminal.warn("AASA lookups that failed" + (side.map { " for \($0)" } ?? "") + ", once per host:")
        failures.lines(perStatus: verbose ? .max : 5).forEach { Terminal.warn("  " + $0) }
      }
    }
  }

  private func warnLocked(_ line: String) {
    guard !interrupted else { return }
    clearBar()
    Terminal.warn(line)
    drawBar(force: true)
  }

  /// Starts the ticker, under the lock, for a bar just made.
  private func startTicking() {
    ticker?.stop()
    ticker = Ticker(every: Self.tick) { [weak self] in self?.locked { self?.drawBar() } }
  }

  /// The bar goes from the screen and for good, its ticker with it; under the lock.
  private func removeBar() {
    ticker?.stop()
    ticker = nil
    clearBar()
    bar = nil
  }

  private func clearBar() { if let erase = bar?.erase() { Terminal.write(Data(erase.utf8), to: STDERR_FILENO) } }

  private func drawBar(force: Bool = false) {
    guard !interrupted else { return }
    if let text = bar?.redraw(width: Terminal.stderrWidth, force: force) {
      Terminal.write(Data(text.utf8), to: STDERR_FILENO)
    }
  }

  private func locked<T>(_ body: () -> T) -> T {
    lock.lock()
    defer { lock.unlock() }
    return body()
  }
}

/// Runs `body` every `interval` seconds on a thread of its own until ``stop()``: a thread, not a timer on a
/// dispatch queue, for the reason ``InterruptWatch`` gives (inspections busy on every core hold a global queue up).
final class Ticker: Sendable {
  private let stopped = DispatchSemaphore(value: 0)

  init(every interval: TimeInterval, _ body: @escaping @Sendable () -> Void) {
    Thread { [stopped] in
      while stopped.wait(timeout: .now() + interval) == .timedOut { body() }
    }.start()
  }

  /// The thread ends at its next wake: a `body` already woken may still run once, so it must cope with what
  /// stopping it changed (the console's looks for its bar under the lock, and finds none).
  func stop() { stopped.signal() }
}

/// Runs `onInterrupt` on a thread of its own when SIGINT arrives, then exits with 130, until `stop()`: the one
/// exit besides a command's status (``StatusCommand``), since the work in flight cannot be unwound.
///
/// Why not a `DispatchSource`: it runs its handler on a global queue, which inspections busy on every core hold up,
/// and on Linux SIGINT had to be ignored until the source was registered, asynchronously. Here the handler does the
/// one thing that is safe in a handler, on whichever thread the kernel picks: it writes a byte to this watch's
/// pipe, which a thread of its own waits on.
public final class InterruptWatch: Sendable {
  /// The write end of the pipe of the watch in force, for the handler, which can capture nothing; an atomic load
  /// is safe in a signal handler.
  private static let current = ManagedAtomic<Int32>(-1)
  private let writeEnd: Int32
  private static let noteMakers = NSLock()
  nonisolated(unsafe) private static var makers: [@Sendable () -> String?] = []

  /// Adds a line that Ctrl-C's summary ends with, made when it comes: what a part of the command, such as the audit
  /// store's run, had done by then.
  public static func note(_ make: @escaping @Sendable () -> String?) {
    noteMakers.withLock { makers.append(make) }
  }

  /// The lines of ``note(_:)``, as they are now.
  public static var notes: [String] { noteMakers.withLock { makers }.compactMap { $0() } }

  /// Installs the handler; `onInterrupt` runs on the watching thread, on a line of its own past the `^C` the
  /// terminal echoed (unless not `newLine`: a handler that clears the line instead), and the process then exits.
  public init(newLine: Bool = true, onInterrupt: @escaping @Sendable () -> Void) {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else {
      writeEnd = -1
      return  // no pipe, no summary: Ctrl-C keeps its default meaning
    }
    writeEnd = ends[1]
    Self.current.store(ends[1], ordering: .sequentiallyConsistent)
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
      guard byte == 0 else { return }
      // Whatever became of standard error, the process still exits 130 below.
      if newLine { _ = Foundation.write(STDERR_FILENO, "\n", 1) }
      onInterrupt()
      // _exit: no atexit handlers racing the threads still running; every write so far was unbuffered.
      _exit(130)
    }
    thread.start()
    signal(SIGINT) { _ in
      let saved = errno
      var byte: UInt8 = 0
      _ = write(InterruptWatch.current.load(ordering: .sequentiallyConsistent), &byte, 1)
      errno = saved
    }
  }

  /// Ctrl-C gets its default meaning back, and the watching thread ends.
  public func stop() {
    signal(SIGINT, SIG_DFL)
    guard writeEnd >= 0 else { return }
    var byte: UInt8 = 1
    _ = write(writeEnd, &byte, 1)
  }
}
