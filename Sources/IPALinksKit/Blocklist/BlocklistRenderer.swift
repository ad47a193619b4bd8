import Foundation
import UniversalLinks

/// One WebKit content rule, in the order the list holds it.
public struct ContentRule: Sendable, Equatable {
  /// What WebKit does on a match; the raw value is the JSON `action.type`.
  public enum Action: String, Sendable {
    /// Blocks loading the page: how an AASA rule that opens the app (or a whole host) is said.
    case block
    /// Cancels every earlier rule that matched: how an AASA `exclude` (first match wins) is said in a list where
    /// the last match wins.
    case ignorePreviousRules = "ignore-previous-rules"
  }

  /// The regex WebKit matches against the whole URL (`url-filter`).
  public var urlFilter: String
  /// The AASA rule's effective `caseSensitive`, so the filter matches the same URLs; host-wide rules are not.
  public var caseSensitive: Bool
  /// Block, or cancel earlier matches: for an exclude, or for a more specific entry's reset.
  public var action: Action

  /// The one rule of a list that has none to hold: WebKit refuses to compile an empty list ("Empty extension"), so
  /// it gets this, which matches no URL a web view loads and, if it did, would only cancel earlier matches.
  static let nothing = ContentRule(
    urlFilter: "^ipalinks-blocks-nothing:", caseSensitive: true, action: .ignorePreviousRules)

  /// The JSON object WebKit reads.
  var json: [String: Any] {
    [
      "trigger": [
        "url-filter": urlFilter, "url-filter-is-case-sensitive": caseSensitive, "resource-type": ["document"],
      ] as [String: Any],
      "action": ["type": action.rawValue],
    ]
  }
}

/// Turns a ``Blocklist`` into the formats of `ipalinks blocklist`.
public struct BlocklistRenderer: Sendable {
  /// Signs bytes (`blocklist --sign`: Ed25519, by the executable, which links a crypto package): the signature.
  public typealias Signer = @Sendable ([UInt8]) -> [UInt8]
  /// Whether a signature (the second bytes) is valid for the first bytes, under the key a ``Signer`` signs with.
  public typealias Verifier = @Sendable ([UInt8], [UInt8]) -> Bool

  /// The apps, entries and notes every format is made from.
  public var blocklist: Blocklist

  /// Prepares to render `blocklist`; nothing is computed until a format is asked for.
  public init(_ blocklist: Blocklist) { self.blocklist = blocklist }

  // MARK: - WebKit content rules

