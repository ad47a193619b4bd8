import ArgumentParser
import Foundation
import IPALinksKit

extension OutputFormat: ExpressibleByArgument {}

/// `ipalinks inspect`: parses arguments, runs the library's ``Inspector``, fetches the domains' AASA files,
/// and prints a reporter's output.
struct Inspect: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Report an app's entitlements, associated domains and URL schemes, with where each came from.",
    discussion: """
      INPUT is an .ipa, an unzipped .app folder, a bare Mach-O executable, an .xcent/.entitlements plist, \
      or a .mobileprovision. Each associated domain's apple-app-site-association file is then fetched (or read \
      from --aasa-dir, or the cache with --offline) and this app's rules are reported; --no-fetch skips that.

      Exit codes: 0 complete result; 1 partial result (some part could not be read; the rest is reported); \
      2 the input could not be read at all; 64 usage error.
      """
  )

  @Argument(help: "The .ipa, .app folder, Mach-O, entitlements plist or profile to inspect.")
  var input: String

  @Option(name: .shortAndLong, help: "Output format: \(OutputFormat.allCases.map(\.rawValue).joined(separator: ", ")).")
  var format: OutputFormat = .text

  @Flag(name: .customLong("no-fetch"), help: "Report the app only; do not look up the domains' AASA files.")
  var noFetch = false

  @OptionGroup(title: "AASA retrieval") var fetch: FetchOptions

  func run() async throws {
    var report = Inspector().inspect(path: input)
    if !noFetch {
      let requests = UniversalLinkInventory.requests(for: report)
      if !requests.isEmpty {
        let results = try await AASARetrieval.fetch(requests, options: fetch)
        UniversalLinkInventory.attach(results, to: &report)
      }
    }
    switch format {
    case .json: print(JSONReporter.render(report))
    case .text: print(TextReporter(useColor: Terminal.wantsColor).render(report), terminator: "")
    }
    // One line per error on stderr, naming the file and the problem, so scripts and CI logs show it.
    for d in report.diagnostics + report.bundles.flatMap(\.diagnostics) where d.severity == .error {
      // Bundle-level messages name the entry inside the archive; prefix the archive so the file is unambiguous.
      let message = d.message.hasPrefix(input) ? d.message : "\(input): \(d.message)"
      Terminal.printError("ipalinks: \(message)")
    }
    throw ExitCode(ExitStatus.code(for: report.status))
  }
}

/// Maps results to the documented exit codes.
enum ExitStatus {
  static func code(for status: InspectionReport.Status) -> Int32 {
    switch status {
    case .complete: 0
    case .partial: 1
    case .unreadable: 2
    }
  }
}

/// Runs the fetcher for a command, turning a bad option into a usage error.
enum AASARetrieval {
  static func fetch(_ requests: [AASARequest], options: FetchOptions) async throws -> [AASARequest: AASAFetchResult] {
    let fetcher: AASAFetcher
    do {
      fetcher = try AASAFetcher(options: try options.makeFetchOptions())
    } catch let error as AASAFetchError {
      throw ValidationError("\(error)")
    }
    let results = await fetcher.fetch(requests)
    await fetcher.shutdown()
    return results
  }
}

enum Terminal {
  /// Colour only on a terminal and never when `NO_COLOR` is set (https://no-color.org).
  static var wantsColor: Bool {
    isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"].map(\.isEmpty) ?? true
  }

  static func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
  }
}
