import Testing

@testable import UniversalLinks

/// The prefix index only narrows which rules are tried: on random rule lists and random URLs, the indexed program
/// must pick exactly the rule a plain in-order scan of every rule picks.
struct PrefixIndexTests {
  static let app = "ABCDE12345.com.example.app"

  /// Every rule tried in order, none skipped: the reference the index must agree with.
  static func linearFirstMatch(_ program: LinkRuntime.RuleProgram, _ url: UniversalLinkURL) -> Int? {
    var subject = LinkRuntime.Subject(url)
    for (i, rule) in program.compiled.enumerated() where !rule.neverMatches {
      if rule.matches(subject.reading(rule.readingSlot)) { return i }
    }
    return nil
  }

  /// The program for ``app`` of a file whose one `details` entry has `components` (JSON objects).
  static func program(_ components: [String]) throws -> LinkRuntime.RuleProgram {
    let file = try AASAFile(
      json:
        #"{"applinks": {"details": [{"appIDs": ["\#(app)"], "components": [\#(components.joined(separator: ", "))]}]}}"#
    )
    return LinkRuntime.RuleProgram(rules: AppLinkRules(file: file, appID: app).runtimeRules(keepingNever: true))
  }

  /// A random file of 1 to 12 rules over a small alphabet, with variables whose values begin one another (`a`,
  /// `ab`), hold a slash, or differ only in case; and its program for ``app``.
  static func randomProgram(_ rng: inout PatternEngineTests.SplitMix) throws -> (
    json: String, program: LinkRuntime.RuleProgram
  ) {
    let variables = #""substitutionVariables": {"v": ["a", "ab", "b/a"], "w": ["A", "a", "%41"], "e": []}"#
    let pieces = ["/", "a", "b", "A", "%41", "?", "*", "$(v)", "$(w)", "$(digit)", "$(e)", "//", "1"]
    let components = (0..<Int.random(in: 1...12, using: &rng)).map { _ -> String in
      var keys: [String] = []
      if Int.random(in: 0..<6, using: &rng) > 0 {
        let path = (0..<Int.random(in: 0...5, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()
        keys.append(#""/": "\#(path)""#)
      }
      if Int.random(in: 0..<5, using: &rng) == 0 {
        keys.append(#""?": {"q": "\#(["a", "*", "?"].randomElement(using: &rng)!)"}"#)
      }
      if Int.random(in: 0..<6, using: &rng) == 0 { keys.append(##""#": "a*""##) }
      if Bool.random(using: &rng) { keys.append(#""caseSensitive": false"#) }
      if Int.random(in: 0..<3, using: &rng) == 0 { keys.append(#""percentEncoded": false"#) }
      if Int.random(in: 0..<4, using: &rng) == 0 { keys.append(#""exclude": true"#) }
      return "{" + keys.joined(separator: ", ") + "}"
    }
    let json =
      #"{"applinks": {\#(variables), "details": [{"appIDs": ["\#(Self.app)"], "components": [\#(components.joined(separator: ", "))]}]}}"#
    let file = try AASAFile(json: json)
    return (
      json, LinkRuntime.RuleProgram(rules: AppLinkRules(file: file, appID: Self.app).runtimeRules(keepingNever: true))
    )
  }

  /// A random path, query and fragment over the alphabet of ``randomProgram(_:)``.
  static func randomURLTail(_ rng: inout PatternEngineTests.SplitMix) -> String {
    let path = (0..<Int.random(in: 0...6, using: &rng)).map { _ in
      ["/", "a", "b", "A", "%41", "1", "//"].randomElement(using: &rng)!
    }.joined()
    let query = ["", "?q=a", "?q=b", "?Q=A"].randomElement(using: &rng)!
    let fragment = ["", "#a", "#ab"].randomElement(using: &rng)!
    return path + query + fragment
  }

  @Test func indexedAndLinearScansPickTheSameRule() throws {
    var rng = PatternEngineTests.SplitMix(state: 7)
    var decided = 0
    var outcomes = Set<String>()
    for _ in 0..<150 {
      let (json, program) = try Self.randomProgram(&rng)
      for _ in 0..<60 {
        let url = try #require(UniversalLinkURL(string: "https://example.com" + Self.randomURLTail(&rng)))
        let indexed = program.firstMatch(url)
        #expect(indexed == Self.linearFirstMatch(program, url), "\(url.absoluteString) in \(json)")
        if let indexed { outcomes.insert(program.rules[indexed].pointer) }
        if indexed != nil { decided += 1 }
      }
    }
    // The generator must reach both outcomes and many different deciding rules for the comparison to mean much.
    #expect(decided > 1_500 && decided < 8_000, "\(decided)")
    #expect(outcomes.count >= 10)
  }

  /// A hostile file of variables cannot make the index much bigger than its rules: past the budget, rules are
  /// indexed by their start before the variable, and every verdict is still the in-order scan's.
  @Test func variablesCannotBlowTheIndexUp() throws {
    let values = (0..<200).map { "\"v\($0)\"" }.joined(separator: ", ")
    let components = (0..<3_000).map { #"{"/": "/$(v)/r\#($0)/*"}"# }.joined(separator: ", ")
    let file = try AASAFile(
      json:
        #"{"applinks": {"substitutionVariables": {"v": [\#(values)]}, "details": [{"appIDs": ["\#(Self.app)"], "components": [\#(components)]}]}}"#
    )
    let program = LinkRuntime.RuleProgram(
      rules: AppLinkRules(file: file, appID: Self.app).runtimeRules(keepingNever: true))
    let index = try #require(program.index.shapes.first)
    #expect(index.starts <= 16 * 3_000 + 256, "\(index.starts) starts")
    #expect(index.starts > 10_000, "the budget is used, not skipped")
    for path in ["/v7/r0/x", "/v199/r2999/x", "/v3/r1500/", "/w/r1/x", "/v7/r3000/x"] {
      let url = try #require(UniversalLinkURL(string: "https://example.com" + path))
      #expect(program.firstMatch(url) == Self.linearFirstMatch(program, url), "\(path)")
    }
    #expect(program.firstMatch(UniversalLinkURL(string: "https://example.com/v199/r2999/x")!) == 2_999)
  }

  /// A path-only glob is matched from its index record, unless its program is too long for the record: then it is
  /// matched from its rule's filter, with the same verdicts.
  @Test func aGlobTooLongForItsRecordIsStillMatched() throws {
    let long = "/" + String(repeating: "ab", count: 40_000)
    let program = LinkRuntime.RuleProgram(rules: [
      LinkRuntime.Rule(pointer: "/0", path: [.literal(long), .star]),
      LinkRuntime.Rule(pointer: "/1", path: [.literal("/short/"), .star]),
    ])
    #expect(program.filters[0].arenaCount > Int(UInt16.max), "the first glob is too long for a record")
    #expect(program.filters[1].arenaCount > 0, "the second is in the arena too")
    for (path, expected) in [(long + "/x", 0), (long, 0), (String(long.dropLast()) + "x", nil), ("/short/x", 1)] {
      let url = try #require(UniversalLinkURL(string: "https://example.com" + path))
      #expect(program.firstMatch(url) == expected, "\(path.suffix(12))")
      #expect(program.firstMatch(url) == Self.linearFirstMatch(program, url))
    }
  }

  /// Rules with no literal start are listed under one character pair they require, not tried for every URL; a URL
  /// whose path holds pairs of several lists still gets the first matching rule, across lists, in rule order.
  @Test func rulesWithoutAStartAreListedByARequiredPair() throws {
    // `*/tN/*.html` for N in 0..<300, then a catch-all: the first rule whose number the path holds decides.
    let components = (0..<300).map { #"{"/": "*/t\#($0)/*.html"}"# } + [#"{"/": "*"}"#]
    let program = try Self.program(components)
    let index = try #require(program.index.shapes.first)
    #expect(index.always.count == 1, "only the catch-all requires no pair")
    #expect(index.pairBits.nonzeroBitCount > 16, "the rules are spread over many pairs")
    let largest = (0..<64).map { index.pairBounds[$0 + 1] - index.pairBounds[$0] }.max() ?? 0
    #expect(largest < 150, "no list holds most rules: \(largest)")
    for path in [
      "/en/t7/a.html", "/t299/x/t12/b.html", "/a/t150/t3/c.html", "/t7/a.htm", "/T7/a.html", "/", "/t300/a.html",
    ] {
      let url = try #require(UniversalLinkURL(string: "https://example.com" + path))
      #expect(program.firstMatch(url) == Self.linearFirstMatch(program, url), "\(path)")
    }
    // Only the lists of the pairs the path holds are read (14 of the 301 rules): a pair's list read past its end
    // would only add candidates, which no verdict shows, so the count is checked.
    let listed = try Self.listedUnderPairs(program, "/en/t7/a.html")
    #expect(listed > 0 && listed <= 20, "\(listed) rules listed under the pairs of the path")
    // With few lists, only their bounds are kept; a path still reads only the lists of its own pairs.
    let few = try Self.program([#"{"/": "*/ab/*"}"#, #"{"/": "*/cd/*"}"#, #"{"/": "*/ef/*"}"#])
    #expect(try #require(few.index.shapes.first).pairBits.nonzeroBitCount == 3)
    #expect(try Self.listedUnderPairs(few, "/x/cd/y") == 1)
    #expect(try Self.listedUnderPairs(few, "/ab/ef/") == 2)
    // `/t299/x/t12/b.html` holds rule 12's `/t12/` and rule 299's `/t299/`: the earlier rule decides.
    #expect(program.firstMatch(UniversalLinkURL(string: "https://example.com/t299/x/t12/b.html")!) == 12)
    #expect(program.firstMatch(UniversalLinkURL(string: "https://example.com/t300/a.html")!) == 300)
  }

  /// How many rules the reading-0 index of `program` lists under the pairs `path` holds (ranges as given, before
  /// any filter).
  static func listedUnderPairs(_ program: LinkRuntime.RuleProgram, _ path: String) throws -> Int {
    var subject = LinkRuntime.Subject(try #require(UniversalLinkURL(string: "https://example.com" + path)))
    let text = subject.path(0)
    return program.index.words.withUnsafeBufferPointer { words in
      text.withScalars { scalars in
        var count = 0
        LinkRuntime.PrefixIndex.candidates(words, at: Int(words[0]), scalars, pathPairs: text.pairs) {
          count += $0.count
        }
        return count
      }
    }
  }

  /// `/$(lang)/…` has too many starts to list, so its start stops at `/`, which every path begins with: such rules
  /// are listed by a pair, as rules with no start are, and not tried for every URL.
  @Test func aStartOfOnlyASlashIsListedByAPair() throws {
    let components = (0..<60).map { #"{"/": "/$(lang)/c\#($0)/*"}"# } + [#"{"/": "/s/*"}"#]
    let program = try Self.program(components)
    let index = try #require(program.index.shapes.first)
    #expect(index.always.isEmpty, "no rule is tried for every URL")
    #expect(index.starts == 1, "only `/s/` is a start: \(index.starts)")
    #expect(index.pairBounds[64] - index.pairBounds[0] == 60, "the 60 `$(lang)` rules are listed by pairs")
    for path in ["/fr/c7/x", "/en/c59/", "/zza/c12/a", "/xx/c7/x", "/fr/c60/x", "/s/c7/", "/", "/FR/c3/a"] {
      let url = try #require(UniversalLinkURL(string: "https://example.com" + path))
      #expect(program.firstMatch(url) == Self.linearFirstMatch(program, url), "\(path)")
    }
    #expect(program.firstMatch(UniversalLinkURL(string: "https://example.com/en/c59/a")!) == 59)
    #expect(program.firstMatch(UniversalLinkURL(string: "https://example.com/xx/c59/a")!) == nil)
  }

  /// A start that ends with `/` is looked up only where the path has a `/`, and any other start at every length:
  /// both kinds of the same length, in each reading, still find their rules, including a `/` decoded from `%2F`.
  @Test func startsEndingASegmentAreFoundAtSlashesOnly() throws {
    let program = try Self.program([
      #"{"/": "/shop/*"}"#, #"{"/": "/shop*"}"#, #"{"/": "/sh/op/*"}"#, #"{"/": "/ab%2Fc*"}"#,
      #"{"/": "/ab/*", "percentEncoded": false}"#, #"{"/": "/abc*", "caseSensitive": false}"#,
    ])
    for (path, expected) in [
      ("/shop/x", 0), ("/shop", 0), ("/shopping", 1), ("/shop%2Fx", 1), ("/sh/op/x", 2), ("/sh/opx", nil),
      ("/ab%2Fc", 3), ("/ab%2Fx", 4), ("/ab/x", 4), ("/ab", 4), ("/ABC", 5), ("/abcd/", 5), ("/a", nil),
    ] {
      let url = try #require(UniversalLinkURL(string: "https://example.com" + path))
      #expect(program.firstMatch(url) == expected, "\(path)")
      #expect(program.firstMatch(url) == Self.linearFirstMatch(program, url), "\(path)")
    }
  }

  @Test func startsComeFromVariablesAndStayPrefixFree() {
    let starts = LinkRuntime.PrefixIndex.starts(
      [.literal("/"), .choice([[.literal("a")], [.literal("ab")], [.literal("b")]]), .literal("/x"), .star],
      limit: 16)
    // `/a/x` and `/ab/x` are both kept: neither begins the other.
    #expect(starts?.map { String(decoding: $0.map { UInt8($0) }, as: UTF8.self) } == ["/a/x", "/ab/x", "/b/x"])
    let nested = LinkRuntime.PrefixIndex.starts(
      [.literal("/"), .choice([[.literal("a")], [.literal("a/b")]]), .star], limit: 16)
    #expect(nested?.map { String(decoding: $0.map { UInt8($0) }, as: UTF8.self) } == ["/a"])
    // Past the limit, the start stops before the variable; a leading wildcard leaves none.
    let capped = LinkRuntime.PrefixIndex.starts(
      [.literal("/p/"), .choice([[.literal("a")], [.literal("b")]]), .star], limit: 1)
    #expect(capped?.map { String(decoding: $0.map { UInt8($0) }, as: UTF8.self) } == ["/p/"])
    #expect(LinkRuntime.PrefixIndex.starts([.star, .literal("/x/")], limit: 16) == nil)
  }
}

/// The byte-level parser for plain URLs gives the same parts as the general one, and declines what it cannot do.
struct PlainURLParserTests {
  @Test func plainAndGeneralParsersAgree() {
    var rng = PatternEngineTests.SplitMix(state: 11)
    let parts = [
      "https://", "HTTP://", "x-y.z+1://", "Shop.Example.COM", "example.com.", ":8443", "user@", "[::1]", "/", "/a",
      "//", "?", "q=1&r", "#", "#f", "%41", "%4", "%zz", " ", "é", "\"", "<", "|", "`", "{", "@", "[", "^", ".",
    ]
    var plain = 0
    for _ in 0..<20_000 {
      // Mostly a scheme and a host, then anything: the plain parser's cases and the general one's beside them.
      let head =
        Bool.random(using: &rng) ? ["https://", "HTTP://"].randomElement(using: &rng)! + "Shop.Example.COM" : ""
      let text =
        head + (0..<Int.random(in: 1...6, using: &rng)).map { _ in parts.randomElement(using: &rng)! }.joined()
      var copy = text
      let fast = copy.withUTF8 { UniversalLinkURL.parsePlain($0) }
      if let fast {
        plain += 1
        #expect(fast == UniversalLinkURL.parseGeneral(text), "\(text)")
      }
      #expect(UniversalLinkURL(string: text) == (fast ?? UniversalLinkURL.parseGeneral(text)), "\(text)")
    }
    #expect(plain > 1_000, "\(plain)")
  }
}

/// A URL string that the plain parser takes is matched in place, its parts never made into strings: the matcher and
/// the table must decide it exactly as they decide the parsed URL, for every scheme, host and domain spelling.
struct InPlaceURLTests {
  /// A random URL over odd schemes, hosts and tails: plain ones, and some (a space, `é`) only the general parser
  /// takes.
  static func randomURL(_ rng: inout PatternEngineTests.SplitMix) -> String {
    let scheme = ["https://", "HTTP://", "Https://", "ftp://", "", "https:/"].randomElement(using: &rng)!
    let host = [
      "example.com", "EXAMPLE.com", "example.com.", "example.com:8443", "other.com", "k.example.com", "x.example.com",
      "",
    ].randomElement(using: &rng)!
    let odd = ["", "", "", " ", "é", "%zz"].randomElement(using: &rng)!
    return scheme + host + PrefixIndexTests.randomURLTail(&rng) + odd
  }

  @Test func theMatcherDecidesAStringAsTheParsedURL() throws {
    var rng = PatternEngineTests.SplitMix(state: 23)
    // Domains in normal form and not: capitals, a trailing dot, and a Kelvin sign, which lower-cases to `k`.
    let domains: [String?] = [nil, "example.com", "EXAMPLE.COM.", "other.com", "\u{212A}.example.com", "k.example.com"]
    var seen = Set<String>()
    for _ in 0..<150 {
      let (json, _) = try PrefixIndexTests.randomProgram(&rng)
      let matcher = try AASAFile(json: json).matcher(appID: PrefixIndexTests.app)
      for _ in 0..<40 {
        let text = Self.randomURL(&rng)
        let domain = domains.randomElement(using: &rng)!
        let parsed = UniversalLinkURL(string: text).map { matcher.verdict(for: $0, domain: domain) }
        let inPlace = matcher.verdict(for: text, domain: domain)
        #expect(
          inPlace == parsed ?? MatchResult(verdict: .noMatch, reason: .invalidURL), "\(text) on \(domain ?? "nil")")
        seen.insert(inPlace.reason?.rawValue ?? inPlace.verdict.rawValue)
      }
    }
    // Every way out must be reached for the comparison to mean much.
    #expect(
      seen == [
        "match", "exclude", "no-pattern-matched", "host-mismatch", "unsupported-scheme", "invalid-url",
      ], "\(seen)")
  }

  @Test func theTableDecidesAStringAsTheParsedURL() throws {
    var rng = PatternEngineTests.SplitMix(state: 29)
    var decided = 0
    for _ in 0..<60 {
      let programs = try (0..<3).map { _ in try PrefixIndexTests.randomProgram(&rng).program }
      let table = LinkRuntime.Table(apps: [
        .init(appID: "A", scopes: [.init(host: "example.com", wildcard: false, program: programs[0])]),
        .init(appID: "B", scopes: [.init(host: "Example.com", wildcard: false, program: programs[1])]),
        .init(appID: "C", scopes: [.init(host: "example.com", wildcard: true, program: programs[2])]),
      ])
      for _ in 0..<40 {
        let text = Self.randomURL(&rng)
        let url = UniversalLinkURL(string: text)
        #expect(table.decide(text) == url.map(table.decide) ?? .init(verdict: .noMatch), "\(text)")
        let web = url.map { $0.scheme == "https" || $0.scheme == "http" } ?? false
        #expect(table.decisions(text) == (web ? url.map(table.decisions) : nil), "\(text)")
        if table.decisions(text)?.isEmpty == false { decided += 1 }
      }
    }
    #expect(decided > 200, "\(decided)")
  }
}
