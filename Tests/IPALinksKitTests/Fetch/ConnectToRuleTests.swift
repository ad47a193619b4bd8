import Testing

@testable import IPALinksKit

/// `--connect-to` parsing with curl's semantics.
struct ConnectToRuleTests {
  @Test(arguments: [
    (
      "example.com:443:127.0.0.1:8443",
      ConnectToRule(fromHost: "example.com", fromPort: 443, toHost: "127.0.0.1", toPort: 8443)
    ),
    ("::127.0.0.1:8443", ConnectToRule(toHost: "127.0.0.1", toPort: 8443)),
    ("example.com::mirror.internal:", ConnectToRule(fromHost: "example.com", toHost: "mirror.internal")),
    ("example.com:443::8443", ConnectToRule(fromHost: "example.com", fromPort: 443, toPort: 8443)),
    (":::", ConnectToRule()),
    ("Example.COM:443:[::1]:8443", ConnectToRule(fromHost: "example.com", fromPort: 443, toHost: "::1", toPort: 8443)),
    (
      "[2001:db8::1]:443:[::ffff:127.0.0.1]:1",
      ConnectToRule(fromHost: "2001:db8::1", fromPort: 443, toHost: "::ffff:127.0.0.1", toPort: 1)
    ),
    ("a.test:65535:b.test:65535", ConnectToRule(fromHost: "a.test", fromPort: 65535, toHost: "b.test", toPort: 65535)),
    // A fully qualified name, which `fetch` takes for the same host: it was "not a host name".
    (
      "Example.com.:443:mirror.test.:1",
      ConnectToRule(fromHost: "example.com", fromPort: 443, toHost: "mirror.test", toPort: 1)
    ),
  ])
  func validRulesParse(text: String, expected: ConnectToRule) throws {
    #expect(try ConnectToRule.parse(text) == expected)
  }

  @Test(arguments: [
    "", "example.com", "example.com:443", "example.com:443:127.0.0.1", "a:443:b:443:c", "example.com:443:::1:8443",
    "example.com:0:b:1", "example.com:65536:b:1", "example.com:http:b:1", "example.com:-1:b:1", "example.com:443:b:+1",
    "[::1:443:b:1", "[]:443:b:1", "[not-ipv6]:443:b:1", "[::1]x:443:b:1", "exa mple:443:b:1", "a/b:443:c:1",
    "a:443:b:00000000443", "a..:443:b:1", ".:443:b:1",
  ])
  func badRulesAreRejectedWithTheRuleInTheMessage(text: String) {
    #expect(throws: AASAFetchError.self) { try ConnectToRule.parse(text) }
    do throws(AASAFetchError) {
      _ = try ConnectToRule.parse(text)
    } catch {
      #expect(error.description.contains("\"\(text)\""))
    }
  }

  @Test func emptyFieldsMatchAnyHostOrPort() throws {
    let any = try ConnectToRule.parse("::127.0.0.1:1")
    #expect(any.matches(host: "example.com", port: 443))
    #expect(any.matches(host: "other.test", port: 8443))
    let hostOnly = try ConnectToRule.parse("example.com::127.0.0.1:1")
    #expect(hostOnly.matches(host: "EXAMPLE.com", port: 80))
    #expect(!hostOnly.matches(host: "www.example.com", port: 443))
    let exact = try ConnectToRule.parse("example.com:443:127.0.0.1:1")
    #expect(!exact.matches(host: "example.com", port: 8443))
  }

  @Test func rulesPrintTheWayTheyParse() throws {
    for text in ["example.com:443:[::1]:8443", "::127.0.0.1:8443", "a.test::b.test:"] {
      #expect(try ConnectToRule.parse(text).description == text)
    }
  }
}
