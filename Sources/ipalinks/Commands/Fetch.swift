import ArgumentParser
import IPALinksKit

/// `ipalinks fetch`: downloads and validates AASA files directly, like `swcutil dl`.
struct Fetch: StatusCommand {
  static let configuration = CommandConfiguration(
    commandName: "fetch",
    abstract: "Download and validate the apple-app-site-association files of some hosts.",
    discussion: """
      Each HOST is fetched as iOS does (see --source), then parsed and validated. \
      Exit codes: 0 every file was fetched and has no validation error; 1 a fetch failed or a file has errors; \
      64 usage error.
      """
  )

  @Argument(help: "Hosts to fetch, e.g. example.com.")
  var hosts: [String]

  @Option(name: .customLong("app-id"), help: "Also check that this TEAMID.bundle.id is listed.")
  var appID: String?

  @Option(name: .shortAndLong, help: "Output format: text, json (one document), or jsonl (one object per host).")
  var format: OutputFormat = .text

  @Flag(help: "Print the body of each file that was fetched (text format only).") var body = false

  @OptionGroup(title: "AASA retrieval") var fetch: FetchOptions

  func validate() throws {
    if hosts.isEmpty { throw ValidationError("Give at least one host, such as example.com.") }
    for host in hosts { if let problem = HostArgument.problem(host) { throw ValidationError(problem) } }
  }

  func execute() async throws -> Int32 {
    await FetchReporter.fetch(
      hosts.map(HostArgument.normalized), with: try fetch.makeFetcher(), appID: appID, format: format, bodies: body)
  }
}
