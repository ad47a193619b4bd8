/// Two AASA files compared by behaviour, not bytes: for each app, do the same URLs open it, by the same rules?
///
/// Rules are compared as the runtime evaluates them (defaults merged, flags explicit, patterns prepared), so
/// hoisting `caseSensitive` into `defaults`, rewriting legacy `paths` as equivalent `components` or editing a
/// `comment` is no change. A rule added, removed or changed is, and so is a reordering that changes which rule
/// decides some URL. Each change names the rules on both sides by JSON pointer and, when one is found, an example
/// URL whose verdict differs: URLs are generated from both files' patterns (wildcards and variables instantiated,
/// case and boundaries varied) and decided by both matchers, so an example is never claimed that does not differ.
public struct AASAComparison: Sendable, Equatable, Codable {
  /// One difference in behaviour for one app.
  public struct Change: Sendable, Hashable, Codable {
    /// What changed; the raw values are the words reports and JSON use.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
      /// The new file lists the app; the old one did not.
      case appAdded = "app added"
      /// The old file listed the app; the new one does not.
      case appRemoved = "app removed"
      /// A rule only the new file has.
      case ruleAdded = "rule added"
      /// A rule only the old file had.
      case ruleRemoved = "rule removed"
      /// A rule replaced in place by one that matches other URLs.
      case ruleChanged = "rule changed"
      /// Rules both files have, in an order that changes which one decides.
      case rulesReordered = "rules reordered"

      /// The words, as reports print them.
      public var description: String { rawValue }
    }

    /// The app the change is for.
    public var appId: String
    /// What changed.
    public var kind: Kind
    /// Pointers of the rules involved in the old file. For `rules reordered`: the rule that decided with the old
    /// file, then the one that decides with the new file, as ``new`` lists them.
    public var old: [String]
    /// Pointers of the rules involved in the new file, in the order of ``old`` for `rules reordered`.
    public var new: [String]
    /// A URL whose verdict differs between the files; nil when none was found.
    public var example: String?
    /// The example's verdict with the old file.
    public var oldVerdict: MatchResult.Verdict?
    /// The example's verdict with the new file.
    public var newVerdict: MatchResult.Verdict?
    /// When the change goes more than one way, an example of each other way, with both verdicts: a URL that starts
    /// opening the app where ``example`` stops opening it, or the reverse, or one whose verdict changes without
    /// opening it either way (`exclude` → `no-match`). Nil when ``example`` tells the whole change.
    public var moreExamples: [Example]?

    /// A URL whose verdict differs between the files, with both verdicts.
    public struct Example: Sendable, Hashable, Codable {
      /// The URL.
      public var url: String
      /// Its verdict with the old file.
      public var oldVerdict: MatchResult.Verdict
      /// Its verdict with the new file.
      public var newVerdict: MatchResult.Verdict

      /// An example as a comparison finds one.
      public init(url: String, oldVerdict: MatchResult.Verdict, newVerdict: MatchResult.Verdict) {
        (self.url, self.oldVerdict, self.newVerdict) = (url, oldVerdict, newVerdict)
      }

