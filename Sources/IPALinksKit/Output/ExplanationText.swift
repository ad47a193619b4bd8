import UniversalLinks

/// `match --explain` as text: under a URL's verdict line, each rule tried with each key's outcome.
public enum ExplanationText {
  /// The indented lines that explain one verdict, escaped for a terminal.
  ///
  ///     /applinks/details/0/components/0  {"/": "/help/*", "?": {"articleNumber": "????"}}  (closest)
  ///       ✓ /              /help/*  matches "/help/1", compared as "/help/1/" (a trailing / is implied)
  ///       ✗ ?articleNumber ????     does not match "481": needs exactly 4 characters, has 3
  public static func lines(_ explanation: MatchExplanation, style: TextStyle = TextStyle(useColor: false)) -> [String] {
    let e = { (text: String) in TerminalText.escape(text) }
    if explanation.steps.isEmpty {
      return ["  " + (outsideTheRules(explanation.result) ?? "no rule was tried")] + ignored(explanation, style)
    }
    var out: [String] = []
    for (index, step) in explanation.steps.enumerated() {
      // The marker sits by the pointer, so it stays on the first line when the rule wraps.
      var head = e(step.pointer)
      if index == explanation.closest { head += "  (closest)" }
      if step.failed.isEmpty { head += "  (decides)" }
      let fields = [head, e(step.pattern)]
      out += TerminalText.pack(fields, width: style.width, first: "  ", rest: "      ")
      if step.keys.isEmpty { out.append("    " + style.green("✓") + " sets no key, so it matches every URL") }
      let width = step.keys.map { e(name(of: $0)).count }.max() ?? 0
      for key in step.keys {
        let label = e(name(of: key)).padding(to: width)
        var value = key.value.map { "\"\(e($0))\"" } ?? "\"\" (the URL has no such item)"
        // The part as the URL writes it, when the rule compares another form of it, and why.
        var why = key.reason ?? key.shortfall
        if let written = key.written, let adjustments = key.adjustments, !adjustments.isEmpty {
          value = "\"\(e(written))\", compared as \(value): \(adjustments.joined(separator: ", "))"
          why = why.map { "; " + $0 }
        } else {
          why = why.map { ": " + $0 }
        }
        let verdict = (key.matched ? "matches \(value)" : "does not match \(value)") + (why.map(e) ?? "")
        var lines = TerminalText.pack(
          [label, e(key.pattern), verdict], width: style.width, first: "    ✓ ", rest: "        ")
        let mark = key.matched ? style.green("✓") : style.red("✗")
        lines[0] = "    " + mark + lines[0].dropFirst(5)
        out += lines
      }
    }
    return out + ignored(explanation, style)
  }

  /// A line for each later `details` entry that lists the app too, which iOS never uses for it: with the rule that
  /// would decide the URL there, since a rule there is why a rule that looks right never matches.
  static func ignored(_ explanation: MatchExplanation, _ style: TextStyle) -> [String] {
    let shadowed = explanation.shadowed.flatMap { rule -> [String] in
      let text =
        "note: the deciding rule shadows \(TerminalText.escape(rule.pointer)) \(TerminalText.escape(rule.pattern)), "
        + "which matches this URL too but never decides (shadowed-rule)"
      return TerminalText.wrap(text, width: style.width, first: "  ", rest: "    ").map(style.yellow)
    }
    let first = explanation.steps.first.map { TextStyle.listPointer(of: TextStyle.listPointer(of: $0.pointer)) }
    return shadowed
      + explanation.ignored.flatMap { entry -> [String] in
        var text = "note: \(TerminalText.escape(entry.pointer)) lists the app too, but iOS uses only the first entry "
        text += "that lists it" + (first.map { " (\(TerminalText.escape($0)))" } ?? "")
        if let rule = entry.wouldDecide {
          text += "; there, \(TerminalText.escape(rule.pointer)) would \(rule.exclude ? "exclude" : "match") this URL"
        }
        return TerminalText.wrap(text, width: style.width, first: "  ", rest: "    ").map(style.yellow)
      }
  }

  /// Why the verdict did not come from the rules, when that is so.
  static func outsideTheRules(_ result: MatchResult) -> String? {
    switch result.reason {
    case .appNotListed?: "the file's applinks does not list the app, so no rule applies"
    case .hostMismatch?: "the URL's host is not the domain the file was served for"
    case .unsupportedScheme?: "only http and https URLs open apps"
    case .fileTooLarge?: "the file is over 128 KB, so devices never use it"
    case .invalidURL?: "not an absolute URL with a host"
    case .noPatternMatched?, nil: nil
    }
  }

  private static func name(of key: MatchExplanation.Key) -> String { key.key + (key.item ?? "") }
}

extension String {
  fileprivate func padding(to width: Int) -> String {
    count >= width ? self : self + String(repeating: " ", count: width - count)
  }
}