  /// The rule lists (more than one only when `maxRules` is exceeded) and what they could not express.
  ///
  /// Per app, entries go from the least specific to the most specific, each more specific one starting with a
  /// reset for its hosts, so the entry iOS uses for a host decides. Within an entry the AASA rules go in reverse:
  /// WebKit lets the last match win, AASA the first. A reset (or exclude) also cancels other apps' blocks for the
  /// same URL, so apps that need resets go first and apps that need none after them; when two apps needing
  /// resets share hosts, the later one loses its resets (it blocks more) and a note says so. An app whose own rules
  /// need more than `maxRules` has its hosts blocked whole, so a big AASA file cannot take its app out of the list.
  public func contentRules(maxRules: Int = 150_000) -> (lists: [[ContentRule]], notes: [BlocklistNote]) {
    var notes = blocklist.notes
    var groups: [(app: LinkingApp, rules: [ContentRule], resets: Bool, byScope: [String: [ContentRule]])] = []
    let translator = URLFilterTranslator()
    for app in blocklist.apps {
      var rules: [ContentRule] = []
      var extra = URLFilterTranslator.extraFiltersPerApp
      var appNotes: [BlocklistNote] = []
      var overflow = false
      // Each entry's own rules (without its reset): two apps whose entry for a host gives the same rules decide
      // that host alike, so their exceptions never contradict each other's blocks.
      var byScope: [String: [ContentRule]] = [:]
      let ordered = app.scopes.enumerated().sorted { a, b in
        let (ka, kb) = (Self.specificity(a.element), Self.specificity(b.element))
        return ka != kb ? ka < kb : a.offset < b.offset
      }.map(\.element)
      scopes: for (position, scope) in ordered.enumerated() {
        if ordered[..<position].contains(where: { $0.overlaps(scope) }) {
          rules.append(
            ContentRule(
              urlFilter: URLFilterTranslator.hostPrefix(scope) + "/", caseSensitive: false,
              action: .ignorePreviousRules))
        }
        let scopeStart = rules.count
        defer { if byScope[scope.label] == nil { byScope[scope.label] = Array(rules[scopeStart...]) } }
        for rule in scope.rules.rules.reversed() {
          // A path may expand past the usual limit while the app's budget lasts, so `$(lang)` stays exact.
          let translation = translator.translate(
            rule, in: scope, direction: rule.exclude ? .narrower : .wider,
            pathLimit: max(URLFilterTranslator.maxFiltersPerRule, min(URLFilterTranslator.maxPathFiltersPerRule, extra))
          )
          extra -= max(0, translation.filters.count - URLFilterTranslator.maxFiltersPerRule)
          for (kind, message) in translation.notes {
            appNotes.append(
              BlocklistNote(
                kind, format: "wkcontentrules", appID: app.appID, host: scope.label, pointer: rule.reference.pointer,
                message: message))
          }
          let action: ContentRule.Action = rule.exclude ? .ignorePreviousRules : .block
          rules += translation.filters.map {
            ContentRule(urlFilter: $0, caseSensitive: rule.caseSensitive, action: action)
          }
          // What the exception spares though iOS may not: blocked again (more than iOS opens when no rule after
          // the exception in the file matches, which the translation's note says).
          rules += translation.reblock.map {
            ContentRule(urlFilter: $0, caseSensitive: rule.caseSensitive, action: .block)
          }
          // Stop as soon as the app cannot fit one list: a 90 KB AASA file of `$(…)` references can ask for a
          // million filters, and building them all only to leave the app out cost seconds and hundreds of MB.
          if rules.count > maxRules {
            overflow = true
            break scopes
          }
        }
      }
      if overflow {
        // Leaving the app out would let the file's author escape the list by making it big; blocking every host
        // it claims errs the safe way for a blocklist.
        rules = ordered.map {
          ContentRule(urlFilter: URLFilterTranslator.hostPrefix($0) + "/", caseSensitive: false, action: .block)
        }
        byScope = Dictionary(
          ordered.map {
            (
              $0.label,
              [ContentRule(urlFilter: URLFilterTranslator.hostPrefix($0) + "/", caseSensitive: false, action: .block)]
            )
          },
          uniquingKeysWith: { first, _ in first })
        appNotes = [
          BlocklistNote(
            .wider, format: "wkcontentrules", appID: app.appID, host: app.scopes.map(\.label).joined(separator: ","),
            message:
              "its rules need more than \(maxRules) WebKit rules, the most one list holds; every URL of its hosts is "
              + "blocked instead")
        ]
      }
      notes += appNotes
      groups.append((app, rules, rules.contains { $0.action == .ignorePreviousRules }, byScope))
    }
    // Apps with resets first, ordered so that no app's resets reach hosts of an app before it: built from the
    // back, each step taking an app whose resets touch none of the others left. When none can, one app gives its
    // resets up (it then blocks more) and a note says so.
    var pending = groups.filter(\.resets).map { group in
      (app: group.app, rules: group.rules, resetScopes: resetScopes(group.app, group.rules), byScope: group.byScope)
    }
    // Whether app `i`'s exceptions on entry `r` can cancel a block of app `j`: only where `j` has an entry for the
    // same hosts whose rules differ (apps that share a `details` entry, as wikipedia.org's five do, never do).
    func conflicts(_ i: Int, _ r: RuleScope, _ j: Int) -> Bool {
      pending[j].app.scopes.contains { s in
        r.overlaps(s) && !(s.pattern == r.pattern && pending[i].byScope[r.label] == pending[j].byScope[s.label])
      }
    }
    var tail: [(app: LinkingApp, rules: [ContentRule])] = []
    var degraded: [(app: LinkingApp, rules: [ContentRule])] = []
    while !pending.isEmpty {
      let safe = pending.indices.first { i in
        pending.indices.allSatisfy { j in i == j || !pending[i].resetScopes.contains { r in conflicts(i, r, j) } }
      }
      if let safe {
        tail.insert((pending[safe].app, pending[safe].rules), at: 0)
        pending.remove(at: safe)
        continue
      }
      let last = pending.count - 1
      let group = pending[last]
      // One note per entry whose exceptions are lost, with a URL the list then blocks though no app opens it: the
      // entries that share a host, and the app's others, whose exceptions go with them (the app's rules stay
      // together, so it keeps no exception at all).
      let shared = group.resetScopes.filter { scope in
        pending.indices.contains { $0 != last && conflicts(last, scope, $0) }
      }
      for scope in group.resetScopes {
        let others = pending.indices.filter { $0 != last && conflicts(last, scope, $0) }.map { pending[$0].app.appID }
        let example = overBlockExample(group.app, on: scope)
        let why =
          others.isEmpty
          ? "its exceptions here are left out with those for \(shared.map(\.label).joined(separator: ", ")), a host "
            + "it shares with other apps whose rules differ (one WebKit list cannot hold both apps' exceptions), so "
            + "the list blocks URLs no app opens"
          : "shares the host with \(others.joined(separator: ", ")), whose rules for it differ; one WebKit list "
            + "cannot hold both apps' exceptions, so this app's are left out and the list blocks URLs no app opens"
        notes.append(
          BlocklistNote(
            .wider, format: "wkcontentrules", appID: group.app.appID, host: scope.label,
            message: why + (example.map { ", such as \($0)" } ?? "") + "; use one list per app for exactness",
            example: example))
      }
      pending.removeLast()
      degraded.append((group.app, group.rules.filter { $0.action == .block }))
    }
    let first = tail
    let rest = degraded + groups.filter { !$0.resets }.map { ($0.app, $0.rules) }
    // Each app's rules stay together: separate lists are combined by WebKit, so splitting between apps is exact.
    var lists: [[ContentRule]] = [[]]
    for group in first + rest {
      if lists[lists.count - 1].count + group.rules.count > maxRules, !lists[lists.count - 1].isEmpty {
        lists.append([])
      }
      if group.rules.count > maxRules {
        notes.append(
          BlocklistNote(
            .dropped, format: "wkcontentrules", appID: group.app.appID, host: "*",
            message: "\(group.rules.count) rules exceed WebKit's limit of \(maxRules) per list; the app is left out"))
        continue
      }
      lists[lists.count - 1] += group.rules
    }
    return (lists, notes)
  }

