import ArgumentParser
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
      ReportCommand.self, WhoClaimsCommand.self,
    ]
  )
}
