import Testing
import UniversalLinks

/// The matching rules of issue 3, one table row per behaviour, each labelled with its rule number.
struct MatchRuleTests {
  static let twoDetails = ##"""
    {"applinks": {"details": [
      {"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/a/*"}]},
      {"appIDs": ["ABCDE12345.com.example.app", "ABCDE12345.com.example.other"], "components": [{"/": "*"}]}
    ]}}
    """##

  /// The first detail lists only another app, whose `{}` would match everything.
  static let otherAppFirst = ##"""
    {"applinks": {"details": [
      {"appIDs": ["ABCDE12345.com.example.other"], "components": [{}]},
      {"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/a/*", "exclude": true}, {}]}
    ]}}
    """##

  static let rule1: [MatchCase] = [
    MatchCase(
      rule: 1, note: "first detail listing the app decides", aasa: twoDetails, url: "https://e.com/a/1",
      expected: .match(0)),
    MatchCase(
      rule: 1, note: "later details are never consulted", aasa: twoDetails, url: "https://e.com/b", expected: .noMatch),
    MatchCase(
      rule: 1, note: "another app uses the later detail", aasa: twoDetails, url: "https://e.com/b",
      expected: .match(0, detail: 1), appID: "ABCDE12345.com.example.other"),
    MatchCase(
      rule: 1, note: "a detail not listing the app is skipped: exclude", aasa: otherAppFirst, url: "https://e.com/a/1",
      expected: .exclude(0, detail: 1)),
    MatchCase(
      rule: 1, note: "a detail not listing the app is skipped: match", aasa: otherAppFirst, url: "https://e.com/b",
      expected: .match(1, detail: 1)),
    MatchCase(
      rule: 1, note: "unlisted app", aasa: twoDetails, url: "https://e.com/a/1", expected: .noMatch,
      appID: "ABCDE12345.com.example.none"),
    MatchCase(
      rule: 1, note: "first matching pattern decides: exclude",
      aasa: components(##"{"/": "/a/*", "exclude": true}, {"/": "*"}"##), url: "https://e.com/a/x",
      expected: .exclude(0)),
    MatchCase(
      rule: 1, note: "first matching pattern decides: match",
      aasa: components(##"{"/": "/a/*"}, {"/": "*", "exclude": true}"##), url: "https://e.com/a/x", expected: .match(0)),
    MatchCase(
      rule: 1, note: "falls through to the next pattern",
      aasa: components(##"{"/": "/a/*", "exclude": true}, {"/": "*"}"##), url: "https://e.com/b", expected: .match(1)),
    MatchCase(
      rule: 1, note: "exclude false is a match", aasa: component(##""/": "/x", "exclude": false"##),
      url: "https://e.com/x", expected: .match(0)),
    MatchCase(
      rule: 1, note: "appIDs array wins over appID",
      aasa:
        ##"{"applinks": {"details": [{"appID": "ABCDE12345.com.example.app", "appIDs": ["ABCDE12345.com.example.b"], "components": [{}]}]}}"##,
      url: "https://e.com/", expected: .noMatch),
    MatchCase(
      rule: 1, note: "empty appIDs array still wins over appID",
      aasa:
        ##"{"applinks": {"details": [{"appID": "ABCDE12345.com.example.app", "appIDs": [], "components": [{}]}]}}"##,
      url: "https://e.com/", expected: .noMatch),
    MatchCase(
      rule: 1, note: "appIDs that is not an array falls back to appID",
      aasa:
        ##"{"applinks": {"details": [{"appID": "ABCDE12345.com.example.app", "appIDs": "ABCDE12345.com.example.app", "components": [{}]}]}}"##,
      url: "https://e.com/", expected: .match(0)),
    MatchCase(
      rule: 1, note: "components wins over paths",
      aasa:
        ##"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "paths": ["*"], "components": [{"/": "/only"}]}]}}"##,
      url: "https://e.com/other", expected: .noMatch),
    MatchCase(
      rule: 1, note: "empty components wins over paths and matches nothing",
      aasa:
        ##"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "paths": ["*"], "components": []}]}}"##,
      url: "https://e.com/x", expected: .noMatch),
    MatchCase(
      rule: 1, note: "detail with neither paths nor components",
      aasa: ##"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"]}]}}"##, url: "https://e.com/x",
      expected: .noMatch),
    MatchCase(
      rule: 1, note: "details as a dictionary keyed by app ID",
      aasa: ##"{"applinks": {"apps": [], "details": {"ABCDE12345.com.example.app": {"paths": ["/x/*"]}}}}"##,
      url: "https://e.com/x/1", expected: .match(0)),
    MatchCase(
      rule: 1, note: "dictionary details: the detail index is the member position",
      aasa:
        ##"{"applinks": {"apps": [], "details": {"ABCDE12345.com.example.zzz": {"paths": ["*"]}, "ABCDE12345.com.example.app": {"paths": ["/x/*"]}}}}"##,
      url: "https://e.com/x/1", expected: .match(0, detail: 1)),
    MatchCase(
      rule: 1, note: "dictionary details: other key",
      aasa: ##"{"applinks": {"apps": [], "details": {"ABCDE12345.com.example.zzz": {"paths": ["*"]}}}}"##,
      url: "https://e.com/x/1", expected: .noMatch),
    MatchCase(
      rule: 1, note: "unknown keys and comments are ignored",
      aasa:
        ##"{"applinks": {"foo": 1, "details": [{"comment": "x", "bar": [], "appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/x", "comment": "y", "baz": true}]}]}, "other": {}}"##,
      url: "https://e.com/x", expected: .match(0)),
    MatchCase(
      rule: 1, note: "no applinks at all", aasa: ##"{"webcredentials": {"apps": ["ABCDE12345.com.example.app"]}}"##,
      url: "https://e.com/x", expected: .noMatch),
    MatchCase(
      rule: 1, note: "non-object component entries are skipped, indices kept",
      aasa: components(##""junk", {"/": "/x"}"##), url: "https://e.com/x", expected: .match(1)),
  ]

  static let rule2: [MatchCase] = [
    MatchCase(
      rule: 2, note: "{} matches everything", aasa: component(""), url: "https://e.com/any/path?q=1#f",
      expected: .match(0)),
    MatchCase(
      rule: 2, note: "{} matches the bare domain", aasa: component(""), url: "https://e.com", expected: .match(0)),
    MatchCase(
      rule: 2, note: "path only: any query and fragment", aasa: component(##""/": "/x""##),
      url: "https://e.com/x?a=b#c", expected: .match(0)),
    MatchCase(
      rule: 2, note: "query only: any path", aasa: component(##""?": "a=1""##), url: "https://e.com/deep/path?a=1",
      expected: .match(0)),
    MatchCase(
      rule: 2, note: "fragment only: any path", aasa: component(##""#": "f""##), url: "https://e.com/deep?x#f",
      expected: .match(0)),
    MatchCase(
      rule: 2, note: "all keys must match: path fails", aasa: component(##""/": "/x", "?": "a=1", "#": "f""##),
      url: "https://e.com/y?a=1#f", expected: .noMatch),
    MatchCase(
      rule: 2, note: "all keys must match: query fails", aasa: component(##""/": "/x", "?": "a=1", "#": "f""##),
      url: "https://e.com/x?a=2#f", expected: .noMatch),
    MatchCase(
      rule: 2, note: "all keys must match: fragment fails", aasa: component(##""/": "/x", "?": "a=1", "#": "f""##),
      url: "https://e.com/x?a=1#g", expected: .noMatch),
    MatchCase(
      rule: 2, note: "all keys must match: all pass", aasa: component(##""/": "/x", "?": "a=1", "#": "f""##),
      url: "https://e.com/x?a=1#f", expected: .match(0)),
    MatchCase(
      rule: 2, note: "exclude-only component excludes everything", aasa: component(##""exclude": true"##),
      url: "https://e.com/x", expected: .exclude(0)),
    MatchCase(
      rule: 2, note: "empty query dictionary constrains nothing", aasa: component(##""/": "/x", "?": {}"##),
      url: "https://e.com/x?a=1", expected: .match(0)),
  ]

  static let rule3: [MatchCase] = [
    MatchCase(
      rule: 3, note: "applinks.defaults caseSensitive false",
      aasa: component(##""/": "/Abc""##, defaults: ##"{"caseSensitive": false}"##), url: "https://e.com/aBC",
      expected: .match(0)),
    MatchCase(
      rule: 3, note: "detail defaults override applinks defaults",
      aasa: components(
        ##"{"/": "/Abc"}"##, detailDefaults: ##"{"caseSensitive": true}"##, defaults: ##"{"caseSensitive": false}"##),
      url: "https://e.com/abc", expected: .noMatch),
    MatchCase(
      rule: 3, note: "component overrides detail defaults",
      aasa: components(##"{"/": "/Abc", "caseSensitive": false}"##, detailDefaults: ##"{"caseSensitive": true}"##),
      url: "https://e.com/abc", expected: .match(0)),
    MatchCase(
      rule: 3, note: "detail defaults apply when the component is silent",
      aasa: components(##"{"/": "/Abc"}"##, detailDefaults: ##"{"caseSensitive": false}"##), url: "https://e.com/ABC",
      expected: .match(0)),
    MatchCase(
      rule: 3, note: "built-in caseSensitive true", aasa: component(##""/": "/Abc""##), url: "https://e.com/abc",
      expected: .noMatch),
    MatchCase(
      rule: 3, note: "built-in percentEncoded true", aasa: component(##""/": "/a b""##), url: "https://e.com/a%20b",
      expected: .noMatch),
    MatchCase(
      rule: 3, note: "applinks.defaults percentEncoded false",
      aasa: component(##""/": "/a b""##, defaults: ##"{"percentEncoded": false}"##), url: "https://e.com/a%20b",
      expected: .match(0)),
    MatchCase(
      rule: 3, note: "merged key by key: case from detail, encoding from applinks",
      aasa: components(
        ##"{"/": "/A B"}"##, detailDefaults: ##"{"caseSensitive": false}"##, defaults: ##"{"percentEncoded": false}"##),
      url: "https://e.com/a%20b", expected: .match(0)),
    MatchCase(
      rule: 3, note: "component false beats defaults true",
      aasa: components(##"{"/": "/a b", "percentEncoded": false}"##, detailDefaults: ##"{"percentEncoded": true}"##),
      url: "https://e.com/a%20b", expected: .match(0)),
    MatchCase(
      rule: 3, note: "a non-boolean flag is ignored, so the default applies",
      aasa: components(##"{"/": "/Abc", "caseSensitive": "no"}"##, detailDefaults: ##"{"caseSensitive": false}"##),
      url: "https://e.com/abc", expected: .match(0)),
    MatchCase(
      rule: 3, note: "defaults may carry a pattern key too",
      aasa: components(##"{"/": "/x"}"##, detailDefaults: ##"{"#": "keep"}"##), url: "https://e.com/x#other",
      expected: .noMatch),
    MatchCase(
      rule: 3, note: "component pattern key beats the default one",
      aasa: components(##"{"/": "/x", "#": "*"}"##, detailDefaults: ##"{"#": "keep"}"##), url: "https://e.com/x#other",
      expected: .match(0)),
    MatchCase(
      rule: 3, note: "defaults may set exclude",
      aasa: components(##"{"/": "/x"}, {"/": "/y", "exclude": false}"##, detailDefaults: ##"{"exclude": true}"##),
      url: "https://e.com/x", expected: .exclude(0)),
    MatchCase(
      rule: 3, note: "component exclude false beats default exclude",
      aasa: components(##"{"/": "/x"}, {"/": "/y", "exclude": false}"##, detailDefaults: ##"{"exclude": true}"##),
      url: "https://e.com/y", expected: .match(1)),
  ]

  static let rule4: [MatchCase] = [
    MatchCase(
      rule: 4, note: "* matches empty", aasa: component(##""?": "a*""##), url: "https://e.com/?a", expected: .match(0)),
    MatchCase(
      rule: 4, note: "* matches many characters including /", aasa: component(##""?": "a*""##),
      url: "https://e.com/?a/b/c=d", expected: .match(0)),
    MatchCase(
      rule: 4, note: "? matches exactly one character", aasa: component(##""?": "a?c""##), url: "https://e.com/?abc",
      expected: .match(0)),
    MatchCase(
      rule: 4, note: "? does not match zero characters", aasa: component(##""?": "a?c""##), url: "https://e.com/?ac",
      expected: .noMatch),
    MatchCase(
      rule: 4, note: "? does not match two characters", aasa: component(##""?": "a?c""##), url: "https://e.com/?abbc",
      expected: .noMatch),
    MatchCase(
      rule: 4, note: "?* needs one character", aasa: component(##""?": "?*""##), url: "https://e.com/",
      expected: .noMatch),
    MatchCase(
      rule: 4, note: "?* accepts one character", aasa: component(##""?": "?*""##), url: "https://e.com/?z",
      expected: .match(0)),
    MatchCase(
      rule: 4, note: "?* accepts many", aasa: component(##""?": "?*""##), url: "https://e.com/?zzz", expected: .match(0)
    ),
    MatchCase(
      rule: 4, note: "whole string: no prefix match", aasa: component(##""?": "a""##), url: "https://e.com/?ab",
      expected: .noMatch),
    MatchCase(
      rule: 4, note: "whole string: no suffix match", aasa: component(##""?": "b""##), url: "https://e.com/?ab",
      expected: .noMatch),
    MatchCase(
      rule: 4, note: "exactly * matches a missing query", aasa: component(##""?": "*""##), url: "https://e.com/x",
      expected: .match(0)),
    MatchCase(
      rule: 4, note: "exactly * matches a missing fragment", aasa: component(##""#": "*""##), url: "https://e.com/x",
      expected: .match(0)),
    MatchCase(
      rule: 4, note: "empty pattern matches a missing query", aasa: component(##""?": """##), url: "https://e.com/x",
      expected: .match(0)),
    MatchCase(
      rule: 4, note: "empty pattern matches an empty query", aasa: component(##""?": """##), url: "https://e.com/x?",
      expected: .match(0)),
    MatchCase(
      rule: 4, note: "empty pattern rejects a query", aasa: component(##""?": """##), url: "https://e.com/x?a",
      expected: .noMatch),
    MatchCase(
      rule: 4, note: "empty pattern matches a missing fragment", aasa: component(##""#": """##), url: "https://e.com/x",
      expected: .match(0)),
    MatchCase(
      rule: 4, note: "empty pattern matches an empty fragment", aasa: component(##""#": """##), url: "https://e.com/x#",
      expected: .match(0)),
    MatchCase(
      rule: 4, note: "empty pattern rejects a fragment", aasa: component(##""#": """##), url: "https://e.com/x#f",
      expected: .noMatch),
    MatchCase(
      rule: 4, note: "missing query reads as empty: literal fails", aasa: component(##""?": "a""##),
      url: "https://e.com/x", expected: .noMatch),
    MatchCase(
      rule: 4, note: "several stars", aasa: component(##""?": "*a*b*c*""##), url: "https://e.com/?xxaxxbxxcxx",
      expected: .match(0)),
    MatchCase(
      rule: 4, note: "several stars, wrong order", aasa: component(##""?": "*a*b*c*""##), url: "https://e.com/?cba",
      expected: .noMatch),
    MatchCase(
      rule: 4, note: "star then ? at the end", aasa: component(##""?": "*x?""##), url: "https://e.com/?axbxc",
      expected: .match(0)),
    MatchCase(
      rule: 4, note: "? matches a non-ASCII character as one", aasa: component(##""?": "?", "percentEncoded": false"##),
      url: "https://e.com/?%C3%A9", expected: .match(0)),
    MatchCase(
      rule: 4, note: "? matches a '/' in a path", aasa: component(##""/": "/a?b""##), url: "https://e.com/a/b",
      expected: .match(0)),
  ]

  static let rule5: [MatchCase] = [
    MatchCase(
      rule: 5, note: "empty path is /", aasa: component(##""/": "/""##), url: "https://e.com", expected: .match(0)),
    MatchCase(
      rule: 5, note: "empty path pattern is /", aasa: component(##""/": """##), url: "https://e.com/",
      expected: .match(0)),
    MatchCase(
      rule: 5, note: "empty path pattern rejects /x", aasa: component(##""/": """##), url: "https://e.com/x",
      expected: .noMatch),
    MatchCase(
      rule: 5, note: "/ rejects /x", aasa: component(##""/": "/""##), url: "https://e.com/x", expected: .noMatch),
    MatchCase(
      rule: 5, note: "abc equals /abc", aasa: component(##""/": "abc""##), url: "https://e.com/abc", expected: .match(0)
    ),
    MatchCase(
      rule: 5, note: "abc equals /abc/", aasa: component(##""/": "abc""##), url: "https://e.com/abc/",
      expected: .match(0)),
    MatchCase(
      rule: 5, note: "/abc matches /abc/ (trailing / implied)", aasa: component(##""/": "/abc""##),
      url: "https://e.com/abc/", expected: .match(0)),
    MatchCase(
      rule: 5, note: "/abc/ matches /abc", aasa: component(##""/": "/abc/""##), url: "https://e.com/abc",
      expected: .match(0)),
    MatchCase(
      rule: 5, note: "/abc rejects /abcd", aasa: component(##""/": "/abc""##), url: "https://e.com/abcd",
      expected: .noMatch),
    MatchCase(
      rule: 5, note: "/buy/* matches /buy/", aasa: component(##""/": "/buy/*""##), url: "https://e.com/buy/",
      expected: .match(0)),
    MatchCase(
      rule: 5, note: "/buy/* matches /buy/x/y", aasa: component(##""/": "/buy/*""##), url: "https://e.com/buy/x/y",
      expected: .match(0)),
    MatchCase(
      rule: 5, note: "/buy/* rejects /buyer", aasa: component(##""/": "/buy/*""##), url: "https://e.com/buyer",
      expected: .noMatch),
    MatchCase(
      rule: 5, note: "/buy* matches /buyer", aasa: component(##""/": "/buy*""##), url: "https://e.com/buyer",
      expected: .match(0)),
    MatchCase(
      rule: 5, note: "/a/*/c rejects /a/c", aasa: component(##""/": "/a/*/c""##), url: "https://e.com/a/c",
      expected: .noMatch),
    MatchCase(
      rule: 5, note: "/a/*/c matches /a/b/c", aasa: component(##""/": "/a/*/c""##), url: "https://e.com/a/b/c",
      expected: .match(0)),
    MatchCase(
      rule: 5, note: "/a/*/c matches /a/b/d/c/", aasa: component(##""/": "/a/*/c""##), url: "https://e.com/a/b/d/c/",
      expected: .match(0)),
    MatchCase(
      rule: 5, note: "** is *", aasa: component(##""/": "/a/**""##), url: "https://e.com/a/b/c", expected: .match(0)),
    MatchCase(
      rule: 5, note: "**/x reaches deep", aasa: component(##""/": "/**/x""##), url: "https://e.com/p/q/x",
      expected: .match(0)),
    MatchCase(
      rule: 5, note: "// in the pattern is /", aasa: component(##""/": "/a//b""##), url: "https://e.com/a/b",
      expected: .match(0)),
    MatchCase(
      rule: 5, note: "// in the URL is /", aasa: component(##""/": "/a/b""##), url: "https://e.com//a///b",
      expected: .match(0)),
    MatchCase(
      rule: 5, note: "leading * implies no leading /", aasa: component(##""/": "*abc""##), url: "https://e.com/xabc",
      expected: .match(0)),
    MatchCase(
      rule: 5, note: "*/terms/* matches /terms", aasa: component(##""/": "*/terms/*""##), url: "https://e.com/terms",
      expected: .match(0)),
    MatchCase(
      rule: 5, note: "*/terms/* matches /en/terms/x", aasa: component(##""/": "*/terms/*""##),
      url: "https://e.com/en/terms/x", expected: .match(0)),
    MatchCase(
      rule: 5, note: "*/terms/* rejects /termsx", aasa: component(##""/": "*/terms/*""##), url: "https://e.com/termsx",
      expected: .noMatch),
    MatchCase(
      rule: 5, note: "*.html matches /a/b.html", aasa: component(##""/": "*.html""##), url: "https://e.com/a/b.html",
      expected: .match(0)),
    MatchCase(
      rule: 5, note: "*.html rejects /a.html/x", aasa: component(##""/": "*.html""##), url: "https://e.com/a.html/x",
      expected: .noMatch),
    MatchCase(
      rule: 5, note: "/* matches the root", aasa: component(##""/": "/*""##), url: "https://e.com", expected: .match(0)),
    MatchCase(
      rule: 5, note: "path ? cannot match the implied trailing /", aasa: component(##""/": "/a?""##),
      url: "https://e.com/a", expected: .noMatch),
    MatchCase(
      rule: 5, note: "path ? matches one character", aasa: component(##""/": "/a?""##), url: "https://e.com/ab",
      expected: .match(0)),
    MatchCase(
      rule: 5, note: "/?????????? token path (ente)", aasa: component(##""/": "/??????????""##),
      url: "https://e.com/AbCdEfGhIj", expected: .match(0)),
  ]

  static let rule6: [MatchCase] = [
    MatchCase(
      rule: 6, note: "encoded: space in pattern never matches", aasa: component(##""/": "/a b""##),
      url: "https://e.com/a%20b", expected: .noMatch),
    MatchCase(
      rule: 6, note: "encoded: escape compared as written", aasa: component(##""/": "/a%20b""##),
      url: "https://e.com/a%20b", expected: .match(0)),
    MatchCase(
      rule: 6, note: "encoded: hex case matters", aasa: component(##""/": "/a%2fb""##), url: "https://e.com/a%2Fb",
      expected: .noMatch),
    MatchCase(
      rule: 6, note: "encoded: %2F is not a separator", aasa: component(##""/": "/a/*""##), url: "https://e.com/a%2Fb",
      expected: .noMatch),
    MatchCase(
      rule: 6, note: "encoded: %2F is text", aasa: component(##""/": "/a%2F*""##), url: "https://e.com/a%2Fb",
      expected: .match(0)),
    MatchCase(
      rule: 6, note: "encoded: raw space in the URL is encoded first", aasa: component(##""/": "/a%20b""##),
      url: "https://e.com/a b", expected: .match(0)),
    MatchCase(
      rule: 6, note: "encoded: non-ASCII URL is UTF-8 encoded", aasa: component(##""/": "/caf%C3%A9""##),
      url: "https://e.com/café", expected: .match(0)),
    MatchCase(
      rule: 6, note: "decoded: space matches %20", aasa: component(##""/": "/a b", "percentEncoded": false"##),
      url: "https://e.com/a%20b", expected: .match(0)),
    MatchCase(
      rule: 6, note: "decoded: UTF-8 decoded", aasa: component(##""/": "/café", "percentEncoded": false"##),
      url: "https://e.com/caf%C3%A9", expected: .match(0)),
    MatchCase(
      rule: 6, note: "decoded: %2F becomes a separator", aasa: component(##""/": "/a/b", "percentEncoded": false"##),
      url: "https://e.com/a%2Fb", expected: .match(0)),
    MatchCase(
      rule: 6, note: "decoded: escapes in the pattern are literal text",
      aasa: component(##""/": "/a%20b", "percentEncoded": false"##), url: "https://e.com/a%20b", expected: .noMatch),
    MatchCase(
      rule: 6, note: "decoded: hex case no longer matters", aasa: component(##""/": "/a:b", "percentEncoded": false"##),
      url: "https://e.com/a%3ab", expected: .match(0)),
    MatchCase(
      rule: 6, note: "decoded: query string", aasa: component(##""?": "q=a b", "percentEncoded": false"##),
      url: "https://e.com/?q=a%20b", expected: .match(0)),
    MatchCase(
      rule: 6, note: "decoded: query item value", aasa: component(##""?": {"q": "a&b"}, "percentEncoded": false"##),
      url: "https://e.com/?q=a%26b", expected: .match(0)),
    MatchCase(
      rule: 6, note: "encoded: query item value as written", aasa: component(##""?": {"q": "a&b"}"##),
      url: "https://e.com/?q=a%26b", expected: .noMatch),
    MatchCase(
      rule: 6, note: "decoded: + is not a space", aasa: component(##""?": {"q": "a b"}, "percentEncoded": false"##),
      url: "https://e.com/?q=a+b", expected: .noMatch),
    MatchCase(
      rule: 6, note: "decoded: fragment", aasa: component(##""#": "a b", "percentEncoded": false"##),
      url: "https://e.com/#a%20b", expected: .match(0)),
    MatchCase(
      rule: 6, note: "decoded: invalid UTF-8 stays encoded",
      aasa: component(##""/": "/%FF", "percentEncoded": false"##), url: "https://e.com/%FF", expected: .match(0)),
    MatchCase(
      rule: 6, note: "encoded: lone % in URL becomes %25", aasa: component(##""/": "/100%25""##),
      url: "https://e.com/100%", expected: .match(0)),
  ]

  static let rule7: [MatchCase] = [
    MatchCase(
      rule: 7, note: "folds the URL", aasa: component(##""/": "/abc", "caseSensitive": false"##),
      url: "https://e.com/ABC", expected: .match(0)),
    MatchCase(
      rule: 7, note: "folds the pattern", aasa: component(##""/": "/ABC", "caseSensitive": false"##),
      url: "https://e.com/abc", expected: .match(0)),
    MatchCase(
      rule: 7, note: "case-sensitive by default", aasa: component(##""/": "/ABC""##), url: "https://e.com/abc",
      expected: .noMatch),
    MatchCase(
      rule: 7, note: "folds query strings", aasa: component(##""?": "Q=X", "caseSensitive": false"##),
      url: "https://e.com/?q=x", expected: .match(0)),
    MatchCase(
      rule: 7, note: "folds query item names", aasa: component(##""?": {"Id": "1"}, "caseSensitive": false"##),
      url: "https://e.com/?ID=1", expected: .match(0)),
    MatchCase(
      rule: 7, note: "query item names are case-sensitive by default", aasa: component(##""?": {"Id": "1"}"##),
      url: "https://e.com/?id=1", expected: .noMatch),
    MatchCase(
      rule: 7, note: "folds fragments", aasa: component(##""#": "Top", "caseSensitive": false"##),
      url: "https://e.com/#TOP", expected: .match(0)),
    MatchCase(
      rule: 7, note: "folds substituted values",
      aasa: component(##""/": "/$(v)", "caseSensitive": false"##, vars: ##"{"v": ["ABC"]}"##), url: "https://e.com/abc",
      expected: .match(0)),
    MatchCase(
      rule: 7, note: "$(upper) matches lower case when folded",
      aasa: component(##""/": "/$(upper)", "caseSensitive": false"##), url: "https://e.com/q", expected: .match(0)),
    MatchCase(
      rule: 7, note: "$(upper) rejects lower case when case-sensitive", aasa: component(##""/": "/$(upper)""##),
      url: "https://e.com/q", expected: .noMatch),
    MatchCase(
      rule: 7, note: "folds non-ASCII when decoded",
      aasa: component(##""/": "/ÉTÉ", "caseSensitive": false, "percentEncoded": false"##),
      url: "https://e.com/%C3%A9t%C3%A9", expected: .match(0)),
    MatchCase(
      rule: 7, note: "folding makes hex case irrelevant", aasa: component(##""/": "/a%2fb", "caseSensitive": false"##),
      url: "https://e.com/a%2Fb", expected: .match(0)),
  ]

  static let rule8: [MatchCase] = [
    MatchCase(
      rule: 8, note: "string ? must match the whole query", aasa: component(##""?": "a=1""##),
      url: "https://e.com/?a=1&b=2", expected: .noMatch),
    MatchCase(
      rule: 8, note: "string ? with a star", aasa: component(##""?": "a=1*""##), url: "https://e.com/?a=1&b=2",
      expected: .match(0)),
    MatchCase(
      rule: 8, note: "string ? exact", aasa: component(##""?": "a=1&b=2""##), url: "https://e.com/?a=1&b=2",
      expected: .match(0)),
    MatchCase(
      rule: 8, note: "dictionary: every listed item must match", aasa: component(##""?": {"a": "1", "b": "2"}"##),
      url: "https://e.com/?b=2&a=1", expected: .match(0)),
    MatchCase(
      rule: 8, note: "dictionary: one listed item fails", aasa: component(##""?": {"a": "1", "b": "2"}"##),
      url: "https://e.com/?b=3&a=1", expected: .noMatch),
    MatchCase(
      rule: 8, note: "dictionary: extra items ignored", aasa: component(##""?": {"a": "1"}"##),
      url: "https://e.com/?z=9&a=1&y", expected: .match(0)),
    MatchCase(
      rule: 8, note: "absent item reads as empty: * matches", aasa: component(##""?": {"t": "*"}"##),
      url: "https://e.com/", expected: .match(0)),
    MatchCase(
      rule: 8, note: "absent item reads as empty: ?* fails", aasa: component(##""?": {"t": "?*"}"##),
      url: "https://e.com/?u=1", expected: .noMatch),
    MatchCase(
      rule: 8, note: "absent item reads as empty: empty pattern matches", aasa: component(##""?": {"t": ""}"##),
      url: "https://e.com/?u=1", expected: .match(0)),
    MatchCase(
      rule: 8, note: "repeated name: every occurrence must match", aasa: component(##""?": {"a": "1"}"##),
      url: "https://e.com/?a=1&a=2", expected: .noMatch),
    MatchCase(
      rule: 8, note: "repeated name: second occurrence checked too", aasa: component(##""?": {"a": "1"}"##),
      url: "https://e.com/?a=2&a=1", expected: .noMatch),
    MatchCase(
      rule: 8, note: "repeated name: all occurrences match", aasa: component(##""?": {"a": "?"}"##),
      url: "https://e.com/?a=1&a=2", expected: .match(0)),
    MatchCase(
      rule: 8, note: "item without = has the value empty", aasa: component(##""?": {"flag": ""}"##),
      url: "https://e.com/?flag", expected: .match(0)),
    MatchCase(
      rule: 8, note: "item without = does not match ?*", aasa: component(##""?": {"flag": "?*"}"##),
      url: "https://e.com/?flag&x=1", expected: .noMatch),
    MatchCase(
      rule: 8, note: "empty value after =", aasa: component(##""?": {"a": ""}"##), url: "https://e.com/?a=",
      expected: .match(0)),
    MatchCase(
      rule: 8, note: "value keeps further = signs", aasa: component(##""?": {"a": "b=c"}"##),
      url: "https://e.com/?a=b=c", expected: .match(0)),
    MatchCase(
      rule: 8, note: "empty items between and after & name nothing", aasa: component(##""?": {"a": "1"}"##),
      url: "https://e.com/?&&a=1&", expected: .match(0)),
    MatchCase(
      rule: 8, note: "a decoded name compares as its characters",
      aasa: component(##""?": {"é": "1"}, "percentEncoded": false"##),
      url: "https://e.com/?%C3%A9=1", expected: .match(0)),
    MatchCase(
      rule: 8, note: "non-string value discards the whole ?", aasa: component(##""/": "/x", "?": {"a": "1", "b": 2}"##),
      url: "https://e.com/x?a=9", expected: .match(0)),
    MatchCase(
      rule: 8, note: "null value discards the whole ?", aasa: component(##""/": "/x", "?": {"a": null}"##),
      url: "https://e.com/x", expected: .match(0)),
    MatchCase(
      rule: 8, note: "non-string, non-object ? is ignored", aasa: component(##""/": "/x", "?": 5"##),
      url: "https://e.com/x?zzz", expected: .match(0)),
    MatchCase(
      rule: 8, note: "item names are exact, not patterns", aasa: component(##""?": {"a*": "1"}"##),
      url: "https://e.com/?ab=1", expected: .noMatch),
    MatchCase(
      rule: 8, note: "an item name with * matches only itself", aasa: component(##""?": {"a*": "1"}"##),
      url: "https://e.com/?a*=1", expected: .match(0)),
    MatchCase(
      rule: 8, note: "tasks.chara.dev: token present", aasa: component(##""/": "/reset", "?": {"token": "*"}"##),
      url: "https://e.com/reset?token=abc", expected: .match(0)),
    MatchCase(
      rule: 8, note: "query item name encoded as written", aasa: component(##""?": {"a b": "1"}"##),
      url: "https://e.com/?a%20b=1", expected: .noMatch),
  ]

  static let rule9: [MatchCase] = [
    MatchCase(
      rule: 9, note: "fragment with a star", aasa: component(##""#": "sec-*""##), url: "https://e.com/x#sec-2",
      expected: .match(0)),
    MatchCase(
      rule: 9, note: "fragment with ?", aasa: component(##""#": "t=??""##), url: "https://e.com/x#t=10",
      expected: .match(0)),
    MatchCase(
      rule: 9, note: "fragment ?* rejects a missing fragment", aasa: component(##""#": "?*""##), url: "https://e.com/x",
      expected: .noMatch),
    MatchCase(
      rule: 9, note: "fragment is not path-normalized", aasa: component(##""#": "a""##), url: "https://e.com/x#a/",
      expected: .noMatch),
    MatchCase(
      rule: 9, note: "fragment may contain /", aasa: component(##""#": "/market/*""##),
      url: "https://e.com/#/market/lettings", expected: .match(0)),
    MatchCase(
      rule: 9, note: "a path pattern never sees the fragment", aasa: component(##""/": "/#/market/*""##),
      url: "https://e.com/#/market/lettings", expected: .noMatch),
    MatchCase(
      rule: 9, note: "fragment compared as encoded", aasa: component(##""#": "a b""##), url: "https://e.com/#a%20b",
      expected: .noMatch),
    MatchCase(
      rule: 9, note: "fragment exclude", aasa: components(##"{"#": "nope", "exclude": true}, {}"##),
      url: "https://e.com/a#nope", expected: .exclude(0)),
  ]

  static let rule10: [MatchCase] = [
    MatchCase(
      rule: 10, note: "custom variable",
      aasa: component(##""/": "/$(food)""##, vars: ##"{"food": ["pizza", "sushi"]}"##), url: "https://e.com/sushi",
      expected: .match(0)),
    MatchCase(
      rule: 10, note: "custom variable: not a value",
      aasa: component(##""/": "/$(food)""##, vars: ##"{"food": ["pizza", "sushi"]}"##), url: "https://e.com/pasta",
      expected: .noMatch),
    MatchCase(
      rule: 10, note: "custom shadows built-in", aasa: component(##""/": "/$(digit)""##, vars: ##"{"digit": ["x"]}"##),
      url: "https://e.com/x", expected: .match(0)),
    MatchCase(
      rule: 10, note: "shadowed built-in values are gone",
      aasa: component(##""/": "/$(digit)""##, vars: ##"{"digit": ["x"]}"##), url: "https://e.com/1", expected: .noMatch),
    MatchCase(
      rule: 10, note: "alpha: letter", aasa: component(##""/": "/$(alpha)""##), url: "https://e.com/Q",
      expected: .match(0)),
    MatchCase(
      rule: 10, note: "alpha: digit", aasa: component(##""/": "/$(alpha)""##), url: "https://e.com/1",
      expected: .noMatch),
    MatchCase(
      rule: 10, note: "alpha: exactly one character", aasa: component(##""/": "/$(alpha)""##), url: "https://e.com/ab",
      expected: .noMatch),
    MatchCase(
      rule: 10, note: "upper", aasa: component(##""/": "/$(upper)$(upper)""##), url: "https://e.com/AB",
      expected: .match(0)),
    MatchCase(
      rule: 10, note: "lower", aasa: component(##""/": "/$(lower)""##), url: "https://e.com/A", expected: .noMatch),
    MatchCase(
      rule: 10, note: "alnum: digit", aasa: component(##""/": "/$(alnum)*""##), url: "https://e.com/7x",
      expected: .match(0)),
    MatchCase(
      rule: 10, note: "alnum: punctuation", aasa: component(##""/": "/$(alnum)*""##), url: "https://e.com/-x",
      expected: .noMatch),
    MatchCase(
      rule: 10, note: "digit repeated", aasa: component(##""/": "/order/$(digit)$(digit)$(digit)""##),
      url: "https://e.com/order/042", expected: .match(0)),
    MatchCase(
      rule: 10, note: "digit: letter", aasa: component(##""/": "/order/$(digit)""##), url: "https://e.com/order/a",
      expected: .noMatch),
    MatchCase(
      rule: 10, note: "xdigit: upper and lower hex", aasa: component(##""/": "/$(xdigit)$(xdigit)""##),
      url: "https://e.com/fA", expected: .match(0)),
    MatchCase(
      rule: 10, note: "xdigit: g", aasa: component(##""/": "/$(xdigit)""##), url: "https://e.com/g", expected: .noMatch),
    MatchCase(
      rule: 10, note: "region: upper case", aasa: component(##""/": "/$(region)/*""##), url: "https://e.com/DE/x",
      expected: .match(0)),
    MatchCase(
      rule: 10, note: "region: lower case", aasa: component(##""/": "/$(region)/*""##), url: "https://e.com/de/x",
      expected: .match(0)),
    MatchCase(
      rule: 10, note: "region: not a code", aasa: component(##""/": "/$(region)/*""##), url: "https://e.com/QQ/x",
      expected: .noMatch),
    MatchCase(
      rule: 10, note: "lang: lower case", aasa: component(##""/": "/$(lang)/*""##), url: "https://e.com/zh/x",
      expected: .match(0)),
    MatchCase(
      rule: 10, note: "lang: upper case", aasa: component(##""/": "/$(lang)/*""##), url: "https://e.com/AR/x",
      expected: .match(0)),
    MatchCase(
      rule: 10, note: "lang: not a code", aasa: component(##""/": "/$(lang)/*""##), url: "https://e.com/qq/x",
      expected: .noMatch),
    MatchCase(
      rule: 10, note: "undefined variable never matches", aasa: component(##""/": "/$(nope)""##),
      url: "https://e.com/$(nope)", expected: .noMatch),
    MatchCase(
      rule: 10, note: "undefined variable: later rules still tried",
      aasa: components(##"{"/": "*$(nope)*"}, {"/": "/x"}"##), url: "https://e.com/x", expected: .match(1)),
    MatchCase(
      rule: 10, note: "variable names are case-sensitive", aasa: component(##""/": "/$(Digit)""##),
      url: "https://e.com/1", expected: .noMatch),
    MatchCase(
      rule: 10, note: "variable with no values never matches",
      aasa: component(##""/": "/a$(v)""##, vars: ##"{"v": []}"##), url: "https://e.com/a", expected: .noMatch),
    MatchCase(
      rule: 10, note: "value with *", aasa: component(##""/": "/x/$(v)""##, vars: ##"{"v": ["a*", "b?"]}"##),
      url: "https://e.com/x/abc/def", expected: .match(0)),
    MatchCase(
      rule: 10, note: "value with ?", aasa: component(##""/": "/x/$(v)""##, vars: ##"{"v": ["a*", "b?"]}"##),
      url: "https://e.com/x/bc", expected: .match(0)),
    MatchCase(
      rule: 10, note: "value with ? needs its character",
      aasa: component(##""/": "/x/$(v)""##, vars: ##"{"v": ["a*", "b?"]}"##), url: "https://e.com/x/b",
      expected: .noMatch),
    MatchCase(
      rule: 10, note: "values are not expanded again",
      aasa: component(##""/": "/$(v)""##, vars: ##"{"v": ["$(digit)"]}"##), url: "https://e.com/1", expected: .noMatch),
    MatchCase(
      rule: 10, note: "a value's $( is literal text",
      aasa: component(##""/": "/$(v)""##, vars: ##"{"v": ["$(digit)"]}"##), url: "https://e.com/$(digit)",
      expected: .match(0)),
    MatchCase(
      rule: 10, note: "empty value", aasa: component(##""/": "/a$(v)b""##, vars: ##"{"v": ["", "-"]}"##),
      url: "https://e.com/ab", expected: .match(0)),
    MatchCase(
      rule: 10, note: "in query values", aasa: component(##""?": {"hl": "$(lang)"}"##), url: "https://e.com/?hl=fr",
      expected: .match(0)),
    MatchCase(
      rule: 10, note: "in query values: no match", aasa: component(##""?": {"hl": "$(lang)"}"##),
      url: "https://e.com/?hl=french", expected: .noMatch),
    MatchCase(
      rule: 10, note: "in the query string", aasa: component(##""?": "id=$(digit)*""##), url: "https://e.com/?id=42",
      expected: .match(0)),
    MatchCase(
      rule: 10, note: "in fragments", aasa: component(##""#": "$(food)""##, vars: ##"{"food": ["pizza"]}"##),
      url: "https://e.com/#pizza", expected: .match(0)),
    MatchCase(
      rule: 10, note: "in fragments: no match", aasa: component(##""#": "$(food)""##, vars: ##"{"food": ["pizza"]}"##),
      url: "https://e.com/#pasta", expected: .noMatch),
    MatchCase(
      rule: 10, note: "unclosed $( is literal", aasa: component(##""/": "/a$(b""##), url: "https://e.com/a$(b",
      expected: .match(0)),
    MatchCase(
      rule: 10, note: "multi-character values after a star", aasa: component(##""/": "*/$(lang)""##),
      url: "https://e.com/x/y/de", expected: .match(0)),
    MatchCase(
      rule: 10, note: "overlapping values backtrack correctly",
      aasa: component(##""/": "/$(v)c""##, vars: ##"{"v": ["a", "ab", "abc"]}"##), url: "https://e.com/abc",
      expected: .match(0)),
  ]

  static let rule11: [MatchCase] = [
    MatchCase(
      rule: 11, note: "only the path is matched", aasa: paths(##""/a""##), url: "https://e.com/a?x=1#y",
      expected: .match(0)),
    MatchCase(
      rule: 11, note: "NOT excludes", aasa: paths(##""NOT /api/*", "*""##), url: "https://e.com/api/v1",
      expected: .exclude(0)),
    MatchCase(
      rule: 11, note: "NOT then * opens the rest", aasa: paths(##""NOT /api/*", "*""##), url: "https://e.com/home",
      expected: .match(1)),
    MatchCase(
      rule: 11, note: "NOT without a space is literal", aasa: paths(##""NOT/api""##), url: "https://e.com/NOT/api",
      expected: .match(0)),
    MatchCase(
      rule: 11, note: "lower-case not is literal", aasa: paths(##""not /api/*""##), url: "https://e.com/api/x",
      expected: .noMatch),
    MatchCase(
      rule: 11, note: "? in a path is a wildcard, not a query", aasa: paths(##""/a?b""##), url: "https://e.com/a?b",
      expected: .noMatch),
    MatchCase(
      rule: 11, note: "? in a path matches one character", aasa: paths(##""/a?b""##), url: "https://e.com/axb",
      expected: .match(0)),
    MatchCase(
      rule: 11, note: "path patterns are not matched against the fragment", aasa: paths(##""/*/home""##),
      url: "https://e.com/#/en/home", expected: .noMatch),
    MatchCase(
      rule: 11, note: "catchplay: /*/video-*", aasa: paths(##""/home", "/*/home", "/video-*", "/*/video-*""##),
      url: "https://e.com/tw/video-123", expected: .match(3)),
    MatchCase(
      rule: 11, note: "non-string entries are skipped", aasa: paths(##"5, "/x""##), url: "https://e.com/x",
      expected: .match(1)),
    MatchCase(
      rule: 11, note: "defaults still set the flags",
      aasa:
        ##"{"applinks": {"defaults": {"caseSensitive": false}, "details": [{"appID": "ABCDE12345.com.example.app", "paths": ["/ABC"]}]}}"##,
      url: "https://e.com/abc", expected: .match(0)),
  ]

  static let rule12: [MatchCase] = [
    MatchCase(
      rule: 12, note: "nested stars against a long run",
      aasa: component(##""/": "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b""##),
      url: "https://e.com/" + String(repeating: "a", count: 200), expected: .noMatch),
    MatchCase(
      rule: 12, note: "nested stars that do match", aasa: component(##""/": "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b*""##),
      url: "https://e.com/" + String(repeating: "a", count: 200) + "b", expected: .match(0)),
    MatchCase(
      rule: 12, note: "?* runs", aasa: component(##""?": "?*?*?*?*?*?*?*?*?*?*?*?*x""##),
      url: "https://e.com/?" + String(repeating: "y", count: 300), expected: .noMatch),
    MatchCase(
      rule: 12, note: "variables after stars",
      aasa: component(##""/": "*$(lang)*$(lang)*$(lang)*$(lang)*$(region)!""##),
      url: "https://e.com/" + String(repeating: "ende", count: 100), expected: .noMatch),
    MatchCase(
      rule: 12, note: "wildcard variable values after stars",
      aasa: component(##""/": "*$(v)*$(v)*$(v)*$(v)*z""##, vars: ##"{"v": ["a*a", "?a?", "*"]}"##),
      url: "https://e.com/" + String(repeating: "a", count: 300), expected: .noMatch),
  ]

  static let all = rule1 + rule2 + rule3 + rule4 + rule5 + rule6 + rule7 + rule8 + rule9 + rule10 + rule11 + rule12

  @Test(arguments: all)
  func matchingRule(_ c: MatchCase) throws {
    try check(c)
  }

  @Test func everyRuleHasCases() {
    let covered = Set((Self.all + AppleDocumentationTests.cases).map(\.rule))
    #expect(covered == Set(1...12))
    #expect(Self.all.count + AppleDocumentationTests.cases.count >= 150)
  }
}