  /// A URL on `scope`'s hosts that `app` blocks once its exceptions are left out although no app of the list opens
  /// it: sampled from the entry's exclude rules (nil when no sample shows one).
  private func overBlockExample(_ app: LinkingApp, on scope: RuleScope) -> String? {
    var blocksOnly = app
    blocksOnly.scopes = app.scopes.map { entry in
      var entry = entry
      entry.rules.rules.removeAll(where: \.exclude)
      return entry
    }
    let blocks = LinkingApp.table([blocksOnly])
    let everyApp = blocklist.table()
    for rule in scope.runtimeRules where rule.exclude {
      for url in URLSampler.urls(for: rule, host: scope.pattern.exampleHost) {
        let text = url.absoluteString
        if blocks.decide(text).verdict == .match, everyApp.decide(text).verdict != .match { return text }
      }
    }
    return nil
  }

  /// The entries of an app whose rules include a reset: those with exceptions, and those more specific than an
  /// earlier entry.
  private func resetScopes(_ app: LinkingApp, _ rules: [ContentRule]) -> [RuleScope] {
    app.scopes.filter { scope in
      scope.rules.rules.contains(where: \.exclude)
        || app.scopes.contains { $0.overlaps(scope) && Self.specificity($0) < Self.specificity(scope) }
    }
  }

