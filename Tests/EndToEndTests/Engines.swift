import Foundation
import Testing

/// Finds and runs the real engines: WebKitGTK under Xvfb (through the Python harnesses in `Tests/WebKit`) and
/// `swiftc`.
enum Engines {
  static let harnessScript = CLI.repo.appendingPathComponent("Tests/WebKit/webkit_harness.py")

  /// On Linux `make test` installs every tool the tests drive (WebKitGTK, Xvfb, `script`) and sets
  /// IPALINKS_REQUIRE_ENGINES, so a missing one fails there instead of skipping.
  static let required = ProcessInfo.processInfo.environment["IPALINKS_REQUIRE_ENGINES"] == "1"

  /// WebKitGTK and Xvfb.
  static let available: Bool = {
    if required { return true }
    let typelibs = ["x86_64", "aarch64"].map { "/usr/lib/\($0)-linux-gnu/girepository-1.0/WebKit2-4.1.typelib" }
    return FileManager.default.isExecutableFile(atPath: "/usr/bin/xvfb-run")
      && typelibs.contains { FileManager.default.fileExists(atPath: $0) }
  }()

  /// `swiftc` on the PATH, as `/usr/bin/env` finds it: always there where these tests were built.
  static let swiftcAvailable: Bool = {
    if required { return true }
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/swiftc") }
  }()

  static func folder() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("ipalinks-engines-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  static func write(_ text: String, ext: String = "txt") throws -> String {
    let url = try folder().appendingPathComponent("input.\(ext)")
    try Data(text.utf8).write(to: url)
    return url.path
  }

  static func write(_ urls: [String]) throws -> String {
    try write(String(decoding: try JSONSerialization.data(withJSONObject: urls), as: UTF8.self), ext: "json")
  }

  /// Loads the content-rule list `json` in WebKit and expects each URL blocked exactly when its case says so.
  static func expectWebKit(_ json: String, blocking cases: [(url: String, blocked: Bool)]) throws {
    let results = try harness(["rules", write(json), write(cases.map(\.url))])
    let rows = try #require(results["results"] as? [[String: Any]])
    #expect(rows.count == cases.count)
    for (row, c) in zip(rows, cases) {
      #expect(row["url"] as? String == c.url)
      #expect(
        (row["blocked"] as? Bool == true) == c.blocked, "\(c.url): WebKit \(c.blocked ? "allowed" : "blocked") it")
    }
  }

  static func harness(_ arguments: [String]) throws -> [String: Any] {
    let result = try CLI.run(
      ["-a", "/usr/bin/python3", harnessScript.path] + arguments, executable: URL(fileURLWithPath: "/usr/bin/xvfb-run"))
    #expect(result.status == 0, "harness: \(result.stderr)")
    return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
  }

  /// Compiles the generated Swift guard `source` with the `driver` program (its `main.swift`) by
  /// `swiftc -swift-version 6` in `folder`. The build must succeed without a warning; returns the executable.
  static func compileSwiftGuard(
    _ source: String, driver: String, in folder: URL, flags: [String] = [],
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> URL {
    let guardFile = folder.appendingPathComponent("UniversalLinkGuard.swift")
    try Data(source.utf8).write(to: guardFile)
    let main = folder.appendingPathComponent("main.swift")
    try Data(driver.utf8).write(to: main)
    let exe = folder.appendingPathComponent("driver")
    let compile = try CLI.run(
      ["swiftc", "-swift-version", "6", "-o", exe.path, guardFile.path, main.path] + flags,
      executable: URL(fileURLWithPath: "/usr/bin/env"))
    try #require(compile.status == 0, "swiftc: \(compile.stderr)", sourceLocation: sourceLocation)
    #expect(!compile.stderr.contains("warning:"), "swiftc: \(compile.stderr)", sourceLocation: sourceLocation)
    return exe
  }
}
