import Foundation
import Testing

/// The report at audit scale, on 300 generated apps with hosts shared directly and through wildcards
/// (`scripts/make-batch-ipas.py --subdomains`, what `make report-demo` uses): the page stays under 1.5 MiB, and
/// the domain view lists every claimer of a shared host, wildcard claimers included, as `who-claims` (its own
/// code) finds them.
@Suite(.serialized) struct ReportScaleTests {
  @Test func threeHundredAppsFitAndEverySharedHostListsAllItsClaimers() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("report-scale-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let generate = try CLI.run(
      [
        CLI.repo.appendingPathComponent("scripts/make-batch-ipas.py").path, folder.path, "--count", "300",
        "--subdomains", "--quiet",
      ], executable: URL(fileURLWithPath: "/usr/bin/python3"))
    #expect(generate.status == 0, "\(generate.stderr)")
    let aasa = folder.appendingPathComponent("aasa").path
    let inventory = folder.appendingPathComponent("inventory.jsonl")
    let inspect = try CLI.run([
      "inspect", folder.appendingPathComponent("ipas").path, "--aasa-dir", aasa, "--format", "jsonl", "--no-progress",
    ])
    #expect([0, 1].contains(inspect.status), "\(inspect.stderr)")
    try Data(inspect.stdout.utf8).write(to: inventory)
    let page = folder.appendingPathComponent("report.html")
    let report = try CLI.run(["report", inventory.path, "-o", page.path, "--no-progress"])
    #expect([0, 1].contains(report.status), "\(report.stderr)")
    let html = try String(contentsOf: page, encoding: .utf8)
    let size = html.utf8.count
    #expect(size < 1_572_864, "\(size) bytes for 300 apps")
    print("ReportScaleTests: 300 apps, \(size) bytes")

    // The host rows: host → the names of its claimers, and how many of them came through a wildcard.
    var rows: [String: (names: [String], wildcard: Int)] = [:]
    let table = try #require(html.components(separatedBy: "id=\"hosts\"").dropFirst().first)
    for row in table.components(separatedBy: "<tr id=\"h-").dropFirst() {
      guard let host = row.firstMatch(of: /<td><code>([^<]+)<\/code><\/td>/)?.1 else { continue }
      let claimers = row.components(separatedBy: "</td><td data-sort")[0]
      let names = claimers.matches(of: /<a href="#app-\d+">([^<]+)<\/a>/).map { String($0.1) }
      rows[String(host)] = (names, claimers.components(separatedBy: "via <code>*.").count - 1)
    }
    let shared = rows.filter { $0.value.names.count > 1 }
    #expect(shared.count >= 20, "\(shared.count) shared hosts")
    // The generator's named subdomains: claimed directly by some apps and through *.shared-K.example by others.
    let covered = shared.filter { $0.key.hasPrefix("www.") && $0.value.wildcard > 0 }
    #expect(covered.count >= 5, "\(covered.count) hosts shared through a wildcard")
    for host in Array(covered.keys.sorted().prefix(4))
      + Array(shared.keys.sorted().filter { !$0.hasPrefix("www.") && !$0.hasPrefix("*.") }.prefix(2))
    {
      let who = try CLI.run(["who-claims", host, "--inventory", inventory.path, "--format", "json"])
      let claims = try #require(who.json?["claims"] as? [[String: Any]], "\(who.stdout.prefix(300))")
      let expected = claims.compactMap { $0["name"] as? String }.sorted()
      #expect(rows[host]?.names.sorted() == expected, "\(host)")
    }
  }
}
