import ArgumentParser

/// The `ipalinks` command line: argument parsing and printing only; all behaviour lives in the libraries.
@main
struct IPALinks: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "ipalinks",
    abstract: "Find the universal links and URL schemes an iOS app claims, from its .ipa alone.",
    subcommands: [
      Inspect.self, Fetch.self, Match.self, AASACommand.self, BlocklistCommand.self, DiffCommand.self,
      ReportCommand.self, WhoClaimsCommand.self,
    ]
  )
}
