import Testing

@testable import UniversalLinks

/// The table merges the rules of every app on a host into one index. On random tables (shared hosts, wildcards
/// over them, exact entries that override a wildcard) and random URLs, it must give exactly what asking each
/// app in turn gives: the entry that governs the host, then that entry's rules in order.
struct HostGroupTests {
  static let hosts = ["example.com", "shop.example.com", "a.shop.example.com"]
  static let urlHosts = hosts + ["b.shop.example.com", "x.a.shop.example.com", "other.example", "example.community"]

  /// Each app asked in turn, its rules tried in order, none skipped.
  static func reference(_ table: LinkRuntime.Table, _ url: UniversalLinkURL) -> [LinkRuntime.Table.Decision] {
    table.apps.compactMap { app in
      guard let scope = app.scope(for: url.host),
        let rule = PrefixIndexTests.linearFirstMatch(scope.program, url)
      else { return nil }
      let matched = scope.program.rules[rule]
      return .init(verdict: matched.exclude ? .exclude : .match, appID: app.appID, pointer: matched.pointer)
    }
  }

  @Test(arguments: [nil, 0, 40])
  func mergedIndexesDecideAsEachAppInTurn(budget: Int?) throws {
    var rng = PatternEngineTests.SplitMix(state: 11 + UInt64(budget ?? 0))
    var opened = 0
    var merged = 0
    var contested = 0
    for _ in 0..<40 {
      let apps = try (0..<Int.random(in: 2...12, using: &rng)).map { k in
        let scopes = try (0..<Int.random(in: 1...3, using: &rng)).map { _ in
          LinkRuntime.Table.Scope(
            host: Self.hosts.randomElement(using: &rng)!, wildcard: Bool.random(using: &rng),
            program: try PrefixIndexTests.randomProgram(&rng).program)
        }
        return LinkRuntime.Table.App(appID: "T.app\(k)", scopes: scopes)
      }
      let table = LinkRuntime.Table(apps: apps, mergeBudget: budget)
      for host in Self.urlHosts { merged += table.group(for: host)?.index == nil ? 0 : 1 }
      for _ in 0..<80 {
        let text = "https://" + Self.urlHosts.randomElement(using: &rng)! + PrefixIndexTests.randomURLTail(&rng)
        let url = try #require(UniversalLinkURL(string: text))
        let expected = Self.reference(table, url)
        #expect(table.decisions(url) == expected, "\(text)")
        // The first app that opens it, else the first that excludes it.
        let decision = expected.first { $0.verdict == .match } ?? expected.first ?? .init(verdict: .noMatch)
        #expect(table.decide(url) == decision, "\(text)")
        if decision.verdict == .match { opened += 1 }
        if expected.count > 1 { contested += 1 }
      }
    }
    // The comparison means something only if URLs open apps, several apps decide some URLs, and the merged
    // indexes are used (or, with no budget, never built).
    #expect(opened > 300, "\(opened)")
    #expect(contested > 200, "\(contested)")
    if budget == 0 { #expect(merged == 0) } else { #expect(merged > 40, "\(merged)") }
  }

  /// An exact entry for a host beats the app's wildcard over it, and a wildcard does not cover its own apex.
  @Test func groupsFollowEachAppsGoverningEntry() throws {
    let any = LinkRuntime.RuleProgram(rules: [LinkRuntime.Rule(pointer: "/any", path: [.star])])
    let none = LinkRuntime.RuleProgram(rules: [LinkRuntime.Rule(pointer: "/none", path: [.literal("/never/")])])
    let table = LinkRuntime.Table(apps: [
      .init(
        appID: "A",
        scopes: [
          .init(host: "example.com", wildcard: true, program: any),
          .init(host: "shop.example.com", wildcard: false, program: none),
        ]),
      .init(appID: "B", scopes: [.init(host: "shop.example.com", wildcard: true, program: any)]),
    ])
    let shop = try #require(UniversalLinkURL(string: "https://shop.example.com/x"))
    #expect(table.decisions(shop).map(\.appID) == [])
    let below = try #require(UniversalLinkURL(string: "https://a.shop.example.com/x"))
    #expect(table.decisions(below).map(\.appID) == ["A", "B"])
    let apex = try #require(UniversalLinkURL(string: "https://example.com/x"))
    #expect(table.decisions(apex).isEmpty)
    let other = try #require(UniversalLinkURL(string: "https://www.example.com/x"))
    #expect(table.decisions(other).map(\.appID) == ["A"])
  }
}
