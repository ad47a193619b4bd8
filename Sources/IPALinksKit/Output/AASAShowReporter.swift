import UniversalLinks

/// The text of `ipalinks aasa show`: an AASA file's rules per app, normalized, in the order iOS tries them.
public enum AASAShowReporter {
  /// The file's size and form, then each `details` entry with the apps that use it and its effective rules, then
  /// the other services' app lists. `name` is how the file is named in the first line.
  public static func text(_ file: AASAFile, name: String, style: TextStyle = TextStyle(useColor: false)) -> String {
    // Every string from the file is escaped where it is written, so none can add a line or move the cursor.
    let e = { (text: String) in TerminalText.escape(text) }
    var facts = "\(file.byteCount) bytes"
    if file.isSigned { facts += ", PKCS#7-signed" }
    if file.exceedsDeviceSizeLimit { facts += ", OVER THE 128 KB DEVICE LIMIT: iOS ignores this file" }
    // A long path keeps the facts whole, on their own line, rather than overflowing the terminal.
    var out =
      TerminalText.wrap(facts, width: style.width, first: "\(e(name)): ", rest: "    ")
      .joined(separator: "\n") + "\n"
    if let links = file.applinks {
      out += "applinks\n"
      for v in links.substitutionVariables {
        out +=
          TerminalText.wrap(
            e(v.values.map(JSONPointer.quote).joined(separator: ", ")), width: style.width,
            first: "  $(\(e(v.name))) = ", rest: "      "
          ).map { $0 + "\n" }.joined()
      }
      if let d = links.defaults { out += "  defaults \(e(d.summary))\n" }
      for detail in links.details { out += lines(detail, in: file, style: style) }
    } else {
      out += "applinks: none (no universal links)\n"
    }
    for (service, list) in [
      ("webcredentials", file.webcredentials), ("appclips", file.appclips),
      ("activitycontinuation", file.activitycontinuation),
    ] {
      if let list {
        out +=
          TerminalText.wrap(
            list.apps.isEmpty ? "(no apps)" : e(list.apps.joined(separator: ", ")), width: style.width,
            first: "\(service): ", rest: "    "
          ).map { $0 + "\n" }.joined()
      }
    }
    return out
  }

  /// One `details` entry: its pointer and the apps iOS gives it (those no earlier entry lists), then their rules,
  /// numbered as in ``TextStyle/ruleLines(_:indent:heading:)``.
  private static func lines(_ detail: AppLinksDetail, in file: AASAFile, style: TextStyle) -> String {
    let e = { (text: String) in TerminalText.escape(text) }
    let apps = detail.appIDs.filter { file.applinks?.detail(for: $0)?.index == detail.index }
    let entry = "/applinks/details/" + e(detail.key.map(JSONPointer.escape) ?? String(detail.index))
    guard let first = apps.first else {
      return "  \(entry)  never used (\(detail.appIDs.isEmpty ? "lists no app" : "its apps use an earlier entry"))\n"
    }
    let list: String
    switch detail.rules {
    case .components: list = entry + "/components"
    case .paths: list = entry + "/paths (legacy)"
    case .none: list = entry + "  (no rules)"
    }
    var out =
      TerminalText.wrap(e(apps.joined(separator: ", ")), width: style.width, first: "  ", rest: "    ")
      .joined(separator: "\n") + "\n"
    out += "    \(list)"
    if let d = detail.defaults { out += "  defaults \(e(d.summary))" }
    out += "\n"
    let rules = AppLinkRules(file: file, appID: first).rules.map(\.reference)
    if rules.isEmpty { out += "      (matches nothing)\n" }
    out += style.ruleLines(rules, indent: "    ", heading: false).map { $0 + "\n" }.joined()
    return out
  }
}
