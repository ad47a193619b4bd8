import UniversalLinks

/// The URLs one `applinks` entry (`host` or `*.host`) opens in one app: the entry's host pattern and the rules of
/// its file for the app.
public struct RuleScope: Sendable, Equatable {
  /// The entry's host, with or without the wildcard.
  public var pattern: LinkRuntime.HostPattern
  /// The app's rules from the domain's AASA file, in the order iOS tries them.
  public var rules: AppLinkRules

  /// Creates a scope; `host` is lower-cased, as iOS compares hosts case-insensitively.
  public init(host: String, wildcard: Bool, rules: AppLinkRules) {
    self.pattern = LinkRuntime.HostPattern(host: host, wildcard: wildcard)
    self.rules = rules
  }

  /// Lower-cased host; for a wildcard, the part after `*.`.
  public var host: String { pattern.host }
  /// `*.host`: every subdomain of `host`, not `host` itself.
  public var wildcard: Bool { pattern.wildcard }
  /// `host` or `*.host`, as entitlements write it.
  public var label: String { pattern.description }

  /// The rules iOS applies on this entry, prepared for the runtime core: none when the file does not list the app
  /// or is too large for devices; rules that can never match are left out.
  var runtimeRules: [LinkRuntime.Rule] {
    guard rules.detailIndex != nil, !rules.exceedsDeviceSizeLimit else { return [] }
    return rules.runtimeRules(keepingNever: false)
  }

  /// Whether the entry covers a URL host.
  public func covers(_ urlHost: String) -> Bool { pattern.covers(urlHost) }

  /// Whether some URL host is covered by both entries.
  func overlaps(_ other: RuleScope) -> Bool { pattern.overlaps(other.pattern) }
}

/// One app whose universal links can open: its `applinks` entries whose files list it.
public struct LinkingApp: Sendable, Equatable {
  /// `TEAMID.bundle.id`: the key the AASA files list the app by, and what notes and verdicts name.
  public var appID: String
  /// Display name: the bundle name, else the bundle id.
  public var name: String
  /// The input the app came from, for reports.
  public var input: String
  /// Its applinks entries whose file lists the app, in entitlement order.
  public var scopes: [RuleScope]

  /// Creates an app entry; ``ClaimsIndex/linkingApps(uncovered:)`` makes these from the claims model.
  public init(appID: String, name: String, input: String, scopes: [RuleScope]) {
    self.appID = appID
    self.name = name
    self.input = input
    self.scopes = scopes
  }

  /// The runtime table of `apps`: what decides a URL for blocklists, `who-claims --urls` and `diff`.
  public static func table(_ apps: [LinkingApp]) -> LinkRuntime.Table {
    // One builder for every app: patterns and variables many apps repeat are compiled and stored once.
    var builder = LinkRuntime.PatternBuilder()
    return LinkRuntime.Table(
      apps: apps.map { app in
        LinkRuntime.Table.App(
          appID: app.appID,
          scopes: app.scopes.map { scope in
            LinkRuntime.Table.Scope(
              pattern: scope.pattern, program: LinkRuntime.RuleProgram(rules: scope.runtimeRules, builder: &builder))
          })
      })
  }
}

/// An `applinks` entry whose AASA file is unknown, so what it opens is unknown.
public struct UnknownFile: Sendable, Equatable {
  /// The app whose entry it is.
  public var appID: String
  /// The entry's host.
  public var pattern: LinkRuntime.HostPattern
  /// Why it is unknown: the retrieval's message, or that the file was not fetched.
  public var message: String
  /// Whether every URL of the host was counted as opening the app instead (``UncoveredDomains/block``).
  public var blocked: Bool
}

