import Testing
import UniversalLinks

/// `match --explain`'s library side: the trace of a decision.
struct MatchExplanationTests {
  static let app = "ABCDE12345.com.example.app"

  static func matcher(_ components: String, defaults: String = "") -> AASAMatcher {
    let json = """
      {"applinks": {\(defaults)"details": [{"appIDs": ["\(app)"], "components": \(components)}]}}
      """
    return try! AASAFile(json: json).matcher(appID: app)
  }

  @Test func namesTheFailingQueryItemAndWhyItCannotMatch() throws {
    let matcher = Self.matcher(##"[{"/": "/help/*", "?": {"articleNumber": "????"}}]"##)
    let explanation = matcher.explain("https://example.com/help/1?articleNumber=481")
    #expect(explanation.result.verdict == .noMatch)
    #expect(explanation.steps.count == 1)
    let step = try #require(explanation.steps.first)
    #expect(step.pointer == "/applinks/details/0/components/0")
    #expect(step.failed == ["?"])
    #expect(step.keys.count == 2)
    #expect(
      step.keys[0]
        == .init(
          key: "/", pattern: "/help/*", value: "/help/1/", matched: true, written: "/help/1",
          adjustments: ["a trailing / is implied"]))
    #expect(
      step.keys[1]
        == .init(
          key: "?", item: "articleNumber", pattern: "????", value: "481", matched: false,
          shortfall: "needs exactly 4 characters, has 3", reason: "needs exactly 4 characters, has 3"))
    #expect(explanation.closest == 0)
  }

  @Test func listsEveryRuleTriedUpToTheDecidingOne() {
    let matcher = Self.matcher(
      ##"[{"/": "/buy/gift/*", "exclude": true}, {"/": "/buy/*", "#": "x"}, {"/": "/buy/*"}, {"/": "/never/*"}]"##)
    let explanation = matcher.explain("https://example.com/buy/1")
    #expect(explanation.result.verdict == .match)
    #expect(explanation.steps.map(\.pointer) == (0...2).map { "/applinks/details/0/components/\($0)" })
    #expect(explanation.steps.map(\.failed) == [["/"], ["#"], []])
    #expect(explanation.closest == nil)
    // The deciding step is the verdict's rule.
    #expect(explanation.steps.last?.pointer == explanation.result.rule?.pointer)
  }

  @Test func valuesAreShownAsCompared() throws {
    let matcher = Self.matcher(##"[{"/": "/café/*", "caseSensitive": false, "percentEncoded": false}]"##)
    let explanation = matcher.explain("https://example.com/CAF%C3%89/x?Q=1")
    #expect(explanation.result.verdict == .match)
    #expect(explanation.steps.first?.keys.first?.value == "/café/x/")
  }

  @Test func closestIsTheRuleThatFailedLeast() {
    let matcher = Self.matcher(
      ##"[{"/": "/a/*", "?": "x=1", "#": "f"}, {"/": "/b/*", "#": "g"}, {"/": "/b/*", "?": "y=2", "#": "h"}]"##)
    let explanation = matcher.explain("https://example.com/b/1?y=2#z")
    #expect(explanation.result.verdict == .noMatch)
    #expect(explanation.steps.count == 3)
    #expect(explanation.steps.map(\.failed) == [["/", "?", "#"], ["#"], ["#"]])
    // Both later rules fail only `#`; the third also matched `?`, so it is closer.
    #expect(explanation.closest == 2)
  }

  @Test func aVerdictFromOutsideTheRulesHasNoSteps() {
    let matcher = Self.matcher(##"[{"/": "/*"}]"##)
    #expect(matcher.explain("https://example.com/x", domain: "other.example").result.reason == .hostMismatch)
    #expect(matcher.explain("https://example.com/x", domain: "other.example").steps.isEmpty)
    #expect(matcher.explain("not a url").result.reason == .invalidURL)
    let unlisted = try! AASAFile(json: #"{"applinks": {"details": []}}"#).matcher(appID: Self.app)
    #expect(unlisted.explain("https://example.com/x").result.reason == .appNotListed)
    #expect(unlisted.explain("https://example.com/x").steps.isEmpty)
  }

  @Test func theTraceAgreesWithTheVerdictOnEveryRuleTable() {
    // Whatever the rules, the trace ends at the verdict's rule, or tries every rule when nothing matched.
    let matcher = Self.matcher(
      ##"[{"/": "/p/$(digit)*", "?": {"ref": "?*"}}, {"/": "*.pdf", "exclude": true}, {"/": "/$(lang)/*"}, {"#": "a*"}]"##
    )
    for url in [
      "https://e.com/p/1?ref=x", "https://e.com/p/x?ref=1", "https://e.com/a.pdf", "https://e.com/en/x",
      "https://e.com/zz/x", "https://e.com/x#abc", "https://e.com/x#b", "https://e.com/p/1",
    ] {
      let explanation = matcher.explain(url)
      let verdict = matcher.verdict(for: url)
      #expect(explanation.result == verdict, "\(url)")
      if verdict.verdict == .noMatch {
        #expect(explanation.steps.count == 4, "\(url)")
        #expect(explanation.steps.allSatisfy { !$0.failed.isEmpty }, "\(url)")
      } else {
        #expect(explanation.steps.last?.pointer == verdict.rule?.pointer, "\(url)")
        #expect(explanation.steps.last?.failed == [], "\(url)")
        #expect(explanation.steps.dropLast().allSatisfy { !$0.failed.isEmpty }, "\(url)")
      }
    }
  }
}
