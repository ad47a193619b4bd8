import UniversalLinks

/// The words and colours every text output shares, so a user who learns one command reads them all.
///
/// - A rule that opens the app is a `match` rule, one that keeps it closed an `exclude` rule; a URL's verdict is
///   `match`, `exclude` or `no-match`, the values of the JSON outputs.
/// - Green is a match or a file that is read and lists the app; red an exclude or an error; yellow a warning or a
///   verdict that is not definite; dim what only gives context.
/// - A finding is written `error[code]`, `warning[code]` or `info[code]`.
///
/// Colour is the caller's decision (a terminal, and no `NO_COLOR`), so the library never looks at the terminal.
public struct TextStyle: Sendable {
  /// Whether to colour at all.
  public var useColor: Bool
  /// The width lines should fit; see ``TerminalText/width(columns:terminalWidth:)``.
  public var width: Int

  /// A style for `useColor` and `width`.
  public init(useColor: Bool, width: Int = 80) {
    self.useColor = useColor
    self.width = width
  }

  func paint(_ text: String, _ code: String) -> String { useColor ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }
  /// `text` in bold, when colour is on: headings.
  public func bold(_ text: String) -> String { paint(text, "1") }
  func dim(_ text: String) -> String { paint(text, "2") }
  func green(_ text: String) -> String { paint(text, "32") }
  func red(_ text: String) -> String { paint(text, "31") }
  func yellow(_ text: String) -> String { paint(text, "33") }

  /// `error[aasa.dns-error]`, coloured by severity.
  func finding(_ severity: String, _ code: String) -> String {
    let label: String
    switch severity {
    case "error": label = red(severity)
    case "warning": label = yellow(severity)
    default: label = paint(severity, "36")
    }
    return label + "[\(code)]"
  }

  /// A finding as lines: `lead`, `error[code]`, then `text` wrapped to the width with continuation lines starting
  /// with `rest`; the label is coloured after wrapping, so escape codes never count towards the width.
  func findingLines(_ severity: String, _ code: String, _ text: String, lead: String, rest: String) -> [String] {
    let label = "\(severity)[\(code)]"
    // A lead (a long file name) that leaves no room for the label gets a line of its own.
    var above: [String] = []
    var lead = lead
    if lead.count + label.count > width, !lead.isEmpty {
      above = [TerminalText.trimmingTrailingSpaces(lead)]
      lead = rest
    }
    var lines = TerminalText.wrap(text, width: width, first: lead + label + " ", rest: rest)
    var head = String(lines[0].dropFirst(lead.count + label.count))
    while head.last == " " { head.removeLast() }
    lines[0] = lead + finding(severity, code) + head
    return above + lines
  }

  /// One behaviour change as `aasa diff` and `diff` print it: `heading`, the rules involved on each side by JSON
  /// pointer, each followed by the rule as `aasa show` writes it when `rules` knows it (the old side's, then the
  /// new side's), and the example URL with both verdicts (or that none was found), indented under the heading.
  func behaviourChangeLines(
    _ change: AASAComparison.Change, heading: String, indent: String,
    rules: (old: [String: MatchedRule], new: [String: MatchedRule]) = ([:], [:])
  ) -> [String] {
    let e = { (text: String) in TerminalText.escape(text) }
    let rest = indent + "       "
    var out = [indent + heading]
    func side(_ label: String, _ pointers: [String], _ known: [String: MatchedRule]) {
      guard !pointers.isEmpty else { return }
      guard pointers.contains(where: { known[$0] != nil }) else {
        out += TerminalText.wrap(
          pointers.map(e).joined(separator: ", "), width: width, first: indent + "  \(label)  ", rest: rest)
        return
      }
      for (index, pointer) in pointers.enumerated() {
        out += TerminalText.wrap(
          e(pointer), width: width, first: indent + (index == 0 ? "  \(label)  " : "       "), rest: rest)
        if let rule = known[pointer] {
          let lines = TerminalText.wrap(
            e(rule.pattern), width: width, first: rest + "  " + "exclude  ", rest: rest + "  " + "         ")
          var first = lines[0]
          let at = first.index(first.startIndex, offsetBy: rest.count + 2)
          first.replaceSubrange(at..<first.index(at, offsetBy: 7), with: ruleKind(exclude: rule.exclude))
          out += [first] + lines.dropFirst()
        }
      }
    }
    side("old", change.old, rules.old)
    side("new", change.new, rules.new)
    if let url = change.example, let before = change.oldVerdict, let after = change.newVerdict {
      out += TerminalText.pack(
        [e(url), verdict(before) + " → " + verdict(after)], width: width, first: indent + "  e.g. ", rest: rest)
      // A change that goes several ways shows each: what stops opening the app, and what starts.
      for more in change.moreExamples ?? [] {
        out += TerminalText.pack(
          [e(more.url), verdict(more.oldVerdict) + " → " + verdict(more.newVerdict)], width: width,
          first: indent + "  and  ", rest: rest)
      }
    } else {
      out.append(indent + "  no example URL found whose verdict differs")
    }
    return out
  }

