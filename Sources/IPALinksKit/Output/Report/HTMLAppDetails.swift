import Foundation
import UniversalLinks

extension HTMLReporter {
  /// One bundle, collapsed: its summary line says what it claims; opened, its identity, entitlement sources,
  /// associated domains (each linking to its host in the domain view, where the file's rules are shown once), URL
  /// schemes and diagnostics. A bundle that claims nothing folds into one line. The body is a `<noscript>`: see
  /// ``HTMLReporter/render(_:title:)``.
  static func appDetails(_ bundle: BundleReport, app: ReportModel.App, model: ReportModel) -> String {
    // With an apps table, the script shows or hides the details with the app's row, which carries the filters.
    let filter =
      model.apps.count > 1
      ? "" : filterAttributes(outcomes: app.outcomes, services: app.services, shared: app.sharesHost)
    let hosts = model.apps.count > 1 ? "" : hostsAttribute(app)
    if bundle.associatedDomains.isEmpty && bundle.urlSchemes.isEmpty && bundle.queriedURLSchemes.isEmpty
      && bundle.diagnostics.isEmpty
    {
      return "<p class=\"app folded\" id=\"app-\(app.number)\"\(filter)><span class=\"num\">#\(app.number)</span> "
        + "\(HTML.text(app.name)) <span class=\"tag\">\(bundle.kind.rawValue)</span> "
        + "\(HTML.code(bundle.identifier ?? bundle.path)) "
        + "<small>no associated domains, no URL schemes</small></p>\n"
    }
    var counts: [String] = [TerminalText.count(bundle.associatedDomains.count, "domain")]
    for outcome in ReportModel.Outcome.allCases where app.count(outcome) > 0 {
      counts.append("<span class=\"c-\(outcome.cssClass)\">\(app.count(outcome)) \(outcome.shortLabel)</span>")
    }
    counts.append(TerminalText.count(bundle.urlSchemes.count, "scheme"))
    var html = "<details class=\"app\" id=\"app-\(app.number)\"\(filter)\(hosts)><summary>"
    html += "<span class=\"num\">#\(app.number)</span> <b>\(HTML.text(app.name))</b> "
    html += "<span class=\"tag\">\(bundle.kind.rawValue)</span> \(HTML.code(bundle.identifier ?? bundle.path)) "
    html += "<small>\(counts.joined(separator: " · "))</small></summary><noscript>"
    // One list of facts: identity, entitlement sources, URL schemes; then the domains table.
    var rows = identity(bundle, input: app.input)
    rows.append(("Entitlements", entitlementSources(bundle)))
    rows.append(("URL schemes", chips(bundle.urlSchemes)))
    if !bundle.queriedURLSchemes.isEmpty {
      rows.append(("Queried schemes", chips(bundle.queriedURLSchemes) + " <small>(do not open it)</small>"))
    }
    html += "<dl class=\"identity\">" + rows.map { "<dt>\($0.0)</dt><dd>\($0.1)</dd>" }.joined() + "</dl>\n"
    html += domainsTable(bundle, app: app, model: model)
    if !bundle.diagnostics.isEmpty { html += "<h4>Diagnostics</h4>\n" + diagnosticsList(bundle.diagnostics) }
    return html + "</noscript></details>\n"
  }

  private static func identity(_ b: BundleReport, input: ClaimsIndex.Input) -> [(String, String)] {
    var rows: [(String, String)] = []
    func add(_ label: String, _ value: String?, code: Bool = false) {
      guard let value, !value.isEmpty else { return }
      rows.append((label, code ? HTML.code(value) : HTML.text(value)))
    }
    add("App ID", b.appId, code: true)
    add("Version", [b.version, b.build.map { "(\($0))" }].compactMap { $0 }.joined(separator: " "))
    rows.append(("Input", "\(HTML.code(input.path)) <small>\(input.kind.rawValue)</small>"))
    // The main app's usual place goes without saying; an extension's or a clip's path tells what it belongs to.
    if b.path != "Payload/\(b.executable ?? "").app" { add("Bundle path", b.path, code: true) }
    if b.encrypted != false {
      rows.append(("Encrypted", b.encrypted == true ? "yes (FairPlay; signature still readable)" : "unknown"))
    }
    add("Distribution", b.distribution)
    add("Minimum iOS", b.minimumOSVersion)
    // The executable and signing identifier are worth a line only when they differ from the names above.
    if b.executable != b.name && b.executable != b.bundleId { add("Executable", b.executable, code: true) }
    add("Architectures", b.architectures.joined(separator: ", "))
    if b.signingIdentifier != b.bundleId { add("Signing identifier", b.signingIdentifier, code: true) }
    if let p = b.provisioningProfile {
      var parts = [HTML.text(p.name ?? "unnamed"), p.kind.rawValue]
      if !p.teamIdentifiers.isEmpty { parts.append("team " + HTML.text(p.teamIdentifiers.joined(separator: ", "))) }
      if let expiry = p.expirationDate { parts.append("expires " + ISO8601DateFormatter().string(from: expiry)) }
      rows.append(("Profile", parts.joined(separator: " · ")))
    }
    return rows
  }

