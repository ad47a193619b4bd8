import Foundation
import Testing

/// The eight real third-party files in `../shared/real-samples`, against facts cross-checked with other tools.
/// `../shared` is not part of the repository, so these tests say plainly that they skipped when it is absent.
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

  static let expected: [Expected] = {
    guard let data = try? Data(contentsOf: folder.appendingPathComponent("EXPECTED.json")),
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

  @Test func sharedSamplesArePresentOrSkippedLoudly() {
    if Self.expected.isEmpty {
      print("skipped: \(Self.folder.path) is absent (it sits beside the repository on developer machines and in CI)")
    } else {
      #expect(Self.expected.count == 8)
    }
  }

  @Test(arguments: expected) func matchesTheCrossCheckedFacts(_ e: Expected) throws {
    let result = try CLI.run([
      "inspect", "--no-fetch", Self.folder.appendingPathComponent(e.file).path, "--format", "json",
    ])
    #expect(result.exited)
    let json = try #require(result.json)
    let bundles = json["bundles"] as? [[String: Any]] ?? []
    guard !e.unreadable else {
      #expect(bundles.isEmpty)
      #expect(result.status == 2)
      #expect(result.stderr.contains(e.file))
      return
    }
    #expect(result.status == 0, "\(result.stderr)")
    let main = try #require(bundles.first)
    #expect(main["bundleId"] as? String == e.bundleId)
    #expect(main["teamId"] as? String == e.teamId)
    #expect((main["associatedDomains"] as? [[String: Any]] ?? []).compactMap { $0["raw"] as? String } == e.domains)
    if !e.arches.isEmpty {
      #expect(main["architectures"] as? [String] == e.arches)
    }
    let details = (main["entitlementSourceDetails"] as? [[String: Any]] ?? []).map { d -> String in
      switch d["kind"] as? String {
      case "code-signature": return d["detail"] as? String ?? ""
      case let kind?: return kind
      case nil: return ""
      }
    }
    #expect(Set(details) == e.sources)
  }
}
