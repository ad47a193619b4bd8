import ArgumentParser
import Foundation
import IPALinksKit
import UniversalLinks

/// `ipalinks match`: the verdict iOS gives for each URL, and the rule that decided it.
struct Match: StatusCommand {
  static let configuration = CommandConfiguration(
    commandName: "match",
    abstract: "Tell, for each URL, whether it opens the app and which AASA rule decided it.",
    usage: "ipalinks match --aasa <aasa> [<options>] [<urls> ...]",
    discussion: """
      Reads the domain's apple-app-site-association file (plain or PKCS#7-signed; '-' for standard input) and \
      applies the rules iOS uses for --app-id: only the first details entry listing the app, first matching \
      pattern wins. Without --domain, each URL is checked against the file as if it were served for the URL's own \
      host (a warning says so when the URLs name several hosts). See docs/MATCHING.md.

      --urls FILE reads the URLs from a file, one per line, as they come ('-' for standard input, when --aasa is \
      a file): a line that is not a URL is named on stderr and skipped.

      Exit codes: 0 every URL opens the app; 1 at least one URL does not (excluded or no match), or a line of \
      --urls is not a URL; 64 usage error (including a URL argument that does not parse); 65 the file is not \
      valid AASA JSON; 66 the file or the --urls list cannot be read.
      """
  )

  @Option(help: "The domain's apple-app-site-association file ('-' for standard input).")
  var aasa: String

  @Option(
    name: .customLong("app-id"),
    help: "The app, as TEAMID.bundle.id; it may be left out when the file lists one app in applinks.")
  var appID: String?

  @Option(help: "The host the file was served for; each URL's host must equal it. Default: each URL's own host.")
  var domain: String?

  @Option(name: .shortAndLong, help: "Output format: text, json (one document), or jsonl (one object per URL).")
  var format: OutputFormat = .text

  @Flag(help: "For each URL, show every rule tried, each key's pattern and the URL's value as compared.")
  var explain = false

  @Option(
    name: .customLong("urls"),
    help: ArgumentHelp(
      "A file of URLs to check, one per line ('-' for standard input; # starts a comment).",
      valueName: "file"))
  var list: String?

  @Argument(help: "The URLs to check.")
  var urls: [String] = []

  func validate() throws {
    guard !urls.isEmpty || list != nil else { throw ValidationError("give at least one URL, or --urls FILE") }
    if aasa == "-" && list == "-" { throw ValidationError("--aasa and --urls cannot both read standard input") }
    if let problem = urls.lazy.compactMap(URLList.problem).first { throw ValidationError(problem) }
    // As `aasa diff --domain`: an empty or mistyped host made every URL "not the file's domain".
    if let domain, let problem = HostArgument.problem(domain) { throw ValidationError("--domain: " + problem) }
  }

  func execute() throws -> Int32 {
    let file = try AASAInput.orExit { try AASAInput.load(aasa) }
    guard let appID = self.appID ?? onlyApp(in: file) else { return ExitCode.validationFailure.rawValue }
    let reporter = MatchReporter(appID: appID, domain: domain.map(HostArgument.normalized))
    guard let list else { return reporter.decide(urls, in: file, name: aasa, explain: explain, format: format) ? 0 : 1 }
    let all = reporter.decide(urls, listedIn: list, in: file, name: aasa, explain: explain, format: format)
    return all.map { $0 ? 0 : 1 } ?? ExitCode(66).rawValue
  }

  /// The app to decide for without `--app-id`: the one `applinks` lists, said on stderr; several, or none, are a
  /// usage error that lists them, printed with `match`'s usage (nil).
  func onlyApp(in file: AASAFile) -> String? {
    switch MatchReporter.onlyApp(in: file, name: aasa) {
    case .success(let only):
      Terminal.warn(only.note)
      return only.appID
    case .failure(let error):
      Self.printUsageError(error.message)
      return nil
    }
  }
}
