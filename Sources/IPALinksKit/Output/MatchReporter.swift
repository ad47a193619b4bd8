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
    /// With `--explain`, when later `details` entries list the app too: each, with the rule that would decide the
    /// URL there.
    public var ignoredEntries: [MatchExplanation.IgnoredEntry]?
    /// With `--explain`: later rules that match the URL too but that the deciding rule shadows.
    public var shadowedRules: [MatchedRule]?
  }

  /// The warning when `urls` name several hosts and no `--domain` was given: each is then matched as if the file
  /// `name` were served for its own host. Nil otherwise.
  public func severalHosts(_ urls: [String], name: String) -> String? {
    severalHosts(Set(urls.compactMap { UniversalLinkURL(string: $0)?.host }), name: name)
  }

  /// The same for the hosts the URLs named.
  public func severalHosts(_ hosts: Set<String>, name: String) -> String? {
    guard domain == nil, hosts.count > 1 else { return nil }
    return "warning: the URLs name \(hosts.count) hosts and no --domain was given, so each is matched as if \(name) "
      + "were served for its own host; give --domain HOST to check them against the file's own host"
  }

  /// Why the verdicts may all be "no": the file is too large for devices, or does not list the app (with the
  /// listed app it was probably meant to be); nil otherwise.
  public func warning(_ file: AASAFile, name: String) -> String? {
    if file.exceedsDeviceSizeLimit {
      return "warning: \(name) is \(file.byteCount) bytes; devices refuse files over 128 KB, so no URL opens"
    }
    if file.applinks?.detail(for: appID) == nil {
      let guess = Self.likelyMeant(appID, among: file.appLinksAppIDs).map { "; did you mean \($0)?" } ?? ""
      return "warning: \(appID) is not listed in the applinks section of \(name)\(guess)"
    }
    return nil
  }

  /// The app to decide for when none was named: the one `applinks` lists, with a note saying so; or, when it lists
  /// several or none, a usage error naming them (escaped, as the ids come from the file).
  public static func onlyApp(in file: AASAFile, name: String) -> Result<(appID: String, note: String), UsageError> {
    let listed = file.appLinksAppIDs
    guard listed.count == 1 else {
      // The first few: a file may list thousands, which made one error line of any length.
      let ids =
        listed.prefix(5).map { TerminalText.escape($0) }.joined(separator: ", ")
        + (listed.count > 5 ? " and \(listed.count - 5) more; aasa show lists them" : "")
      let which = listed.isEmpty ? "lists no app" : "lists \(listed.count) apps (\(ids))"
      return .failure(
        UsageError(
          message: "\(TerminalText.escape(name)) \(which) in applinks; choose one with --app-id TEAMID.bundle.id"))
    }
    return .success((listed[0], "no --app-id: deciding for \(listed[0]), the one app \(name) lists in applinks"))
  }

  /// A problem with what the command line asked for, in words.
  public struct UsageError: Error, Sendable {
    /// The message, escaped for a terminal.
    public var message: String
  }

  /// The listed app id `appID` was probably meant to be: one that differs only in case, or that has the team and
  /// the bundle id the other way round (`com.example.app.ABCDE12345` for `ABCDE12345.com.example.app`).
  public static func likelyMeant(_ appID: String, among listed: [String]) -> String? {
    func swapped(_ id: String) -> String? {
      guard let dot = id.lastIndex(of: ".") else { return nil }
      return id[id.index(after: dot)...] + "." + id[..<dot]
    }
    let candidates = [appID.lowercased(), swapped(appID)?.lowercased()].compactMap { $0 }
    return listed.first { candidates.contains($0.lowercased()) }
  }

  /// The verdict line, then, with an explanation, each rule tried (see ``ExplanationText``).
  public func text(
    _ url: String, _ result: MatchResult, explanation: MatchExplanation? = nil,
    style: TextStyle = TextStyle(useColor: false)
  ) -> String {
    var lines = verdictLines(url, result, style: style)
    if let explanation { lines += ExplanationText.lines(explanation, style: style) }
    return lines.map { $0 + "\n" }.joined()
  }

  /// `match     https://e.com/buy/1  /applinks/details/0/components/1  {"/": "/buy/*"}`: the verdict, the URL, and
  /// the deciding rule's pointer and pattern, or why no rule decided; wrapped to the style's width, with every
  /// string escaped for a terminal, since the URL and the rule are untrusted.
  public func verdictLines(_ url: String, _ result: MatchResult, style: TextStyle) -> [String] {
    let (label, rest) = Self.parts(result)
    let fields = ([url] + rest).map { TerminalText.escape($0) }
    var lines = TerminalText.pack(fields, width: style.width, first: label, rest: Self.indent)
    lines[0] = style.verdict(result.verdict) + lines[0].dropFirst(result.verdict.rawValue.count)
    return lines
  }

  /// The verdict padded to its column, and what follows the URL on a verdict's lines: the deciding rule's pointer
  /// and pattern, or why no rule decided; not escaped.
  static func parts(_ result: MatchResult) -> (label: String, fields: [String]) {
    // Padded by hand: Foundation's `padding` was a sixth of the time of a list of URLs.
    let verdict = result.verdict.rawValue
    let label = verdict + String(repeating: " ", count: max(0, 10 - verdict.utf8.count))
    guard let rule = result.rule else { return (label, ["(" + reason(result.reason ?? .noPatternMatched) + ")"]) }
    return (label, [rule.pointer, rule.pattern])
  }

  /// Where a verdict's field that does not fit beside the others begins.
  static let indent = "            "

  /// Why no rule decided, in words.
  static func reason(_ reason: MatchResult.Reason) -> String {
    switch reason {
    case .noPatternMatched: "no rule matched"
    case .appNotListed: "the app is not listed in applinks"
    case .hostMismatch: "the host is not the file's domain"
    case .unsupportedScheme: "only http and https URLs are universal links"
    case .fileTooLarge: "the file is over 128 KB, which devices refuse"
    case .invalidURL: "not a valid URL"
    }
  }

  /// The record of one URL's verdict.
  public func line(_ url: String, _ result: MatchResult, explanation: MatchExplanation? = nil) -> Line {
    Line(
      url: url, verdict: result.verdict.rawValue, appId: appID,
      domain: domain ?? UniversalLinkURL(string: url)?.host ?? "", rule: result.rule, reason: result.reason?.rawValue,
      explain: explanation?.steps, ignoredEntries: explanation.flatMap { $0.ignored.isEmpty ? nil : $0.ignored },
      shadowedRules: explanation.flatMap { $0.shadowed.isEmpty ? nil : $0.shadowed })
  }

  /// One compact JSON object (``Line``) with a newline; with an explanation, its steps under `explain`.
  public func json(_ url: String, _ result: MatchResult, explanation: MatchExplanation? = nil) -> String {
    JSONReporter.render(line(url, result, explanation: explanation), pretty: false) + "\n"
  }

  /// The `match --format json` document: the app, the file's domain when one was given, and every URL's record.
  public func document(_ results: [Line]) -> String {
    struct Document: Encodable {
      var appId: String
      var domain: String?
      var results: [Line]
    }
    return JSONReporter.document(Document(appId: appID, domain: domain, results: results)) + "\n"
  }
}
