import Foundation
import Testing

/// A simulator build whose `__TEXT,__entitlements` section claims more bytes than the file has: a clear finding
/// naming the section, and the rest of the executable still reported.
struct SimulatorSectionTests {
  /// The sample's files, unzipped in a folder of their own that `body` is given and that goes afterwards.
  static func unzipped(_ sample: String, _ body: (URL) throws -> Void) throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sim-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let unzip = Process()
    unzip.executableURL = URL(fileURLWithPath: "/usr/bin/unzip")
    unzip.arguments = ["-q", CLI.sample(sample), "-d", folder.path]
    try unzip.run()
    unzip.waitUntilExit()
    try body(folder)
  }

  @Test func aSectionPastTheSliceIsNamedAndTheRestIsKept() throws {
    try Self.unzipped("Simulator.ipa") { try Self.expectASectionPastTheSliceNamed(in: $0) }
  }

  static func expectASectionPastTheSliceNamed(in folder: URL) throws {
    let executable = folder.appendingPathComponent("Payload/Simulator.app/Simulator")
    var bytes = try Data(contentsOf: executable)
    // section_64: sectname[16], segname[16], addr (8), size (8) at +40.
    let name = try #require(bytes.range(of: Data("__entitlements\0\0__TEXT".utf8)))
    let size = name.lowerBound + 40
    bytes.replaceSubrange(size..<size + 8, with: [0xFF, 0xFF, 0xFF, 0x7F, 0, 0, 0, 0])
    try bytes.write(to: executable)

    let run = try CLI.run(["inspect", executable.path, "--no-fetch", "--format", "json"])
    #expect(run.exited && run.status == 1, "\(run.stderr)")
    let bundle = try #require((run.json?["bundles"] as? [[String: Any]])?.first)
    let codes = (bundle["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
    #expect(codes.contains("macho.entitlements-section"))
    #expect(bundle["architectures"] as? [String] == ["arm64"])
    #expect(run.stderr.contains("__TEXT,__entitlements"))
  }

  /// The same section in a device build (`LC_BUILD_VERSION` naming iOS) is left out, with a warning, as iOS reads
  /// the code signature alone: taken, a decoy section without associated domains hid the signature's, and the
  /// report said it was complete.
  @Test func aDeviceBuildsSectionIsLeftOut() throws {
    try Self.unzipped("SimulatorAdHoc.ipa") { try Self.expectADeviceBuildsSectionLeftOut(in: $0) }
  }

  static func expectADeviceBuildsSectionLeftOut(in folder: URL) throws {
    let executable = folder.appendingPathComponent("Payload/SimulatorAdHoc.app/SimulatorAdHoc")
    var bytes = try Data(contentsOf: executable)
    // LC_BUILD_VERSION (0x32), 24 bytes, platform 7 (iOS Simulator) → 2 (iOS).
    let command = try #require(bytes.range(of: Data([0x32, 0, 0, 0, 24, 0, 0, 0, 7, 0, 0, 0])))
    bytes[command.lowerBound + 8] = 2
    try bytes.write(to: executable)

    let run = try CLI.run(["inspect", executable.path, "--no-fetch", "--format", "json"])
    let bundle = try #require((run.json?["bundles"] as? [[String: Any]])?.first, "\(run.stderr)")
    #expect(bundle["distribution"] as? String != "simulator")
    let sources = try #require(bundle["entitlementSourceDetails"] as? [[String: Any]])
    #expect(sources.map { $0["kind"] as? String } == ["code-signature", "code-signature"], "\(sources)")
    let messages = (bundle["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
    #expect(
      messages.contains {
        $0.hasSuffix(
          "(arm64 __TEXT,__entitlements): an entitlements section in a device build (platform 2), which only the "
            + "simulator reads: left out, as iOS reads the code signature's (it has 4 keys)")
      }, "\(messages)")
  }

  /// A build whose entitlements are only in the section runs on the simulator alone; `get-task-allow` does not make
  /// it a development build for devices.
  @Test func aSimulatorBuildSaysSo() throws {
    let run = try CLI.run(["inspect", CLI.sample("Simulator.ipa"), "--no-fetch", "--format", "json"])
    let bundle = try #require((run.json?["bundles"] as? [[String: Any]])?.first, "\(run.stderr)")
    #expect(bundle["distribution"] as? String == "simulator")
    #expect((bundle["entitlements"] as? [String: Any])?["get-task-allow"] as? Bool == true)
    let store = try CLI.run(["inspect", CLI.sample("Store.ipa"), "--no-fetch", "--format", "json"])
    #expect((store.json?["bundles"] as? [[String: Any]])?.first?["distribution"] as? String == "app-store")
  }

  /// An ad-hoc-signed simulator build: the signature holds only `get-task-allow`, the section the app's real
  /// entitlements. The section's are the app's (team, app ID, domains, and its rules from the AASA file); the
  /// signature is still listed as a source, the build is a simulator build, and no disagreement is reported, as an
  /// ad-hoc signature is expected to lack them.
  @Test func anAdHocSignedSimulatorBuildIsReadFromItsSection() throws {
    let run = try CLI.run(
      [
        "inspect", CLI.sample("SimulatorAdHoc.ipa"), "--aasa-dir", CLI.samples.appendingPathComponent("aasa").path,
        "--format", "json",
      ])
    #expect(run.status == 0, "\(run.stderr)")
    let bundle = try #require((run.json?["bundles"] as? [[String: Any]])?.first, "\(run.stderr)")
    #expect(bundle["teamId"] as? String == "S1MADH0C42")
    #expect(bundle["appId"] as? String == "S1MADH0C42.com.example.simadhoc")
    #expect(bundle["distribution"] as? String == "simulator")
    let sources = try #require(bundle["entitlementSourceDetails"] as? [[String: Any]])
    #expect(sources.first { $0["effective"] as? Bool == true }?["kind"] as? String == "simulator-entitlements-section")
    #expect(sources.contains { $0["kind"] as? String == "code-signature" })
    let domains = try #require(bundle["associatedDomains"] as? [[String: Any]])
    let applinks = try #require(domains.first { $0["raw"] as? String == "applinks:adhoc.example.com" })
    #expect((applinks["aasa"] as? [String: Any])?["appListed"] as? Bool == true)
    #expect(((applinks["aasa"] as? [String: Any])?["rules"] as? [Any])?.count == 2)
    #expect((bundle["diagnostics"] as? [[String: Any]])?.isEmpty == true, "\(bundle["diagnostics"] ?? "")")
  }
}
