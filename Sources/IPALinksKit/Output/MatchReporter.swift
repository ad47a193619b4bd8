import UniversalLinks

/// The output of `ipalinks match`: per URL, the verdict iOS gives and the rule that decided it.
public struct MatchReporter: Sendable {
  /// The app the verdicts are for.
  public var appID: String
  /// The host the file was served for; nil when each URL's own host is.
  public var domain: String?

  /// A reporter for `appID`'s verdicts on `domain`'s file.
  public init(appID: String, domain: String?) {
    self.appID = appID
    self.domain = domain
  }

  /// One `match --format json` line.
  public struct Line: Encodable, Sendable {
    /// The URL as given.
    public var url: String
    /// `match`, `exclude` or `no-match`.
    public var verdict: String
    /// The app.
    public var appId: String
    /// The file's host.
    public var domain: String
    /// The rule that decided; nil when none did.
    public var rule: MatchedRule?
    /// Why no rule decided.
    public var reason: String?
    /// With `--explain`: every rule tried, in order, with each key's outcome.
    public var explain: [MatchExplanation.Step]?
  }

  /// Why the verdicts may all be "no": the file is too large for devices, or does not list the app; nil otherwise.
  public func warning(_ file: AASAFile, name: String) -> String? {
    if file.exceedsDeviceSizeLimit {
      return "warning: \(name) is \(file.byteCount) bytes; devices refuse files over 128 KB, so no URL opens"
    }
    if file.applinks?.detail(for: appID) == nil {
      return "warning: \(appID) is not listed in the applinks section of \(name)"
    }
    return nil
  }

  /// The verdict line, then, with an explanation, each rule tried (see ``ExplanationText``).
  public func text(_ url: String, _ result: MatchResult, explanation: MatchExplanation?) -> String {
    guard let explanation else { return text(url, result) }
    return text(url, result) + ExplanationText.lines(explanation).map { $0 + "\n" }.joined()
  }

  /// `match    https://e.com/buy/1  matched by details[0].components[1] {"/": "/buy/*"}`, with a newline; escaped
  /// for a terminal, since the rule comes from the file.
  public func text(_ url: String, _ result: MatchResult) -> String {
    TerminalText.escape(String(unescapedText(url, result).dropLast())) + "\n"
  }

  private func unescapedText(_ url: String, _ result: MatchResult) -> String {
    let verdict = result.verdict.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)
    if let rule = result.rule {
      let list = rule.kind == .path ? "paths" : "components"
      return
        "\(verdict)\(url)  matched by details[\(rule.detailIndex)].\(list)[\(rule.componentIndex)] \(rule.pattern)\n"
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
    return "\(verdict)\(url)  (\(reason))\n"
  }

  /// One compact JSON object (``Line``) with a newline; with an explanation, its steps under `explain`.
  public func json(_ url: String, _ result: MatchResult, explanation: MatchExplanation? = nil) -> String {
    let line = Line(
      url: url, verdict: result.verdict.rawValue, appId: appID,
      domain: domain ?? UniversalLinkURL(string: url)?.host ?? "", rule: result.rule, reason: result.reason?.rawValue,
      explain: explanation?.steps)
    return JSONReporter.render(line, pretty: false) + "\n"
  }
}