  /// The rules of `rules` by JSON pointer, for ``behaviourChangeLines(_:heading:indent:rules:)``.
  static func rulesByPointer(_ rules: AppLinkRules?) -> [String: MatchedRule] {
    Dictionary((rules?.rules ?? []).map { ($0.reference.pointer, $0.reference) }, uniquingKeysWith: { a, _ in a })
  }

  /// With `--source both`: how the origin's file behaves differently from the CDN's copy, a line per change with
  /// its example URL and both verdicts.
  func sourceChangeLines(_ changes: [AASAComparison.Change], indent: String) -> [String] {
    changes.flatMap { change -> [String] in
      var text = "the origin's file differs from the CDN's copy: \(change.kind.rawValue)"
      if let pointer = (change.new.first ?? change.old.first) { text += " at " + TerminalText.escape(pointer) }
      if let url = change.example, let cdn = change.oldVerdict, let origin = change.newVerdict {
        text += "; e.g. \(TerminalText.escape(url)): CDN \(cdn.rawValue), origin \(origin.rawValue)"
      }
      return TerminalText.wrap(text, width: width, first: indent, rest: indent + "  ").map(yellow)
    }
  }

  /// `match` or `exclude`, the kind of a rule, padded to one width so patterns line up.
  func ruleKind(exclude: Bool) -> String { exclude ? red("exclude") : green("match  ") }

  /// A verdict's JSON name, coloured: `match`, `exclude` or `no-match`.
  func verdict(_ verdict: LinkRuntime.Verdict) -> String {
    switch verdict {
    case .match: green(verdict.rawValue)
    case .exclude: red(verdict.rawValue)
    case .noMatch: verdict.rawValue
    }
  }

  /// `/applinks/details/0/components` for the rule `/applinks/details/0/components/1`: the list its index is in.
  static func listPointer(_ rule: MatchedRule) -> String { listPointer(of: rule.pointer) }

  /// The pointer without its last token: the list a rule's pointer indexes.
  static func listPointer(of pointer: String) -> String {
    pointer.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
  }

  /// The rules of one app in one AASA file, as `aasa show` and `inspect` print them: a heading with the JSON
  /// pointer of the `details` entry's rule list, then one line per rule, `index  kind  rule`, where the heading and
  /// the index together are the rule's pointer (`/applinks/details/0/components` and `1` for
  /// `/applinks/details/0/components/1`). Long rules wrap after a comma, under the rule's first character.
  func ruleLines(_ rules: [MatchedRule], indent: String, heading: Bool = true) -> [String] {
    guard let first = rules.first else { return [] }
    var lines: [String] = []
    let list = Self.listPointer(first)
    if heading { lines.append(indent + TerminalText.escape(list)) }
    let digits = String(rules.map(\.componentIndex).max() ?? 0).count
    for rule in rules {
      let index = String(rule.componentIndex)
      let lead = indent + "  " + String(repeating: " ", count: digits - index.count) + index + "  "
      let wrapped = TerminalText.wrap(
        TerminalText.escape(rule.pattern), width: width, first: lead + "exclude  ",
        rest: String(repeating: " ", count: lead.count + 9))
      // Colour goes on after wrapping, so escape codes never count towards the width.
      var head = wrapped[0]
      head.replaceSubrange(
        head.index(head.startIndex, offsetBy: lead.count)..<head.index(head.startIndex, offsetBy: lead.count + 7),
        with: ruleKind(exclude: rule.exclude))
      lines.append(head)
      lines += wrapped.dropFirst()
    }
    return lines
  }
}
