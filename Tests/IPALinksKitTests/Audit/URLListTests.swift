import Foundation
import Testing
import UniversalLinks

@testable import IPALinksKit

/// `URLList.problem`'s one-pass check of plain URLs, which spares most lines of a list the two parsers.
struct URLListTests {
  /// A line the fast check takes is one the parsers take: 200,000 generated lines (a fixed seed), from schemes,
  /// hosts and paths that are almost plain, so many are taken and many are not; and the lines it leaves to the
  /// parsers are judged by them, as before.
  @Test func urlListsFastCheckAgreesWithTheParsers() {
    var random = SeededLines(seed: 20_261_130)
    // Plain parts are repeated, so that a fair share of the lines are plain throughout.
    func weighted(_ plain: [String], _ times: Int, _ other: [String]) -> [String] {
      Array(repeating: plain, count: times).flatMap { $0 } + other
    }
    let schemes = weighted(["https://", "http://", "HTTPS://", "hTtP://"], 6, ["https:/", "ftp://", "https//", ""])
    let hostParts = weighted(
      ["a", "shop", "example", "com", "a-b", "1", "255", "Z9"], 4, ["xn--caf-dma", "XN--a", "-a", "a-", "_", "é", ""])
    let separators = weighted(["."], 30, ["", ":", ":443", "@", "..", "%2e", " "])
    let rest = weighted(
      ["/", "/buy/", "1", "?", "#", "?q=1&r=2", "%20", "!$&'()*+,;=", "~_-.", ":", "/a/../b"], 12,
      ["##", "%2", "%zz", "@", "[", "]", "é", " ", "\u{0}", "\"", "\\", "{", "|", "^", "`", "\u{1B}[2J", "\u{2028}"])
    var taken = 0
    for _ in 0..<200_000 {
      var host = random.pick(hostParts)
      for _ in 0..<random.below(4) { host += random.pick(separators) + random.pick(hostParts) }
      var line = random.pick(schemes) + host
      for _ in 0..<random.below(6) { line += random.pick(rest) }
      // The parsers' test: iOS's reading, and for http(s) WebKit's (a port past 65535, a host with `^` or an IPv4
      // address of five parts is no URL), else Foundation's.
      let url = UniversalLinkURL(string: line)
      let parsers =
        url != nil
        && (["http", "https"].contains(url?.scheme)
          ? LinkRuntime.WebURL(line) != nil : URLComponents(string: line)?.host != nil)
      if URLList.isPlain(line) {
        taken += 1
        #expect(parsers, "\(line.debugDescription) is taken, and a parser refuses it")
      }
      // A control character makes no URL, whatever the parsers make of it (they percent-encode it); nor does an
      // http(s) host outside ASCII, which a link carries in Punycode.
      let unicodeHost =
        ["http", "https"].contains(url?.scheme) && url?.host.unicodeScalars.allSatisfy(\.isASCII) == false
      #expect(
        (URLList.problem(line) == nil) == (parsers && URLScan.controlProblem(line) == nil && !unicodeHost),
        "\(line.debugDescription)")
    }
    // Enough of both kinds for the comparison to mean something.
    #expect(taken > 20_000 && taken < 180_000, "\(taken)")
    for plain in ["https://shop.example.com/buy/1", "http://a.b/c?d=e#f", "HTTPS://Shop.Example.COM/%41?x=%7e"] {
      #expect(URLList.isPlain(plain), "\(plain)")
    }
    for other in [
      "https://xn--caf-dma.com/", "https://a.com:443/", "https://u@a.com/", "https://a.com/#a#b", "https://a.1/",
    ] {
      #expect(!URLList.isPlain(other), "\(other)")
    }
  }
}

/// A seeded sequence (a 64-bit linear congruential generator, its high bits used), so a failing line is found
/// again.
private struct SeededLines {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func below(_ n: Int) -> Int {
    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    return Int((state >> 33) % UInt64(n))
  }
  mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}
