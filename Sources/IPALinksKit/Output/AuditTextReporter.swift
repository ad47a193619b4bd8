import Foundation
import UniversalLinks

/// Text for `ipalinks diff` and `ipalinks who-claims`: one line per fact, `+`/`-`/`~` marks like a diff, rules named by
/// JSON pointer and called `match` or `exclude` as in every command, every untrusted string cleaned of control
/// characters, and lines fitted to the style's width.
public struct AuditTextReporter: Sendable {
  let style: TextStyle

  /// Creates a reporter; the caller decides on colour (TTY and `NO_COLOR`) and width.
  public init(useColor: Bool, width: Int = 80) { style = TextStyle(useColor: useColor, width: width) }

  /// Creates a reporter with a style.
  public init(style: TextStyle) { self.style = style }

  private func clean(_ s: String?) -> String { TerminalText.escape(s ?? "—") }

  /// A verdict over many apps: `match ST0REAPP42.com.example.store /applinks/details/0/components/1`, the same
  /// with `exclude`, or `no-match`.
  static func describe(_ v: BlocklistVerdict) -> String {
    switch v.verdict {
    case .match, .exclude:
      ([v.verdict.rawValue, v.appID ?? "?"] + (v.pointer.map { [$0] } ?? [])).joined(separator: " ")
    case .noMatch: "no-match"
    }
  }

  private func lines(_ text: String, indent: String) -> [String] {
    TerminalText.wrap(text, width: style.width, first: indent, rest: indent + "    ")
  }

  /// The text of `ipalinks diff`: bundles added and removed with the domains and schemes they bring or take, then per
  /// changed bundle its fields, domains, schemes and AASA statuses; then each entry's AASA file that behaves
  /// differently, each change told once with the apps it affects; then the sample URLs whose verdict changed, and
  /// those whose verdict stays while another app or rule decides; then a line of totals. "No differences." when
  /// nothing changed.
  public func render(_ diff: InventoryDiff) -> String {
    var out: [String] = []
    let plus = { (s: String, indent: String) in self.lines("+ " + s, indent: indent).map { self.style.green($0) } }
    let minus = { (s: String, indent: String) in self.lines("- " + s, indent: indent).map { self.style.red($0) } }
    for b in diff.bundles {
      var body: [String] = []
      for f in b.fields { body += lines("~ \(f.field): \(clean(f.old)) → \(clean(f.new))", indent: "  ") }
      for e in b.domainsAdded { body += plus("\(clean(e.service.name)):\(clean(e.domain))", "  ") }
      for e in b.domainsRemoved { body += minus("\(clean(e.service.name)):\(clean(e.domain))", "  ") }
      for s in b.schemesAdded { body += plus("URL scheme \(clean(s))", "  ") }
      for s in b.schemesRemoved { body += minus("URL scheme \(clean(s))", "  ") }
      for d in b.domains {
        var facts: [String] = []
        if let o = d.oldStatus, let n = d.newStatus { facts.append("    ~ AASA \(o) → \(n)") }
        if !d.rulesCompared { facts += lines("rules not compared: a side's AASA file is unknown", indent: "    ") }
        if let o = d.oldAppListed, let n = d.newAppListed {
          facts.append("    ~ app listed in the AASA file: \(o ? "yes" : "no") → \(n ? "yes" : "no")")
        }
        if let o = d.oldActive, let n = d.newActive {
          facts += lines(
            "~ active: \(o ? "yes" : "no") → \(n ? "yes" : "no")" + (d.inactiveReason.map { ": " + clean($0) } ?? ""),
            indent: "    ")
        }
        // Rule changes are told under their file, below, once for every app.
        if !facts.isEmpty { body += ["  \(clean(d.service.name)):\(clean(d.domain))"] + facts }
      }
      let who = b.new ?? b.old
      let title = clean(b.key) + (who?.name.map { " (\(clean($0)))" } ?? "")
      switch b.change {
      case .added: out += plus("bundle " + title + " in " + clean(b.new?.input), "")
      case .removed: out += minus("bundle " + title + " in " + clean(b.old?.input), "")
      case .changed: if !body.isEmpty { out.append(style.bold(title)) }
      }
      out += body
    }
    let files = diff.files
    if !files.isEmpty {
      out.append("AASA files that behave differently")
      for file in files {
        // The apps go in the heading when every change is theirs, else with each change.
        let apps = Set(file.changes.map(\.appIds)).count == 1 ? file.changes[0].appIds : nil
        out += forApps("\(clean(file.service.name)):\(clean(file.domain))", apps, indent: "  ")
        for shared in file.changes {
          let heading = forApps("~ " + shared.change.kind.rawValue, apps == nil ? shared.appIds : nil, indent: "    ")
          let rules = diff.bundles.lazy.flatMap(\.domains).first { $0.changes.contains(shared.change) }?.rules
          out +=
            heading
            + style.behaviourChangeLines(shared.change, heading: "", indent: "    ", rules: rules ?? ([:], [:]))
            .dropFirst()
        }
      }
    }
    let changed = diff.verdicts.filter(\.verdictChanged)
    let moved = diff.verdicts.filter { !$0.verdictChanged }
    if !changed.isEmpty {
      out.append("URLs that changed verdict (\(changed.count) of \(diff.urlsCompared))")
      for v in changed { out += verdictLines(v) }
    } else if diff.urlsCompared > 0 {
      out.append("No sample URL changed verdict (\(diff.urlsCompared) compared).")
    }
    if !moved.isEmpty {
      out.append("URLs with the same verdict, decided by another app or rule (\(moved.count) of \(diff.urlsCompared))")
      for v in moved { out += verdictLines(v) }
    }
    if !diff.hasDifferences {
      out.insert("No differences.", at: 0)
    } else {
      var totals = [
        TerminalText.count(diff.bundles.count, "bundle") + (diff.bundles.count == 1 ? " differs" : " differ")
      ]
      if !files.isEmpty {
        totals.append(
          TerminalText.count(files.count, "AASA file") + " behave" + (files.count == 1 ? "s" : "") + " differently")
      }
      if diff.urlsCompared > 0 {
        totals.append("\(changed.count) of \(TerminalText.count(diff.urlsCompared, "URL")) changed verdict")
      }
      out += TerminalText.pack(
        totals.dropLast().map { $0 + ";" } + totals.suffix(1), width: style.width, rest: "  ", separator: " ")
    }
    return out.joined(separator: "\n") + "\n"
  }

