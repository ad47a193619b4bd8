import Testing
import UniversalLinks

/// `aasa diff`'s library side: behaviour, not bytes.
struct AASAComparisonTests {
  static let app = "ABCDE12345.com.example.app"
  static let other = "ABCDE12345.com.example.other"

  static func file(_ applinks: String) -> AASAFile { try! AASAFile(json: #"{"applinks": {\#(applinks)}}"#) }

  static func details(_ rules: String, apps: [String] = [app], defaults: String = "") -> AASAFile {
    let ids = apps.map { "\"\($0)\"" }.joined(separator: ", ")
    return file(#"\#(defaults)"details": [{"appIDs": [\#(ids)], \#(rules)}]"#)
  }

  /// Every example claimed must really differ, with the verdicts stated, by the library's matcher.
  static func expectHonestExamples(_ comparison: AASAComparison, _ old: AASAFile, _ new: AASAFile) {
    var matchers: [String: (old: AASAMatcher, new: AASAMatcher)] = [:]
    for change in comparison.changes {
      guard let example = change.example else { continue }
      let pair =
        matchers[change.appId] ?? (old.matcher(appID: change.appId), new.matcher(appID: change.appId))
      matchers[change.appId] = pair
      let before = pair.old.verdict(for: example).verdict
      let after = pair.new.verdict(for: example).verdict
      #expect(before != after, "\(change)")
      #expect(change.oldVerdict == before && change.newVerdict == after, "\(change)")
      for more in change.moreExamples ?? [] {
        let (before, after) = (pair.old.verdict(for: more.url).verdict, pair.new.verdict(for: more.url).verdict)
        #expect(before != after && more.oldVerdict == before && more.newVerdict == after, "\(more)")
      }
    }
  }

  /// A rule replaced by one for other paths goes two ways, and both are shown: `/issue/*` stops opening the app,
  /// `/act/*` starts.
  @Test func aChangeIsShownInEachDirectionItGoes() {
    let (old, new) = (
      Self.details(#""components": [{"/": "/issue/*"}]"#), Self.details(#""components": [{"/": "/act/*"}]"#)
    )
    let comparison = AASAComparison(old: old, new: new)
    let change = try! #require(comparison.changes.first)
    #expect(comparison.changes.count == 1 && change.kind == .ruleChanged)
    #expect(
      change.example == "https://example.com/issue/" && change.oldVerdict == .match && change.newVerdict == .noMatch)
    #expect(
      change.moreExamples == [
        AASAComparison.Change.Example(url: "https://example.com/act/", oldVerdict: .noMatch, newVerdict: .match)
      ],
      "\(change)")
    Self.expectHonestExamples(comparison, old, new)
    // A rule narrowed goes one way only: nothing more to show.
    let narrowed = AASAComparison(old: old, new: Self.details(#""components": [{"/": "/issue/1/*"}]"#))
    #expect(
      narrowed.changes.first?.example != nil && narrowed.changes.first?.moreExamples == nil, "\(narrowed.changes)")
  }

  /// An app whose entry did not change is skipped, unless a file-wide setting (the defaults) changed under it.
  /// Two rules swapped where the URL both decide needs one's path and the other's query or fragment (an exclude of
  /// `/a/*` asking `?x=1` moved past `/a/b`: `/a/b?x=1`): a reordering, with an example; it read as behaving the
  /// same, as no URL sampled from one rule alone holds both.
  @Test(arguments: [#""?": {"x": "1"}"#, ##""#": "?*""##])
  func aReorderingThatNeedsTwoRulesURLIsFound(_ asking: String) {
    let exclude = #"{"/": "/a/*", \#(asking), "exclude": true}"#
    let (old, new) = (
      Self.details(#""components": [\#(exclude), {"/": "/a/b"}]"#),
      Self.details(#""components": [{"/": "/a/b"}, \#(exclude)]"#)
    )
    let comparison = AASAComparison(old: old, new: new, host: "example.com")
    #expect(comparison.changes.map(\.kind) == [.rulesReordered], "\(comparison.changes)")
    #expect(comparison.changes.first?.example != nil)
    Self.expectHonestExamples(comparison, old, new)
  }

  @Test func onlyTheAppsAChangeReachesAreCompared() {
    func two(_ first: String, defaults: String = "") -> AASAFile {
      Self.file(
        #"\#(defaults)"details": [{"appIDs": ["\#(Self.app)"], "components": [\#(first)]}, "#
          + #"{"appIDs": ["\#(Self.other)"], "components": [{"/": "/shop/*"}]}]"#)
    }
    let base = two(#"{"/": "/buy/*"}"#)
    let one = AASAComparison(old: base, new: two(#"{"/": "/sell/*"}"#))
    #expect(!one.changes.isEmpty && one.changes.allSatisfy { $0.appId == Self.app }, "\(one.changes)")
    let everyone = AASAComparison(
      old: base, new: two(#"{"/": "/buy/*"}"#, defaults: #""defaults": {"caseSensitive": false}, "#))
    #expect(Set(everyone.changes.map(\.appId)) == [Self.app, Self.other], "\(everyone.changes)")
    Self.expectHonestExamples(
      everyone, base, two(#"{"/": "/buy/*"}"#, defaults: #""defaults": {"caseSensitive": false}, "#))
  }

  @Test func rewritingWithoutChangingBehaviourIsNoChange() {
    let base = Self.details(#""components": [{"/": "/buy/*", "caseSensitive": false}, {"/": "/help/*"}]"#)
    let hoisted = Self.details(
      #""components": [{"/": "/buy/*"}, {"/": "/help/*", "caseSensitive": true}]"#,
      defaults: #""defaults": {"caseSensitive": false}, "#)
    #expect(AASAComparison(old: base, new: hoisted).equivalent)
    let paths = Self.details(#""paths": ["NOT /private/*", "/*"]"#)
    let components = Self.details(#""components": [{"/": "/private/*", "exclude": true}, {"/": "/*"}]"#)
    #expect(AASAComparison(old: paths, new: components).equivalent)
    let commented = Self.details(#""components": [{"/": "/private/*", "exclude": true, "comment": "x"}, {"/": "/*"}]"#)
    #expect(AASAComparison(old: components, new: commented).equivalent)
    // Disjoint rules swapped: no URL is decided by another rule.
    let swapped = Self.details(#""components": [{"/": "/help/*"}, {"/": "/buy/*", "caseSensitive": false}]"#)
    #expect(AASAComparison(old: base, new: swapped).equivalent)
  }

  @Test func aChangedPatternHasAnExampleWhoseVerdictDiffers() throws {
    let old = Self.details(#""components": [{"/": "/help/*", "?": {"articleNumber": "????"}}]"#)
    let new = Self.details(#""components": [{"/": "/help/*", "?": {"articleNumber": "???"}}]"#)
    let comparison = AASAComparison(old: old, new: new)
    #expect(!comparison.equivalent)
    let change = try #require(comparison.changes.first)
    #expect(change.kind == .ruleChanged)
    #expect(change.old == ["/applinks/details/0/components/0"])
    #expect(change.new == ["/applinks/details/0/components/0"])
    #expect(change.example != nil)
    Self.expectHonestExamples(comparison, old, new)
  }

  @Test func addedRemovedExcludedAndDefaultsAreChanges() throws {
    let old = Self.details(#""components": [{"/": "/buy/gift/*", "exclude": true}, {"/": "/buy/*"}]"#)
    let cases: [(AASAFile, AASAComparison.Change.Kind)] = [
      (Self.details(#""components": [{"/": "/buy/*"}]"#), .ruleRemoved),
      (
        Self.details(#""components": [{"/": "/buy/gift/*", "exclude": true}, {"/": "/buy/*"}, {"/": "/sell/*"}]"#),
        .ruleAdded
      ),
      (Self.details(#""components": [{"/": "/buy/gift/*"}, {"/": "/buy/*"}]"#), .ruleChanged),
      (
        Self.details(
          #""components": [{"/": "/buy/gift/*", "exclude": true}, {"/": "/buy/*"}]"#,
          defaults: #""defaults": {"caseSensitive": false}, "#), .ruleChanged
      ),
    ]
    for (new, kind) in cases {
      let comparison = AASAComparison(old: old, new: new)
      #expect(comparison.changes.map(\.kind).contains(kind), "\(kind): \(comparison.changes)")
      #expect(comparison.changes.contains { $0.example != nil }, "\(kind): no example")
      Self.expectHonestExamples(comparison, old, new)
    }
  }

  @Test func aReorderThatChangesWhichRuleDecidesIsAChange() throws {
    let old = Self.details(#""components": [{"/": "/buy/gift/*", "exclude": true}, {"/": "/buy/*"}]"#)
    let new = Self.details(#""components": [{"/": "/buy/*"}, {"/": "/buy/gift/*", "exclude": true}]"#)
    let comparison = AASAComparison(old: old, new: new)
    let change = try #require(comparison.changes.first)
    #expect(change.kind == .rulesReordered)
    #expect(change.oldVerdict == .exclude && change.newVerdict == .match)
    // The exclusion decided in the old file, `/buy/*` decides in the new one: each named where it sits in each.
    #expect(change.old == ["/applinks/details/0/components/0", "/applinks/details/0/components/1"])
    #expect(change.new == ["/applinks/details/0/components/1", "/applinks/details/0/components/0"])
    Self.expectHonestExamples(comparison, old, new)
  }

  /// A rule moved past a narrower one it covers: the URLs that change are instances of the narrower rule, which
  /// kept its place. Every pair of eight rules (four patterns, each as a match and as an exclusion), swapped: when
  /// a URL's verdict changes, the files are not called equivalent, and the example is one that changes (8 of the 56
  /// swaps were called equivalent when only the moved rule was sampled).
  @Test func aRuleMovedPastANarrowerOneIsAChange() throws {
    let patterns = ["/buy/*", "/buy/gift/*", "/*", "/help/*"]
    let rules = patterns.flatMap { [#"{"/": "\#($0)"}"#, #"{"/": "\#($0)", "exclude": true}"#] }
    let probes = ["/", "/x", "/buy", "/buy/", "/buy/x", "/buy/gift/", "/buy/gift/x", "/help/x", "/helpx"].map {
      "https://example.com" + $0
    }
    var changed = 0
    for first in rules.indices {
      for second in rules.indices where second != first {
        let old = Self.details(#""components": [\#(rules[first]), \#(rules[second])]"#)
        let new = Self.details(#""components": [\#(rules[second]), \#(rules[first])]"#)
        let comparison = AASAComparison(old: old, new: new)
        let (before, after) = (old.matcher(appID: Self.app), new.matcher(appID: Self.app))
        let differs = probes.contains { before.verdict(for: $0).verdict != after.verdict(for: $0).verdict }
        if differs {
          changed += 1
          #expect(!comparison.equivalent, "\(rules[first]) ⇄ \(rules[second])")
          #expect(comparison.changes.first?.example != nil, "\(rules[first]) ⇄ \(rules[second])")
        }
        Self.expectHonestExamples(comparison, old, new)
      }
    }
    #expect(changed >= 16, "\(changed) swaps change a verdict")
    // The helper's case, from the files `refresh` compared: `/buy/*` starts opening the app.
    let old = Self.details(#""components": [{"/": "/*", "exclude": true}, {"/": "/buy/*"}]"#)
    let new = Self.details(#""components": [{"/": "/buy/*"}, {"/": "/*", "exclude": true}]"#)
    let change = try #require(AASAComparison(old: old, new: new).changes.first)
    #expect(change.kind == .rulesReordered && change.oldVerdict == .exclude && change.newVerdict == .match)
    #expect(change.example?.hasPrefix("https://example.com/buy/") == true, "\(change)")
  }

  @Test func appsAddedOrRemovedFromASection() throws {
    let old = Self.details(#""components": [{"/": "/buy/*"}]"#)
    let new = Self.details(#""components": [{"/": "/buy/*"}]"#, apps: [Self.app, Self.other])
    let comparison = AASAComparison(old: old, new: new)
    #expect(comparison.changes.map(\.kind) == [.appAdded])
    #expect(comparison.changes.first?.appId == Self.other)
    #expect(comparison.changes.first?.newVerdict == .match)
    Self.expectHonestExamples(comparison, old, new)
    #expect(AASAComparison(old: new, new: old).changes.map(\.kind) == [.appRemoved])
    // Only the app asked for.
    #expect(AASAComparison(old: old, new: new, appIDs: [Self.app]).equivalent)
  }

  @Test func variablesAreInstantiatedToFindExamples() throws {
    let old = Self.file(
      #""substitutionVariables": {"c": ["spring", "summer"]}, "details": [{"appIDs": ["\#(Self.app)"], "components": [{"/": "/promo/$(c)/*"}]}]"#
    )
    let new = Self.file(
      #""substitutionVariables": {"c": ["spring"]}, "details": [{"appIDs": ["\#(Self.app)"], "components": [{"/": "/promo/$(c)/*"}]}]"#
    )
    let comparison = AASAComparison(old: old, new: new)
    let change = try #require(comparison.changes.first)
    #expect(change.example?.contains("summer") == true, "\(change)")
    Self.expectHonestExamples(comparison, old, new)
  }

  /// The apps one entry lists share its rules, so the entry is compared once: each app is told exactly the changes
  /// it would be told compared alone, and an app whose own entry did not change is told none.
  @Test func appsOfOneEntryAreToldItsChangesOnce() {
    let apps = (1...3).map { "ABCDE12345.com.example.app\($0)" }
    let ids = apps.map { "\"\($0)\"" }.joined(separator: ", ")
    func version(_ rule: String) -> AASAFile {
      Self.file(
        #""details": [{"appIDs": [\#(ids)], "components": [{"/": "\#(rule)"}, {"/": "/help/*", "?": {"a": "1"}}]}, "#
          + #"{"appIDs": ["\#(Self.other)"], "components": [{"/": "/other/*"}]}]"#)
    }
    let (old, new) = (version("/buy/*"), version("/shop/*"))
    let comparison = AASAComparison(old: old, new: new)
    #expect(Set(comparison.changes.map(\.appId)) == Set(apps), "\(comparison.changes)")
    for app in apps {
      let alone = AASAComparison(old: old, new: new, appIDs: [app]).changes
      #expect(comparison.changes.filter { $0.appId == app } == alone && !alone.isEmpty, "\(app)")
    }
    #expect(comparison.shared.count == AASAComparison(old: old, new: new, appIDs: [apps[0]]).changes.count)
    #expect(comparison.shared.allSatisfy { $0.appIds == apps })
  }

  /// Thousands of rules: disjoint rules reversed are no change, and when every rule changed each change is told,
  /// the first ``exampleBudget`` of them with an example, the rest without one rather than at quadratic cost.
  @Test func thousandsOfRulesStayCheap() {
    func rules(_ n: Int, _ prefix: String) -> [String] { (0..<n).map { #"{"/": "/\#(prefix)\#($0)/*"}"# } }
    let forward = Self.details(#""components": [\#(rules(2_000, "a").joined(separator: ","))]"#)
    let reversed = Self.details(#""components": [\#(rules(2_000, "a").reversed().joined(separator: ","))]"#)
    #expect(AASAComparison(old: forward, new: reversed).equivalent)
    // Past the search's budget a reordering cannot be ruled out: it is told, without an example, rather than called
    // equivalent unchecked.
    let many = Self.details(#""components": [\#(rules(3_500, "a").joined(separator: ","))]"#)
    let manyReversed = Self.details(#""components": [\#(rules(3_500, "a").reversed().joined(separator: ","))]"#)
    let unchecked = AASAComparison(old: many, new: manyReversed).changes
    #expect(unchecked.map(\.kind) == [.rulesReordered] && unchecked.first?.example == nil, "\(unchecked.count)")
    let edited = Self.details(#""components": [\#(rules(2_000, "b").joined(separator: ","))]"#)
    let comparison = AASAComparison(old: forward, new: edited)
    #expect(comparison.changes.count == 2_000)
    #expect(comparison.changes.allSatisfy { $0.kind == .ruleChanged })
    #expect(comparison.changes.filter { $0.example != nil }.count == 1_000)
    Self.expectHonestExamples(comparison, forward, edited)
  }
}
