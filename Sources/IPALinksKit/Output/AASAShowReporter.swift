import UniversalLinks

/// The text of `ipalinks aasa show`: an AASA file's rules per app, normalized, in the order iOS tries them.
public enum AASAShowReporter {
  /// The file's size and form, then each `details` entry with the apps that use it and its effective rules, then
  /// the other services' app lists. `name` is how the file is named in the first line.
  public static func text(_ file: AASAFile, name: String) -> String {
    // Every string from the file is escaped where it is written, so none can add a line or move the cursor.
    let e = { (text: String) in TerminalText.escape(text) }
    var out = "\(e(name)): \(file.byteCount) bytes"
    if file.isSigned { out += ", PKCS#7-signed" }
    if file.exceedsDeviceSizeLimit { out += ", OVER THE 128 KB DEVICE LIMIT: iOS ignores this file" }
    out += "\n"
    if let links = file.applinks {
      out += "applinks\n"
      for v in links.substitutionVariables {
        out += "  $(\(e(v.name))) = \(e(v.values.map(JSONPointer.quote).joined(separator: ", ")))\n"
      }
      if let d = links.defaults { out += "  defaults \(e(d.summary))\n" }
      for detail in links.details { out += lines(detail, in: file) }
    } else {
      out += "applinks: none (no universal links)\n"
    }
    for (service, list) in [
      ("webcredentials", file.webcredentials), ("appclips", file.appclips),
      ("activitycontinuation", file.activitycontinuation),
    ] {
      if let list { out += "\(service): \(list.apps.isEmpty ? "(no apps)" : e(list.apps.joined(separator: ", ")))\n" }
    }
    return out
  }

  /// One `details` entry: the apps iOS gives it (those no earlier entry lists) and their rules.
  private static func lines(_ detail: AppLinksDetail, in file: AASAFile) -> String {
    let e = { (text: String) in TerminalText.escape(text) }
    let apps = detail.appIDs.filter { file.applinks?.detail(for: $0)?.index == detail.index }
    let label = "details[\(e(detail.key.map(JSONPointer.quote) ?? String(detail.index)))]"
    guard let first = apps.first else {
      return "  \(label): never used (\(detail.appIDs.isEmpty ? "lists no app" : "its apps use an earlier entry"))\n"
    }
    let kind: String
    switch detail.rules {
    case .components: kind = "components"
    case .paths: kind = "legacy paths"
    case .none: kind = "no rules"
    }
    var out = "  \(e(apps.joined(separator: ", ")))\n    \(label), \(kind)"
    if let d = detail.defaults { out += ", defaults \(e(d.summary))" }
    out += "\n"
    let rules = AppLinkRules(file: file, appID: first).rules.map(\.reference)
    if rules.isEmpty { out += "    (matches nothing)\n" }
    for rule in rules {
      out += "    [\(rule.componentIndex)] \(rule.exclude ? "exclude" : "match  ") \(e(rule.pattern))\n"
    }
    return out
  }
}
