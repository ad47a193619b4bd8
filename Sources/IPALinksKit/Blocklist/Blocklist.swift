import Foundation
import UniversalLinks

/// Something a blocklist could not express exactly, or a domain it could not cover: printed on stderr and written
/// to `--report`, because a list must never drop a rule silently.
public struct BlocklistNote: Sendable, Equatable, Codable {
  /// How the output differs from what the matcher decides.
  public enum Kind: String, Sendable, Codable {
    /// The rule is translated, but the output blocks more URLs than iOS opens.
    case wider
    /// The rule is translated, but the output blocks fewer URLs than iOS opens.
    case narrower
    /// The rule is left out of this format; `message` says which way that errs.
    case dropped
    /// A domain whose AASA file is unknown (fetch failed), so none of its URLs are in the list, or, with
    /// ``UncoveredDomains/block``, all of them.
    case uncovered
  }

  /// Whether the output blocks more, blocks less, leaves the rule out, or misses the domain.
  public var kind: Kind
  /// `wkcontentrules` or `regex`; nil when it applies to every format.
  public var format: String?
  /// The app whose rule or domain the note is about.
  public var appID: String
  /// The entry as written (`host` or `*.host`), several joined by commas, or `*` when a whole app is left out.
  public var host: String
  /// JSON pointer of the rule in its AASA file; nil for domain-level notes.
  public var pointer: String?
  /// What went wrong, in words, for people reading stderr or the report.
  public var message: String

  /// Creates a note; `format` and `pointer` stay nil for notes about every format or a whole domain.
  public init(
    _ kind: Kind, format: String? = nil, appID: String, host: String, pointer: String? = nil, message: String
  ) {
    self.kind = kind
    self.format = format
    self.appID = appID
    self.host = host
    self.pointer = pointer
    self.message = message
  }

  /// One line for stderr.
  public var line: String {
    let place = "\(appID) \(host)" + (pointer.map { " \($0)" } ?? "")
    return "\(format.map { "\($0): " } ?? "")\(kind.rawValue): \(place): \(message)"
  }
}

/// The URLs one domain entry (`applinks:host` or `applinks:*.host`) opens in one app.
public struct BlockScope: Sendable, Equatable {
  /// Lower-cased host; for a wildcard, the part after `*.`.
  public var host: String
  /// `*.host`: every subdomain of `host`, not `host` itself (Apple: "an entry for *.example.com does not match
  /// example.com").
  public var wildcard: Bool
  /// The app's rules from the domain's AASA file, in the order iOS tries them.
  public var rules: AppLinkRules

  /// Creates a scope; `host` is lower-cased, as iOS compares hosts case-insensitively.
  public init(host: String, wildcard: Bool, rules: AppLinkRules) {
    self.host = host.lowercased()
    self.wildcard = wildcard
    self.rules = rules
  }

  /// `host` or `*.host`, as entitlements write it.
  public var label: String { (wildcard ? "*." : "") + host }

  /// The rules iOS applies on this entry, prepared for the runtime core: none when the file does not list the app
  /// or is too large for devices; rules that can never match are left out.
  var runtimeRules: [LinkRuntime.Rule] {
    guard rules.detailIndex != nil, !rules.exceedsDeviceSizeLimit else { return [] }
    return rules.runtimeRules(keepingNever: false)
  }

  /// Whether the entry covers a URL host.
  public func covers(_ urlHost: String) -> Bool {
    wildcard ? urlHost.hasSuffix("." + host) : urlHost == host
  }

  /// Whether some URL host is covered by both entries.
  func overlaps(_ other: BlockScope) -> Bool {
    switch (wildcard, other.wildcard) {
    case (false, false): return host == other.host
    case (true, false): return covers(other.host)
    case (false, true): return other.covers(host)
    case (true, true): return host == other.host || host.hasSuffix("." + other.host) || other.host.hasSuffix("." + host)
    }
  }
}

/// One app whose universal links the list blocks.
public struct BlocklistApp: Sendable, Equatable {
  /// `TEAMID.bundle.id`: the key the AASA files list the app by, and what notes and verdicts name.
  public var appID: String
  /// Display name: the bundle name, else the bundle id.
  public var name: String
  /// The input the app came from, for reports.
  public var input: String
  /// Its applinks entries whose file lists the app, in entitlement order.
  public var scopes: [BlockScope]

  /// Creates an app entry; ``Blocklist/init(reports:uncovered:)`` makes these from inspections.
  public init(appID: String, name: String, input: String, scopes: [BlockScope]) {
    self.appID = appID
    self.name = name
    self.input = input
    self.scopes = scopes
  }

}

/// The verdict a blocklist must reproduce for one URL: the matcher's, over every app in the list.
public struct BlocklistVerdict: Sendable, Equatable, Codable {
  /// Whether the URL opens an app, is excluded by one, or matches no app at all.
  public var verdict: MatchResult.Verdict
  /// The app that decided: the first that opens the URL, else the first that excludes it.
  public var appID: String?
  /// JSON pointer of the deciding rule in its AASA file; nil when no app matched.
  public var pointer: String?

  /// Creates a verdict; `appID` and `pointer` stay nil when no app decided.
  public init(verdict: MatchResult.Verdict, appID: String? = nil, pointer: String? = nil) {
    self.verdict = verdict
    self.appID = appID
    self.pointer = pointer
  }
}

