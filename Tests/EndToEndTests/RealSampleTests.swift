import Foundation
import Testing

/// The eight real third-party files in `../shared/real-samples`, against facts cross-checked with other tools.
/// `../shared` is not part of the repository, so these tests show as skipped, with the reason, when it is absent.
struct RealSampleTests {
  struct Expected: Sendable, CustomStringConvertible {
    var file: String
    var bundleId: String?
    var teamId: String?
    var domains: [String]
    var arches: [String]
    /// Normalised to our `arch form` details, e.g. `arm64 der-set`, `armv7 xml`, `xcent`, `provisioning-profile`.
    var sources: Set<String>
    /// The sample is not an app at all (EXPECTED.json notes why).
    var unreadable: Bool
    var description: String { file }
  }

  static let folder = CLI.shared.appendingPathComponent("real-samples")
  static let expectedFile = folder.appendingPathComponent("EXPECTED.json")
  static let available = FileManager.default.fileExists(atPath: expectedFile.path)
  static let absent = Comment(
    rawValue: "\(expectedFile.path) is absent (../shared sits beside the repository on developer machines and in CI)")

  /// The facts of `EXPECTED.json`; empty when it is absent or unreadable (which `everySampleIsListed` reports).
  static let expected: [Expected] = {
    guard let data = try? Data(contentsOf: expectedFile),
      let list = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]]
    else { return [] }
    return list.map { e in
      let sources = (e["entitlementSources"] as? [String] ?? []).map { s -> String in
        // "codesign[arm64]:der-0xfade7172(bare SET (0x31))" → "arm64 der-set"
        guard s.hasPrefix("codesign[") else { return s == "mobileprovision" ? "provisioning-profile" : s }
        let arch = s.dropFirst("codesign[".count).prefix { $0 != "]" }
        let form = s.contains("xml-") ? "xml" : s.contains("bare SET") ? "der-set" : "der-application16"
        return "\(arch) \(form)"
      }
      return Expected(
        file: e["file"] as! String, bundleId: e["bundleId"] as? String, teamId: e["teamId"] as? String,
        domains: e["associatedDomains"] as? [String] ?? [], arches: e["arches"] as? [String] ?? [],
        sources: Set(sources),
        unreadable: !(e["notes"] as? [String] ?? []).isEmpty)
    }
  }()

  @Test(.enabled(if: available, absent)) func everySampleIsListed() {
    #expect(Self.expected.count == 8, "\(Self.expectedFile.path) should list the eight samples")
  }

  @Test(.enabled(if: available, absent), arguments: expected)
  func matchesTheCrossCheckedFacts(_ e: Expected) throws {
    let result = try CLI.run([
      "inspect", "--no-fetch", Self.folder.appendingPathComponent(e.file).path, "--format", "json",
    ])
    #expect(result.exited)
    let json = try #require(result.json)
    let bundles = try #require(json["bundles"] as? [[String: Any]])
    if e.unreadable {
      #expect(bundles.isEmpty)
      #expect(result.status == 2)
      #expect(result.stderr.contains(e.file))
    } else {
      try expectFacts(e, bundles: bundles, result: result)
    }
  }

  private func expectFacts(_ e: Expected, bundles: [[String: Any]], result: CLI.Result) throws {
    #expect(result.status == 0, "\(result.stderr)")
    let main = try #require(bundles.first)
    #expect(main["bundleId"] as? String == e.bundleId)
    #expect(main["teamId"] as? String == e.teamId)
    let domains = try #require(main["associatedDomains"] as? [[String: Any]])
    #expect(domains.compactMap { $0["raw"] as? String } == e.domains)
    if !e.arches.isEmpty {
      #expect(main["architectures"] as? [String] == e.arches)
    }
    let details = try #require(main["entitlementSourceDetails"] as? [[String: Any]]).map { d -> String in
      switch d["kind"] as? String {
      case "code-signature": return d["detail"] as? String ?? ""
      case let kind?: return kind
      case nil: return ""
      }
    }
    #expect(Set(details) == e.sources)
  }

  /// The real simulator build in `../shared/real-samples/simulator`: its entitlements sit in the executable's
  /// `__TEXT,__entitlements` section, not in the code signature.
  @Test(.enabled(if: available, absent)) func simulatorBuildReportsItsTeamAndDomains() throws {
    let folder = Self.folder.appendingPathComponent("simulator")
    let data = try Data(contentsOf: folder.appendingPathComponent("EXPECTED.json"))
    let list = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
    #expect(!list.isEmpty)
    for e in list {
      let file = try #require(e["file"] as? String)
      let result = try CLI.run(["inspect", "--no-fetch", folder.appendingPathComponent(file).path, "--format", "json"])
      #expect(result.status == 0, "\(result.stderr)")
      let main = try #require((result.json?["bundles"] as? [[String: Any]])?.first)
      #expect(main["teamId"] as? String == e["teamId"] as? String)
      #expect(main["architectures"] as? [String] == e["arches"] as? [String])
      let domains = (main["associatedDomains"] as? [[String: Any]] ?? []).compactMap { $0["raw"] as? String }
      #expect(domains == e["associatedDomains"] as? [String])
      let sources = (main["entitlementSourceDetails"] as? [[String: Any]] ?? []).map {
        "\($0["kind"] as? String ?? "") (\($0["detail"] as? String ?? ""))"
      }
      #expect(sources == e["entitlementSources"] as? [String])
    }
  }
}
