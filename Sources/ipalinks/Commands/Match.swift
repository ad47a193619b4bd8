import ArgumentParser
import Foundation
import IPALinksKit
import UniversalLinks

/// `ipalinks match`: the verdict iOS gives for each URL, and the rule that decided it.
struct Match: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Tell, for each URL, whether it opens the app and which AASA rule decided it.",
    discussion: """
      Reads the domain's apple-app-site-association file (plain or PKCS#7-signed; '-' for standard input) and \
      applies the rules iOS uses for --app-id: only the first details entry listing the app, first matching \
      pattern wins. --format json prints JSON Lines, one object per URL. See docs/MATCHING.md.

      Exit codes: 0 every URL opens the app; 1 at least one URL does not (excluded or no match); 64 usage error \
      (including a URL that does not parse); 65 the file is not valid AASA JSON; 66 the file cannot be read.
      """
  )

  @Option(help: "The domain's apple-app-site-association file ('-' for standard input).")
  var aasa: String

  @Option(name: .customLong("app-id"), help: "The app, as TEAMID.bundle.id.")
  var appID: String

  @Option(help: "The host the file was served for; each URL's host must equal it. Default: each URL's own host.")
  var domain: String?

  @Option(name: .shortAndLong, help: "Output format: text, or json (JSON Lines).")
  var format: OutputFormat = .text

  @Argument(help: "The URLs to check.")
  var urls: [String]

  func validate() throws {
    guard !urls.isEmpty else { throw ValidationError("give at least one URL") }
    for url in urls where UniversalLinkURL(string: url) == nil {
      throw ValidationError("'\(url)' is not an absolute URL with a host")
    }
  }

  func run() throws {
    let file = try AASAInput.parse(try AASAInput.read(aasa), path: aasa)
    let matcher = file.matcher(appID: appID)
    if file.exceedsDeviceSizeLimit {
      Terminal.printError(
        "ipalinks: warning: \(aasa) is \(file.byteCount) bytes; devices refuse files over 128 KB, so no URL opens")
    } else if matcher.detailIndex == nil {
      Terminal.printError("ipalinks: warning: \(appID) is not listed in the applinks section of \(aasa)")
    }
    var allMatch = true
    for url in urls {
      let result = matcher.verdict(for: url, domain: domain)
      if result.verdict != .match { allMatch = false }
      switch format {
      case .json:
        let host = UniversalLinkURL(string: url)?.host ?? ""
        print(AASAInput.jsonLine(MatchLine(url: url, appID: appID, domain: domain ?? host, result: result)))
      case .text:
        print(Self.text(url, result))
      }
    }
    if !allMatch { throw ExitCode(1) }
  }

  /// `match     https://e.com/buy/1  details[0].components[1] {"/": "/buy/*"}`
  static func text(_ url: String, _ result: MatchResult) -> String {
    let verdict = result.verdict.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)
    if let rule = result.rule {
      let list = rule.kind == .path ? "paths" : "components"
      return "\(verdict)\(url)  matched by details[\(rule.detailIndex)].\(list)[\(rule.componentIndex)] \(rule.pattern)"
    }
    let reason: String
    switch result.reason ?? .noPatternMatched {
    case .noPatternMatched: reason = "no pattern matched"
    case .appNotListed: reason = "the app is not listed in applinks"
    case .hostMismatch: reason = "the host is not the file's domain"
    case .unsupportedScheme: reason = "only http and https URLs are universal links"
    case .fileTooLarge: reason = "the file is over 128 KB, which devices refuse"
    case .invalidURL: reason = "not a valid URL"
    }
    return "\(verdict)\(url)  (\(reason))"
  }
}

/// One `match --format json` line.
struct MatchLine: Encodable {
  var url: String
  var verdict: String
  var appId: String
  var domain: String
  var rule: MatchedRule?
  var reason: String?

  init(url: String, appID: String, domain: String, result: MatchResult) {
    self.url = url
    verdict = result.verdict.rawValue
    appId = appID
    self.domain = domain
    rule = result.rule
    reason = result.reason?.rawValue
  }
}
