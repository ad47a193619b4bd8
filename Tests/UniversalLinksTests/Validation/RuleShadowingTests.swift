import Testing

@testable import UniversalLinks

/// `shadowed-rule`: an earlier rule that decides every URL a later one matches. Every claim is checked by URLs made
/// from the later rule and decided by the matcher; known cases check that real shadowing is found.
@Suite struct RuleShadowingTests {
  typealias Piece = LinkRuntime.Piece

  /// The prepared rules of one `details` entry whose components are `components`.
  static func rules(_ components: String) throws -> [LinkRuntime.Rule] {
    let file = try AASAFile(
      json: #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": \#(components)}]}}"#)
    return file.matcher(appID: "ABCDE12345.com.example.app").program.rules
  }

  static func shadows(_ components: String) throws -> Bool {
    let rules = try rules(components)
    var checker = RuleShadowing(rules)
    return checker.shadows(0, 1)
  }

  @Test func knownCasesAreFoundAndNothingElseIsClaimed() throws {
    let cases: [(String, Bool)] = [
      (#"[{"/": "/buy/*"}, {"/": "/buy/gift/*", "exclude": true}]"#, true),
      (#"[{"/": "/buy/gift/*"}, {"/": "/buy/*"}]"#, false),
      // ?* and *? both say "one character or more".
      (#"[{"/": "?*"}, {"/": "*?"}]"#, true),
      (#"[{"/": "/a/*"}, {"/": "/a/$(digit)*"}]"#, true),
      (#"[{"/": "/a/$(digit)*"}, {"/": "/a/*"}]"#, false),
      // A query the earlier rule asks for must be asked at least as strictly by the later one.
      (#"[{"/": "/p/*", "?": {"ref": "?*"}}, {"/": "/p/1", "?": {"ref": "a?"}}]"#, true),
      (#"[{"/": "/p/*", "?": {"ref": "?*"}}, {"/": "/p/1"}]"#, false),
      (##"[{"/": "/p/*"}, {"/": "/p/1", "#": "x"}]"##, true),
      (##"[{"/": "/p/*", "#": "x"}, {"/": "/p/1"}]"##, false),
      // Case: an insensitive rule covers a sensitive one; not the other way round.
      (#"[{"/": "/Buy/*", "caseSensitive": false}, {"/": "/BUY/x"}]"#, true),
      (#"[{"/": "/buy/*"}, {"/": "/buy/x", "caseSensitive": false}]"#, false),
      (#"[{"/": "/buy/*", "percentEncoded": false}, {"/": "/buy/x"}]"#, false),
      // Nor with query items: folded, `x=1&X=2` is two occurrences of `x` to the earlier rule, one to the later,
      // which then decides (it was claimed, and `match` gave the later exclude).
      (
        #"[{"/": "/a/*", "?": {"x": "1"}, "caseSensitive": false}, {"/": "/a/*", "?": {"x": "1"}, "exclude": true}]"#,
        false
      ),
      (#"[{"/": "/a/*", "?": {"x": "1"}}, {"/": "/a/*", "?": {"x": "1"}, "exclude": true}]"#, true),
    ]
    for (components, expected) in cases {
      #expect(try Self.shadows(components) == expected, "\(components)")
    }
  }

  typealias SplitMix = PatternEngineTests.SplitMix

  /// A random path pattern over a small alphabet, so that inclusions happen often.
  static func pattern(_ random: inout SplitMix) -> String {
    let parts = ["/", "a", "b", "*", "?", "$(digit)", "ab", "/a"]
    return "/" + (0..<Int.random(in: 1...4, using: &random)).map { _ in parts.randomElement(using: &random)! }.joined()
  }

  /// A string the pieces match, made at random.
  static func sample(_ pieces: [Piece], _ random: inout SplitMix) -> String {
    var out = ""
    for piece in pieces {
      switch piece {
      case .literal(let text): out += text
      case .any: out += ["a", "b", "1", "/", "z"].randomElement(using: &random)!
      case .star:
        out += (0..<Int.random(in: 0...3, using: &random)).map { _ in
          ["a", "b", "1", "/", "z"].randomElement(using: &random)!
        }
        .joined()
      case .choice(let alternatives): out += sample(alternatives.randomElement(using: &random) ?? [], &random)
      }
    }
    return out
  }

  /// Every claim, checked: strings made from the later rule, and the URLs `aasa diff` samples from it, are decided
  /// by the earlier rule too whenever the later one matches them.
  @Test func everyClaimHoldsForURLsMadeFromTheLaterRule() throws {
    var random = SplitMix(state: 42)
    var claims = 0
    for _ in 0..<600 {
      let components = #"[{"/": "\#(Self.pattern(&random))"}, {"/": "\#(Self.pattern(&random))"}]"#
      let rules = try Self.rules(components)
      var checker = RuleShadowing(rules)
      guard checker.shadows(0, 1) else { continue }
      claims += 1
      let earlier = LinkRuntime.RuleProgram(rules: [rules[0]])
      let later = LinkRuntime.RuleProgram(rules: [rules[1]])
      var urls = URLSampler.urls(for: rules[1], host: "example.com")
      for _ in 0..<40 {
        if let url = UniversalLinkURL(string: "https://example.com" + Self.sample(rules[1].path ?? [], &random)) {
          urls.append(url)
        }
      }
      for url in urls where later.firstMatch(url) != nil {
        #expect(earlier.firstMatch(url) != nil, "\(components): \(url.absoluteString)")
      }
    }
    // The generator makes enough inclusions for the check to mean something.
    #expect(claims > 40, "\(claims) claims")
  }
}
