import Testing
import UniversalLinks

/// Many apps at once: each app decided on its own entry for the URL's host, found through the host index.
struct LinkTableTests {
  static func program(_ path: String, exclude: Bool = false) -> LinkRuntime.RuleProgram {
    LinkRuntime.RuleProgram(rules: [
      LinkRuntime.Rule(pointer: "/r/\(path)", exclude: exclude, path: [.literal(path), .star])
    ])
  }

  static let table = LinkRuntime.Table(apps: [
    .init(
      appID: "A", scopes: [.init(host: "shop.example.com", wildcard: false, program: program("/buy/", exclude: true))]),
    .init(
      appID: "B",
      scopes: [
        .init(host: "example.com", wildcard: true, program: program("/")),
        .init(host: "deep.example.com", wildcard: true, program: program("/deep/")),
      ]),
    .init(appID: "C", scopes: [.init(host: "other.example", wildcard: false, program: program("/"))]),
    .init(appID: "D", scopes: [.init(host: "Shop.Example.com", wildcard: false, program: program("/buy/"))]),
  ])

  @Test func everyAppThatClaimsTheHostDecides() {
    let url = UniversalLinkURL(string: "https://shop.example.com/buy/1")!
    #expect(
      Self.table.decisions(url) == [
        .init(verdict: .exclude, appID: "A", pointer: "/r//buy/"), .init(verdict: .match, appID: "B", pointer: "/r//"),
        .init(verdict: .match, appID: "D", pointer: "/r//buy/"),
      ])
    // An app that opens it wins over an earlier one that excludes it.
    #expect(Self.table.decide(url) == .init(verdict: .match, appID: "B", pointer: "/r//"))
  }

  @Test func theLongestWildcardGovernsAndTheApexIsNotCovered() {
    #expect(Self.table.decide("https://x.deep.example.com/other") == .init(verdict: .noMatch))
    #expect(Self.table.decide("https://x.deep.example.com/deep/1").appID == "B")
    #expect(Self.table.decisions(UniversalLinkURL(string: "https://example.com/x")!).isEmpty)
    #expect(Self.table.decisions(UniversalLinkURL(string: "https://example.community/x")!).isEmpty)
    #expect(Self.table.decisions(UniversalLinkURL(string: "ftp://other.example/x")!).isEmpty)
    #expect(Self.table.decide("https://other.example/x").appID == "C")
  }

  /// Hosts are found from the URL's bytes, in any case and with a trailing dot; a host that is not ASCII is found
  /// by string, so canonically equivalent spellings are one host, and its parent domains' wildcards still govern.
  @Test func hostsAreFoundInAnyCaseAndSpelling() throws {
    let table = LinkRuntime.Table(apps: [
      .init(appID: "E", scopes: [.init(host: "bücher.example", wildcard: false, program: Self.program("/"))]),
      .init(appID: "F", scopes: [.init(host: "bücher.example", wildcard: true, program: Self.program("/"))]),
      .init(appID: "G", scopes: [.init(host: "example", wildcard: true, program: Self.program("/"))]),
      .init(appID: "H", scopes: [.init(host: "shop.example.com", wildcard: false, program: Self.program("/"))]),
    ])
    let expected: [(String, String?)] = [
      ("https://bücher.example/x", "E"), ("https://BÜCHER.EXAMPLE/x", "E"), ("https://bu\u{308}cher.example/x", "E"),
      ("https://a.bücher.example/x", "F"), ("https://a.b.bücher.example/x", "F"), ("https://ü.other.example/x", "G"),
      ("https://a.example/x", "G"), ("https://example/x", nil), ("https://SHOP.Example.COM./x", "H"),
      ("https://shop.example.com:8443/x", "H"), ("https://a.shop.example.com/x", nil),
      ("https://hop.example.com/x", nil),
    ]
    for (text, app) in expected {
      let url = try #require(UniversalLinkURL(string: text), "\(text)")
      #expect(table.decide(url).appID == app, "\(text)")
      #expect(table.decide(text).appID == app, "\(text) as a string")
    }
  }
}
