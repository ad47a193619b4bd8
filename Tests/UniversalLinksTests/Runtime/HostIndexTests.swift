import Testing

@testable import UniversalLinks

/// The host index hashes and compares hosts eight bytes at a time, folding capitals in a whole word at once. On
/// random hosts of every length around those words' edges, written in random case, it must find exactly what a
/// dictionary of the lower-cased hosts finds.
struct HostIndexTests {
  static let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789-.".utf8)

  static func find(_ index: LinkRuntime.HostIndex, _ host: String) -> Int? {
    var host = host
    return host.withUTF8 { index.group($0) }
  }

  /// `host` with each letter made a capital at random.
  static func shuffledCase(_ host: String, _ rng: inout PatternEngineTests.SplitMix) -> String {
    String(host.map { Bool.random(using: &rng) ? Character($0.uppercased()) : $0 })
  }

  @Test func hostsOfEveryLengthAreFoundInAnyCaseAndNothingElseIs() {
    var rng = PatternEngineTests.SplitMix(state: 8)
    var exact: [String: Int] = [:]
    var wildcard: [String: Int] = [:]
    for length in 1...40 {
      for _ in 0..<3 {
        let host = String(
          decoding: (0..<length).map { _ in Self.alphabet.randomElement(using: &rng)! }, as: UTF8.self)
        if Bool.random(using: &rng) {
          exact[host] = exact[host] ?? exact.count + wildcard.count
        } else {
          wildcard[host] = wildcard[host] ?? exact.count + wildcard.count
        }
      }
    }
    let index = LinkRuntime.HostIndex(
      exact: exact.map { ($0.key, $0.value) }, wildcard: wildcard.map { ($0.key, $0.value) })
    var found = 0
    for (host, group) in exact {
      #expect(Self.find(index, Self.shuffledCase(host, &rng)) == group, "\(host)")
      found += 1
      // One byte changed, wherever it falls in a word, is another host.
      var bytes = Array(host.utf8)
      let k = Int.random(in: 0..<bytes.count, using: &rng)
      bytes[k] = bytes[k] == UInt8(ascii: "q") ? UInt8(ascii: "z") : UInt8(ascii: "q")
      let changed = String(decoding: bytes, as: UTF8.self)
      if exact[changed] == nil {
        #expect(Self.find(index, changed) == Self.coveringWildcard(changed, wildcard), "\(changed)")
      }
      // A capital in a host is no different from its lower-case letter; a byte past ASCII always is.
      #expect(Self.find(index, host + "é") == Self.coveringWildcard(host + "é", wildcard))
    }
    for (host, group) in wildcard where exact["www." + host] == nil {
      #expect(Self.find(index, "www." + Self.shuffledCase(host, &rng)) == group, "www.\(host)")
      #expect(Self.find(index, "é." + host) == group, "a label that is not ASCII, then \(host)")
      found += 1
    }
    #expect(found > 100)
  }

  /// The group of the longest wildcard claim over a subdomain `host`.
  static func coveringWildcard(_ host: String, _ wildcard: [String: Int]) -> Int? {
    var rest = Substring(host)
    while let dot = rest.firstIndex(of: ".") {
      rest = rest[rest.index(after: dot)...]
      if let group = wildcard[String(rest)] { return group }
    }
    return nil
  }
}
