import Testing

@testable import UniversalLinks

/// A URL's texts are written by a byte loop specialized per reading, into an arena the subject owns. On random
/// parts (capitals, runs of `/`, escapes, non-ASCII, empty), each reading must equal what the string path makes of
/// the same bytes: the same scalars, characters, pairs and ASCII flag; and texts far larger than the arena's first
/// block must come out whole.
struct SubjectTests {
  static let pieces = ["a", "B", "z", "Z", "/", "//", "%41", "%2f", "-", ".", "é", "?", "=", "&", "7", "~"]

  static func describe(_ text: LinkRuntime.SubjectText) -> [String] {
    [
      "\(text.scalars)", "\(text.mask.low),\(text.mask.high)", "\(text.pairs)", "\(text.ascii)", "\(text.count)",
    ]
  }

  @Test func eachReadingIsWhatTheStringPathMakes() {
    var rng = PatternEngineTests.SplitMix(state: 5)
    var fast = 0
    for _ in 0..<3_000 {
      let text = (0..<Int.random(in: 0...12, using: &rng)).map { _ in Self.pieces.randomElement(using: &rng)! }
        .joined()
      let arena = LinkRuntime.TextArena.make(source: text)
      withExtendedLifetime(arena) {
        let bytes = 0..<text.utf8.count
        for slot in 0..<4 {
          for normalizing in [false, true] {
            let made = LinkRuntime.Subject.text(text, bytes, slot: slot, normalizingPath: normalizing, in: arena)
            let slow = LinkRuntime.SubjectText.make(
              LinkRuntime.Subject.prepare(Substring(text), slot: slot, normalizingPath: normalizing), in: arena)
            #expect(Self.describe(made) == Self.describe(slow), "\(text) slot \(slot) path \(normalizing)")
            if !text.contains("é") && !(slot & 1 == 1 && text.contains("%")) { fast += 1 }
          }
        }
      }
    }
    // Most of them took the byte loop, which is what is under test.
    #expect(fast > 10_000, "\(fast)")
  }

  @Test func textsBeyondTheFirstBlockComeOutWhole() {
    let arena = LinkRuntime.TextArena.make(source: "")
    withExtendedLifetime(arena) {
      var texts: [(LinkRuntime.SubjectText, String)] = []
      for n in [0, 1, 100, 5_000, 70_000, 3] {
        let string = String(repeating: "ab/", count: n)
        texts.append((LinkRuntime.SubjectText.make(string, in: arena), string))
      }
      // Written after all the others, so an overlap between blocks would show in the earlier texts.
      for (text, string) in texts {
        #expect(text.scalars == string.unicodeScalars.map(\.value))
        #expect(text.string == string)
      }
    }
  }

  @Test func queryItemsAreSplitOnceAndShared() {
    let url = UniversalLinkURL(string: "https://example.com/p?a=1&B=%41&c&=x&a=2#f")!
    var subject = LinkRuntime.Subject(url)
    let encoded = subject.reading(0)
    let items = encoded.items.map { "\($0.name.string)=\($0.value.string)" }
    #expect(items == ["a=1", "B=%41", "c=", "=x", "a=2"])
    // Decoded and folded, the same items read differently; asked again, the same storage is given.
    let folded = subject.reading(3)
    #expect(folded.items.map { "\($0.name.string)=\($0.value.string)" } == ["a=1", "b=a", "c=", "=x", "a=2"])
    #expect(subject.reading(3).items.baseAddress == folded.items.baseAddress)
    withExtendedLifetime(subject) {}
  }
}
