import Foundation

/// Apps read from hosts' AASA files alone (`blocklist --host`, `who-claims HOST` with no inputs): what a web-view
/// developer has when they know the hosts their web view shows, not the third-party apps' IPAs.
///
/// Every app ID a host's file lists is taken to claim the host for each service that lists it (`applinks`,
/// `webcredentials`, `appclips`, `activitycontinuation`), and is decided by the first `details` entry that lists it,
/// as iOS does. The claim is assumed: an app must also list the host in its own
/// entitlements, and without its IPA that cannot be checked. Each host becomes one report (``InspectionReport``,
/// input kind `host`) with one bundle per app ID, so every consumer of the claims model reads it as it reads an IPA.
public enum HostInputs {
  /// One report per host, in the order given, from `fetches`; apps in `known` (app IDs whose IPA or inventory is
  /// also given) are left out, since their own entitlements say what they claim.
  public static func reports(
    for hosts: [String], fetches: SharedAASAFetches, leavingOut known: Set<String> = []
  ) async -> [InspectionReport] {
    let requests = hosts.map { AASARequest(host: $0.lowercased(), developerMode: false) }
    return reports(for: hosts, files: await fetches.results(for: requests), leavingOut: known)
  }

  /// The same from files already retrieved, such as the ones an audit store keeps for the hosts it watches
  /// (`refresh --host`); a host without one has an unknown file, `missing` saying why.
  public static func reports(
    for hosts: [String], files results: [AASARequest: ParsedAASA], leavingOut known: Set<String> = [],
    missing: String = "never retrieved"
  ) -> [InspectionReport] {
    let requests = hosts.map { AASARequest(host: $0.lowercased(), developerMode: false) }
    return requests.map { request in
      var report = InspectionReport(input: request.host, inputKind: .host)
      guard let parsed = results[request] else {
        report.diagnostics.append(Diagnostic(.error, .aasaNeverRetrieved, "its AASA file is unknown: \(missing)"))
        return report
      }
      // Every app a service of the file lists, with an entry for each service that lists it.
      let listed: [(Service, [String])] = [
        (.applinks, parsed.appLinksAppIDs), (.webcredentials, parsed.file?.webcredentials?.apps ?? []),
        (.appclips, parsed.file?.appclips?.apps ?? []),
        (.activitycontinuation, parsed.file?.activitycontinuation?.apps ?? []),
      ]
      var order: [String] = []
      var services: [String: [Service]] = [:]
      for (service, apps) in listed {
        for appID in apps where !known.contains(appID) && services[appID]?.contains(service) != true {
          if services[appID] == nil { order.append(appID) }
          services[appID, default: []].append(service)
        }
      }
      for appID in order {
        // Shown after the input (the host) where an IPA's bundle path would be.
        var bundle = BundleReport(path: "apple-app-site-association", kind: .app)
        bundle.appId = appID
        let team = appID.split(separator: ".", maxSplits: 1)
        if team.count == 2 { (bundle.teamId, bundle.bundleId) = (String(team[0]), String(team[1])) }
        var ignored: [Diagnostic] = []
        bundle.associatedDomains = (services[appID] ?? []).map {
          AssociatedDomain.parse("\($0.name):\(request.host)", diagnostics: &ignored)
        }
        report.bundles.append(bundle)
      }
      UniversalLinkInventory.attach([request: parsed], to: &report)
      // Why the host gave no app, in its real words: a file that gave no answer, or one that may not be the site's,
      // leaves its apps unknown (an error, as an IPA's would be); no file is what iOS gets too.
      // The answer every report gives (a body refused by our limits is `over-limit`, unknown), not the transfer's.
      let answer = parsed.answer
      let status = answer.status
      var message = answer.message
      if message.hasPrefix(request.host + ": ") { message.removeFirst(request.host.count + 2) }
      message = TerminalText.escape(message)
      if let code = DiagnosticCode.aasa(status) {
        let reason =
          switch status {
          // A fetch's own message says it already (`no AASA file: 404 at …`); a folder's does not.
          case .notFound: message.hasPrefix("no AASA file") ? message : "no AASA file: \(message)"
          case .tooLarge, .invalidJSON: "its AASA file could not be read: \(message)"
          case .redirect: "its AASA file is a redirect, which iOS does not follow: \(message)"
          case _ where !status.isDefinite: "its AASA file is unknown: \(message)"
          default: message
          }
        // An answer a captive portal gives as readily as the site (a redirect, a login page) leaves the apps
        // unknown too: the list blocks the host whole with `--uncovered block`, as for a timeout.
        report.diagnostics.append(Diagnostic(status.settles ? .warning : .error, code, reason))
      } else if let error = parsed.parseError {
        report.diagnostics.append(
          Diagnostic(.warning, .aasaInvalidJSON, "its AASA file could not be read: \(TerminalText.escape(error))"))
      } else if report.bundles.isEmpty {
        report.diagnostics.append(Diagnostic(.warning, .aasaListsNoApp, "its AASA file lists no app"))
      }
      return report
    }
  }

