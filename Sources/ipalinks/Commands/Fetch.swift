import ArgumentParser
import Foundation
import IPALinksKit
import UniversalLinks

/// `ipalinks fetch`: downloads and validates AASA files directly, like `swcutil dl`.
struct Fetch: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
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

  @Option(name: .shortAndLong, help: "Output format: text or json.")
  var format: OutputFormat = .text

  @Flag(help: "Print the body of each file that was fetched (text format only).")
  var body = false

  @OptionGroup(title: "AASA retrieval") var fetch: FetchOptions

  func run() async throws {
    let requests = hosts.map { AASARequest(host: $0.lowercased(), developerMode: false) }
    let results = try await fetch.makeFetcher().fetch(requests)
    let outcomes = requests.compactMap { results[$0].map { DomainAASA.evaluate($0, appID: appID) } }
    switch format {
    case .json: print(JSONReporter.render(outcomes))
    case .text:
      let bodies: [String: [UInt8]] = body ? results.reduce(into: [:]) { $0[$1.key.host] = $1.value.body } : [:]
      print(FetchReporter.text(outcomes, bodies: bodies), terminator: "")
    }
    let failed = outcomes.contains { $0.status != .ok || $0.diagnostics.contains { $0.severity == .error } }
    for o in outcomes where o.status != .ok { Terminal.warn(o.fetch.message) }
    throw ExitCode(failed ? 1 : 0)
  }
}