  /// Wildcards before exact hosts, shorter before longer: the order entries go in, least specific first.
  static func specificity(_ scope: RuleScope) -> (Int, Int) { (scope.wildcard ? 0 : 1, scope.host.count) }

  /// A rule list as the JSON array `WKContentRuleListStore` compiles.
  public static func json(_ rules: [ContentRule]) -> String { json(rules, stamp: nil) }

  /// The same, with `stamp` as the first rule's `ipalinks` key, which WebKit ignores, so an app that downloads the
  /// list can tell which one it has.
  static func json(_ rules: [ContentRule], stamp: ListStamp?) -> String {
    var objects = (rules.isEmpty ? [ContentRule.nothing] : rules).map(\.json)
    if let stamp, !objects.isEmpty { objects[0]["ipalinks"] = stamp.json }
    let data =
      (try? JSONSerialization.data(
        withJSONObject: objects, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data()
    return String(decoding: data, as: UTF8.self) + "\n"
  }

  // MARK: - Plain lists

  /// Hosts whose URLs may open an app: `host` or `*.host`, sorted, once each.
  public func domains() -> String {
    let hosts = Set(
      blocklist.apps.flatMap { app in
        app.scopes.filter { $0.rules.rules.contains { !$0.exclude } }.map(\.label)
      })
    // One field a line: what TerminalText escapes (tabs and line feeds too) is written as `\u{…}`, as `aasa show` does.
    return hosts.sorted().map { TerminalText.escape($0) + "\n" }.joined()
  }

  /// Every rule as a tab-separated line: app, entry, `open` or `exclude`, the rule, its pointer; in the order iOS
  /// tries them (first match per app and entry wins).
  public func patterns() -> String {
    var out = "# app\tentry\taction\trule\tpointer (first matching line per app and entry decides)\n"
    for app in blocklist.apps {
      for scope in app.scopes {
        for rule in scope.rules.rules {
          let action = rule.exclude ? "exclude" : "match"
          out +=
            [app.appID, scope.label, action, rule.reference.pattern, rule.reference.pointer]
            .map { TerminalText.escape($0) }.joined(separator: "\t") + "\n"
        }
      }
    }
    return out
  }

  /// The WebKit list as `action<TAB>case<TAB>regex` lines: same regexes, same order, same meaning (the last
  /// matching line wins; `ignore-previous-rules` cancels the lines before it).
  public func regexes(maxRules: Int = 150_000) -> (text: String, notes: [BlocklistNote]) {
    let (lists, notes) = contentRules(maxRules: maxRules)
    var out = "# action\tcase\tregex — evaluated like WebKit: the last matching line wins, and an "
    out += "ignore-previous-rules line cancels every earlier match\n"
    for rule in lists.joined() {
      out += "\(rule.action.rawValue)\t\(rule.caseSensitive ? "case-sensitive" : "case-insensitive")\t"
      out += rule.urlFilter + "\n"
    }
    return (out, notes)
  }

  // MARK: - Guards

  /// The rules document the Swift and JavaScript guards embed: prepared patterns, so the generated matchers need
  /// no variables, defaults or normalization of their own.
  ///
  /// A multi-valued variable's alternatives are written once, in `choices`, and each reference is
  /// `{"choice": index}`: written inline at every reference, a 90 KB AASA file of references (within the expansion
  /// limit) made a 9 MB guard.
  public func guardDocument(generator: String) -> String { stampedGuardDocument(generator: generator).text }

  /// The rules document with its ``ListStamp`` (`generatedAt` and `sha256` beside `generator`), made at `time`.
  ///
  /// With `sign`, the document carries `signature`: `sign` of the rules and the stamp's time and generator (the
  /// document's bytes before `sha256`, closed with `}`: `UniversalLinkGuard.Stamp.signed(of:)`), in base64.
  func stampedGuardDocument(
    generator: String, at time: Date = Clock.now, sign: Signer? = nil, list: String? = nil
  ) -> (text: String, stamp: ListStamp) {
    var choices: [Any] = []
    var choiceIndex: [[[PatternPiece]]: Int] = [:]
    func pattern(_ pieces: [PatternPiece]?) -> Any { pieces.map { $0.map(piece) } ?? NSNull() }
    func piece(_ p: PatternPiece) -> Any {
      switch p {
      case .literal(let text): return text
      case .any: return 0
      case .star: return 1
      case .choice(let alternatives):
        if let index = choiceIndex[alternatives] { return ["choice": index] }
        choiceIndex[alternatives] = choices.count
        choices.append(alternatives.map { $0.map(piece) })
        return ["choice": choices.count - 1]
      }
    }
    let apps = blocklist.apps.map { app -> [String: Any] in
      let scopes = app.scopes.map { scope -> [String: Any] in
        // The same prepared rules the library's verdicts come from (see `Blocklist.table()`).
        let rules = scope.runtimeRules.map { rule -> [String: Any] in
          [
            "pointer": rule.pointer, "exclude": rule.exclude, "caseSensitive": rule.caseSensitive,
            "percentEncoded": rule.percentEncoded, "path": pattern(rule.path), "query": pattern(rule.query),
            "fragment": pattern(rule.fragment),
            "items": rule.items.map { items in items.map { ["name": $0.name, "value": pattern($0.value)] } }
              ?? NSNull(),
          ]
        }
        return ["host": scope.host, "wildcard": scope.wildcard, "rules": rules]
      }
      return ["appID": app.appID, "scopes": scopes]
    }
    // The digest is of the rules alone, so the same rules made at another time or by another version have it too:
    // of the document's bytes up to the stamp, closed with `}`, which is how the guard checks it
    // (`UniversalLinkGuard.Stamp.matches(_:)`). DEL, C1 and bidi controls from an app or AASA file stay `\u`
    // escapes, so the guard file is safe to print.
    let content: [String: Any] = ["apps": apps, "choices": choices]
    let rules = JSONReporter.terminalSafe(
      String(
        decoding: (try? JSONSerialization.data(
          withJSONObject: content, options: [.sortedKeys, .withoutEscapingSlashes]))
          ?? Data("{}".utf8), as: UTF8.self))
    var stamp = ListStamp(generator: generator, at: time, content: Array(rules.utf8))
    stamp.list = list
    // Sorted keys put `apps` and `choices` first: the stamp goes after them, and `generator` stays where it was.
    var document = String(rules.dropLast())
    let quoted = Self.quoted(generator)
    document += #","generatedAt":"\#(stamp.generatedAt)","generator":"# + JSONReporter.terminalSafe(quoted)
    // Signed with the time, before `sha256`: an updating guard takes its own list's documents only.
    if let list { document += #","list":"# + JSONReporter.terminalSafe(Self.quoted(list)) }
    // The signature covers the time too: signed alone, the rules of an old document could be given a new time and
    // replayed over newer ones.
    let signed = document + "}"
    document += #","sha256":"\#(stamp.sha256)""#
    var signedStamp = stamp
    if let sign {
      let signature = Data(sign(Array(signed.utf8))).base64EncodedString()
      document += #","signature":"\#(signature)""#
      (signedStamp.signature, signedStamp.signed) = (signature, signed)
    }
    return (document + "}", signedStamp)
  }

  /// `text` as a JSON string.
  private static func quoted(_ text: String) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .withoutEscapingSlashes
    return (try? encoder.encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? #""""#
  }

  /// One self-contained Swift file: `UniversalLinkGuard`, the matcher's runtime core and the rules.
  public func swiftGuard(generator: String) -> String { stampedSwiftGuard(generator: generator).text }

  /// The same, and the stamp of the rules it embeds.
  func stampedSwiftGuard(
    generator: String, at time: Date = Clock.now, sign: Signer? = nil, list: String? = nil
  ) -> (text: String, stamp: ListStamp) {
    let document = stampedGuardDocument(generator: generator, at: time, sign: sign, list: list)
    return (SwiftGuardWriter.render(rulesJSON: document.text, header: header(generator: generator)), document.stamp)
  }

  /// The click guard to inject in pages: `Resources/ipalinks-guard.js` (a port of the runtime core and the click
  /// handler) with the rules document in it.
  public func javaScriptGuard(generator: String) -> String { stampedJavaScriptGuard(generator: generator).text }

  /// The same, and the stamp of the rules it embeds.
  func stampedJavaScriptGuard(
    generator: String, at time: Date = Clock.now, sign: Signer? = nil, list: String? = nil
  ) -> (text: String, stamp: ListStamp) {
    let document = stampedGuardDocument(generator: generator, at: time, sign: sign, list: list)
    return (JSGuardWriter.render(rulesJSON: document.text, header: header(generator: generator)), document.stamp)
  }

  /// The comment block at the top of generated Swift and JavaScript: what the file covers, with untrusted names
  /// reduced to safe characters so they cannot end the comment, inject lines or, in a guard inlined in a page,
  /// close the `<script>` element or open an HTML comment.
  public func header(generator: String) -> String {
    var lines = ["Generated by \(generator). Do not edit: regenerate with `ipalinks blocklist`.", "Apps and domains:"]
    for app in blocklist.apps {
      lines.append("  \(app.appID) (\(app.name)): " + app.scopes.map(\.label).joined(separator: ", "))
    }
    return lines.map { "// " + Self.commentSafe($0) }.joined(separator: "\n") + "\n"
  }

  /// `s` as one `//` comment line of Swift or JavaScript: escaped as ``TerminalText/escape(_:keepingLineBreaks:)`` escapes it, with `*/` broken and a space after
  /// every `<`, since `</script`, `<script` and `<!--` change where a script inlined in HTML ends.
  static func commentSafe(_ s: String) -> String {
    TerminalText.escape(s).replacingOccurrences(of: "*/", with: "* /").replacingOccurrences(of: "<", with: "< ")
  }
}

/// What a list says about itself, so an app that downloads a newer one can tell it apart: the ipalinks that made
/// it, when, and a SHA-256 of its rules (without the stamp), which stays the same while the rules do.
public struct ListStamp: Sendable, Equatable {
  /// `ipalinks blocklist 0.10.0`-style: the tool and its version.
  public var generator: String
  /// When the list was made, RFC 3339 in UTC.
  public var generatedAt: String
  /// The rules' SHA-256, in lower-case hex.
  public var sha256: String
  /// The list's name (`--list-name`), signed with the time; nil when it has none.
  public var list: String? = nil
  /// The signature (`--sign`), in base64; nil for a list not signed.
  public var signature: String? = nil
  /// The text the signature is of: the rules, `generatedAt` and `generator`.
  var signed: String? = nil

  /// The stamp of `content` made by `generator` at `time`.
  init(generator: String, at time: Date, content: [UInt8]) {
    self.generator = generator
    generatedAt = Clock.rfc3339(time)
    sha256 = LinkRuntime.sha256Hex(content)
  }

  /// As a JSON object.
  var json: [String: Any] {
    var json: [String: Any] = ["generator": generator, "generatedAt": generatedAt, "sha256": sha256]
    json["list"] = list
    return json
  }
}
