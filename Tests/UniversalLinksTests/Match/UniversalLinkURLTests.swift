import Testing
import UniversalLinks

/// URL splitting and the checks made before any rule: scheme, host, listed app.
struct UniversalLinkURLTests {
  @Test func splitsAnAbsoluteURL() throws {
    let url = try #require(UniversalLinkURL(string: "HTTPS://User:pw@Example.COM.:8443/a/b%2F?x=1&y#frag#more"))
    #expect(url.scheme == "https")
    #expect(url.host == "example.com")
    #expect(url.percentEncodedPath == "/a/b%2F")
    #expect(url.percentEncodedQuery == "x=1&y")
    #expect(url.percentEncodedFragment == "frag%23more")
  }

  @Test func missingAndEmptyParts() throws {
    let bare = try #require(UniversalLinkURL(string: "https://e.com"))
    #expect(bare.percentEncodedPath == "")
    #expect(bare.percentEncodedQuery == nil)
    #expect(bare.percentEncodedFragment == nil)
    let empty = try #require(UniversalLinkURL(string: "https://e.com/?#"))
    #expect(empty.percentEncodedQuery == "")
    #expect(empty.percentEncodedFragment == "")
  }

  @Test func encodesWhatAURLCannotHold() throws {
    let url = try #require(UniversalLinkURL(string: "https://e.com/a b/é/100%/%41?q=a b"))
    #expect(url.percentEncodedPath == "/a%20b/%C3%A9/100%25/%41")
    #expect(url.percentEncodedQuery == "q=a%20b")
    #expect(url.absoluteString == "https://e.com/a%20b/%C3%A9/100%25/%41?q=a%20b")
  }

  @Test func ipv6Hosts() throws {
    #expect(UniversalLinkURL(string: "https://[::1]:443/x")?.host == "[::1]")
  }

  @Test(arguments: ["example.com/x", "/x", "mailto:a@b.c", "https://", "https:///path", "1https://e.com/", ""])
  func rejectsNonAbsoluteURLs(_ text: String) {
    #expect(UniversalLinkURL(string: text) == nil)
  }

  static let open = #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{}]}]}}"#

  @Test func hostMustEqualTheDomain() throws {
    let matcher = try AASAFile(json: Self.open).matcher(appID: "ABCDE12345.com.example.app")
    #expect(matcher.verdict(for: "https://EXAMPLE.com./x", domain: "example.com").verdict == .match)
    #expect(matcher.verdict(for: "https://www.example.com/x", domain: "example.com").reason == .hostMismatch)
    #expect(matcher.verdict(for: "https://anything.org/x").verdict == .match)
  }

  @Test func onlyHTTPAndHTTPS() throws {
    let matcher = try AASAFile(json: Self.open).matcher(appID: "ABCDE12345.com.example.app")
    #expect(matcher.verdict(for: "http://e.com/").verdict == .match)
    #expect(matcher.verdict(for: "ftp://e.com/").reason == .unsupportedScheme)
    #expect(matcher.verdict(for: "not a url").reason == .invalidURL)
  }

  @Test func unlistedAppSaysSo() throws {
    let matcher = try AASAFile(json: Self.open).matcher(appID: "ABCDE12345.com.example.other")
    #expect(matcher.detailIndex == nil)
    #expect(matcher.verdict(for: "https://e.com/") == MatchResult(verdict: .noMatch, reason: .appNotListed))
  }

  @Test func verdictFromPreSplitParts() throws {
    let matcher = try AASAFile(
      json:
        #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/a b", "percentEncoded": false}]}]}}"#
    )
    .matcher(appID: "ABCDE12345.com.example.app")
    let url = UniversalLinkURL(host: "E.com", percentEncodedPath: "/a%20b")
    let result = matcher.verdict(for: url, domain: "e.com")
    #expect(result.verdict == .match)
    #expect(result.rule?.pointer == "/applinks/details/0/components/0")
    #expect(result.rule?.pattern == #"{"/": "/a b", "percentEncoded": false}"#)
  }

  @Test func ruleReferencesDescribeLegacyPaths() throws {
    let matcher = try AASAFile(
      json: #"{"applinks": {"details": {"ABCDE12345.com.example.app": {"paths": ["NOT /x/*", "*"]}}}}"#
    )
    .matcher(appID: "ABCDE12345.com.example.app")
    let rules = matcher.ruleReferences
    #expect(rules.map(\.pattern) == ["NOT /x/*", "*"])
    #expect(rules.map(\.kind) == [.path, .path])
    #expect(rules[0].pointer == "/applinks/details/ABCDE12345.com.example.app/paths/0")
    #expect(rules[0].exclude && !rules[1].exclude)
  }
}
