import Foundation
import Testing

/// Runs the built `ipalinks` binary the way a user does and captures what it prints.
enum CLI {
  struct Result {
    var stdout: String
    var stderr: String
    var status: Int32
    /// False when the process died from a signal (a crash) instead of exiting.
    var exited: Bool

    var json: [String: Any]? {
      (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any]
    }
  }

  static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  static let samples = repo.appendingPathComponent("samples")
  static let fixtures = repo.appendingPathComponent("Tests/Fixtures")
  static let shared = repo.deletingLastPathComponent().appendingPathComponent("shared")

  /// The binary sits next to the test bundle in the build folder; `make test` builds it first.
  static let binary: URL = {
    let candidates = [
      URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("ipalinks"),
      Bundle.main.bundleURL.appendingPathComponent("ipalinks"),
      repo.appendingPathComponent(".build/debug/ipalinks"),
    ]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates.last!
  }()

  static func run(
    _ arguments: [String], environment: [String: String] = [:], executable: URL? = nil
  ) throws -> Result {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ipalinks-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let outURL = folder.appendingPathComponent("stdout")
    let errURL = folder.appendingPathComponent("stderr")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    let process = Process()
    process.executableURL = executable ?? binary
    process.arguments = arguments
    var env = ProcessInfo.processInfo.environment
    // Text fits the width it is given; tests read it at 80 columns whatever terminal runs them.
    env["COLUMNS"] = "80"
    env.merge(environment) { $1 }
    process.environment = env
    process.standardOutput = try FileHandle(forWritingTo: outURL)
    process.standardError = try FileHandle(forWritingTo: errURL)
    try process.run()
    process.waitUntilExit()
    return Result(
      stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
      stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self),
      status: process.terminationStatus,
      exited: process.terminationReason == .exit)
  }

  static func sample(_ name: String) -> String { samples.appendingPathComponent(name).path }
  static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }
}