  /// Which source said which associated domains, so disagreements are visible without reading diagnostics. The
  /// effective source's domains are the table below, and a source that agrees with it says so in two words.
  private static func entitlementSources(_ b: BundleReport) -> String {
    guard !b.entitlementSourceDetails.isEmpty else { return "<small>none found</small>" }
    let key = EntitlementResolver.associatedDomainsKey
    let effective = b.entitlementSourceDetails.first(where: \.effective)?.entitlements[key]
    var items: [String] = []
    for s in b.entitlementSourceDetails {
      let value = s.entitlements[key]
      var item =
        "<b>\(s.kind.rawValue)</b> \(HTML.code(s.detail)) <small>\(TerminalText.count(s.entitlements.count, "key"))"
      if s.effective {
        item += "</small> <span class=\"badge ok\">✓ effective</span>"
        if let list = value?.stringArray, list == b.associatedDomains.map(\.raw) { items.append(item); continue }
      } else if let value, value == effective {
        items.append(item + ", same domains</small>")
        continue
      } else {
        item += "</small>"
      }
      if let list = value?.stringArray {
        item +=
          list.isEmpty
          ? " <small>empty associated-domains list</small>" : " " + list.map(HTML.code).joined(separator: " ")
      } else if let value {
        item += " " + HTML.code(value.stringValue ?? value.summary)
      } else {
        item += " <small>no associated domains</small>"
      }
      items.append(item)
    }
    return items.joined(separator: "<br>")
  }

  /// The bundle's entries with this app's result; the file itself (rules, facts, findings) is one click away in
  /// the domain view, shown there once however many apps share it.
  private static func domainsTable(_ b: BundleReport, app: ReportModel.App, model: ReportModel) -> String {
    var html = "<h4>Associated domains</h4>\n"
    guard !b.associatedDomains.isEmpty else { return html + "<p class=\"muted\">None.</p>\n" }
    html += "<table class=\"domains\"><thead><tr><th>Entry</th><th>AASA</th><th>Rules</th></tr></thead><tbody>\n"
    for d in b.associatedDomains {
      let outcome = ReportModel.Outcome(d.aasa)
      var entry = HTML.code(d.raw)
      if let number = model.hostNumbers[d.pattern.description] {
        entry = "<a href=\"#h-\(number)\">\(entry)</a>"
      }
      if !d.active {
        entry +=
          " <span class=\"badge definite\">inactive</span> <span class=\"v\">\(HTML.text(d.inactiveReason?.message ?? ""))</span>"
      }
      // One badge says it all: read and listing the app, read but not listing it, or the failure.
      var status = d.aasa?.status.rawValue ?? "not fetched"
      if let a = d.aasa, a.status == .ok { status = a.outcome == .listed ? "ok, listed" : "not listed" }
      var rules = ""
      if let a = d.aasa, d.service == .applinks, a.outcome == .listed {
        rules = String(a.rules.count)
        if a.appLinks?.exceedsDeviceSizeLimit == true { rules += " <span class=\"no\">(over 128 KB)</span>" }
      }
      html += "<tr><td>\(entry)</td><td><span class=\"badge \(outcome.cssClass)\">\(status)</span></td>"
      html += "<td>\(rules)</td></tr>\n"
    }
    return html + "</tbody></table>\n"
  }
}
