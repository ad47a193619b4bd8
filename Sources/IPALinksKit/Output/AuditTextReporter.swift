import UniversalLinks

/// Text for `ipalinks diff` and `ipalinks who-claims`: one line per fact, `+`/`-`/`~` marks like a diff, every
/// untrusted string cleaned of control characters.
public struct AuditTextReporter: Sendable {
  let text: TextReporter

  /// Creates a reporter; the caller decides on colour (TTY and `NO_COLOR`), as for ``TextReporter``.
  public init(useColor: Bool) { text = TextReporter(useColor: useColor) }

  private func paint(_ s: String, _ code: String) -> String { text.useColor ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }
  private func clean(_ s: String?) -> String { text.clean(s ?? "—") }

  static func describe(_ rule: InventoryDiff.Rule) -> String {
    var flags: [String] = []
    if !rule.caseSensitive { flags.append("case-insensitive") }
    if !rule.percentEncoded { flags.append("decoded") }
    return (rule.exclude ? "exclude " : "include ") + rule.pattern
      + (flags.isEmpty ? "" : " (" + flags.joined(separator: ", ") + ")")
  }

  static func describe(_ v: BlocklistVerdict) -> String {
    switch v.verdict {
    case .match: "opens \(v.appID ?? "?")" + (v.pointer.map { " (\($0))" } ?? "")
    case .exclude: "excluded by \(v.appID ?? "?")" + (v.pointer.map { " (\($0))" } ?? "")
    case .noMatch: "opens no app"
    }
  }

  /// The text of `ipalinks diff`: bundles added and removed, then per changed bundle its fields, domains, schemes and
  /// rules, then the sample URLs whose verdict changed; "No differences." first when nothing changed.
  public func render(_ diff: InventoryDiff) -> String {
    var out: [String] = []
    let plus = { (s: String) in self.paint("+ " + s, "32") }
    let minus = { (s: String) in self.paint("- " + s, "31") }
    for b in diff.bundles {
      let who = b.new ?? b.old
      let title = clean(b.key) + (who?.name.map { " (\(clean($0)))" } ?? "")
      switch b.change {
      case .added: out.append(plus("bundle " + title + " in " + clean(b.new?.input)))
      case .removed: out.append(minus("bundle " + title + " in " + clean(b.old?.input)))
      case .changed:
        out.append(text.useColor ? paint(title, "1") : title)
        for f in b.fields { out.append("  ~ \(f.field): \(clean(f.old)) → \(clean(f.new))") }
        for e in b.domainsAdded { out.append("  " + plus("\(e.service):\(clean(e.domain))")) }
        for e in b.domainsRemoved { out.append("  " + minus("\(e.service):\(clean(e.domain))")) }
        for s in b.schemesAdded { out.append("  " + plus("URL scheme \(clean(s))")) }
        for s in b.schemesRemoved { out.append("  " + minus("URL scheme \(clean(s))")) }
        for d in b.domains {
          out.append("  \(clean(d.service)):\(clean(d.domain))")
          if let o = d.oldStatus, let n = d.newStatus { out.append("    ~ AASA \(o) → \(n)") }
          if !d.rulesCompared { out.append("    rules not compared: a side's AASA file is unknown") }
          if let o = d.oldAppListed, let n = d.newAppListed {
            out.append("    ~ app listed in the AASA file: \(o ? "yes" : "no") → \(n ? "yes" : "no")")
          }
          for r in d.rulesAdded { out.append("    " + plus(clean(Self.describe(r)))) }
          for r in d.rulesRemoved { out.append("    " + minus(clean(Self.describe(r)))) }
          for m in d.rulesReordered {
            out.append("    ~ moved \(clean(Self.describe(m.rule))): rule \(m.oldIndex + 1) → \(m.newIndex + 1)")
          }
        }
      }
    }
    if !diff.verdicts.isEmpty {
      out.append("URLs that changed verdict (\(diff.verdicts.count) of \(diff.urlsCompared))")
      for v in diff.verdicts {
        out.append("  ~ \(clean(v.url)): \(clean(Self.describe(v.old))) → \(clean(Self.describe(v.new)))")
      }
    } else if diff.urlsCompared > 0 {
      out.append("No sample URL changed verdict (\(diff.urlsCompared) compared).")
    }
    if !diff.hasDifferences { out.insert("No differences.", at: 0) }
    return out.joined(separator: "\n") + "\n"
  }

  /// The text of `ipalinks who-claims`: how many apps claim the host, then per app its entries, its rules in the
  /// order iOS tries them, and the URL's verdict when one was given.
  public func render(_ claims: HostClaims) -> String {
    var out: [String] = []
    let active = claims.claims.filter(\.isActive)
    out.append(
      "\(clean(claims.url ?? claims.host)): claimed by \(active.count) app\(active.count == 1 ? "" : "s")"
        + (claims.claims.count > active.count ? " (and \(claims.claims.count - active.count) inactive)" : ""))
    for c in claims.claims {
      out.append("")
      out.append(
        (text.useColor ? paint(clean(c.name ?? c.bundleId), "1") : clean(c.name ?? c.bundleId))
          + "  \(clean(c.appId ?? c.bundleId))  \(clean(c.input)) \(clean(c.path))")
      for e in c.entries {
        var facts: [String] = []
        if !e.active { facts.append("inactive: \(clean(e.inactiveReason))") }
        if let s = e.status { facts.append("AASA \(s)") }
        if let listed = e.appListed { facts.append(listed ? "lists the app" : "does not list the app") }
        if e.decides == true { facts.append("decides") }
        out.append("  \(clean(e.raw))" + (facts.isEmpty ? "" : "  (" + facts.joined(separator: ", ") + ")"))
      }
      for (i, r) in c.rules.enumerated() {
        let mark = r.exclude ? paint("✗", "31") : paint("✓", "32")
        out.append("    \(i + 1). \(mark) \(clean(Self.describe(InventoryDiff.Rule(r))))")
      }
      if let v = c.verdict {
        let what: String
        switch v.verdict {
        case .match: what = paint("opens this app", "32")
        case .exclude: what = "excluded"
        case .noMatch: what = "no rule matches"
        }
        out.append("  verdict: \(what)" + (v.rule.map { " (\($0.pointer))" } ?? ""))
      }
    }
    return out.joined(separator: "\n") + "\n"
  }
}
