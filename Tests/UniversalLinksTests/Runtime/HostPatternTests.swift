import Testing
import UniversalLinks

/// The wildcard rule and iOS's choice among entries, in the one type that holds them.
@Suite struct HostPatternTests {
  typealias Pattern = LinkRuntime.HostPattern

  @Test func aWildcardCoversSubdomainsNotItsApex() {
    let wildcard = Pattern("*.Example.com")
    #expect(wildcard.host == "example.com" && wildcard.wildcard && wildcard.description == "*.example.com")
    #expect(wildcard.covers("a.example.com") && wildcard.covers("a.b.example.com"))
    #expect(!wildcard.covers("example.com") && !wildcard.covers("notexample.com"))
    #expect(Pattern("example.com").covers("example.com") && !Pattern("example.com").covers("a.example.com"))
    #expect(wildcard.exampleHost == "www.example.com" && Pattern("example.com").exampleHost == "example.com")
  }

  @Test func anExactEntryBeatsAWildcardAndALongerWildcardAShorterOne() {
    let entries = [Pattern("*.example.com"), Pattern("*.shop.example.com"), Pattern("a.shop.example.com")]
    #expect(Pattern.governing(entries, for: "a.shop.example.com") == 2)
    #expect(Pattern.governing(entries, for: "b.shop.example.com") == 1)
    #expect(Pattern.governing(entries, for: "b.example.com") == 0)
    #expect(Pattern.governing(entries, for: "example.com") == nil)
    // The first of two equal wildcards wins.
    #expect(Pattern.governing([Pattern("*.example.com"), Pattern("*.example.com")], for: "a.example.com") == 0)
    // Below a host no entry names exactly: the longest wildcard for it or a parent.
    #expect(Pattern.governing(entries, below: "shop.example.com") == 1)
    #expect(Pattern.governing(entries, below: "other.example.com") == 0)
  }

  @Test func overlapsAndItsWrittenForm() throws {
    #expect(Pattern("*.example.com").overlaps(Pattern("*.shop.example.com")))
    #expect(Pattern("*.example.com").overlaps(Pattern("a.example.com")))
    #expect(!Pattern("*.example.com").overlaps(Pattern("example.com")))
    #expect(!Pattern("a.example.com").overlaps(Pattern("b.example.com")))
  }
}