  /// `heading`, then `for APP` or `for N apps: A, B, …` when `apps` are given, fitted to the width.
  private func forApps(_ heading: String, _ apps: [String]?, indent: String) -> [String] {
    guard let apps, !apps.isEmpty else { return [indent + heading] }
    let names = apps.map(clean)
    let words =
      names.count == 1
      ? [heading + ",", "for", names[0]]
      : [heading + ",", "for", TerminalText.count(names.count, "app") + ":"] + names.dropLast().map { $0 + "," }
        + names.suffix(1)
    return TerminalText.pack(words, width: style.width, first: indent, rest: indent + "    ", separator: " ")
  }

  /// A URL, then its old decision and, on a line of its own, `→` and its new one.
  private func verdictLines(_ v: InventoryDiff.VerdictChange) -> [String] {
    lines("~ " + clean(v.url), indent: "  ") + lines(clean(Self.describe(v.old)), indent: "      ")
      + lines("→ " + clean(Self.describe(v.new)), indent: "    ")
  }

  /// The text of `ipalinks who-claims`: how many apps claim the host, then per app its entries, its rules in the
  /// order iOS tries them (as `inspect` shows them), and the URL's verdict when one was given. For a URL, the apps
  /// that open it are counted and come first, apart from those that claim the host without opening it (their rules
  /// exclude or miss it, or only another service lists them); `brief` keeps each to its verdict.
  public func render(_ claims: HostClaims, brief: Bool = false) -> String {
    var out: [String] = []
    var shown = claims.claims
    if let url = claims.url {
      let opening = shown.filter { $0.verdict?.verdict == .match }
      let unknown = shown.filter { $0.verdictUnknown == true }
      let others = shown.count - opening.count - unknown.count
      // Wrapped at the terminal's width, as the rest is: with the apps that do not open it, it ran past 80.
      out += lines(
        "\(clean(url)): opened by \(opening.isEmpty ? "no app" : TerminalText.count(opening.count, "app"))"
          + (unknown.isEmpty
            ? "" : "; \(unknown.count) more may open it (\(unknown.count == 1 ? "its" : "their") AASA file unknown)")
          + (others == 1
            ? "; 1 more claims the host and does not open it"
            : others > 1 ? "; \(others) more claim the host and do not open it" : ""),
        indent: "")
      shown = opening + unknown + shown.filter { $0.verdict?.verdict != .match && $0.verdictUnknown != true }
    } else {
      let active = shown.filter(\.isActive)
      out.append(
        "\(clean(claims.host)): claimed by \(TerminalText.count(active.count, "app"))"
          + (shown.count > active.count ? " (and \(shown.count - active.count) inactive)" : ""))
    }
    // Each app's block on its own, on every core: a shared host's apps are hundreds of blocks.
    let apps = shown
    let blocks = parallelMap(
      apps.count, workers: ProcessInfo.processInfo.activeProcessorCount, minimumChunk: 64
    ) { block(apps[$0], brief: brief) }
    for block in blocks {
      out.append("")
      out += block
    }
    if let below = claims.hostsBelow {
      out.append("")
      out.append(
        "\(TerminalText.count(below.count, "host")) below \(clean(claims.host)) that apps claim"
          + (below.isEmpty ? "" : ":"))
      let names = below.map(clean)
      out += TerminalText.pack(
        names.dropLast().map { $0 + "," } + names.suffix(1), width: style.width, first: "  ", rest: "  ",
        separator: " ")
    }
    return out.joined(separator: "\n") + "\n"
  }

  /// One app's lines in `who-claims`: who it is, its entries, the rules under the entry that decides, and the
  /// verdict; `brief`, who it is and the verdict.
  private func block(_ c: HostClaims.Claim, brief: Bool) -> [String] {
    var out = TerminalText.pack(
      [style.bold(clean(c.name ?? c.bundleId)), clean(c.appId ?? c.bundleId), clean(c.input) + " " + clean(c.path)],
      width: style.width + (style.useColor ? 8 : 0), rest: "  ")
    for e in c.entries where !brief {
      var facts: [String] = []
      if !e.active { facts.append("inactive: \(clean(e.inactiveReason))") }
      if let s = e.status { facts.append("AASA \(s)") }
      if let listed = e.appListed { facts.append(listed ? "lists the app" : "does not list the app") }
      if e.decides == true { facts.append("decides") }
      out += lines(clean(e.raw) + (facts.isEmpty ? "" : "  (" + facts.joined(separator: ", ") + ")"), indent: "  ")
      // The rules belong under the entry iOS uses for the host.
      if e.decides == true { out += style.ruleLines(c.rules.map(\.reference), indent: "    ") }
    }
    if c.verdictUnknown == true {
      out.append("  verdict: unknown (the AASA file that decides is unknown)")
    }
    if let v = c.verdict {
      out += TerminalText.pack(
        ["verdict: " + style.verdict(v.verdict)] + (v.rule.map { [clean($0.pointer)] } ?? []), width: style.width,
        first: "  ", rest: "    ")
    }
    return out
  }
}
