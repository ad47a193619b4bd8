import ArgumentParser
import Foundation
import IPALinksKit

extension OutputFormat: ExpressibleByArgument {}

/// `ipalinks inspect`: parses arguments, runs the library's ``Inspector`` and prints a reporter's output.
struct Inspect: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Report an app's entitlements, associated domains and URL schemes, with where each came from.",
    discussion: """
      INPUT is an .ipa, an unzipped .app folder, a bare Mach-O executable, an .xcent/.entitlements plist, \
      or a .mobileprovision.

      Exit codes: 0 complete result; 1 partial result (some part could not be read; the rest is reported); \
      2 the input could not be read at all; 64 usage error.
      """
  )

  @Argument(help: "The .ipa, .app folder, Mach-O, entitlements plist or profile to inspect.")
  var input: String

  @Option(name: .shortAndLong, help: "Output format: \(OutputFormat.allCases.map(\.rawValue).joined(separator: ", ")).")
  var format: OutputFormat = .text

  func run() throws {
    let report = Inspector().inspect(path: input)
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

enum Terminal {
  /// Colour only on a terminal and never when `NO_COLOR` is set (https://no-color.org).
  static var wantsColor: Bool {
    isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"].map(\.isEmpty) ?? true
  }

  static func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
  }
}
