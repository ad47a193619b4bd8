import Foundation
import Testing

/// `who-claims --urls`: many URLs at once against every app of the inputs, with bad lines named and skipped.
struct WhoClaimsURLsTests {
  static let list = """
    https://shop.example.com/buy/1
    https://shop.example.com/buy/gift/card
    # a comment
    not a url
    https://www.example.com/promo/spring/x
    https://menu.nested.example.com/menu/soup
    https://elsewhere.test/

    """

  static func file() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("urls-\(UUID().uuidString).txt")
    try Data(list.utf8).write(to: url)
    return url
  }

  @Test func jsonLinesDecideEveryURLAgainstEveryApp() throws {
    let urls = try Self.file()
    defer { try? FileManager.default.removeItem(at: urls) }
    let run = try CLI.run([
      "who-claims", "--urls", urls.path, CLI.samples.path, "--aasa-dir", CLI.sample("aasa"), "--format", "jsonl",
    ])
    #expect(run.status == 0)
    let lines = run.stdout.split(separator: "\n").compactMap {
      (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
    }
    #expect(lines.count == 5, "one line per URL, the bad line and the comment skipped")
    let apps = lines.map { ($0["apps"] as? [[String: Any]] ?? []).map { $0["appId"] as? String ?? "" } }
    #expect(
      apps == [
        ["ST0REAPP42.com.example.store"], [], ["ST0REAPP42.com.example.store"],
        ["N3STEDAPP7.com.example.nested.cafe"], [],
      ])
    let excluded = (lines[1]["excludedBy"] as? [[String: Any]])?.first
    #expect(excluded?["pointer"] as? String == "/applinks/details/0/components/0")
    #expect(run.stderr.contains(": line 4: \"not a url\" is not an absolute URL with a host"))
    #expect(run.stderr.contains("5 URLs: 3 open an app, 1 excluded, 1 open none; 1 line skipped"))
  }

  @Test func textGroupsTheOpeningURLsByAppAndStandardInputWorks() throws {
    let urls = try Self.file()
    defer { try? FileManager.default.removeItem(at: urls) }
    let process = Process()
    process.executableURL = CLI.binary
    process.arguments = ["who-claims", "--urls", "-", CLI.samples.path, "--aasa-dir", CLI.sample("aasa"), "-q"]
    // The inherited environment, so a sanitizer's options (ASAN_OPTIONS) reach the child as in every other run.
    process.environment = ProcessInfo.processInfo.environment.merging(["NO_COLOR": "1", "COLUMNS": "80"]) { $1 }
    process.standardInput = try FileHandle(forReadingFrom: urls)
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    try process.run()
    let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    #expect(
      text == """
        ST0REAPP42.com.example.store  (2 URLs)
          https://shop.example.com/buy/1  /applinks/details/0/components/1
          https://www.example.com/promo/spring/x  /applinks/details/0/components/0

        N3STEDAPP7.com.example.nested.cafe  (1 URL)
          https://menu.nested.example.com/menu/soup  /applinks/details/0/paths/1

        """)
  }

  @Test func noOpeningURLExitsOne() throws {
    let urls = FileManager.default.temporaryDirectory.appendingPathComponent("none-\(UUID().uuidString).txt")
    try Data("https://elsewhere.test/a\n".utf8).write(to: urls)
    defer { try? FileManager.default.removeItem(at: urls) }
    let run = try CLI.run(["who-claims", "--urls", urls.path, CLI.sample("Store.ipa"), "--no-fetch"])
    #expect(run.status == 1)
    #expect(run.stdout.isEmpty)
    let missing = try CLI.run(["who-claims", "--urls", urls.path + ".missing", CLI.sample("Store.ipa"), "--no-fetch"])
    #expect(missing.status == 2)
    #expect(missing.stderr.contains("cannot read the URL list"))
  }
}
