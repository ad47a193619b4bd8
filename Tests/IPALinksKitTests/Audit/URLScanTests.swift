import Foundation
import IPALinksKit
import Testing
import UniversalLinks

/// `who-claims --urls`: many URLs against every app of the inputs, with bad lines named and skipped.
@Suite struct URLScanTests {
  @Test func eachURLNamesEveryAppThatOpensOrExcludesIt() async throws {
    let reports = try await InspectedSamples.reports(["Store.ipa", "Nested.ipa"])
    let scan = URLScan(reports: reports)
    let store = "ST0REAPP42.com.example.store"
    #expect(
      try scan.decide("https://shop.example.com/buy/1", line: 1).get()
        == URLScan.Line(
          url: "https://shop.example.com/buy/1",
          apps: [URLScan.Claim(appId: store, pointer: "/applinks/details/0/components/1")], excludedBy: []))
    #expect(
      try scan.decide("  https://shop.example.com/buy/gift/card \r", line: 2).get()
        == URLScan.Line(
          url: "https://shop.example.com/buy/gift/card", apps: [],
          excludedBy: [URLScan.Claim(appId: store, pointer: "/applinks/details/0/components/0")]))
    #expect(try scan.decide("https://nowhere.example/x", line: 3).get().apps.isEmpty)
    // White space past ASCII is trimmed too, at either end.
    for padded in [
      "\u{A0}https://shop.example.com/buy/1", "https://shop.example.com/buy/1\u{3000}",
      "\thttps://shop.example.com/buy/1\u{85}",
    ] {
      #expect(
        try scan.decide(padded, line: 4).get().url == "https://shop.example.com/buy/1",
        "\(padded.unicodeScalars.map(\.value))")
    }
    // Every scanned URL agrees with the blocklist's reference verdict.
    let blocklist = Blocklist(reports: reports)
    for url in [
      "https://shop.example.com/help/x#app", "https://www.example.com/promo/spring/1",
      "https://nested.example.com/menu/1",
    ] {
      let line = try scan.decide(url, line: 1).get()
      let verdict = blocklist.verdict(for: url)
      #expect((verdict.verdict == .match) == !line.apps.isEmpty, "\(url)")
      if verdict.verdict == .match { #expect(line.apps.first?.appId == verdict.appID, "\(url)") }
    }
  }

  @Test func badLinesAreNamedByNumber() async throws {
    let scan = URLScan(reports: try await InspectedSamples.reports(["Store.ipa"]))
    #expect(throws: URLScan.Problem(line: 7, message: #""not a url" is not an absolute URL with a host"#)) {
      try scan.decide("not a url", line: 7).get()
    }
    #expect(throws: URLScan.Problem(line: 8, message: #""ftp://shop.example.com/x" is not an http(s) URL"#)) {
      try scan.decide("ftp://shop.example.com/x", line: 8).get()
    }
  }

  /// A list decided in batches on several threads gives, in the file's order, what deciding its lines one by one
  /// gives. Blank lines and comments are skipped; bad lines, an overlong one among them, are problems named by
  /// their number, and every line after them is still decided. (Under ThreadSanitizer too: this suite is in the
  /// Makefile's TSAN_SUITES.)
  @Test func listsDecidedInParallelKeepTheirOrder() async throws {
    let scan = URLScan(reports: try await InspectedSamples.reports(["Store.ipa", "Nested.ipa"]))
    let texts = [
      "https://shop.example.com/buy/1", "https://shop.example.com/buy/gift/card", "https://nested.example.com/menu/1",
      "https://nowhere.example/x", "ftp://shop.example.com/x", "not a url", "https://shop.example.com/p/7?ref=a",
    ]
    var lines = (0..<3_000).map { texts[($0 * 7 + $0 / 5) % texts.count] + "/\($0)" }
    for k in stride(from: 3, to: lines.count, by: 11) { lines[k] = k % 2 == 0 ? " " : "  # a comment" }
    let long = 1_234
    lines[long] = "https://shop.example.com/" + String(repeating: "x", count: LineReader.maximumLineBytes)
    let list = FileManager.default.temporaryDirectory.appendingPathComponent("urls-\(UUID().uuidString).txt")
    try Data(lines.joined(separator: "\n").utf8).write(to: list)
    defer { try? FileManager.default.removeItem(at: list) }
    var expected: [Result<URLScan.Line, URLScan.Problem>] = []
    for (k, text) in lines.enumerated() where k % 11 != 3 {
      expected.append(
        k == long
          ? .failure(URLScan.Problem(line: k + 1, message: "longer than 1 MiB; not a URL"))
          : scan.decide(text, line: k + 1))
    }
    for workers in [1, 2, 4] {
      let reader = try #require(LineReader(path: list.path))
      var results: [Result<URLScan.Line, URLScan.Problem>] = []
      var batches = 0
      scan.decide(reader, workers: workers, { "\($0)" }) { batch in
        #expect(batch.allSatisfy { "\($0.result)" == $0.rendered })
        results += batch.map(\.result)
        batches += 1
      }
      #expect(results.count == expected.count, "\(workers) workers")
      let differ = zip(results, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
      #expect(
        differ == nil,
        "\(workers) workers: the first difference is result \(differ ?? -1): \(differ.map { String(String(describing: results[$0]).prefix(200)) } ?? "")"
      )
      #expect(batches > 1, "\(workers) workers")
    }
    // The lines reach every outcome, so the order is checked on each.
    #expect(expected.contains { (try? $0.get())?.apps.isEmpty == false })
    #expect(expected.contains { (try? $0.get())?.excludedBy.isEmpty == false })
    #expect(expected.contains { if case .failure = $0 { true } else { false } })
  }

  /// The hand-built JSON line is byte for byte what the encoder writes, whatever the strings hold: quotes,
  /// backslashes, every C0 control, DEL, C1 controls, bidi controls, line separators, U+FEFF, astral scalars.
  @Test func handBuiltJSONLinesAreTheEncodersText() {
    var strings = [
      "", "https://a.example/p?q=1#f", #"quote " and \ backslash / slash"#, "é\u{301} \u{1F600} \u{10FFFF}",
      "\u{7F}\u{80}\u{85}\u{9F}\u{A0}\u{200E}\u{202E}\u{2066}\u{2028}\u{2029}\u{061C}\u{FEFF}\u{FFFD}",
      // Printable ASCII is copied as it is; each of these has one character on either side of that range.
      " ~plain~ ", "a\u{1F}", "a\u{7F}", "\"a", "a\\", "aé",
    ]
    strings.append(String(String.UnicodeScalarView((0..<0x20).map { Unicode.Scalar($0)! })))
    for (k, text) in strings.enumerated() {
      let claim = URLScan.Claim(appId: text, pointer: "/applinks/details/\(k)/" + text)
      for line in [
        URLScan.Line(url: text, apps: [], excludedBy: []),
        URLScan.Line(url: text, apps: [claim, claim], excludedBy: [claim]),
      ] {
        #expect(line.jsonLine == JSONReporter.render(line, pretty: false), "\(text.unicodeScalars.map(\.value))")
      }
    }
  }
}
