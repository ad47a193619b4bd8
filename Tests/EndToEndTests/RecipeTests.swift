import Foundation
import Testing

/// The scheduled job in docs/keeping-current.md: its YAML parses (PyYAML, as `make setup` installs it), it has the
/// steps the page describes, and its refresh and lists steps, run as GitHub runs them (`bash -eo pipefail`), find a
/// change on the bundled samples, publish it, and then find nothing more to publish.
struct RecipeTests {
  /// The page's `index`-th ```yaml block: 0 the job of a store of apps, 1 the job from hosts alone.
  static func workflow(_ index: Int = 0) throws -> String {
    let page = try String(
      contentsOf: CLI.repo.appendingPathComponent("docs/keeping-current.md"), encoding: .utf8)
    var from = page.startIndex
    for _ in 0..<index {
      from = try #require(page.range(of: "```yaml\n", range: from..<page.endIndex)).upperBound
    }
    let start = try #require(page.range(of: "```yaml\n", range: from..<page.endIndex))
    let end = try #require(page.range(of: "\n```", range: start.upperBound..<page.endIndex))
    return String(page[start.upperBound..<end.lowerBound])
  }

  /// The steps of the `index`-th workflow, by their `id`, once its YAML parsed.
  static func steps(_ index: Int, in folder: URL) throws -> [String: [String: Any]] {
    let yaml = folder.appendingPathComponent("workflow-\(index).yml")
    let json = folder.appendingPathComponent("workflow-\(index).json")
    try Data(try Self.workflow(index).utf8).write(to: yaml)
    let (parsed, parseErrors) = try Self.bash(
      "python3 -c 'import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), open(sys.argv[2], \"w\"))' "
        + "\(yaml.path) \(json.path)", in: folder, environment: [:])
    #expect(parsed == 0, "\(parseErrors)")
    let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [String: Any])
    let triggers = try #require((document["on"] ?? document["true"]) as? [String: Any])
    #expect(triggers["schedule"] != nil)
    let job = try #require((document["jobs"] as? [String: Any])?["refresh"] as? [String: Any])
    let steps = try #require(job["steps"] as? [[String: Any]])
    #expect((steps.last?["if"] as? String)?.contains("steps.lists.outputs.changed") == true)
    return Dictionary(uniqueKeysWithValues: steps.compactMap { step in (step["id"] as? String).map { ($0, step) } })
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
    let byID = try Self.steps(0, in: folder)
    let refresh = try #require(byID["refresh"]?["run"] as? String)
    let lists = try #require(byID["lists"]?["run"] as? String)

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

  /// The job from hosts alone: a new store watches the hosts of hosts.txt; the first day publishes the list, the
  /// next finds nothing to publish, and a day a host's file changes publishes again; a day no host answers fails
  /// the job, so yesterday's list stays published.
  @Test func theHostsOnlyJobParsesAndItsStepsWorkOnTheSamples() throws {
    let folder = try Engines.folder()
    let steps = try Self.steps(1, in: folder)
    let refresh = try #require(steps["refresh"]?["run"] as? String)
    let lists = try #require(steps["lists"]?["run"] as? String)
    try Data("# the hosts our web view shows\nshop.example.com\n".utf8)
      .write(to: folder.appendingPathComponent("hosts.txt"))
    let output = folder.appendingPathComponent("github-output")
    func run(_ retrieval: String) throws -> (String, Int32) {
      try Data().write(to: output)
      let environment = ["IPALINKS_STORE": "audit/hosts.db", "GITHUB_OUTPUT": output.path, "RETRIEVAL": retrieval]
      var last: Int32 = 0
      for script in [refresh, lists] {
        let (status, stderr) = try Self.bash(script, in: folder, environment: environment)
        last = status
        if status != 0 { return (stderr, status) }
      }
      return (try String(contentsOf: output, encoding: .utf8), last)
    }
    let samples = "--aasa-dir \(CLI.sample("aasa"))"
    #expect(try run(samples) == ("changed=false\nchanged=true\n", 0))
    let rules = try String(contentsOf: folder.appendingPathComponent("public/rules.json"), encoding: .utf8)
    #expect(rules.contains("ST0REAPP42.com.example.store") && rules.contains("shop.example.com"))
    #expect(try run(samples) == ("changed=false\nchanged=false\n", 0))
    #expect(try run("--aasa-dir \(CLI.sample("aasa/next")) " + samples) == ("changed=true\nchanged=true\n", 0))
    // An outage: refresh fails the job, and the published list is left as it was.
    let published = try String(contentsOf: folder.appendingPathComponent("public/rules.json"), encoding: .utf8)
    let (_, outage) = try run("--offline --cache-dir \(folder.path)/empty-cache")
    #expect(outage == 2)
    #expect(try String(contentsOf: folder.appendingPathComponent("public/rules.json"), encoding: .utf8) == published)
    // And a list made from the store still has the host: its last good file stays.
    let list = try CLI.run([
      "blocklist", "--store", folder.appendingPathComponent("audit/hosts.db").path, "--format", "domains",
    ])
    #expect(list.stdout.contains("shop.example.com"), "\(list.stderr)")
    #expect(list.stderr.contains("claims assumed"), "\(list.stderr)")
  }
}
