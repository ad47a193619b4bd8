/// Renders a report for people in a terminal: grouped per bundle, sources shown, colour optional.
public struct TextReporter: Sendable {
  /// The caller decides (TTY and `NO_COLOR`); the library never looks at the terminal.
  public var useColor: Bool

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

  public func render(_ report: InspectionReport) -> String {
    var out: [String] = []
    out.append(bold(report.input) + dim("  (\(report.inputKind.rawValue), \(report.status.rawValue))"))
    for d in report.diagnostics { out.append("  \(badge(d.severity)) [\(d.code)] \(clean(d.message))") }
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
        for d in bundle.associatedDomains {
          let state = d.active ? "" : paint(" inactive: \(d.inactiveReason ?? "")", "33")
          let modes = d.modes.isEmpty ? "" : dim(" mode=\(d.modes.joined(separator: "+"))")
          let host = (d.wildcard ? "*." : "") + d.host
          out.append(
            "    \(d.service.padding(toLength: 22, withPad: " ", startingAt: 0))\(clean(host))\(modes)\(state)")
        }
      } else {
        out.append("  Associated domains  " + dim("none"))
      }
      line("URL schemes", bundle.urlSchemes.joined(separator: ", "))
      line("Queries schemes", bundle.queriedURLSchemes.joined(separator: ", "))
      for d in bundle.diagnostics { out.append("  \(badge(d.severity)) [\(d.code)] \(clean(d.message))") }
    }
    return out.joined(separator: "\n") + "\n"
  }

  /// Untrusted strings must not move the cursor or recolour the terminal: control characters become escapes.
  func clean(_ s: String) -> String {
    var out = ""
    for scalar in s.unicodeScalars {
      if scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value) || scalar == "\u{2028}"
        || scalar == "\u{2029}"
      {
        out += "\\u{\(String(scalar.value, radix: 16))}"
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
    return out
  }
}
