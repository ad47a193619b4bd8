import Foundation
import Testing
import UniversalLinks

@testable import IPALinksKit

/// The regexes behind the WebKit list, for the cases where normalized and raw paths differ. The real engine
/// checks the whole list in EndToEndTests; these pin the translation and its notes.
@Suite struct URLFilterTranslatorTests {
  static func scope(_ components: String, wildcard: Bool = false) -> RuleScope {
    let json = #"{"applinks": {"details": [{"appIDs": ["T.app"], "components": [\#(components)]}]}}"#
    return RuleScope(
      host: "h.example", wildcard: wildcard, rules: AppLinkRules(file: try! AASAFile(json: json), appID: "T.app"))
  }

  static func filters(_ component: String, wildcard: Bool = false) -> URLFilterTranslator.Translation {
    let s = scope(component, wildcard: wildcard)
    let rule = s.rules.rules[0]
    return URLFilterTranslator().translate(rule, in: s, direction: rule.exclude ? .narrower : .wider)
  }

  static let prefix = "^https?://([^/@]*@)?h\\.example\\.?(:[0-9]+)?"
  static let tail = "(\\?[^#]*)?(#.*)?$"

  @Test(arguments: [
    (#"{"/": "/buy/*"}"#, "/+buy(/[^?#]*)?"),
    (#"{"/": "/a/b"}"#, "/+a/+b/*"),
    (#"{"/": "/a/*/c"}"#, "/+a/+[^/?#]([^?#]*[^/?#])?/+c/*"),
    (#"{"/": "*"}"#, "(/[^?#]*)?"),
    (#"{"/": "*.html"}"#, "/+[^?#]*\\.html/*"),
    (#"{"/": "/"}"#, "/+"),
  ])
  func pathsAllowWhatNormalizationCollapses(component: String, path: String) {
    let t = Self.filters(component)
    #expect(t.filters == [Self.prefix + path + Self.tail])
    #expect(t.notes.isEmpty)
  }

  @Test func questionMarkMayStandForASlash() {
    // And, as any `?` may stand for part of the `%7C` iOS reads for a `|` WebKit leaves plain, every path with `|`.
    #expect(
      Self.filters(#"{"/": "/x?y"}"#).filters.sorted()
        == [
          Self.prefix + "/+x/+y/*" + Self.tail, Self.prefix + "/+x[^/?#]y/*" + Self.tail, Self.prefix + "/[^?#]*[|]",
        ].sorted())
  }

  /// Where a wildcard may count part of an escape: a `?`, or a `*` before a hex digit, `%` or a variable; not a
  /// trailing `*` or one before `/`, which take `|` as they take `%7C`.
  @Test(arguments: [
    ("/p/???", true), ("/t/*C", true), ("/t/*7", true), ("/t/*%7C", true), ("/t/*$(lang)", true),
    ("/x/??*", true), ("/buy/*", false), ("/*/x", false), ("/a/*/*", false), ("/order/?*", false), ("/plain", false),
  ])
  func wildcardsThatMayCountAnEscapeBlockPathsWithAPipe(path: String, counts: Bool) {
    let t = Self.filters(#"{"/": "\#(path)"}"#)
    #expect(t.filters.contains(Self.prefix + "/[^?#]*[|]") == counts, "\(t.filters)")
    #expect(t.notes.contains { $0.1.contains("which WebKit leaves plain") } == counts)
  }

  @Test func queryItemsInEveryOrderWithANote() {
    let t = Self.filters(#"{"/": "/p", "?": {"a": "1", "b": "?*"}}"#)
    #expect(t.filters.count == 2)
    #expect(t.filters.contains { $0.contains("a=1&([^#]*&)?b=[^&#][^&#]*") })
    #expect(t.filters.contains { $0.contains("b=[^&#][^&#]*&([^#]*&)?a=1") })
    // One occurrence checked where iOS checks every one: the block takes more URLs than iOS opens (`?a=1&a=2`).
    #expect(t.notes.map(\.kind) == [.wider])
    // An exception that checked one occurrence spared `?a=1&a=2`, which iOS opens (`narrower`): every URL of its
    // path that repeats the item is blocked again after it, more than iOS opens only when every occurrence matches.
    let exception = Self.filters(#"{"/": "/p", "?": {"a": "1"}, "exclude": true}"#)
    #expect(exception.notes.map(\.kind) == [.wider], "\(exception.notes)")
    #expect(exception.notes.first?.message.hasSuffix("a URL that repeats \"a\" is not excepted") == true)
    #expect(exception.reblock.count == 1)
    let reblock = try! NSRegularExpression(pattern: exception.reblock[0])
    func repeats(_ url: String) -> Bool {
      reblock.firstMatch(in: url, range: NSRange(url.startIndex..., in: url)) != nil
    }
    for url in ["/p?a=1&a=2", "/p?a&a=1", "/p?x=1&a=1&y&a=3#f", "//p/?a=1&b=2&a=1"] {
      #expect(repeats("https://h.example" + url), "\(url)")
    }
    for url in ["/p?a=1", "/p?ab=1&a=2", "/p?a=1&ba=2", "/q?a=1&a=2", "/p#a=1&a=2", "/p?b=a&c=a"] {
      #expect(!repeats("https://h.example" + url), "\(url)")
    }
    #expect(Self.filters(#"{"/": "/p", "?": {"a": "1"}}"#).reblock.isEmpty)
    // An exception whose item may be absent spares only URLs that have it: the list blocks more than iOS opens
    // (`/p` alone), `wider`, not `narrower` as it was labelled.
    let absent = Self.filters(#"{"/": "/p", "?": {"a": ""}, "exclude": true}"#)
    #expect(absent.notes.map(\.kind).contains(.wider), "\(absent.notes)")
    #expect(absent.notes.first { $0.message.contains("may also be absent") }?.kind == .wider, "\(absent.notes)")
  }

  @Test func fragmentsWidenBlocksAndDropExceptions() {
    let block = Self.filters(##"{"/": "/h/*", "#": "app"}"##)
    #expect(block.filters.count == 1)
    #expect(block.notes.map(\.kind) == [.wider])
    let except = Self.filters(##"{"/": "/h/*", "#": "app", "exclude": true}"##)
    #expect(except.filters.isEmpty)
    #expect(except.notes.map(\.kind) == [.dropped])
  }

  @Test func charactersURLsNeverCarryPlainlyNeverMatch() {
    #expect(Self.filters(#"{"/": "/caf\u00e9"}"#).filters.isEmpty)
    #expect(
      Self.filters(#"{"/": "/caf\u00e9", "percentEncoded": false}"#).filters == [
        Self.prefix + "/+caf%C3%A9/*" + Self.tail, Self.prefix + "/[^#]*%",
      ])
  }

  /// The path regex follows the host directly, so it must begin with the path's `/`: a leading `*` is either empty
  /// or covers that `/`, two readings, and neither lets `h.example`'s rules reach `h.examplex` or `h.example.evil`.
  @Test func aLeadingStarStartsAtThePathsSlash() {
    let t = Self.filters(#"{"/": "*/t/*.html"}"#)
    #expect(
      t.filters.sorted()
        == [
          Self.prefix + "/+[^/?#]([^?#]*[^/?#])?/+t/+[^?#]*\\.html/*" + Self.tail,
          Self.prefix + "/+t/+[^?#]*\\.html/*" + Self.tail,
        ].sorted(), "\(t.filters)")
    let whole = Self.filters(#"{"/": "*"}"#).filters
    for url in ["https://h.examplex/t/a.html", "https://h.example.evil/t/a.html", "https://h.example.com/"] {
      for filter in t.filters + whole {
        #expect(url.range(of: filter, options: .regularExpression) == nil, "\(filter) matches \(url)")
      }
    }
    #expect("https://h.example/x/t/a.html".range(of: t.filters.sorted()[0], options: .regularExpression) != nil)
  }

  @Test func wildcardEntriesCoverSubdomainsOnly() {
    let t = Self.filters(#"{"/": "*"}"#, wildcard: true)
    #expect(t.filters == ["^https?://([^/@]*@)?[^/:@]+\\.h\\.example\\.?(:[0-9]+)?(/[^?#]*)?" + Self.tail])
  }

  @Test func effectiveRulesSurviveJSON() throws {
    let rules = Self.scope(##"{"/": "/p/$(v)", "?": {"a": "*"}, "#": "f", "caseSensitive": false}"##).rules
    let data = try JSONEncoder().encode(rules)
    #expect(try JSONDecoder().decode(AppLinkRules.self, from: data) == rules)
  }
}
