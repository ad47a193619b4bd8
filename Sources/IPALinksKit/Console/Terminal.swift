import Foundation

extension InspectionReport.Status {
  /// The documented exit code: 0 complete, 1 partial, 2 unreadable.
  public var exitCode: Int32 {
    switch self {
    case .complete: 0
    case .partial: 1
    case .unreadable: 2
    }
  }
}

/// Standard output and error, as every command writes them.
public enum Terminal {
  /// Colour only on a terminal that has it (not `TERM=dumb`) and never when `NO_COLOR` is set
  /// (https://no-color.org).
  public static var wantsColor: Bool {
    let environment = ProcessInfo.processInfo.environment
    return isatty(STDOUT_FILENO) == 1 && environment["TERM"] != "dumb" && environment["NO_COLOR"].map(\.isEmpty) ?? true
  }

  /// Whether standard output is a terminal, where people read it (and where stderr need not repeat it).
  public static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

  /// Whether standard input is a terminal: `-` then names what a person would have to type, not what a pipe
  /// brings, and a command asked to read a file from it says so rather than wait (clig.dev).
  public static var stdinIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

  /// How many arguments make ``manyArguments(_:)`` speak: swift-argument-parser copies a list argument's values for
  /// each one it adds, so reading N of them grows with N²: 5,000 paths take 0.65 s and 10,000 2.5 s
  /// (`scripts/bench-arguments.py`), all before the command can show anything.
  public static let manyArgumentsFrom = 4_000

  /// What to say first when the command line holds `count` arguments, so a long silence before any work is
  /// explained, with what takes their place: nil below ``manyArgumentsFrom``.
  public static func manyArguments(_ count: Int) -> String? {
    guard count >= manyArgumentsFrom else { return nil }
    return "\(count) arguments take seconds to read before any work starts; give their folder instead (it is "
      + "walked for *.ipa), or for URLs --urls FILE"
  }

  /// How text output looks here: colour as ``wantsColor`` says, fitted to `COLUMNS`, else the terminal, else 80.
  public static var style: TextStyle { TextStyle(useColor: wantsColor, width: width(of: STDOUT_FILENO)) }

  /// The width lines on `descriptor` should fit: `COLUMNS` when set, else its terminal's, else 80.
  public static func width(of descriptor: Int32) -> Int {
    var size = winsize()
    let terminal = isatty(descriptor) == 1 && ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0 ? Int(size.ws_col) : nil
    return TerminalText.width(columns: ProcessInfo.processInfo.environment["COLUMNS"], terminalWidth: terminal)
  }

  /// The width a table on standard output fits: ``width(of:)`` on a terminal or with `COLUMNS`; unlimited in a pipe or
  /// a file, where a cut column could not be read back (as `ls -l` does).
  public static var tableWidth: Int {
    isatty(STDOUT_FILENO) == 1 || ProcessInfo.processInfo.environment["COLUMNS"] != nil
      ? width(of: STDOUT_FILENO) : Int.max / 2
  }

  /// Standard output in one `write`, so a piece of a batch is whole even if the process dies after it.
  public static func write(_ text: String) {
    if !text.isEmpty { output.withLock { write(Data(text.utf8), to: STDOUT_FILENO) } }
  }

  /// Held while standard output is written (``write(_:)``), and by Ctrl-C's ``closeOnInterrupt()``, so that what
  /// closes a document never lands in the middle of a piece of it.
  private static let output = NSLock()
  /// What ends the document standard output holds so far (a JSON array's `]`), written if Ctrl-C comes.
  nonisolated(unsafe) private static var closing: String?

  /// Says what ends the document written so far: `]` once a JSON array is begun, nil once it is ended.
  public static func closeOnInterrupt(with text: String?) { output.withLock { closing = text } }

  /// Writes `text`, the end of the document, and forgets what Ctrl-C would have written for it, in one step.
  public static func end(_ text: String) {
    output.withLock {
      if !text.isEmpty { write(Data(text.utf8), to: STDOUT_FILENO) }
      closing = nil
    }
  }

  /// Ctrl-C: writes what ends the document standard output holds, so that an interrupted `--format json` batch is
  /// still one JSON document; it was left without its `]`. Waits a second at most for a write under way (one to a
  /// reader that stopped reading never ends), and keeps the lock: the process is exiting.
  public static func closeOnInterrupt() {
    guard output.lock(before: Date().addingTimeInterval(1)) else { return }
    if let closing { write(Data(closing.utf8), to: STDOUT_FILENO) }
  }

  /// Writes `data` whole to `descriptor` (standard output or error). A reader that has gone (`ipalinks … | head`)
  /// ends the process as SIGPIPE does: SwiftNIO ignores SIGPIPE in every process that opens a socket, and
  /// Foundation's `FileHandle.write` would then stop the process with a fatal error and a stack trace. Any other
  /// failure (a full disk) is told on standard error, and the process exits 2.
  public static func write(_ data: Data, to descriptor: Int32) {
    let failure: Int32? = data.withUnsafeBytes { buffer in
      var offset = 0
      while offset < buffer.count {
        let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
        if written > 0 {
          offset += written
        } else if written < 0 && errno != EINTR {
          return errno
        }
      }
      return nil
    }
    guard let failure else { return }
    if failure == EPIPE {
      signal(SIGPIPE, SIG_DFL)
      raise(SIGPIPE)
    } else if descriptor != STDERR_FILENO {
      warn("cannot write to standard output: \(String(cString: strerror(failure)))")
    }
    exit(failure == EPIPE ? 128 + SIGPIPE : 2)
  }

  /// One `ipalinks: …` line on stderr. Lines carry hosts, names and messages from untrusted input: escape
  /// sequences in them must not reach the terminal, and a line break in a file name or host must not forge a second
  /// `ipalinks:` line for the scripts that read one problem per line, so every control character, line breaks
  /// included, is written as an escape. On a terminal, and only there, a long line is wrapped to its width with
  /// indented continuations (``TerminalText/wrapProblem(_:width:)``).
  public static func warn(_ message: String) {
    let safe = TerminalText.escape("ipalinks: " + message)
    let lines = isatty(STDERR_FILENO) == 1 ? TerminalText.wrapProblem(safe, width: stderrWidth) : [safe]
    write(Data((lines.joined(separator: "\n") + "\n").utf8), to: STDERR_FILENO)
  }

  /// The width problem lines should fit on a terminal: `COLUMNS` when set, else standard error's terminal, else 80.
  public static var stderrWidth: Int { width(of: STDERR_FILENO) }
}

/// Standard input named by `-` in more than one place: it can be read once, so a second reader would find it empty
/// and say something misleading (`no inventory found`), or take an inventory's lines for hosts.
public enum StandardInput {
  /// Why the `readers` (each an option, or `an input`, with the values it was given) cannot all be read, or nil when
  /// `-` is named once at most: `--inventory - and --hosts - cannot both read standard input`.
  public static func problem(_ readers: [(name: String, values: [String])]) -> String? {
    let named = readers.flatMap { reader in reader.values.filter { $0 == "-" }.map { _ in reader.name } }
    guard named.count > 1 else { return nil }
    if named[0] == named[1] { return "- is given twice as \(named[0]), but standard input can be read once" }
    return "\(named[0]) - and \(named[1]) - cannot both read standard input"
  }
}
