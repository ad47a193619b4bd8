import Foundation

/// Renders a report for people in a terminal: grouped per bundle, sources shown, colour optional, fitted to a width.
public struct TextReporter: Sendable {
  /// The caller decides (TTY and `NO_COLOR`); the library never looks at the terminal.
  public var useColor: Bool
  /// The width lines fit (long values wrap onto indented lines of their own).
  public var width: Int

  /// Creates a reporter; ``useColor`` and ``width`` are the caller's to decide.
  public init(useColor: Bool, width: Int = 80) {
    self.useColor = useColor
    self.width = width
  }

  private var style: TextStyle { TextStyle(useColor: useColor, width: width) }

  /// The text of `ipalinks inspect` for one input: its diagnostics, then per bundle its identity, entitlement
  /// sources, profile, domains with their rules, URL schemes and findings. Untrusted strings are cleaned of control
  /// characters, so an app cannot forge terminal output. A lookup failure is told once, under its domain, not again
  /// in the bundle's findings.
  public func render(_ report: InspectionReport) -> String {
    let style = self.style
    var out: [String] = []
    out.append(
      style.bold(clean(report.input)) + style.dim("  (\(report.inputKind.rawValue), \(report.status.rawValue))"))
    for d in report.diagnostics { out += finding(d, indent: "  ") }
    for bundle in report.bundles {
      out.append("")
      out.append(style.bold(clean(bundle.path)) + style.dim("  \(bundle.kind.rawValue)"))
      func line(_ label: String, _ raw: String?) {
        guard let raw, !raw.isEmpty else { return }
        let first = "  " + label.padding(toLength: 16, withPad: " ", startingAt: 0)
        let value = clean(raw)
        // One long token (an app id, a path) that fits under the label but not beside it goes on its own line.
        if first.count + value.count > width && !value.contains(" ") {
          out += ["  " + label, "    " + value]
          return
        }
        out += TerminalText.wrap(value, width: width, first: first, rest: String(repeating: " ", count: 18))
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
          let keys = TerminalText.count(s.entitlements.count, "key")
          let text = "\(s.kind.rawValue)  \(clean(s.detail)), \(keys)" + (s.effective ? "  ✓ effective" : "")
          var lines = TerminalText.wrap(text, width: width, first: "    ", rest: "      ")
          if s.effective, useColor {
            lines[lines.count - 1] = lines[lines.count - 1].replacingLast(
              "✓ effective", with: style.green("✓ effective"))
          }
          out += lines
        }
      }
      if let p = bundle.provisioningProfile {
        line("Profile", "\(p.name ?? "?") — \(p.kind.rawValue), team \(p.teamIdentifiers.joined(separator: ","))")
      }
      if !bundle.associatedDomains.isEmpty {
        out.append("  Associated domains")
        for d in bundle.associatedDomains { out += domainLines(d) }
      } else {
        out.append("  Associated domains  " + style.dim("none"))
      }
      line("URL schemes", bundle.urlSchemes.joined(separator: ", "))
      line("Queries schemes", bundle.queriedURLSchemes.joined(separator: ", "))
      for d in bundle.diagnostics where !d.code.isAboutAASAFile { out += finding(d, indent: "  ") }
    }
    return out.joined(separator: "\n") + "\n"
  }

  /// `error[code] message`, wrapped under the message.
  /// How many of an AASA file's warnings and errors are written under each entry that uses it.
  static let findingsPerFile = 5

  private func finding(_ d: Diagnostic, indent: String) -> [String] {
    style.findingLines(d.severity.rawValue, d.code.rawValue, clean(d.message), lead: indent, rest: indent + "    ")
  }

  /// The entry as the entitlement writes it (`applinks:shop.example.com`), then its AASA status, where the file came
  /// from and how many rules it gives the app, on the same line when they fit; then the lookup's message when it
  /// failed, and the rules in the order iOS tries them.
  private func domainLines(_ d: AssociatedDomain) -> [String] {
    let style = self.style
    // An entry without a service (`applinks` alone) is shown as written, not as `:applinks`.
    let shown = clean(d.service.name.isEmpty ? d.raw : d.service.name + ":" + d.label)
    let name = "    " + style.bold(shown)
    let nameWidth = 4 + shown.count
    var lines: [String] = []
    if let aasa = d.aasa {
      let label: String
      let status: String
      switch aasa.outcome {
      case .listed: (label, status) = ("ok", style.green("ok"))
      case .notListed: (label, status) = ("app-not-listed", style.yellow("app-not-listed"))
      case .failed(.notFound): (label, status) = ("not-found", style.yellow("not-found"))
      case .failed(let s), .unknown(let s): (label, status) = (s.rawValue, style.red(s.rawValue))
      }
      var facts = [aasa.fetch.source.rawValue]
      if d.service == .applinks && aasa.outcome == .listed {
        facts.append(TerminalText.count(aasa.rules.count, "rule"))
      }
      if aasa.servedBy != d.host || d.wildcard { facts.append("file from " + clean(aasa.servedBy)) }
      if aasa.signed { facts.append("signed") }
      let rest = facts.joined(separator: ", ")
      if nameWidth + 2 + label.count + 2 + rest.count <= width {
        lines.append(name + "  " + status + "  " + style.dim(rest))
      } else {
        // On a line of its own, wrapped after its commas: at 40 columns `ok  aasa-dir, 2 rules, file from
        // example.com` ran ten past the edge.
        lines.append(name)
        let lead = "      " + label + "  "
        for (i, line) in TerminalText.wrap(rest, width: width, first: lead, rest: "        ").enumerated() {
          lines.append(
            i == 0 ? "      " + status + "  " + style.dim(String(line.dropFirst(lead.count))) : style.dim(line))
        }
      }
      if aasa.status != .ok {
        lines += TerminalText.wrap(clean(aasa.fetch.message), width: width, first: "      ", rest: "        ")
          .map(style.dim)
      }
      for other in aasa.fetch.comparison {
        let differs = other.status != aasa.status ? style.yellow(" (differs)") : ""
        lines.append("      " + style.dim("compared: \(other.source.rawValue) gave \(other.status.rawValue)") + differs)
      }
      lines += style.sourceChangeLines(aasa.sourceChanges, indent: "      ")
      lines += style.ruleLines(aasa.rules.map(\.reference), indent: "      ")
      // The file's findings for this app (a shadowed rule, an invalid pattern), as `fetch` writes them; a file of
      // hundreds of broken rules gives the first few, and says how many more the JSON has.
      let findings = aasa.diagnostics.filter { $0.severity != .info }
      for f in findings.prefix(Self.findingsPerFile) {
        let text = "\(clean(f.pointer.isEmpty ? "(document)" : f.pointer)): \(clean(f.message))"
        lines += style.findingLines(f.severity.rawValue, f.code.rawValue, text, lead: "      ", rest: "          ")
      }
      if findings.count > Self.findingsPerFile {
        lines.append(
          "      "
            + style.dim("… \(findings.count - Self.findingsPerFile) more about this file (--format json lists all)"))
      }
    } else {
      lines.append(name)
    }
    if !d.active {
      lines += TerminalText.wrap(
        "inactive: " + clean(d.inactiveReason?.message ?? ""), width: width, first: "      ", rest: "        "
      ).map(style.yellow)
    }
    return lines
  }

  /// Untrusted strings must not move the cursor or recolour the terminal: see ``TerminalText/escape(_:keepingLineBreaks:)``.
  public func clean(_ s: String, keepingNewlines: Bool = false) -> String {
    TerminalText.escape(s, keepingLineBreaks: keepingNewlines)
  }

}

extension String {
  fileprivate func replacingLast(_ target: String, with replacement: String) -> String {
    guard let range = range(of: target, options: .backwards) else { return self }
    return replacingCharacters(in: range, with: replacement)
  }
}