      /// Which way the verdict goes: 0 it stops opening the app, 1 it starts, 2 neither verdict opens it.
      var direction: Int { oldVerdict == .match ? 0 : newVerdict == .match ? 1 : 2 }
    }
  }

  /// One change that several apps share, as when one `details` entry lists them all: told once, with every app.
  /// `history --host`, `refresh` and `report --store` all report it, as one flat JSON object: `kind`, `appIds`,
  /// `old`, `new`, `example`, `oldVerdict`, `newVerdict`.
  public struct SharedChange: Sendable, Equatable, Encodable {
    /// The change, as the first app has it.
    public var change: Change
    /// Every app the change is for, in the order they are listed.
    public var appIds: [String]

    /// What changed.
    public var kind: Change.Kind { change.kind }
    /// Pointers of the rules involved in the old file.
    public var old: [String] { change.old }
    /// Pointers of the rules involved in the new file.
    public var new: [String] { change.new }
    /// A URL whose verdict differs between the files; nil when none was found.
    public var example: String? { change.example }
    /// The example's verdict with the old file.
    public var oldVerdict: MatchResult.Verdict? { change.oldVerdict }
    /// The example's verdict with the new file.
    public var newVerdict: MatchResult.Verdict? { change.newVerdict }
    /// An example of each other way the change goes; nil when there is none.
    public var moreExamples: [Change.Example]? { change.moreExamples }

    /// `changes` with those that differ only in their app told once, in the order first met, each app once.
    public static func grouping(_ changes: some Sequence<Change>) -> [SharedChange] {
      var out: [SharedChange] = []
      var positions: [Change: (at: Int, apps: Set<String>)] = [:]
      for change in changes {
        var key = change
        key.appId = ""
        if let (at, apps) = positions[key] {
          if !apps.contains(change.appId) {
            out[at].appIds.append(change.appId)
            positions[key]?.apps.insert(change.appId)
          }
        } else {
          positions[key] = (out.count, [change.appId])
          out.append(SharedChange(change: change, appIds: [change.appId]))
        }
      }
      return out
    }

    private enum CodingKeys: String, CodingKey {
      case kind, appIds, old, new, example, oldVerdict, newVerdict, moreExamples
    }

    /// Writes the change's fields beside `appIds`, without the first app's `appId`.
    public func encode(to encoder: any Encoder) throws {
      var c = encoder.container(keyedBy: CodingKeys.self)
      try c.encode(kind, forKey: .kind)
      try c.encode(appIds, forKey: .appIds)
      try c.encode(old, forKey: .old)
      try c.encode(new, forKey: .new)
      try c.encodeIfPresent(example, forKey: .example)
      try c.encodeIfPresent(oldVerdict, forKey: .oldVerdict)
      try c.encodeIfPresent(newVerdict, forKey: .newVerdict)
      try c.encodeIfPresent(moreExamples, forKey: .moreExamples)
    }
  }

  /// Every change, app by app in the order apps are listed (old file first).
  public var changes: [Change]
  /// Whether the files behave the same for every app compared.
  public var equivalent: Bool { changes.isEmpty }

  /// The changes with those that differ only in their app told once, in the order first met.
  public var shared: [SharedChange] { SharedChange.grouping(changes) }

  /// Compares `old` and `new` for `appIDs`, or for every app either file's `applinks` lists; example URLs use
  /// `host`.
  public init(old: AASAFile, new: AASAFile, appIDs: [String]? = nil, host: String = "example.com") {
    var apps: [String] = []
    var seen: Set<String> = []
    for file in [old, new] {
      for detail in file.applinks?.details ?? [] {
        for app in detail.appIDs where seen.insert(app).inserted { apps.append(app) }
      }
    }
    // An app whose first entry is the same in both files, under the same file-wide settings, has the same rules:
    // most apps of a shared file, when one app's part changed.
    let settled =
      old.exceedsDeviceSizeLimit == new.exceedsDeviceSizeLimit && old.applinks?.defaults == new.applinks?.defaults
      && old.applinks?.substitutionVariables == new.applinks?.substitutionVariables
    let (oldEntries, newEntries) = (Self.firstEntries(old), Self.firstEntries(new))
    // An app's rules are its first entry's, whatever the app: apps that share their first entry in both files (the
    // hundreds one entry of a shared host's file lists) share their changes, so each pair of entries is compared
    // once and its changes told again for each app.
    var compared: [[Int?]: [Change]] = [:]
    changes = (appIDs ?? apps).flatMap { app in
      let (oldEntry, newEntry) = (oldEntries[app], newEntries[app])
      if settled && oldEntry == newEntry { return [Change]() }
      let pair = [oldEntry?.index, newEntry?.index]
      if let known = compared[pair] {
        return known.map { change in
          var change = change
          change.appId = app
          return change
        }
      }
      let before = AppLinkRules(file: old, appID: app, detail: oldEntry)
      let after = AppLinkRules(file: new, appID: app, detail: newEntry)
      let found = before == after ? [] : Side.compare(Side(before), Side(after), appID: app, host: host)
      compared[pair] = found
      return found
    }
  }

  /// Each app's first `details` entry, the one iOS uses for it (which knows its own position).
  static func firstEntries(_ file: AASAFile) -> [String: AppLinksDetail] {
    var entries: [String: AppLinksDetail] = [:]
    for detail in file.applinks?.details ?? [] {
      for app in detail.appIDs where entries[app] == nil { entries[app] = detail }
    }
    return entries
  }

  /// Compares one app's rules as two versions of a domain's file give them, such as the rules two saved
  /// inventories hold; nil stands for a file that does not list the app. Example URLs use `host`.
  public init(old: AppLinkRules?, new: AppLinkRules?, host: String) {
    let appID = new?.appID ?? old?.appID ?? ""
    changes = Side.compare(Side(old), Side(new), appID: appID, host: host)
  }

  /// One file's rules for one app, compiled.
  struct Side {
    /// How many changes of one app get a search for an example URL.
    static let exampleBudget = 1_000
    /// How many URLs a reordering's search decides at most (about 3,000 moved rules' worth), so a hostile file of
    /// rules reversed costs a bounded time.
    static let reorderBudget = 120_000

    let listed: Bool
    let rules: [LinkRuntime.Rule]
    let program: LinkRuntime.RuleProgram

    init(_ set: AppLinkRules?) {
      listed = set.map { $0.detailIndex != nil && !$0.exceedsDeviceSizeLimit } ?? false
      rules = listed ? set?.runtimeRules(keepingNever: true) ?? [] : []
      program = LinkRuntime.RuleProgram(rules: rules)
    }

    /// The rule without where it sits, so equal rules compare equal wherever they are; and without the keys that
    /// constrain nothing, so a rule that spells out a default compares equal to one that leaves it out: a `?`, `#`
    /// or query item of `*` (a missing part reads as "", which `*` matches), an empty `?` object. Only for rules
    /// compared as escaped (`percentEncoded`), whose URLs are read without decoding.
    static func content(_ rule: LinkRuntime.Rule) -> LinkRuntime.Rule {
      var rule = rule
      rule.pointer = ""
      guard rule.percentEncoded else { return rule }
      func constrainsNothing(_ pieces: [LinkRuntime.Piece]?) -> Bool {
        pieces.map { !$0.isEmpty && $0.allSatisfy { $0 == .star } } ?? true
      }
      if constrainsNothing(rule.path) { rule.path = nil }
      if constrainsNothing(rule.query) { rule.query = nil }
      if constrainsNothing(rule.fragment) { rule.fragment = nil }
      if let items = rule.items {
        let kept = items.filter { !constrainsNothing($0.value) }
        rule.items = kept.isEmpty ? nil : kept
      }
      return rule
    }

    /// The verdict and the deciding rule's content.
    func decide(_ url: UniversalLinkURL) -> (verdict: MatchResult.Verdict, rule: LinkRuntime.Rule?) {
      guard listed, let index = program.firstMatch(url) else { return (.noMatch, nil) }
      return (rules[index].exclude ? .exclude : .match, Self.content(rules[index]))
    }

    /// Positions of one longest strictly increasing subsequence of `values` (patience sorting, O(n log n)).
    static func longestIncreasing(_ values: [Int]) -> Set<Int> {
      var tails: [Int] = []  // position in `values` of the smallest tail of each length
      var previous = Array(repeating: -1, count: values.count)
      for (i, v) in values.enumerated() {
        var (lo, hi) = (0, tails.count)
        while lo < hi {
          let mid = (lo + hi) / 2
          if values[tails[mid]] < v { lo = mid + 1 } else { hi = mid }
        }
        if lo > 0 { previous[i] = tails[lo - 1] }
        if lo == tails.count { tails.append(i) } else { tails[lo] = i }
      }
      var out = Set<Int>()
      var i = tails.last ?? -1
      while i >= 0 {
        out.insert(i)
        i = previous[i]
      }
      return out
    }

    static func compare(_ old: Side, _ new: Side, appID: String, host: String) -> [Change] {
      if !old.listed && !new.listed { return [] }
      let oldContent = old.rules.map(content)
      let newContent = new.rules.map(content)
      if old.listed == new.listed && oldContent == newContent { return [] }

      /// The first URL generated from `rules` whose verdict differs, with both verdicts; and the first of each other
      /// way a verdict differs (stops opening the app, starts, neither), so a change is shown in every direction.
      func example(from rules: [LinkRuntime.Rule]) -> Change? {
        var found: [Change.Example] = []
        for url in rules.flatMap({ URLSampler.urls(for: $0, host: host) }) {
          let (a, b) = (old.decide(url), new.decide(url))
          guard a.verdict != b.verdict else { continue }
          let example = Change.Example(url: url.absoluteString, oldVerdict: a.verdict, newVerdict: b.verdict)
          if !found.contains(where: { $0.direction == example.direction }) { found.append(example) }
          if found.count == 3 { break }
        }
        guard let first = found.first else { return nil }
        return Change(
          appId: appID, kind: .ruleChanged, old: [], new: [], example: first.url, oldVerdict: first.oldVerdict,
          newVerdict: first.newVerdict, moreExamples: found.count > 1 ? Array(found.dropFirst()) : nil)
      }
      func oldRule(_ i: Int) -> LinkRuntime.Rule { old.rules[i] }
      func newRule(_ i: Int) -> LinkRuntime.Rule { new.rules[i] }
      func sampledChange(_ kind: Change.Kind, removing oldIndices: [Int], adding newIndices: [Int]) -> Change {
        let sample = example(from: oldIndices.map(oldRule) + newIndices.map(newRule))
        return Change(
          appId: appID, kind: kind, old: oldIndices.map { oldRule($0).pointer },
          new: newIndices.map { newRule($0).pointer }, example: sample?.example, oldVerdict: sample?.oldVerdict,
          newVerdict: sample?.newVerdict, moreExamples: sample?.moreExamples)
      }

      if old.listed != new.listed {
        let listed = old.listed ? old : new
        let sample = example(from: listed.rules)
        return [
          Change(
            appId: appID, kind: old.listed ? .appRemoved : .appAdded, old: old.rules.map(\.pointer),
            new: new.rules.map(\.pointer), example: sample?.example, oldVerdict: sample?.oldVerdict,
            newVerdict: sample?.newVerdict, moreExamples: sample?.moreExamples)
        ]
      }

      // Rules only one side has, matched by content (the n-th copy pairs with the n-th copy).
      var copies: [LinkRuntime.Rule: [Int]] = [:]
      for (j, rule) in newContent.enumerated().reversed() { copies[rule, default: []].append(j) }
      var pairedNew = Array(repeating: false, count: newContent.count)
      var common: [(old: Int, new: Int)] = []  // rules both files have, in old order
      var removed: [Int] = []
      for (i, rule) in oldContent.enumerated() {
        if let j = copies[rule]?.popLast() {
          pairedNew[j] = true
          common.append((i, j))
        } else {
          removed.append(i)
        }
      }
      var added = newContent.indices.filter { !pairedNew[$0] }
      var out: [Change] = []
      var examplesLeft = Self.exampleBudget
      func change(_ kind: Change.Kind, removing oldIndices: [Int], adding newIndices: [Int]) -> Change {
        // Past the budget, changes are still told but without a search for an example, so two hostile files
        // with thousands of edited rules cost rules × samples, not rules² × samples.
        guard examplesLeft > 0 else {
          return Change(
            appId: appID, kind: kind, old: oldIndices.map { oldRule($0).pointer },
            new: newIndices.map { newRule($0).pointer })
        }
        examplesLeft -= 1
        return sampledChange(kind, removing: oldIndices, adding: newIndices)
      }
      // A rule replaced in place reads as one change.
      for i in removed {
        if let j = added.firstIndex(of: i) {
          added.remove(at: j)
          out.append(change(.ruleChanged, removing: [i], adding: [i]))
        } else {
          out.append(change(.ruleRemoved, removing: [i], adding: []))
        }
      }
      for j in added { out.append(change(.ruleAdded, removing: [], adding: [j])) }
      // Rules both files have that keep their relative order cannot decide differently among themselves, so URLs
      // are sampled only from the rules off one longest run that kept it: the rules that moved.
      let kept = Self.longestIncreasing(common.map(\.new))
      let moved = common.indices.filter { !kept.contains($0) }.map { common[$0] }
      if !moved.isEmpty {
        // Rules both files have, in another order: a change where it changes which rule decides a URL. Checked
        // beside added and removed rules too, since a reordering can hide behind an unrelated edit; a URL whose
        // deciding rule is one side's only is the added or removed rule's change, already told.
        //
        // Such a URL matches two rules that crossed, at least one of them moved; but it is often an instance of
        // the other, narrower one alone (`/*` moved past `/buy/*`: `/buy/x`, never sampled from `/*`). So the
        // rules that kept their order are sampled after the moved ones, up to a budget; past it the reordering
        // is told without an example, a change not ruled out rather than a silent "behaves the same".
        let sampled =
          moved.flatMap { [old.rules[$0.old], new.rules[$0.new]] } + kept.sorted().map { old.rules[common[$0].old] }
        var left = Self.reorderBudget
        // Whether `urls` hold a URL that the crossed rules decide differently (told as the change), or the budget
        // ran out (told without an example); false to look further.
        func found(_ urls: [UniversalLinkURL]) -> Bool {
          left -= urls.count
          guard left >= 0 else {
            out.append(
              Change(
                appId: appID, kind: .rulesReordered, old: [oldRule(moved[0].old).pointer],
                new: [newRule(moved[0].new).pointer]))
            return true
          }
          for url in urls {
            let (a, b) = (old.decide(url), new.decide(url))
            guard a.rule != b.rule else { continue }
            guard a.rule.map(newContent.contains) ?? true, b.rule.map(oldContent.contains) ?? true else { continue }
            // The rules that decide on either side, in the same order in both lists, so a reader sees where each
            // one sits in each file: the old decider first, then the new one.
            let involved = [a.rule, b.rule].compactMap { $0 }
            let differs = a.verdict != b.verdict
            out.append(
              Change(
                appId: appID, kind: .rulesReordered,
                old: involved.compactMap { rule in oldContent.firstIndex(of: rule).map { oldRule($0).pointer } },
                new: involved.compactMap { rule in newContent.firstIndex(of: rule).map { newRule($0).pointer } },
                example: differs ? url.absoluteString : nil, oldVerdict: differs ? a.verdict : nil,
                newVerdict: differs ? b.verdict : nil))
            return true
          }
          return false
        }
        search: do {
          for rule in sampled where found(URLSampler.urls(for: rule, host: host)) { break search }
          // A URL both crossed rules match may need one's path and the other's query or fragment (an exclude of
          // `/a/*` with `?x=1` moved past `/a/b`: `/a/b?x=1`, made from neither alone; said to behave the same).
          // So each moved rule is crossed with every other rule sampled, either way, where one of the two asks
          // for a query or a fragment.
          let asking = sampled.filter(\.asksBeyondPath)
          for moving in moved.flatMap({ [old.rules[$0.old], new.rules[$0.new]] }) {
            for other in moving.asksBeyondPath ? sampled : asking where other != moving {
              if found(URLSampler.urls(for: other, host: host, askingAs: moving)) { break search }
              if found(URLSampler.urls(for: moving, host: host, askingAs: other)) { break search }
            }
          }
        }
      }
      return out
    }
  }
}

