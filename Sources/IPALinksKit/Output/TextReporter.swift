/// Renders a report for people in a terminal: grouped per bundle, sources shown, colour optional.
public struct TextReporter: Sendable {
  /// The caller decides (TTY and `NO_COLOR`); the library never looks at the terminal.
  public var useColor: Bool

  /// Creates a reporter; ``useColor`` says who decides on colour.
  public init(useColor: Bool) { self.useColor = useColor }

  private func paint(_ text: String, _ code: String) -> String { useColor ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }
  private func bold(_ t: String) -> String { paint(t, "1") }
  private func dim(_ t: String) -> String { paint(t, "2") }

  private func badge(_ severity: Diagnostic.Severity) -> String {
    switch severity {
    case .error: paint("error", "31")
    case .warning: paint("warning", "33")
    case .info: paint("info", "36")
    }
  }

  /// The text of `ipalinks inspect` for one input: its diagnostics, then per bundle its identity, entitlement
  /// sources, profile, domains with their rules, URL schemes and findings. Untrusted strings are cleaned of control
  /// characters, so an app cannot forge terminal output.
  public func render(_ report: InspectionReport) -> String {
    var out: [String] = []
    out.append(bold(report.input) + dim("  (\(report.inputKind.rawValue), \(report.status.rawValue))"))
    for d in report.diagnostics { out.append("  \(badge(d.severity)) [\(d.code.rawValue)] \(clean(d.message))") }
    for bundle in report.bundles {
      out.append("")
      out.append(bold(clean(bundle.path)) + dim("  \(bundle.kind.rawValue)"))
      func line(_ label: String, _ value: String?) {
        guard let value, !value.isEmpty else { return }
        out.append("  " + label.padding(toLength: 16, withPad: " ", startingAt: 0) + clean(value))
      }
      line("Bundle ID", bundle.bundleId)
      line("Name", bundle.name)
      line("Version", [bundle.version, bundle.build.map { "(\($0))" }].compactMap { $0 }.joined(separator: " "))
      line("Minimum iOS", bundle.minimumOSVersion)
      line("Executable", bundle.executable)
      line("Architectures", bundle.architectures.joined(separator: ", "))
      line("Team ID", bundle.teamId)
      line("App ID", bundle.appId)
      line("Encrypted", bundle.encrypted.map { $0 ? "yes (FairPlay; signature still readable)" : "no" })
      line("Distribution", bundle.distribution)
      if !bundle.entitlementSourceDetails.isEmpty {
        out.append("  Entitlement sources")
        for s in bundle.entitlementSourceDetails {
          let mark = s.effective ? " " + paint("✓ effective", "32") : ""
          out.append(
            "    \(s.kind.rawValue.padding(toLength: 22, withPad: " ", startingAt: 0))\(clean(s.detail)) \(dim("(\(s.entitlements.count) keys)"))\(mark)"
          )
        }
      }
      if let p = bundle.provisioningProfile {
        line("Profile", "\(p.name ?? "?") — \(p.kind.rawValue), team \(p.teamIdentifiers.joined(separator: ","))")
      }
      if !bundle.associatedDomains.isEmpty {
        out.append("  Associated domains")
        for d in bundle.associatedDomains { out += domainLines(d) }
      } else {
        out.append("  Associated domains  " + dim("none"))
      }
      line("URL schemes", bundle.urlSchemes.joined(separator: ", "))
      line("Queries schemes", bundle.queriedURLSchemes.joined(separator: ", "))
      for d in bundle.diagnostics { out.append("  \(badge(d.severity)) [\(d.code.rawValue)] \(clean(d.message))") }
    }
    return out.joined(separator: "\n") + "\n"
  }

  /// One table row per domain (service, host, AASA status, source, rule count), then its rules in order.
  private func domainLines(_ d: AssociatedDomain) -> [String] {
    func pad(_ text: String, _ width: Int) -> String {
      text.count >= width ? text + " " : text.padding(toLength: width, withPad: " ", startingAt: 0)
    }
    let host = (d.wildcard ? "*." : "") + d.host + (d.modes.isEmpty ? "" : "?mode=" + d.modes.joined(separator: "+"))
    var row = "    " + pad(d.service, 22) + pad(clean(host), 34)
    var lines: [String] = []
    if let aasa = d.aasa {
      let label = aasa.status == .ok ? (aasa.appListed ? "ok" : "app not listed") : aasa.status.rawValue
      let colour = aasa.status == .ok ? (aasa.appListed ? "32" : "33") : (aasa.status == .notFound ? "33" : "31")
      row += paint(pad(label, 16), colour) + pad(aasa.fetch.source.rawValue, 18)
      if d.service == "applinks" && aasa.appListed {
        row += "\(aasa.rules.count) rule" + (aasa.rules.count == 1 ? "" : "s")
      }
      if aasa.servedBy != d.host || d.wildcard { row += dim(" (file from \(aasa.servedBy))") }
      if aasa.signed { row += dim(" signed") }
      lines.append(row.trimmingTrailingSpaces())
      if aasa.status != .ok { lines.append("        " + dim(clean(aasa.fetch.message))) }
      for other in aasa.fetch.comparison {
        let differs = other.status != aasa.status ? paint(" (differs)", "33") : ""
        lines.append("        " + dim("compared: \(other.source.rawValue) gave \(other.status.rawValue)") + differs)
      }
      for rule in aasa.rules.map(\.reference) {
        let verb = rule.exclude ? paint("exclude", "31") : paint("open   ", "32")
        lines.append("        \(verb)  \(clean(rule.pattern))  " + dim("[\(rule.detailIndex).\(rule.componentIndex)]"))
      }
    } else {
      lines.append(row.trimmingTrailingSpaces())
    }
    if !d.active { lines.append("        " + paint("inactive: \(d.inactiveReason ?? "")", "33")) }
    return lines
  }

  /// Untrusted strings must not move the cursor or recolour the terminal: see ``TerminalText/escape(_:keepingLineBreaks:)``.
  public func clean(_ s: String, keepingNewlines: Bool = false) -> String {
    TerminalText.escape(s, keepingLineBreaks: keepingNewlines)
  }

}

extension String {
  fileprivate func trimmingTrailingSpaces() -> String {
    var s = self
    while s.last == " " { s.removeLast() }
    return s
  }
}