  /// The hosts `--host` names and those listed in the `--hosts` files (one per line; blank lines and `#` comments
  /// skipped), each once; a bad name or an unreadable file is thrown, naming the line.
  public static func hosts(_ named: [String], files: [String]) throws(ListError) -> [String] {
    var out: [String] = []
    var seen: Set<String> = []
    func add(_ host: String, _ place: String) throws(ListError) {
      if let problem = HostArgument.problem(host) { throw ListError(description: place + problem) }
      let host = HostArgument.normalized(host)
      if seen.insert(host).inserted { out.append(host) }
    }
    for host in named { try add(host, "--host: ") }
    for file in files {
      guard let lines = LineReader(path: file) else {
        throw ListError(description: LineReader.cannotRead(file, "host list"))
      }
      var number = 0
      var lineCount = 0
      var named = 0
      while var line = lines.next() {
        number += 1
        lineCount += 1
        // A byte-order mark, as editors on Windows write one, is not part of the first host.
        if number == 1, line.hasPrefix("\u{FEFF}") { line.removeFirst() }
        let host = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
          .trimmingCharacters(in: .whitespaces)
        if !host.isEmpty {
          named += 1
          try add(host, "\(TerminalText.escape(file)):\(number): ")
        }
      }
      if named == 0 {
        throw ListError(
          description: "\(TerminalText.escape(file)): names no host ("
            + (lineCount == 0 ? "the file is empty" : "only blank lines and # comments") + "); give one host a line")
      }
    }
    return out
  }

  /// The hosts among `reports` whose AASA file is unknown (a timeout, TLS, DNS, offline): what their apps claim
  /// is unknown too, so a blocklist covers them as uncovered domains, with why.
  public static func unknown(_ reports: [InspectionReport]) -> [(host: String, message: String)] {
    reports.filter { $0.inputKind == .host && $0.bundles.isEmpty }.compactMap { report in
      report.diagnostics.first { $0.severity == .error }.map { (report.input, $0.message) }
    }
  }

  /// A host list that cannot be used.
  public struct ListError: Error, Sendable, CustomStringConvertible {
    /// The message, naming the file and line.
    public var description: String
  }

  /// The notes `blocklist` and `who-claims` print about `reports`' host inputs: that claims were assumed, and why
  /// each host that gave no app gave none (no file, one that could not be read, one that lists no app, or an
  /// unknown answer), with the status's code.
  public static func notes(_ reports: [InspectionReport]) -> [String] {
    let hosts = reports.filter { $0.inputKind == .host }
    var notes = hosts.filter(\.bundles.isEmpty).map { report in
      "\(TerminalText.escape(report.input)): "
        + (report.diagnostics.first.map { "\($0.message) (\($0.code.rawValue))" } ?? "its AASA file lists no app")
    }
    let apps = Set(hosts.flatMap(\.bundles).compactMap(\.appId)).count
    if apps > 0 {
      notes.append(
        "claims assumed from the AASA files of \(TerminalText.count(hosts.count - notes.count, "host")) for "
          + "\(TerminalText.count(apps, "app")): each app must also list the host in its entitlements, which cannot "
          + "be checked without its IPA")
    }
    return notes
  }
}