/// URLs a rule is likely to decide: its patterns instantiated several ways, with boundaries and case varied. Where
/// a question about rules needs an example URL (what changed between two files, what a blocklist over-blocks), the
/// first sampled URL it holds for is the example.
public enum URLSampler {
  /// About 20 URLs on `host` from `rule`'s patterns: each `*` and `?` filled four ways, with a character more, a
  /// character less, in upper case and one segment deeper.
  ///
  /// With `askingAs`, the query and fragment are that rule's, on `rule`'s paths: a URL two rules both decide may
  /// need one's path and the other's query.
  public static func urls(
    for rule: LinkRuntime.Rule, host: String, askingAs asking: LinkRuntime.Rule? = nil
  ) -> [UniversalLinkURL] {
    var out: [UniversalLinkURL] = []
    let asking = asking ?? rule
    for variant in 0..<4 {
      var path = rule.path.map { fill($0, variant) } ?? "/"
      if !path.hasPrefix("/") { path = "/" + path }
      var query: String? = asking.query.map { fill($0, variant) }
      if let items = asking.items {
        query = items.map { $0.name + "=" + fill($0.value, variant) }.joined(separator: "&")
      }
      let fragment = asking.fragment.map { fill($0, variant) }
      for candidate in [path, path + "x", String(path.dropLast()), path.uppercased(), path + "/x"] {
        var text = "https://" + host + candidate
        if let query { text += "?" + query }
        if let fragment { text += "#" + fragment }
        if let url = UniversalLinkURL(string: text) { out.append(url) }
      }
      // The same path without the query and fragment the rule asks for.
      if query != nil || fragment != nil, let url = UniversalLinkURL(string: "https://" + host + path) {
        out.append(url)
      }
    }
    return out
  }

  /// One instance of a pattern: `*` and `?` filled according to `variant`, the `variant`-th alternative of each
  /// choice.
  static func fill(_ pieces: [LinkRuntime.Piece], _ variant: Int) -> String {
    let stars = ["", "x", "a/b", "X1"]
    let anys = ["a", "1", "Z", "-"]
    var out = ""
    for piece in pieces {
      switch piece {
      case .literal(let text): out += text
      case .any: out += anys[variant % anys.count]
      case .star: out += stars[variant % stars.count]
      case .choice(let alternatives):
        if !alternatives.isEmpty { out += fill(alternatives[variant % alternatives.count], variant) }
      }
    }
    return out
  }
}

extension LinkRuntime.Rule {
  /// Whether the rule asks anything of a URL's query or fragment: then a URL it decides together with another rule
  /// may need the other's path, which samples of either alone do not make.
  var asksBeyondPath: Bool { query != nil || items != nil || fragment != nil }
}
