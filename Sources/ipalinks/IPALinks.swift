import ArgumentParser
import Foundation
import IPALinksKit

/// The `ipalinks` command line: argument parsing and printing only; all behaviour lives in the libraries.
@main
struct IPALinks: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "ipalinks",
    abstract: "Find the universal links and URL schemes an iOS app claims, from its .ipa alone.",
    discussion: """
      Every command takes --format text (for people, fitted to the terminal), json (one document with a \
      generator field) or jsonl (one object per line) where it prints records. Rules are named by JSON pointer, \
      a rule that opens the app is a match rule, and verdicts are match, exclude or no-match. Exit codes are \
      listed in docs/output.md.
      """,
    version: ToolVersion.current,
    subcommands: [
      Inspect.self, Fetch.self, Match.self, AASACommand.self, BlocklistCommand.self, DiffCommand.self,
      ReportCommand.self, WhoClaimsCommand.self, HistoryCommand.self, RefreshCommand.self, StoreCommand.self,
    ]
  )

  /// The entry point: says first (unless `-q`) when the arguments are so many that reading them will take seconds
  /// (``Terminal/manyArguments(_:)``), then parses and runs the command as `main(nil)` does, but for how it ends
  /// (``exit(for:)``).
  static func main() async {
    let arguments = CommandLine.arguments.dropFirst()
    let quiet = arguments.contains { $0 == "-q" || $0 == "--quiet" }
    if let note = Terminal.manyArguments(arguments.count), !quiet { Terminal.warn(note) }
    if let first = arguments.first, let problem = unknownCommand(first, among: configuration.subcommands) {
      exit(for: ValidationError(problem))
    }
    do {
      var command = try parseAsRoot(nil)
      if var command = command as? any AsyncParsableCommand {
        try await command.run()
      } else {
        try command.run()
      }
    } catch {
      exit(for: error)
    }
  }

  /// Why `word`, the first argument, names no command of `commands` (nil: it does, or is an option), with the one
  /// it likely misspells: argument-parser said `2 unexpected arguments: 'inspct', 'app.ipa'`.
  static func unknownCommand(_ word: String, among commands: [any ParsableCommand.Type]) -> String? {
    // A loop: `commands.map(\._commandName)` crashed the compiler (Swift 6.3.1, SILGen).
    var commandNames: [String] = []
    for command in commands { commandNames.append(command._commandName) }
    let names = commandNames + ["help"]
    guard !word.hasPrefix("-"), !names.contains(word) else { return nil }
    let close = names.map { ($0, editDistance(word.lowercased(), $0)) }.filter { $0.1 <= max(1, $0.0.count / 3) }
    let guess = close.min { $0.1 < $1.1 }.map { "; did you mean '\($0.0)'?" } ?? "."
    return "'\(word)' is not an ipalinks command\(guess) The commands: "
      + commandNames.joined(separator: ", ")
  }

  /// Levenshtein's distance between two short words.
  static func editDistance(_ a: String, _ b: String) -> Int {
    let (a, b) = (Array(a), Array(b))
    var row = Array(0...b.count)
    for (i, x) in a.enumerated() {
      var next = [i + 1]
      for (j, y) in b.enumerated() {
        next.append(Swift.min(row[j + 1] + 1, next[j] + 1, row[j] + (x == y ? 0 : 1)))
      }
      row = next
    }
    return row[b.count]
  }

  /// Ends the process as argument-parser's `exit(withError:)` does, with two differences. A usage error echoes the
  /// arguments, which may hold control characters (`--format $'\e[2J'`): they are escaped, as every other line on
  /// stderr is. And help or the version go through ``Terminal/write(_:)``, so a full disk is told, with exit 2,
  /// as any other output's is: `--help > /dev/full` exited 0 with nothing written.
  static func exit(for error: any Error) -> Never {
    let code = exitCode(for: error)
    let message = fullMessage(for: error)
    if code == .success {
      Terminal.write(message.isEmpty || message.hasSuffix("\n") ? message : message + "\n")
    } else if !message.isEmpty {
      let text = TerminalText.escape(message, keepingLineBreaks: true)
      Terminal.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8), to: STDERR_FILENO)
    }
    Foundation.exit(code.rawValue)
  }
}

/// A command that returns its exit status. Its `run()` turns the status into ArgumentParser's `ExitCode`: the
/// command line's one way out (Ctrl-C's handler, in ``InterruptWatch``, is the only other).
protocol StatusCommand: AsyncParsableCommand {
  /// Does the work and says how it went: 0 for success, else the code docs/output.md lists.
  func execute() async throws -> Int32
}

extension StatusCommand {
  /// Runs ``execute()`` and exits with its status; a usage error it finds (a file an option names that cannot be
  /// read, say) is printed with this command's usage, which argument-parser, past parsing, gives as the root's.
  func run() async throws {
    // A file past the size limit (ulimit -f) is an error of the write that says so, not the end of the process.
    signal(SIGXFSZ, SIG_IGN)
    do {
      let status = try await execute()
      if status != 0 { throw ExitCode(status) }
    } catch let error as ValidationError {
      Self.printUsageError(error.message)
      throw ExitCode.validationFailure
    }
  }

  /// Prints `message` as argument-parser prints a usage error, with this command's usage and help to see.
  static func printUsageError(_ message: String) {
    let usage = IPALinks.usageString(for: Self.self)
    let command = usage.split(separator: " ").prefix { $0.first.map { !"[<(-".contains($0) } ?? false }
    let text =
      "Error: \(TerminalText.escape(message, keepingLineBreaks: true))\nUsage: \(usage)\n"
      + "  See '\(command.joined(separator: " ")) --help' for more information.\n"
    Terminal.write(Data(text.utf8), to: STDERR_FILENO)
  }
}

/// Runs `body`, and makes what it throws a usage error (exit 64, with the usage) that says what the library's error
/// says: the libraries know no ArgumentParser.
func usageError<T>(_ body: () throws -> T) throws -> T {
  do { return try body() } catch { throw ValidationError("\(error)") }
}
