import UniversalLinks

extension HTMLReporter {
  /// "Changed since the previous run" (`report --store`): a line per behavioural change of a host's file and per
  /// app whose claims changed, each linking to the host's row or the app's details, with the example URL and its
  /// verdicts before and after.
  static func changes(_ changes: RunChanges, model: ReportModel) -> String {
    let heading =
      changes.chosen ? "Changed since \(HTML.text(changes.previous ?? ""))" : "Changed since the previous run"
    var html = "<section id=\"changes\"><h2>\(heading)</h2>\n"
    guard let previous = changes.previous else {
      return html + "<p class=\"muted\">\(HTML.text(changes.run)) is the store's first run: nothing to compare.</p>"
        + "</section>\n"
    }
    // Say what is compared: the runs, with every shard of a label, and the state they are compared with.
    if changes.chosen {
      html += "<p class=\"muted\">What changed from the state at \(HTML.text(previous)) to the state after "
      html += "\(HTML.text(changes.run)).</p>\n"
    } else {
      html += "<p class=\"muted\">What \(HTML.text(changes.run)) found changed since \(HTML.text(previous))"
      html += "." + (changes.quiet.map { " The latest, \(HTML.text($0)), changed nothing." } ?? "") + "</p>\n"
    }
    guard !changes.hosts.isEmpty || !changes.apps.isEmpty else { return html + "<p>Nothing changed.</p></section>\n" }
    let hostNumbers = Dictionary(model.hosts.map { ($0.name, $0.number) }, uniquingKeysWith: { a, _ in a })
    let appAnchors = Dictionary(
      model.apps.compactMap { app in (app.bundle?.appId ?? app.bundle?.bundleId).map { ($0, (app.anchor, app.name)) } },
      uniquingKeysWith: { a, _ in a })
    func host(_ name: String) -> String {
      hostNumbers[name].map { "<a href=\"#h-\($0)\">\(HTML.code(name))</a>" } ?? HTML.code(name)
    }
    func app(_ key: String, _ name: String? = nil) -> String {
      guard let (anchor, shown) = appAnchors[key] else { return HTML.text(name ?? key) }
      return "<a href=\"#\(anchor)\">\(HTML.text(shown))</a>"
    }
    // The apps that name each host, by app ID: a change to a file its apps take only through a wildcard (the file
    // of example.com, for `*.example.com`) is told on the wildcard, with URLs below it. It gave
    // `https://example.com/…` for an app that claims no such URL.
    let appIDs = Dictionary(model.apps.map { ($0.number, $0.bundle?.appId ?? $0.bundle?.bundleId ?? "") }) { a, _ in a }
    let naming = Dictionary(
      model.hosts.map { host in
        (
          host.name,
          Set(host.claims.filter { $0.via == nil && $0.services.contains(.applinks) }.compactMap { appIDs[$0.app] })
        )
      }
    ) { a, _ in a }
    html += "<ul class=\"changes\">\n"
    for changed in changes.hosts {
      let status =
        changed.oldStatus == changed.newStatus
        ? "" : " (AASA \(HTML.text(changed.oldStatus)) → \(HTML.text(changed.newStatus)))"
      if changed.changes.isEmpty {
        html += "<li>\(host(changed.host))\(status): a new version that behaves the same</li>\n"
      }
      for change in changed.changes {
        let wildcard = "*." + changed.host
        let throughWildcard =
          !change.appIds.isEmpty && naming[changed.host]?.isDisjoint(with: change.appIds) != false
          && naming[wildcard]?.isSuperset(of: change.appIds) == true
        // `https://example.com/x` as `https://www.example.com/x`: the same path, on a host the wildcard covers.
        func shown(_ url: String) -> String {
          guard throughWildcard else { return url }
          let below = LinkRuntime.HostPattern(wildcard).exampleHost
          return url.replacingOccurrences(of: "://\(changed.host)/", with: "://\(below)/")
        }
        html +=
          "<li>\(host(throughWildcard ? wildcard : changed.host))\(status): \(HTML.text(change.kind.rawValue)) for "
        html += change.appIds.map { app($0) }.joined(separator: ", ")
        if let example = change.example, let old = change.oldVerdict, let new = change.newVerdict {
          html += "; e.g. \(HTML.code(shown(example))) \(HTML.text(old.rawValue)) → \(HTML.text(new.rawValue))"
          for more in change.moreExamples ?? [] {
            html +=
              " and \(HTML.code(shown(more.url))) \(HTML.text(more.oldVerdict.rawValue)) → "
              + HTML.text(more.newVerdict.rawValue)
          }
        }
        html += "</li>\n"
      }
    }
    for changed in changes.apps {
      var parts =
        changed.domainsAdded.map { "+ " + HTML.code($0) } + changed.domainsRemoved.map { "− " + HTML.code($0) }
      parts += changed.schemesAdded.map { "+ URL scheme " + HTML.code($0) }
      parts += changed.schemesRemoved.map { "− URL scheme " + HTML.code($0) }
      html += "<li>\(app(changed.appKey, changed.name)): "
      html += (changed.first ? "first inspected" : parts.joined(separator: ", ")) + "</li>\n"
    }
    return html + "</ul></section>\n"
  }
}
