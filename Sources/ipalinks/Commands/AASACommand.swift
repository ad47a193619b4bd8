import ArgumentParser
import IPALinksKit
import UniversalLinks

/// `ipalinks aasa`: lint or display an apple-app-site-association file. Parsing only; the work is in
/// `UniversalLinks`.
struct AASACommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "aasa",
    abstract: "Validate or display an apple-app-site-association file.",
    subcommands: [Validate.self, Show.self, Diff.self]
  )

  /// `ipalinks aasa validate FILE`: every problem at once, with stable codes, like a linter.
  struct Validate: StatusCommand {
    static let configuration = CommandConfiguration(
      commandName: "validate",
      abstract: "Report every problem in an AASA file, each with a stable code, a severity and a JSON pointer.",
      usage: "ipalinks aasa validate <file> [<options>]",
      discussion: """
        FILE may be plain JSON or a PKCS#7-signed file; '-' reads standard input. The codes are listed in \
        docs/MATCHING.md.

        Exit codes: 0 no errors (warnings and notes allowed; with --strict, no warnings either); 1 at least one \
        error (or warning with --strict), invalid JSON included; 64 usage error; 65 the file is over the 4 MiB \
        read limit; 66 the file cannot be read.
        """
    )

    @Argument(help: "The AASA file ('-' for standard input).")
    var file: String

    @Option(name: .customLong("app-id"), help: "Also check that this app (TEAMID.bundle.id) is listed in applinks.")
    var appID: String?

    @Option(
      name: .shortAndLong,
      help: "Output format: text, json (one document), or jsonl (one finding per line; none for a clean file).")
    var format: OutputFormat = .text

    @Flag(help: "Fail on warnings too.")
    var strict = false

    func execute() throws -> Int32 {
      let diagnostics = AASAValidator.validate(try AASAInput.orExit { try AASAInput.read(file) }, appID: appID)
      Terminal.write(AASAValidationReporter.rendered(diagnostics, file: file, format: format, style: Terminal.style))
      let failing = diagnostics.contains { $0.severity == .error || (strict && $0.severity == .warning) }
      return failing ? 1 : 0
    }
  }

  /// `ipalinks aasa show FILE`: the normalized rules, per app.
  struct Show: StatusCommand {
    static let configuration = CommandConfiguration(
      commandName: "show",
      abstract: "Print the rules of an AASA file per app, normalized (defaults merged, legacy forms converted).",
      discussion: """
        FILE may be plain JSON or a PKCS#7-signed file; '-' reads standard input. --format json prints the \
        normalized model.

        Exit codes: 0 shown; 64 usage error; 65 the file is not valid AASA JSON; 66 the file cannot be read.
        """
    )

    @Argument(help: "The AASA file ('-' for standard input).")
    var file: String

    @Option(name: .shortAndLong, help: "Output format: text or json.") var format: DocumentFormat = .text

    func execute() throws -> Int32 {
      let aasa = try AASAInput.orExit { try AASAInput.load(file) }
      Terminal.write(AASAShowReporter.rendered(aasa, name: file, format: format, style: Terminal.style))
      return 0
    }
  }
}

extension AASACommand {
  /// `ipalinks aasa diff OLD NEW`: which URLs behave differently, not which bytes changed.
  struct Diff: StatusCommand {
    static let configuration = CommandConfiguration(
      commandName: "diff",
      abstract: "Compare two AASA files by behaviour: per app, the rules that change a verdict, with an example URL.",
      usage: "ipalinks aasa diff <old> <new> [<options>]",
      discussion: """
        OLD and NEW may be plain JSON or PKCS#7-signed; '-' reads one of them from standard input. Hoisting a key \
        into defaults, rewriting legacy paths as the equivalent components, or editing a comment is no change. A \
        changed pattern, query item, exclude or default, an app added or removed, or a reordering that changes \
        which rule decides, is one; each names the rules by JSON pointer on both sides and, when one is found, an \
        example URL whose verdict differs (generated from both files' patterns and checked on both).

        Exit codes (like diff(1)): 0 the files behave the same; 1 they differ; 64 usage error; 65 a file is not \
        valid AASA JSON; 66 a file cannot be read.
        """)

    @Argument(help: "The old AASA file ('-' for standard input).") var old: String
    @Argument(help: "The new AASA file.") var new: String

    @Option(name: .customLong("app-id"), help: "Compare only this app (TEAMID.bundle.id). Repeatable.")
    var appIDs: [String] = []

    @Option(
      help: """
        The host the files are served for, used in example URLs (default: the host a file is named after, as \
        --aasa-dir names them, else example.com).
        """)
    var domain: String?

    @Option(name: .shortAndLong, help: "Output format: text or json.") var format: DocumentFormat = .text

    func validate() throws {
      if old == "-" && new == "-" { throw ValidationError("only one of OLD and NEW can be standard input") }
      if let domain, let problem = HostArgument.problem(domain) { throw ValidationError("--domain: " + problem) }
    }

    func execute() throws -> Int32 {
      let before = try AASAInput.orExit { try AASAInput.load(old) }
      let after = try AASAInput.orExit { try AASAInput.load(new) }
      return AASADiffReporter.compare(
        old: (old, before), new: (new, after), appIDs: appIDs, domain: domain.map(HostArgument.normalized),
        format: format)
    }
  }
}

extension AASAInput {
  /// Runs `read` or `load`; on failure says why on stderr and exits as documented (``Failure/exitCode``).
  static func orExit<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let error as Failure {
      Terminal.warn("\(error)")
      throw ExitCode(error.exitCode)
    }
  }
}
