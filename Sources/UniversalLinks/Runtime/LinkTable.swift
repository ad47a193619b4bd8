extension LinkRuntime {
  /// Many apps' rules at once: which app, if any, iOS would open for a URL.
  ///
  /// This is what a web view guard asks. Each app is decided on its own entry for the URL's host (the exact host,
  /// else the longest wildcard covering it); the first app whose rules open the URL wins, and an exclusion only
  /// reports which app excluded it when no app opens it.
  public struct Table: Sendable {
    /// One app and the hosts it claims (its `applinks:` entries).
    public struct App: Sendable {
      /// The app's `TEAMID.bundle.id`.
      public let appID: String
      /// Its entries, in the order its entitlements list them.
      public let scopes: [Scope]

      /// Creates an app.
      public init(appID: String, scopes: [Scope]) {
        self.appID = appID
        self.scopes = scopes
      }

      /// The entry that governs `host` (lower-cased): the exact one, else the longest wildcard entry covering a
      /// subdomain. `*.example.com` covers `a.example.com`, not `example.com` itself.
      public func scope(for host: String) -> Scope? {
        if let exact = scopes.first(where: { !$0.wildcard && $0.host == host }) { return exact }
        var best: Scope? = nil
        for scope in scopes where scope.wildcard && host.hasSuffix("." + scope.host) {
          if scope.host.utf8.count > best?.host.utf8.count ?? -1 { best = scope }
        }
        return best
      }
    }

    /// One entry: `example.com`, or `*.example.com` with ``wildcard`` set and ``host`` without the `*.`, with the
    /// rules of the domain's AASA file for the app.
    public struct Scope: Sendable {
      /// The host, lower-cased, without `*.`.
      public let host: String
      /// Whether the entry is `*.host`.
      public let wildcard: Bool
      /// The compiled rules.
      public let program: RuleProgram

      /// Creates an entry; `host` is lower-cased.
      public init(host: String, wildcard: Bool, program: RuleProgram) {
        self.host = host.lowercased()
        self.wildcard = wildcard
        self.program = program
      }
    }

    /// What iOS would do with one URL, and because of which app and rule.
    public struct Decision: Sendable, Equatable {
      /// ``Verdict/match`` when an app opens; ``Verdict/exclude`` when an app excludes it and none opens it.
      public var verdict: Verdict
      /// The app that opens (or excludes) the URL.
      public var appID: String?
      /// The JSON pointer of the deciding rule in that app's AASA file.
      public var pointer: String?

      /// Creates a decision.
      public init(verdict: Verdict, appID: String? = nil, pointer: String? = nil) {
        self.verdict = verdict
        self.appID = appID
        self.pointer = pointer
      }
    }

    /// The apps, in the order they are tried.
    public let apps: [App]
    /// For each host an app claims (`*.` left off for wildcards), the apps claiming it, in order: so a URL is
    /// tried only against apps that claim its host or one of its parent domains.
    private let claimants: [String: [Int]]

    /// Creates a table.
    public init(apps: [App]) {
      self.apps = apps
      var claimants: [String: [Int]] = [:]
      for (index, app) in apps.enumerated() {
        for scope in app.scopes where claimants[scope.host]?.last != index {
          claimants[scope.host, default: []].append(index)
        }
      }
      self.claimants = claimants
    }

    /// The apps that may claim `host`, in table order: those with an entry for the host itself or for one of its
    /// parent domains (which a wildcard entry would cover).
    func candidates(for host: String) -> [Int] {
      var found: [Int] = claimants[host] ?? []
      var rest = Substring(host)
      while let dot = rest.firstIndex(of: ".") {
        rest = rest[rest.index(after: dot)...]
        if let more = claimants[String(rest)] { found += more }
      }
      if found.count > 1 {
        found.sort()
        var unique: [Int] = []
        for index in found where unique.last != index { unique.append(index) }
        return unique
      }
      return found
    }

    /// What iOS would do with `url`: only http and https URLs can open an app.
    public func decide(_ url: UniversalLinkURL) -> Decision {
      var exclusion: Decision? = nil
      for decision in decisions(url) {
        // Any app that opens the URL wins over an earlier app that excludes it.
        if decision.verdict == .match { return decision }
        if exclusion == nil { exclusion = decision }
      }
      return exclusion ?? Decision(verdict: .noMatch)
    }

    /// Every app's own verdict on `url` that is not `no-match`, in table order: the apps whose rules open it and
    /// those whose rules exclude it. What `who-claims --urls` reports.
    public func decisions(_ url: UniversalLinkURL) -> [Decision] {
      guard url.scheme == "https" || url.scheme == "http" else { return [] }
      var out: [Decision] = []
      // One preparation of the URL serves every app claiming the host.
      var subject = Subject(url)
      for index in candidates(for: url.host) {
        let app = apps[index]
        guard let scope = app.scope(for: url.host), let rule = scope.program.firstMatch(&subject) else { continue }
        let matched = scope.program.rules[rule]
        out.append(Decision(verdict: matched.exclude ? .exclude : .match, appID: app.appID, pointer: matched.pointer))
      }
      return out
    }

    /// What iOS would do with the URL `string`; a string that is not an absolute URL opens nothing.
    public func decide(_ string: String) -> Decision {
      guard let url = UniversalLinkURL(string: string) else { return Decision(verdict: .noMatch) }
      return decide(url)
    }
  }
}

// MARK: - Reading the rules document

extension LinkRuntime.Table: Decodable {
  private enum CodingKeys: String, CodingKey { case apps }

  private struct AppEntry: Decodable {
    let appID: String
    let scopes: [ScopeEntry]?
  }

  private struct ScopeEntry: Decodable {
    let host: String
    let wildcard: Bool?
    let rules: [LinkRuntime.Rule]?
  }

  /// Reads and compiles the `apps` of a rules document; ``LinkRuntime/choicesKey`` must carry its `choices`.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let entries = try c.decodeIfPresent([AppEntry].self, forKey: .apps) ?? []
    var builder = LinkRuntime.PatternBuilder()
    let apps = entries.map { app in
      LinkRuntime.Table.App(
        appID: app.appID,
        scopes: (app.scopes ?? []).map { scope in
          LinkRuntime.Table.Scope(
            host: scope.host, wildcard: scope.wildcard ?? false,
            program: LinkRuntime.RuleProgram(rules: scope.rules ?? [], builder: &builder))
        })
    }
    self.init(apps: apps)
  }
}
