import Foundation
import Testing

/// Every ```console example in the docs that shows output is run, and must print exactly what the page shows.
///
/// An example is a `$ command` line and the lines after it up to the next `$` line or the end of the block. It runs
/// with `/bin/sh` from the repository root, with the built `ipalinks` first on `PATH`, `NO_COLOR=1` and `COLUMNS=80`,
/// and its standard output is compared (a command that wants its standard error shown says `2>&1`). A command
/// followed by no output lines is not run: that is how a page shows a command that needs the network.
struct DocumentationTests {
  struct Example: CustomTestStringConvertible, Sendable {
    var file: String
    var line: Int
    var command: String
    var output: String

    var testDescription: String { "\(file):\(line) $ \(command)" }
  }

  static let pages: [String] = {
    let docs = CLI.repo.appendingPathComponent("docs")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: docs.path)) ?? []
    return ["README.md", "SECURITY.md"] + names.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
  }()

  /// The examples of one page, in order.
  static func examples(in page: String) -> [Example] {
    guard let text = try? String(contentsOf: CLI.repo.appendingPathComponent(page), encoding: .utf8) else { return [] }
    var out: [Example] = []
    var inConsole = false
    var current: Example? = nil
    func finish() {
      if let example = current, !example.output.isEmpty { out.append(example) }
      current = nil
    }
    for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      if line.hasPrefix("```") {
        if inConsole { finish() }
        inConsole = !inConsole && line == "```console"
        continue
      }
      guard inConsole else { continue }
      if line.hasPrefix("$ ") {
        finish()
        current = Example(file: page, line: index + 1, command: String(line.dropFirst(2)), output: "")
      } else if current != nil {
        current!.output += line + "\n"
      }
    }
    return out
  }

  static let all: [Example] = pages.flatMap(examples(in:))

  @Test func thePagesHaveExamples() {
    // Guards against a parser that silently finds nothing, which would make the test below pass vacuously.
    #expect(Self.all.count >= 2, "found \(Self.all.count) examples in \(Self.pages)")
  }

  @Test(arguments: all)
  func exampleOutputIsWhatThePageShows(_ example: Example) throws {
    let path = CLI.binary.deletingLastPathComponent().path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", example.command]
    process.currentDirectoryURL = CLI.repo
    var environment = ProcessInfo.processInfo.environment
    environment.merge(["PATH": path, "NO_COLOR": "1", "COLUMNS": "80"]) { $1 }
    // A cache of its own, so no file fetched earlier on this machine changes what an example prints.
    environment["XDG_CACHE_HOME"] =
      FileManager.default.temporaryDirectory
      .appendingPathComponent("ipalinks-doc-cache-\(UUID().uuidString)").path
    process.environment = environment
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let printed = String(decoding: data, as: UTF8.self)
    #expect(printed == example.output, "\(example.file):\(example.line): `\(example.command)` printed:\n\(printed)")
  }
}
