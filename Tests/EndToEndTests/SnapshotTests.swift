import Foundation
import Testing

/// Golden outputs in `Snapshots/`; re-record with `RECORD_SNAPSHOTS=1 swift test --filter SnapshotTests`.
struct SnapshotTests {
  static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots")

  private func check(_ name: String, _ arguments: [String]) throws {
    let result = try CLI.run(arguments, environment: ["NO_COLOR": "1"])
    let text = result.stdout.replacingOccurrences(of: CLI.repo.path, with: "<repo>")
    let url = Self.folder.appendingPathComponent(name)
    if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" {
      try Data(text.utf8).write(to: url)
      return
    }
    let golden = try String(contentsOf: url, encoding: .utf8)
    #expect(text == golden, "output differs from Snapshots/\(name); re-record with RECORD_SNAPSHOTS=1 if intended")
  }

  @Test func storeText() throws { try check("inspect-store.txt", ["inspect", "--no-fetch", CLI.sample("Store.ipa")]) }
  @Test func nestedJSON() throws {
    try check("inspect-nested.json", ["inspect", "--no-fetch", CLI.sample("Nested.ipa"), "--format", "json"])
  }
  @Test func profileText() throws {
    try check("inspect-profile.txt", ["inspect", "--no-fetch", CLI.sample("Profile.ipa")])
  }
}
