import Foundation
import Testing

/// The scheduled job in docs/keeping-current.md: its YAML parses (PyYAML, as `make setup` installs it), it has the
/// steps the page describes, and its refresh and lists steps, run as GitHub runs them (`bash -eo pipefail`), find a
/// change on the bundled samples, publish it, and then find nothing more to publish.
struct RecipeTests {
  /// The page's ```yaml block.
  static func workflow() throws -> String {
    let page = try String(
      contentsOf: CLI.repo.appendingPathComponent("docs/keeping-current.md"), encoding: .utf8)
    let start = try #require(page.range(of: "```yaml\n"))
    let end = try #require(page.range(of: "\n```", range: start.upperBound..<page.endIndex))
    return String(page[start.upperBound..<end.lowerBound])
  }

  /// Runs `script` with `bash -eo pipefail` in `folder`, with the built ipalinks first on PATH.
  static func bash(_ script: String, in folder: URL, environment: [String: String]) throws -> (Int32, String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = ["--noprofile", "--norc", "-eo", "pipefail", "-c", script]
    process.currentDirectoryURL = folder
    var env = ProcessInfo.processInfo.environment
    env["PATH"] = CLI.binary.deletingLastPathComponent().path + ":" + (env["PATH"] ?? "/usr/bin:/bin")
    env.merge(environment) { $1 }
    process.environment = env
    let pipe = Pipe()
    process.standardError = pipe
    try process.run()
    let stderr = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, stderr)
  }

  @Test func theScheduledJobParsesAndItsStepsWorkOnTheSamples() throws {
    let folder = try Engines.folder()
    let yaml = folder.appendingPathComponent("workflow.yml")
    try Data(try Self.workflow().utf8).write(to: yaml)
    let (parsed, parseErrors) = try Self.bash(
      "python3 -c 'import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), open(sys.argv[2], \"w\"))' "
        + "\(yaml.path) \(folder.appendingPathComponent("workflow.json").path)",
      in: folder, environment: [:])
    #expect(parsed == 0, "\(parseErrors)")
    let document = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("workflow.json")))
        as? [String: Any])
    // YAML 1.1 reads the key `on` as true.
    let triggers = try #require((document["on"] ?? document["true"]) as? [String: Any])
    #expect(triggers["schedule"] != nil)
    let job = try #require((document["jobs"] as? [String: Any])?["refresh"] as? [String: Any])
    let steps = try #require(job["steps"] as? [[String: Any]])
    let byID = Dictionary(uniqueKeysWithValues: steps.compactMap { step in (step["id"] as? String).map { ($0, step) } })
    let refresh = try #require(byID["refresh"]?["run"] as? String)
    let lists = try #require(byID["lists"]?["run"] as? String)
    #expect((steps.last?["if"] as? String)?.contains("steps.lists.outputs.changed") == true)

    // A store of the samples as week 47 saw them; the refresh reads the newer shop.example.com file.
    let (made, makeErrors) = try Self.bash(
      "cd \(CLI.repo.path) && sh scripts/demo-store.sh week-47 > \(folder.path)/store-path", in: folder,
      environment: [:])
    #expect(made == 0, "\(makeErrors)")
    let store = try String(contentsOf: folder.appendingPathComponent("store-path"), encoding: .utf8)
      .trimmingCharacters(in: .whitespacesAndNewlines)
    let output = folder.appendingPathComponent("github-output")
    let environment = [
      "IPALINKS_STORE": store, "GITHUB_OUTPUT": output.path,
      "RETRIEVAL": "--aasa-dir \(CLI.sample("aasa/next")) --aasa-dir \(CLI.sample("aasa"))",
    ]
    func run() throws -> String {
      try Data().write(to: output)
      for script in [refresh, lists] {
        let (status, stderr) = try Self.bash(script, in: folder, environment: environment)
        #expect(status == 0, "\(script)\n\(stderr)")
      }
      return try String(contentsOf: output, encoding: .utf8)
    }
    #expect(try run() == "changed=true\nchanged=true\n")
    let rules = try String(contentsOf: folder.appendingPathComponent("public/rules.json"), encoding: .utf8)
    #expect(rules.contains("\"sha256\":\"") && rules.contains("shop.example.com"))
    #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("public/wkcontentrules.json").path))
    // The next day nothing changed: nothing to publish.
    #expect(try run() == "changed=false\nchanged=false\n")
  }
}
