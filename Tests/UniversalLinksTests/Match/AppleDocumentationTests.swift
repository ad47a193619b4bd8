import Testing
import UniversalLinks

/// Apple's own examples, from "Supporting associated domains" and the `applinks`, `applinks.Details`,
/// `applinks.Details.Components.Query`, `applinks.SubstitutionVariables` references, plus the legacy
/// "Support Universal Links" `paths` example. Each row names the rule it pins down.
struct AppleDocumentationTests {
  /// "Supporting associated domains" and the `applinks` reference share this file.
  static let supporting = ##"""
    {
      "applinks": {
        "details": [
          {
            "appIDs": [ "ABCDE12345.com.example.app", "ABCDE12345.com.example.app2" ],
            "components": [
              { "#": "no_universal_links", "exclude": true,
                "comment": "Matches any URL with a fragment that equals no_universal_links and instructs the system not to open it as a universal link." },
              { "/": "/buy/*", "comment": "Matches any URL with a path that starts with /buy/." },
              { "/": "/help/website/*", "exclude": true,
                "comment": "Matches any URL with a path that starts with /help/website/ and instructs the system not to open it as a universal link." },
              { "/": "/help/*", "?": { "articleNumber": "????" },
                "comment": "Matches any URL with a path that starts with /help/ and that has a query item with name 'articleNumber' and a value of exactly four characters." }
            ]
          }
        ]
      },
      "webcredentials": { "apps": [ "ABCDE12345.com.example.app" ] },
      "appclips": { "apps": ["ABCDE12345.com.example.MyApp.Clip"] }
    }
    """##

  /// The `applinks.Details` reference example.
  static let details = ##"""
    {"applinks": {"details": [{
      "appIDs": [ "ABCDE12345.com.example.app", "ABCDE12345.com.example.app2" ],
      "components": [
        { "/": "/buy/*", "#": "my_great_product_123",
          "comment": "Matches any URL whose path starts with /buy/ and fragment equals my_great_product_123, ignoring case" }
      ],
      "defaults": { "caseSensitive": false }
    }]}}
    """##

  /// The `applinks.SubstitutionVariables` reference example.
  static let substitution = ##"""
    {"applinks": {
      "substitutionVariables": { "food": [ "burrito", "pizza", "sushi", "samosa" ] },
      "details": [{ "appIDs": [ "ABCDE12345.com.example.app" ],
                    "components": [ { "/" : "/$(lang)_$(region)/$(food)/" } ] }]
    }}
    """##

  /// The `applinks.Details.Components.Query` reference example.
  static let query =
    ##"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"?": { "productID": "12345" }}]}]}}"##

  /// The legacy "Support Universal Links" example (App Search Programming Guide).
  static let legacy = ##"""
    {"applinks": {"apps": [], "details": [
      { "appID": "9JA89QQLNQ.com.apple.wwdc",
        "paths": [ "/wwdc/news/", "NOT /videos/wwdc/2010/*", "/videos/wwdc/201?/*" ] },
      { "appID": "ABCD1234.com.apple.wwdc", "paths": [ "*" ] }
    ]}}
    """##

  static let cases: [MatchCase] = [
    // Supporting associated domains
    MatchCase(
      rule: 1, note: "doc: /buy/* decides", aasa: supporting, url: "https://example.com/buy/42", expected: .match(1)),
    MatchCase(
      rule: 1, note: "doc: second app of the same detail", aasa: supporting, url: "https://example.com/buy/42",
      expected: .match(1), appID: "ABCDE12345.com.example.app2"),
    MatchCase(
      rule: 1, note: "doc: fragment exclude comes first", aasa: supporting,
      url: "https://example.com/buy/42#no_universal_links", expected: .exclude(0)),
    MatchCase(
      rule: 1, note: "doc: fragment exclude on any path", aasa: supporting,
      url: "https://example.com/anything#no_universal_links", expected: .exclude(0)),
    MatchCase(
      rule: 1, note: "doc: /help/website/* excludes before /help/*", aasa: supporting,
      url: "https://example.com/help/website/faq?articleNumber=1234", expected: .exclude(2)),
    MatchCase(
      rule: 1, note: "doc: nothing matches the root", aasa: supporting, url: "https://example.com/", expected: .noMatch),
    MatchCase(
      rule: 1, note: "doc: webcredentials-only app has no links", aasa: supporting, url: "https://example.com/buy/1",
      expected: .noMatch, appID: "ABCDE12345.com.example.MyApp.Clip"),
    MatchCase(
      rule: 5, note: "doc: /buy/* matches /buy", aasa: supporting, url: "https://example.com/buy", expected: .match(1)),
    MatchCase(
      rule: 5, note: "doc: /buy/* does not match /buyer", aasa: supporting, url: "https://example.com/buyer",
      expected: .noMatch),
    MatchCase(
      rule: 5, note: "doc: /help/website/* matches /help/website", aasa: supporting,
      url: "https://example.com/help/website", expected: .exclude(2)),
    MatchCase(
      rule: 8, note: "doc: articleNumber of four characters", aasa: supporting,
      url: "https://example.com/help/1?articleNumber=1234", expected: .match(3)),
    MatchCase(
      rule: 8, note: "doc: articleNumber of three characters", aasa: supporting,
      url: "https://example.com/help/1?articleNumber=123", expected: .noMatch),
    MatchCase(
      rule: 8, note: "doc: articleNumber of five characters", aasa: supporting,
      url: "https://example.com/help/1?articleNumber=12345", expected: .noMatch),
    MatchCase(
      rule: 8, note: "doc: articleNumber absent reads as empty", aasa: supporting, url: "https://example.com/help/1",
      expected: .noMatch),
    MatchCase(
      rule: 8, note: "doc: extra query items are ignored", aasa: supporting,
      url: "https://example.com/help/1?lang=en&articleNumber=abcd", expected: .match(3)),
    MatchCase(
      rule: 8, note: "doc: repeated articleNumber must match each time", aasa: supporting,
      url: "https://example.com/help/1?articleNumber=1234&articleNumber=12", expected: .noMatch),
    MatchCase(
      rule: 6, note: "doc: four encoded characters are four characters", aasa: supporting,
      url: "https://example.com/help/1?articleNumber=%41%42", expected: .noMatch),
    MatchCase(
      rule: 7, note: "doc: case-sensitive by default", aasa: supporting, url: "https://example.com/BUY/42",
      expected: .noMatch),
    MatchCase(
      rule: 9, note: "doc: fragment must equal no_universal_links exactly", aasa: supporting,
      url: "https://example.com/x#no_universal_links_please", expected: .noMatch),
    // applinks.Details
    MatchCase(
      rule: 9, note: "doc details: path and fragment", aasa: details,
      url: "https://example.com/buy/1#my_great_product_123", expected: .match(0)),
    MatchCase(
      rule: 7, note: "doc details: ignoring case", aasa: details, url: "https://example.com/BUY/1#MY_Great_Product_123",
      expected: .match(0)),
    MatchCase(
      rule: 3, note: "doc details: defaults apply to the second app", aasa: details,
      url: "https://example.com/Buy/x#my_great_product_123", expected: .match(0), appID: "ABCDE12345.com.example.app2"),
    MatchCase(
      rule: 9, note: "doc details: missing fragment reads as empty", aasa: details, url: "https://example.com/buy/1",
      expected: .noMatch),
    MatchCase(
      rule: 9, note: "doc details: other fragment", aasa: details,
      url: "https://example.com/buy/1#my_great_product_124", expected: .noMatch),
    // applinks.SubstitutionVariables
    MatchCase(
      rule: 10, note: "doc variables: en_US pizza", aasa: substitution, url: "https://example.com/en_US/pizza/",
      expected: .match(0)),
    MatchCase(
      rule: 10, note: "doc variables: trailing slash implied", aasa: substitution,
      url: "https://example.com/fr_CA/sushi", expected: .match(0)),
    MatchCase(
      rule: 10, note: "doc variables: food not listed", aasa: substitution, url: "https://example.com/en_US/taco/",
      expected: .noMatch),
    MatchCase(
      rule: 10, note: "doc variables: lang in upper case, region in lower case", aasa: substitution,
      url: "https://example.com/EN_us/samosa", expected: .match(0)),
    MatchCase(
      rule: 10, note: "doc variables: three-letter ISO 639 code", aasa: substitution,
      url: "https://example.com/haw_US/burrito", expected: .match(0)),
    MatchCase(
      rule: 10, note: "doc variables: xx is no language", aasa: substitution, url: "https://example.com/xx_US/pizza",
      expected: .noMatch),
    MatchCase(
      rule: 10, note: "doc variables: GB is a region", aasa: substitution, url: "https://example.com/en_GB/pizza",
      expected: .match(0)),
    MatchCase(
      rule: 10, note: "doc variables: UK is not an ISO region code", aasa: substitution,
      url: "https://example.com/en_UK/pizza", expected: .noMatch),
    MatchCase(
      rule: 10, note: "doc variables: mixed-case code is in neither list", aasa: substitution,
      url: "https://example.com/En_US/pizza", expected: .noMatch),
    MatchCase(
      rule: 10, note: "doc variables: food is case-sensitive", aasa: substitution,
      url: "https://example.com/en_US/Pizza", expected: .noMatch),
    // applinks.Details.Components.Query
    MatchCase(
      rule: 8, note: "doc query: productID equals 12345", aasa: query, url: "https://example.com/p?productID=12345",
      expected: .match(0)),
    MatchCase(
      rule: 8, note: "doc query: productID differs", aasa: query, url: "https://example.com/p?productID=123456",
      expected: .noMatch),
    MatchCase(
      rule: 8, note: "doc query: other items ignored", aasa: query, url: "https://example.com/?utm=x&productID=12345",
      expected: .match(0)),
    MatchCase(
      rule: 8, note: "doc query: no query at all", aasa: query, url: "https://example.com/p", expected: .noMatch),
    MatchCase(
      rule: 2, note: "doc query: no path key, any path", aasa: query,
      url: "https://example.com/a/b/c?productID=12345#x", expected: .match(0)),
    // Legacy paths
    MatchCase(
      rule: 11, note: "doc legacy: exact path", aasa: legacy, url: "https://developer.apple.com/wwdc/news/",
      expected: .match(0), appID: "9JA89QQLNQ.com.apple.wwdc"),
    MatchCase(
      rule: 11, note: "doc legacy: trailing slash optional", aasa: legacy, url: "https://developer.apple.com/wwdc/news",
      expected: .match(0), appID: "9JA89QQLNQ.com.apple.wwdc"),
    MatchCase(
      rule: 11, note: "doc legacy: exact path has no wildcard", aasa: legacy,
      url: "https://developer.apple.com/wwdc/news/today", expected: .noMatch, appID: "9JA89QQLNQ.com.apple.wwdc"),
    MatchCase(
      rule: 11, note: "doc legacy: NOT excludes", aasa: legacy, url: "https://developer.apple.com/videos/wwdc/2010/101",
      expected: .exclude(1), appID: "9JA89QQLNQ.com.apple.wwdc"),
    MatchCase(
      rule: 11, note: "doc legacy: 201? matches 2015", aasa: legacy,
      url: "https://developer.apple.com/videos/wwdc/2015/101", expected: .match(2), appID: "9JA89QQLNQ.com.apple.wwdc"),
    MatchCase(
      rule: 11, note: "doc legacy: 201? does not match 2020", aasa: legacy,
      url: "https://developer.apple.com/videos/wwdc/2020/101", expected: .noMatch, appID: "9JA89QQLNQ.com.apple.wwdc"),
    MatchCase(
      rule: 11, note: "doc legacy: query and fragment ignored", aasa: legacy,
      url: "https://developer.apple.com/videos/wwdc/2016/1?x=1#t=10", expected: .match(2),
      appID: "9JA89QQLNQ.com.apple.wwdc"),
    MatchCase(
      rule: 11, note: "doc legacy: * opens everything", aasa: legacy,
      url: "https://developer.apple.com/anything/at/all?q", expected: .match(0, detail: 1),
      appID: "ABCD1234.com.apple.wwdc"),
  ]

  @Test(arguments: cases)
  func appleExample(_ c: MatchCase) throws {
    try check(c)
  }
}
