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
  /// A URL the note holds for (for a `wider` note, one the output blocks although no app opens it), when one was
  /// found.
  public var example: String?

  /// Creates a note; `format` and `pointer` stay nil for notes about every format or a whole domain.
  public init(
    _ kind: Kind, format: String? = nil, appID: String, host: String, pointer: String? = nil, message: String,
    example: String? = nil
  ) {
    self.kind = kind
    self.format = format
    self.appID = appID
    self.host = host
    self.pointer = pointer
    self.message = message
    self.example = example
  }

  /// One line for stderr.
  public var line: String {
    let place = "\(appID) \(host)" + (pointer.map { " \($0)" } ?? "")
    return "\(format.map { "\($0): " } ?? "")\(kind.rawValue): \(place): \(message)"
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

  /// The verdict of a runtime decision.
  public init(_ decision: LinkRuntime.Table.Decision) {
    self.init(verdict: decision.verdict, appID: decision.appID, pointer: decision.pointer)
  }

  /// Creates a verdict; `appID` and `pointer` stay nil when no app decided.
  public init(verdict: MatchResult.Verdict, appID: String? = nil, pointer: String? = nil) {
    self.verdict = verdict
    self.appID = appID
    self.pointer = pointer
  }
}

/// Every app, domain and rule a blocklist is made from, whatever the output format: one output of the claims model
/// (``ClaimsIndex/linkingApps(uncovered:)``), with a note for each domain it could not cover.
public struct Blocklist: Sendable {
  /// The apps the list covers, in input order, each with the applinks entries that can open it.
  public var apps: [LinkingApp]
  /// Domains left out because their files are unknown, found while collecting.
  public var notes: [BlocklistNote]

  /// Creates a list from apps already collected; ``init(claims:uncovered:)`` builds one from the claims model.
  public init(apps: [LinkingApp], notes: [BlocklistNote] = []) {
    self.apps = apps
    self.notes = notes
  }

  /// The apps of the claims model: a file that lists the app gives a scope; a definite answer iOS also gets (404,
  /// redirect, too large, not listed) opens nothing, so nothing is lost; an unknown answer (timeout, TLS, offline,
  /// over our limits, not fetched) is noted as uncovered, or blocked whole when `uncovered` is
  /// ``UncoveredDomains/block``.
  public init(claims: ClaimsIndex, uncovered: UncoveredDomains = .block) {
    let linking = claims.linkingApps(uncovered: uncovered)
    self.init(
      apps: linking.apps,
      notes: linking.unknown.map { file in
        let message =
          file.blocked
          ? "\(file.message); every URL of the host is blocked instead" : "\(file.message); left out of the list"
        return BlocklistNote(.uncovered, appID: file.appID, host: file.pattern.description, message: message)
      })
  }

  /// The same from inspections. A host given as an input whose AASA file is unknown (``HostInputs/unknown(_:)``)
  /// is an uncovered domain too, of apps unknown (`*`): with ``UncoveredDomains/block`` every URL of the host is
  /// blocked, so a site's outage never takes it out of a list made from hosts.
  public init(reports: [InspectionReport], uncovered: UncoveredDomains = .block) {
    self.init(claims: ClaimsIndex(reports: reports), uncovered: uncovered)
    for (host, message) in HostInputs.unknown(reports) {
      let blocked = uncovered == .block
      notes.append(
        BlocklistNote(
          .uncovered, appID: Self.unknownApps, host: host,
          message: message + (blocked ? "; every URL of the host is blocked instead" : "; left out of the list")))
      if blocked {
        apps.append(
          LinkingApp(
            appID: Self.unknownApps, name: "the apps of \(host), whose AASA file is unknown", input: host,
            scopes: [
              RuleScope(host: host, wildcard: false, rules: .everyURL(appID: Self.unknownApps))
            ]))
      }
    }
  }

  /// The app ID that stands for the unknown apps of a host whose AASA file is unknown.
  public static let unknownApps = "*"

  /// The rules of every app as the runtime core evaluates them: the matcher's code, and what the Swift and
  /// JavaScript guards embed.
  public func table() -> LinkRuntime.Table { LinkingApp.table(apps) }

  /// What iOS decides for a URL over all apps, with the library's matcher: the reference every generated format
  /// is tested against. To decide many URLs, build ``table()`` once instead.
  public func verdict(for url: String) -> BlocklistVerdict { BlocklistVerdict(table().decide(url)) }
}
