import Testing

@testable import UniversalLinks

/// Where a value stops fitting a pattern, for `match --explain`: checked against the matcher, so a reason is only
/// given for a value the pattern really does not match.
@Suite struct PatternDivergenceTests {
  typealias Piece = LinkRuntime.Piece
  static let digits = Piece.choice((0...9).map { [.literal(String($0))] })

  @Test func theReasonNamesWhereTheValueGoesWrong() {
    let pattern: [Piece] = [.literal("/p/"), Self.digits, .star, .literal("/")]
    #expect(PatternDivergence.progress(pattern, "/p/x/") == (prefix: 3, complete: false, cut: false))
    #expect(PatternDivergence.reason(pattern, "/p/x/") == #"after "/p/" the pattern needs one of "0"–"9", not "x/""#)
    #expect(PatternDivergence.reason(pattern, "/p/12/") == nil)
    #expect(PatternDivergence.progress(pattern, "/p/12/") == (prefix: 6, complete: true, cut: false))
    let buy: [Piece] = [.literal("/buy/"), .star]
    #expect(PatternDivergence.reason(buy, "/sell/") == #"after "/" the pattern needs "buy/", not "sell/""#)
    #expect(PatternDivergence.reason(buy, "/bu") == #"it ends after "/bu", where the pattern needs "y/" next"#)
    #expect(PatternDivergence.reason([.any, .star], "") == "it is empty, and the pattern needs a character")
    #expect(
      PatternDivergence.reason([.literal("a"), .choice([[.literal("x")], [.literal("y")], [.literal("q")]])], "az")
        == #"after "a" the pattern needs one of "q", "x", "y", not "z""#)
  }

  /// A hostile pattern (`*?` 2,000 times, then `x`) over a 4,000-character value stops at the budget and says so:
  /// `match --explain` took 83 s on three such rules, where `match` took 0.04 s.
  @Test func aWalkPastTheBudgetIsCutShortAndSaysSo() {
    let pattern: [Piece] = Array(repeating: [Piece.star, .any], count: 2_000).flatMap { $0 } + [.literal("x")]
    let value = String(repeating: "a", count: 4_000)
    let walked = PatternDivergence.progress(pattern, value)
    #expect(walked.cut && !walked.complete)
    #expect(PatternDivergence.reason(pattern, value) == "the pattern and the value are too long to say where they part")
  }

  /// Every reason agrees with the matcher: a value gets one exactly when the compiled pattern rejects it.
  @Test func aReasonIsGivenExactlyWhenTheMatcherSaysNo() {
    let patterns: [[Piece]] = [
      [.literal("/p/"), Self.digits, .star, .literal("/")],
      [.literal("/a/"), .any, .literal("/c/")],
      [.star, .literal(".html/")],
      [.literal("/"), .choice([[.literal("en")], [.literal("en-us")], [.literal("e"), .star]]), .literal("/x/")],
    ]
    let values = ["/p/1/", "/p/x/", "/a/b/c/", "/a/bb/c/", "/x.html/", "/x.htm/", "/en/x/", "/en-us/x/", "/eq/x/", "/"]
    for pieces in patterns {
      let rule = LinkRuntime.Rule(pointer: "", exclude: false, caseSensitive: true, percentEncoded: true, path: pieces)
      let program = LinkRuntime.RuleProgram(rules: [rule])
      for value in values {
        let url = UniversalLinkURL(string: "https://example.com" + value)!
        let matches = program.firstMatch(url) != nil
        #expect(PatternDivergence.progress(pieces, value).complete == matches, "\(pieces) \(value)")
        #expect((PatternDivergence.reason(pieces, value) == nil) == matches, "\(pieces) \(value)")
      }
    }
  }
}
