import UniversalLinks

/// The output of `ipalinks aasa diff`: what behaves differently between two AASA files, per app, with an example
/// URL whose verdict differs wherever one was found.
public enum AASADiffReporter {
  /// The `--format json` document.
  public struct Document: Encodable, Sendable {
    /// The old file as named on the command line.
    public var old: String
    /// The new file as named on the command line.
    public var new: String
    /// True when every app compared gets the same verdict for every URL.
    public var equivalent: Bool
    /// Every change, app by app.
    public var changes: [AASAComparison.Change]
  }

  /// The document for a comparison of `old` and `new`.
  public static func json(_ comparison: AASAComparison, old: String, new: String) -> String {
    JSONReporter.document(
      Document(old: old, new: new, equivalent: comparison.equivalent, changes: comparison.changes)) + "\n"
  }

  /// One block per change: the app (or every app a shared change is for) and what changed, with each rule shown
  /// as `aasa show` writes it, the rules involved on each side (by JSON pointer), and the
  /// example URL with both verdicts; or one line saying the files behave the same.
  public static func text(
    _ comparison: AASAComparison, old: String, new: String, files: (old: AASAFile, new: AASAFile),
    appIDs: [String] = [], style: TextStyle = TextStyle(useColor: false)
  ) -> String {
    // How many apps were compared: those asked for, else every app either file lists.
    let listed = [files.old, files.new].flatMap { $0.applinks?.details.flatMap(\.appIDs) ?? [] }
    let apps = appIDs.isEmpty ? Set(listed).count : appIDs.count
    let e = { (text: String) in TerminalText.escape(text) }
    // File names can be long: the summary breaks between words to fit the width, never inside a name.
    let summary = { (words: [String]) in TerminalText.pack(words, width: style.width, rest: "  ", separator: " ") }
    guard !comparison.equivalent else {
      return summary([e(old), "and", e(new), "behave the same for", TerminalText.count(apps, "app")]).map {
        $0 + "\n"
      }.joined()
    }
    var out: [String] = []
    // A change to a `details` entry that lists several apps is the same change for each: it is told once.
    let shared = comparison.shared
    for group in shared {
      let kind = group.change.kind.rawValue
      let apps = group.appIds.map(e)
      // Plain, as packing counts the characters of colour codes too.
      let heading =
        apps.count == 1
        ? [style.bold(apps[0]) + ": " + kind]
        : TerminalText.pack(
          [kind, "for", TerminalText.count(apps.count, "app") + ":"] + apps.dropLast().map { $0 + "," } + [apps.last!],
          width: style.width, rest: "    ", separator: " ")
      // Each rule is shown as `aasa show` writes it, from the file it is in.
      let rules = (
        TextStyle.rulesByPointer(AppLinkRules(file: files.old, appID: group.change.appId)),
        TextStyle.rulesByPointer(AppLinkRules(file: files.new, appID: group.change.appId))
      )
      out += heading + style.behaviourChangeLines(group.change, heading: "", indent: "", rules: rules).dropFirst()
    }
    out += summary([TerminalText.count(shared.count, "change"), "between", e(old), "and", e(new)])
    return out.map { $0 + "\n" }.joined()
  }
}