/// What a blocklist does with a domain whose AASA file is unknown: a timeout, a TLS or DNS failure, `--offline`
/// without a cached copy, a file over our limits, or an answer a captive portal or a proxy gives as readily as the
/// site (``AASAFetchResult/Status/settles``). iOS may still have (or later get) that file. Either way an
/// `uncovered` note names the domain and the exit code says the inventory was partial.
public enum UncoveredDomains: String, Sendable, CaseIterable {
  /// Block every URL of the host: fail closed, so that an outage, a captive portal or a server that stalls or sends
  /// too much never takes its app's links out of a list. A blocklist's default.
  case block
  /// Leave the domain out: the list blocks only what is known to open an app.
  case skip
}

extension AppLinkRules {
  /// One rule opening every URL, standing in for an unknown file under ``UncoveredDomains/block``. Its pointer is
  /// "" (the whole file), as no rule of the file decided.
  static func everyURL(appID: String) -> AppLinkRules {
    let reference = MatchedRule(
      detailIndex: 0, componentIndex: 0, kind: .component, pattern: "every URL (AASA file unknown)", exclude: false,
      pointer: "")
    return AppLinkRules(
      appID: appID, detailIndex: 0, rules: [EffectiveRule(reference: reference, path: "*", caseSensitive: false)])
  }
}

extension ClaimsIndex {
  /// Every app with an app id and the active `applinks` entries whose files can open it, in input order, and
  /// every such entry whose file is unknown. A file that lists the app gives a scope; an answer that settles it
  /// (a 404, a file that does not list the app) opens nothing; any other (a timeout, TLS, offline, over our limits,
  /// not fetched, and the answers a captive portal gives as readily as the site: a redirect, too large, no AASA
  /// file, a private address) is listed as unknown, and with ``UncoveredDomains/block`` opens every URL of its host.
  public func linkingApps(uncovered: UncoveredDomains = .skip) -> (apps: [LinkingApp], unknown: [UnknownFile]) {
    var linking: [LinkingApp] = []
    var unknown: [UnknownFile] = []
    // An app that several hosts' files list (hosts given alone) is one bundle per host; it is one app, with a scope
    // per host, as an IPA's is, not one entry per host that counted it twice.
    var fromHosts: [String: Int] = [:]
    for app in apps {
      let bundle = app.bundle
      guard let appID = bundle.appId else { continue }
      var scopes: [RuleScope] = []
      for domain in bundle.associatedDomains where domain.opensLinks {
        let message: String
        switch domain.aasa?.outcome {
        case .listed:
          if let rules = domain.aasa?.appLinks {
            scopes.append(RuleScope(host: domain.host, wildcard: domain.wildcard, rules: rules))
          }
          continue
        case .notListed: continue
        case .failed(let status) where status.settles: continue
        // An answer a portal or a proxy gives as readily as the site (``AASAFetchResult/Status/settles``) is no
        // proof that nothing opens: unknown too.
        case .failed, .unknown: message = domain.aasa?.fetch.message ?? ""
        case nil: message = "AASA file not fetched"
        }
        let blocked = uncovered == .block
        unknown.append(UnknownFile(appID: appID, pattern: domain.pattern, message: message, blocked: blocked))
        if blocked {
          scopes.append(RuleScope(host: domain.host, wildcard: domain.wildcard, rules: .everyURL(appID: appID)))
        }
      }
      guard !scopes.isEmpty else { continue }
      let fromHost = inputs[app.input].kind == .host
      if fromHost, let first = fromHosts[appID] {
        linking[first].scopes += scopes
      } else {
        if fromHost { fromHosts[appID] = linking.count }
        linking.append(
          LinkingApp(
            appID: appID, name: bundle.name ?? bundle.bundleId ?? appID, input: inputs[app.input].path,
            scopes: scopes))
      }
    }
    return (linking, unknown)
  }

  /// The runtime table of every app's universal-link rules: what decides URLs for `who-claims --urls`, `diff` and
  /// the blocklists.
  public func table(uncovered: UncoveredDomains = .skip) -> LinkRuntime.Table {
    LinkingApp.table(linkingApps(uncovered: uncovered).apps)
  }
}
