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

  /// Runs `arguments` and waits for the end; `stdin` is what it reads as standard input (by default, the test's).
  static func run(
    _ arguments: [String], environment: [String: String] = [:], executable: URL? = nil, stdin: FileHandle? = nil,
    currentDirectory: URL? = nil
  ) throws -> Result {
    try start(
      arguments, environment: environment, executable: executable, stdin: stdin, currentDirectory: currentDirectory
    ).wait()
  }

  /// A command started and not yet waited for: ``run(_:environment:executable:)`` in two halves, for a test that
  /// does something to the world while the command runs.
  final class Started: @unchecked Sendable {
    let process: Process
    private let folder: URL

    fileprivate init(process: Process, folder: URL) {
      self.process = process
      self.folder = folder
    }

    /// What it printed so far on standard output.
    var stdoutSoFar: String {
      String(decoding: (try? Data(contentsOf: folder.appendingPathComponent("stdout"))) ?? Data(), as: UTF8.self)
    }

    /// Waits for it to end, and says what it printed.
    /// ``wait()`` on a thread of its own: the test's task is suspended, and the threads other suites run on stay
    /// free.
    func exited() async throws -> Result { try await CLI.offPool { try self.wait() } }

    func wait() throws -> Result {
      process.waitUntilExit()
      defer { try? FileManager.default.removeItem(at: folder) }
      return Result(
        stdout: String(decoding: try Data(contentsOf: folder.appendingPathComponent("stdout")), as: UTF8.self),
        stderr: String(decoding: try Data(contentsOf: folder.appendingPathComponent("stderr")), as: UTF8.self),
        status: process.terminationStatus,
        exited: process.terminationReason == .exit)
    }
  }

  /// Runs `body`, which blocks, on a thread of its own rather than on one of Swift concurrency's few: on a 2-core
  /// machine, a test blocking those for seconds holds every other suite's tasks back (and their timing with them).
  static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      Thread { continuation.resume(with: Swift.Result { try body() }) }.start()
    }
  }

  static func start(
    _ arguments: [String], environment: [String: String] = [:], executable: URL? = nil, stdin: FileHandle? = nil,
    currentDirectory: URL? = nil
  ) throws -> Started {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ipalinks-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
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
    if let stdin { process.standardInput = stdin }
    if let currentDirectory { process.currentDirectoryURL = currentDirectory }
    try process.run()
    return Started(process: process, folder: folder)
  }

  static func sample(_ name: String) -> String { samples.appendingPathComponent(name).path }
  static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }
}
