import Foundation
import Testing

/// Every kind of input the issue names works: .ipa, unzipped .app, folder with Payload/, bare files.
struct InputKindsTests {
  private func unzip(_ sample: String) throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("unzipped-\(UUID().uuidString)")
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["unzip", "-q", CLI.sample(sample), "-d", folder.path]
    try p.run()
    p.waitUntilExit()
    #expect(p.terminationStatus == 0)
    return folder
  }

  /// One folder named three ways (`samples`, `samples/.`, `samples/../samples`) is walked for one set of inputs:
  /// each IPA was inspected three times, and every count tripled.
  @Test func aFolderNamedSeveralWaysIsInspectedOnce() throws {
    let path = CLI.samples.path
    let once = try CLI.run(["inspect", path, "--no-fetch", "--format", "jsonl", "--no-progress"])
    let thrice = try CLI.run(
      ["inspect", path, path + "/.", path + "/../samples", "--no-fetch", "--format", "jsonl", "--no-progress"])
    #expect(once.status == thrice.status, "\(thrice.stderr)")
    #expect(thrice.stdout.split(separator: "\n").count == once.stdout.split(separator: "\n").count)
    #expect(thrice.stderr.contains("inputs named again another way, inspected once: "), "\(thrice.stderr)")
  }

  @Test func unzippedAppFolderAndPayloadFolderMatchTheIPA() throws {
    let folder = try unzip("Nested.ipa")
    defer { try? FileManager.default.removeItem(at: folder) }
    let fromIPA = try CLI.run(["inspect", "--no-fetch", CLI.sample("Nested.ipa"), "--format", "json"]).json
    let ids = { (json: [String: Any]?) in
      (json?["bundles"] as? [[String: Any]] ?? []).compactMap { $0["appId"] as? String }
    }
    let fromRoot = try CLI.run(["inspect", "--no-fetch", folder.path, "--format", "json"])
    #expect(fromRoot.status == 0)
    #expect(fromRoot.json?["inputKind"] as? String == "app-folder")
    #expect(ids(fromRoot.json) == ids(fromIPA))
    let app = folder.appendingPathComponent("Payload/Café.app").path
    let fromApp = try CLI.run(["inspect", "--no-fetch", app, "--format", "json"])
    #expect(fromApp.status == 0)
    #expect(ids(fromApp.json) == ids(fromIPA))
    #expect(ids(fromIPA).count == 5)
  }

  @Test func bareMachOEntitlementsPlistAndProfile() throws {
    let macho = try CLI.run(["inspect", "--no-fetch", CLI.fixture("macho/thin64-xml-der.bin"), "--format", "json"])
    #expect(macho.json?["inputKind"] as? String == "executable")
    #expect(macho.stdout.contains("applinks:thin64.fixture.example.com"))
    let fat64 = try CLI.run(["inspect", "--no-fetch", CLI.fixture("macho/fat64.bin"), "--format", "json"])
    #expect(fat64.stdout.contains("applinks:fat64.fixture.example.com"))
    let thin32 = try CLI.run(["inspect", "--no-fetch", CLI.fixture("macho/thin32.bin"), "--format", "json"])
    #expect((thin32.json?["bundles"] as? [[String: Any]])?.first?["architectures"] as? [String] == ["armv7"])
    let profile = try CLI.run([
      "inspect", "--no-fetch", CLI.fixture("profiles/indefinite.mobileprovision"), "--format", "json",
    ])
    #expect(profile.json?["inputKind"] as? String == "provisioning-profile")
    let bundle = (profile.json?["bundles"] as? [[String: Any]])?.first
    #expect(bundle?["teamId"] as? String == "ENT3RPR1S3")
    let domains = try #require(bundle?["associatedDomains"] as? [Any], "every bundle lists its associatedDomains")
    #expect(domains.isEmpty, "profile entitlements never become domains")
  }

  @Test func disagreementsBecomeWarningsNamingBothValues() throws {
    let result = try CLI.run(["inspect", "--no-fetch", CLI.fixture("macho/disagree-xml-der.bin")])
    #expect(result.stdout.contains("applinks:a.example.com"))
    #expect(result.stdout.contains("applinks:b.example.com"))
    #expect(result.stdout.contains("entitlements.signature-disagreement"))
    let profile = try CLI.run(["inspect", "--no-fetch", CLI.sample("Profile.ipa")])
    #expect(profile.stdout.contains("entitlements.xcent-disagreement"))
    #expect(profile.stdout.contains("applinks:old.profile.example.com"))
  }

  @Test func noColourWhenPiped() throws {
    let piped = try CLI.run(["inspect", "--no-fetch", CLI.sample("Store.ipa")])
    #expect(piped.status == 0, "\(piped.stderr)")
    #expect(piped.stdout.contains("com.example.store"))
    #expect(!piped.stdout.contains("\u{1B}["))
  }

  /// util-linux `script(1)` gives the binary a pseudo-terminal; `make setup` installs it (Debian `bsdutils`).
  static let script = "/usr/bin/script"

  @Test(
    .enabled(
      if: Engines.required || FileManager.default.isExecutableFile(atPath: script),
      "util-linux script(1) is not installed, so no pseudo-terminal (make setup installs bsdutils)"))
  func colourOnATerminalAndNeverWithNoColor() throws {
    try #require(
      FileManager.default.isExecutableFile(atPath: Self.script), "\(Self.script) is missing: run make setup")
    let command = "\(CLI.binary.path) inspect --no-fetch \(CLI.sample("Store.ipa"))"
    // The test runner may itself set NO_COLOR, so the first run clears it explicitly.
    let tty = try CLI.runShell("env -u NO_COLOR \(Self.script) -qec '\(command)' /dev/null < /dev/null")
    #expect(tty.contains("\u{1B}["))
    #expect(tty.contains("com.example.store"))
    let noColor = try CLI.runShell("NO_COLOR=1 \(Self.script) -qec '\(command)' /dev/null < /dev/null")
    #expect(!noColor.contains("\u{1B}["))
    #expect(noColor.contains("com.example.store"))
  }
}

extension CLI {
  static func runShell(_ command: String) throws -> String {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/sh")
    p.arguments = ["-c", command + " > \"$OUT\" 2>&1"]
    let out = FileManager.default.temporaryDirectory.appendingPathComponent("sh-\(UUID().uuidString)")
    p.environment = ProcessInfo.processInfo.environment.merging(["OUT": out.path]) { $1 }
    try p.run()
    p.waitUntilExit()
    defer { try? FileManager.default.removeItem(at: out) }
    return String(decoding: (try? Data(contentsOf: out)) ?? Data(), as: UTF8.self)
  }
}