/// What a blocklist does with a domain whose AASA file is unknown: a timeout, a TLS or DNS failure, `--offline`
/// without a cached copy, or a file over our limits. iOS may still have (or later get) that file. Either way an
/// `uncovered` note names the domain and the exit code says the inventory was partial.
public enum UncoveredDomains: String, Sendable, CaseIterable {
  /// Leave the domain out: the list blocks only what is known to open an app.
  case skip
  /// Block every URL of the host: fail closed, for web views that must never hand a page to
  /// an app, and so that a server that stalls or sends too much cannot keep its app's links out of the list.
  case block
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

/// Every app, domain and rule a blocklist is made from, whatever the output format.
public struct Blocklist: Sendable {
  /// The apps the list covers, in input order, each with the applinks entries that can open it.
  public var apps: [BlocklistApp]
  /// Domains left out because their files are unknown, found while collecting.
  public var notes: [BlocklistNote]

  /// Creates a list from apps already collected; ``init(reports:uncovered:)`` builds one from inspections.
  public init(apps: [BlocklistApp], notes: [BlocklistNote] = []) {
    self.apps = apps
    self.notes = notes
  }

  /// The apps of inspected inputs: every bundle with an app id and active `applinks` entries.
  ///
  /// A file that lists the app gives a scope; a definite answer iOS also gets (404, redirect, too large, not
  /// listed) opens nothing, so nothing is lost; an unknown answer (timeout, TLS, offline, over our limits, not
  /// fetched) is noted as uncovered, or blocked whole when `uncovered` is ``UncoveredDomains/block``.
  public init(reports: [InspectionReport], uncovered: UncoveredDomains = .skip) {
    self.init(
      uncovered: uncovered,
      collecting: reports.flatMap { report in
        report.bundles.map { bundle in
          Collected(
            appID: bundle.appId, name: bundle.name ?? bundle.bundleId, input: report.input,
            domains: bundle.associatedDomains.filter { $0.service == "applinks" && $0.active }.map { domain in
              Collected.Domain(
                host: domain.host, wildcard: domain.wildcard,
                answer: domain.aasa.map { ($0.status, $0.fetch.message, $0.appLinks) })
            })
        }
      })
  }

  /// One bundle as the blocklist needs it.
  struct Collected {
    struct Domain {
      var host: String
      var wildcard: Bool
      /// Nil when the file was not fetched.
      var answer: (status: AASAFetchResult.Status, message: String, appLinks: AppLinkRules?)?
    }
    var appID: String?
    var name: String?
    var input: String
    var domains: [Domain]
  }

  /// A file that lists the app gives a scope; a definite answer iOS also gets (404, redirect, too large, not
  /// listed) opens nothing, so nothing is lost; an unknown answer (timeout, TLS, offline, not fetched) is noted
  /// as uncovered.
  init(uncovered: UncoveredDomains = .skip, collecting bundles: [Collected]) {
    var apps: [BlocklistApp] = []
    var notes: [BlocklistNote] = []
    for bundle in bundles {
      guard let appID = bundle.appID else { continue }
      var scopes: [BlockScope] = []
      for domain in bundle.domains {
        let label = (domain.wildcard ? "*." : "") + domain.host
        func unknown(_ message: String) {
          switch uncovered {
          case .skip:
            notes.append(BlocklistNote(.uncovered, appID: appID, host: label, message: message))
          case .block:
            scopes.append(BlockScope(host: domain.host, wildcard: domain.wildcard, rules: .everyURL(appID: appID)))
            notes.append(
              BlocklistNote(
                .uncovered, appID: appID, host: label, message: "\(message); every URL of the host is blocked instead"))
          }
        }
        guard let answer = domain.answer else {
          unknown("AASA file not fetched")
          continue
        }
        switch answer.status {
        case .ok:
          if let rules = answer.appLinks {
            scopes.append(BlockScope(host: domain.host, wildcard: domain.wildcard, rules: rules))
          }
        case .notFound, .redirect, .tooLarge, .invalidJSON, .refusedPrivateAddress:
          break
        case .timeout, .tlsError, .dnsError, .connectionError, .httpError, .skippedOffline, .overLimit:
          unknown(answer.message)
        }
      }
      if !scopes.isEmpty {
        apps.append(BlocklistApp(appID: appID, name: bundle.name ?? appID, input: bundle.input, scopes: scopes))
      }
    }
    self.init(apps: apps, notes: notes)
  }

  /// The rules of every app as the runtime core evaluates them: the matcher's code, and what the Swift and
  /// JavaScript guards embed. A scope whose file does not list the app, or is over the size devices accept, has
  /// no rules.
  public func table() -> LinkRuntime.Table {
    // One builder for every app: patterns and variables many apps repeat are compiled and stored once.
    var builder = LinkRuntime.PatternBuilder()
    return LinkRuntime.Table(
      apps: apps.map { app in
        LinkRuntime.Table.App(
          appID: app.appID,
          scopes: app.scopes.map { scope in
            LinkRuntime.Table.Scope(
              host: scope.host, wildcard: scope.wildcard,
              program: LinkRuntime.RuleProgram(rules: scope.runtimeRules, builder: &builder))
          })
      })
  }

  /// What iOS decides for a URL over all apps, with the library's matcher: the reference every generated format
  /// is tested against. To decide many URLs, build ``table()`` once instead.
  public func verdict(for url: String) -> BlocklistVerdict {
    let decision = table().decide(url)
    return BlocklistVerdict(verdict: decision.verdict, appID: decision.appID, pointer: decision.pointer)
  }
}
