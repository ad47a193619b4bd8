import Foundation
import IPALinksKit
import Testing

/// One hostile IPA through every command: terminal controls in its file name, in the folder names inside the zip, in
/// the Info.plist and in the entitlements come out escaped, never raw, and never as a line of their own.
struct HostileIPATests {
  /// ESC sequences (a colour and a window title), a C1 CSI, NEL, DEL, a bidi override, the line and paragraph
  /// separators, a carriage return and a forged line.
  static let controls =
    "\u{1b}[31m\u{1b}]0;title\u{7}\u{9b}2J\u{85}\u{7f}\u{202e}\u{2028}\u{2029}\r\nFORGED ipalinks: ok\n"
  /// The controls libzip takes in a UTF-8 entry name: it refuses a name with other C0 controls as inconsistent.
  static let pathControls = "\u{9b}2J\u{85}\u{7f}\u{202e}\u{2028}\u{2029}\r\nFORGED ipalinks: ok\n"
  /// Controls a host can carry without a colon or a space, so it is judged as a host name, not refused for a port.
  static let hostControls = "\u{1b}[31m\u{9b}2J\u{85}\u{7f}\u{202e}\u{2028}\u{2029}\r\nFORGED"
  static let bundleId = "com.hostile" + controls + ".app"
  static let team = "H0STILE" + controls
  static let appId = team + "." + bundleId
  static let host = "hostile.example.com"
  static let domains = [
    "applinks:evil" + controls + ".example.com", "applinks:evil" + hostControls + ".example.com",
    "applinks:\(host)", "webcredentials:" + controls,
  ]
  /// URLs on the hostile host whose percent-escapes decode to controls, for the commands that decide URLs.
  static let urls = [
    "https://\(host)/p/%1B%5B31m%C2%9B2J%E2%80%AE%0AFORGED", "https://\(host)/x?k=%1B%5B31m#%E2%80%A8",
    "https://\(host)/a/1",
  ]

  /// Rewrites samples/XcentOnly.ipa (unsigned: the tool reads the entitlements from its .xcent) with the spec's
  /// folder name, executable name, Info.plist and entitlements, both written as binary plists since XML cannot
  /// carry controls, then unzips the result next to it.
  static let builder = """
    import json, plistlib, sys, zipfile
    spec = json.load(open(sys.argv[1], encoding="utf-8"))
    old, new = "Payload/XcentOnly.app/", "Payload/" + spec["folder"] + "/"
    with zipfile.ZipFile(spec["source"]) as zin, zipfile.ZipFile(spec["output"], "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            item.filename = item.filename.replace(old, new, 1)
            if item.filename == new + "Info.plist":
                data = plistlib.dumps(spec["info"], fmt=plistlib.FMT_BINARY)
            elif item.filename == new + "archived-expanded-entitlements.xcent":
                data = plistlib.dumps(spec["entitlements"], fmt=plistlib.FMT_BINARY)
            elif item.filename == new + "XcentOnly":
                item.filename = new + spec["info"]["CFBundleExecutable"]
            zout.writestr(item, data)
    with zipfile.ZipFile(spec["output"]) as z:
        z.extractall(spec["unzipped"])
    """

  /// The scratch folder of one test: the IPAs, their unzipped copies, the AASA folder, the cache and the outputs.
  struct Scene {
    let root: URL
    /// The hostile app, named with controls.
    let ipa: String
    /// A hostile update of samples/XcentOnly.ipa: same bundle id, so `diff` pairs them and reports each change.
    let paired: String

    var ipas: String { path("ipas") }
    var aasa: String { path("aasa") }
    var aasaFile: String { path("aasa/\(HostileIPATests.host).json") }
    var app: String { path("unzipped/Payload/Evil\(HostileIPATests.pathControls).app") }
    var cache: String { path("cache") }
    func path(_ name: String) -> String { root.appendingPathComponent(name).path }
  }

  static func makeScene() throws -> Scene {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-ipa-\(UUID().uuidString)")
    for folder in ["ipas", "aasa", "cache", "unzipped", "paired"] {
      try FileManager.default.createDirectory(
        at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
    }
    let ipas = root.appendingPathComponent("ipas")
    let scene = Scene(
      root: root, ipa: ipas.appendingPathComponent(acceptedName("evil\(controls).ipa", in: ipas)).path,
      paired: ipas.appendingPathComponent(acceptedName("paired\(controls).ipa", in: ipas)).path)
    try build(
      scene.ipa, unzipped: scene.path("unzipped"), folder: "Evil\(pathControls).app", bundleId: bundleId,
      in: scene)
    try build(
      scene.paired, unzipped: scene.path("paired"), folder: "Paired\(pathControls).app",
      bundleId: "com.example.xcentonly", in: scene)
    // The hostile AASA file, with this app listed next to the one it was written for, so its rules are shown.
    let listed = String(decoding: try JSONSerialization.data(withJSONObject: [appId]), as: UTF8.self)
    let aasa = HostileAASATests.json.replacingOccurrences(
      of: "\"\(HostileAASATests.app)\"", with: "\"\(HostileAASATests.app)\", " + listed.dropFirst().dropLast())
    #expect((try? JSONSerialization.jsonObject(with: Data(aasa.utf8))) != nil, "the AASA file must parse")
    try Data(aasa.utf8).write(to: URL(fileURLWithPath: scene.aasaFile))
    return scene
  }

  /// `name`, less any scalar the file system refuses in a file name.
  static func acceptedName(_ name: String, in folder: URL) -> String {
    func accepts(_ candidate: String) -> Bool {
      let url = folder.appendingPathComponent(candidate)
      defer { try? FileManager.default.removeItem(at: url) }
      return FileManager.default.createFile(atPath: url.path, contents: nil)
    }
    if accepts(name) { return name }
    return String(String.UnicodeScalarView(name.unicodeScalars.filter { accepts("probe\($0)") }))
  }

  static func build(_ output: String, unzipped: String, folder: String, bundleId: String, in scene: Scene) throws {
    let info: [String: Any] = [
      "CFBundleIdentifier": bundleId, "CFBundleName": "Name" + controls, "CFBundleDisplayName": "Display" + controls,
      "CFBundleExecutable": "Exec" + pathControls, "CFBundlePackageType": "APPL",
      "CFBundleShortVersionString": "1.0" + controls, "CFBundleVersion": "7" + controls, "MinimumOSVersion": "14.0",
      "CFBundleURLTypes": [
        ["CFBundleURLName": "name" + controls, "CFBundleURLSchemes": ["hostile" + controls, controls]]
      ],
      "LSApplicationQueriesSchemes": ["queried" + controls],
    ]
    let entitlements: [String: Any] = [
      "application-identifier": team + "." + bundleId, "com.apple.developer.team-identifier": team,
      "com.apple.developer.associated-domains": domains, "get-task-allow": true,
    ]
    let spec: [String: Any] = [
      "source": CLI.sample("XcentOnly.ipa"), "output": output, "unzipped": unzipped, "folder": folder,
      "info": info, "entitlements": entitlements,
    ]
    let specFile = scene.root.appendingPathComponent("spec-\(UUID().uuidString).json")
    try JSONSerialization.data(withJSONObject: spec).write(to: specFile)
    let script = scene.root.appendingPathComponent("build.py")
    try Data(builder.utf8).write(to: script)
    let result = try CLI.run(
      ["python3", script.path, specFile.path], executable: URL(fileURLWithPath: "/usr/bin/env"))
    #expect(result.status == 0, "building the hostile IPA: \(result.stderr)")
  }

  /// A leak this test found in the product, marked so that the suite stays green until it is fixed.
  /// Runs one command offline and without colour, checks that nothing raw came out and that it exited with one of
  /// `exits`.
  @discardableResult
  static func run(
    _ arguments: [String], _ scene: Scene, exits: Set<Int32> = [0, 1, 2],
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> CLI.Result {
    let result = try CLI.run(arguments, environment: ["NO_COLOR": "1", "XDG_CACHE_HOME": scene.cache])
    let what = label(arguments, scene)
    #expect(result.exited, "\(what) crashed", sourceLocation: sourceLocation)
    #expect(
      exits.contains(result.status), "\(what): exit \(result.status): \(TerminalText.escape(result.stderr))",
      sourceLocation: sourceLocation)
    expectClean(result, what, sourceLocation: sourceLocation)
    return result
  }

  /// The check of ``HostileAASATests/expectClean(_:_:)``, with lines split at CR and LF scalars rather than at
  /// `Character("\n")`: Swift reads CR LF as one character, so a line forged after a CR LF went unseen there.
  static func expectClean(_ result: CLI.Result, _ what: String, sourceLocation: SourceLocation) {
    for (stream, text) in [("stdout", result.stdout), ("stderr", result.stderr)] {
      let raw = text.unicodeScalars.filter { TerminalText.needsEscape($0, true) }
      #expect(
        raw.isEmpty, "\(what) \(stream): raw \(raw.map { "U+" + String($0.value, radix: 16) })",
        sourceLocation: sourceLocation)
      let lines = text.unicodeScalars.split { $0 == "\n" || $0 == "\r" }
      #expect(
        !lines.contains { String($0).hasPrefix("FORGED") }, "\(what) \(stream): a forged line",
        sourceLocation: sourceLocation)
    }
  }

  /// A command line short enough to read in a failure message.
  static func label(_ arguments: [String], _ scene: Scene) -> String {
    TerminalText.escape(arguments.joined(separator: " ").replacingOccurrences(of: scene.root.path, with: "$TMP"))
  }

  /// Every string in a JSON document, keys included, or in each line of JSON Lines.
  static func strings(_ output: String) -> [String] {
    func walk(_ value: Any) -> [String] {
      switch value {
      case let string as String: [string]
      case let array as [Any]: array.flatMap(walk)
      case let object as [String: Any]: object.flatMap { [$0.key] + walk($0.value) }
      default: []
      }
    }
    if let document = try? JSONSerialization.jsonObject(with: Data(output.utf8)) { return walk(document) }
    return output.split(separator: "\n").flatMap { line in
      (try? JSONSerialization.jsonObject(with: Data(line.utf8))).map(walk) ?? []
    }
  }

  /// The escaped start of a hostile value: it has no space, so it survives the text reports' line wrapping.
  static func escapedStart(_ visible: String) -> String { visible + TerminalText.escape("\u{1b}[31m") }

  @Test func inspectInEveryFormatAndInABatch() throws {
    let scene = try Self.makeScene()
    defer { try? FileManager.default.removeItem(at: scene.root) }
    let offline = ["--aasa-dir", scene.aasa]
    let text = try Self.run(["inspect", scene.ipa] + offline, scene)
    for visible in ["evil", "com.hostile", "H0STILE", "Display", "hostile", "queried"] {
      #expect(text.stdout.contains(Self.escapedStart(visible)), "inspect text lacks \(visible)")
    }
    #expect(text.stdout.contains(TerminalText.escape(Self.pathControls)), "inspect text lacks the folder name")
    try Self.run(["inspect", scene.ipa, "--no-fetch"], scene)
    try Self.run(["inspect", scene.app] + offline, scene)
    for format in ["json", "jsonl"] {
      let json = Self.strings(try Self.run(["inspect", scene.ipa, "--format", format] + offline, scene).stdout)
      #expect(json.contains(Self.bundleId) && json.contains(Self.appId), "inspect \(format) lacks the ids")
      #expect(json.contains("applinks:evil" + Self.controls + ".example.com"), "inspect \(format) lacks a domain")
      #expect(json.contains { $0.hasPrefix("/p/\u{1b}[31m") }, "inspect \(format) lacks the AASA rules")
    }
    for format in ["text", "json", "jsonl"] {
      let batch = try Self.run(
        ["inspect", scene.ipas, "--format", format, "--jobs", "2", "--no-progress"] + offline, scene)
      #expect(batch.stdout.contains("com.hostile") && batch.stdout.contains("com.example.xcentonly"))
    }
  }

  @Test func blocklistInEveryFormatFromTheIPAAndFromAnInventory() throws {
    let scene = try Self.makeScene()
    defer { try? FileManager.default.removeItem(at: scene.root) }
    let inventory = scene.path("inventory.json")
    let saved = try Self.run(["inspect", scene.ipa, "--format", "json", "--aasa-dir", scene.aasa], scene)
    try Data(saved.stdout.utf8).write(to: URL(fileURLWithPath: inventory))
    for format in ["wkcontentrules", "swift", "js", "domains", "patterns", "regex"] {
      for uncovered in ["skip", "block"] {
        for source in [[scene.ipa, "--aasa-dir", scene.aasa], ["--inventory", inventory]] {
          let notes = scene.path("notes-\(format)-\(uncovered).json")
          let list = try Self.run(
            ["blocklist", "--format", format, "--uncovered", uncovered, "--report", notes] + source, scene)
          #expect(list.stdout.contains("hostile"), "\(Self.label(source, scene)) \(format): no rule for the host")
        }
      }
    }
  }

  @Test func diffAgainstASampleItselfAndAnUpdateAndReport() throws {
    let scene = try Self.makeScene()
    defer { try? FileManager.default.removeItem(at: scene.root) }
    let offline = ["--aasa-dir", scene.aasa]
    let inventory = scene.path("inventory.json")
    let saved = try Self.run(["inspect", scene.ipa, "--format", "json"] + offline, scene)
    try Data(saved.stdout.utf8).write(to: URL(fileURLWithPath: inventory))
    let urls = Self.urls.flatMap { ["--url", $0] }
    for format in ["text", "json"] {
      let f = ["--format", format]
      let added = try Self.run(["diff", CLI.sample("XcentOnly.ipa"), scene.ipa] + f + offline, scene)
      #expect(added.status == 1 && added.stdout.contains("com.hostile"), "diff of two apps: \(added.stdout)")
      let same = try Self.run(["diff", scene.ipa, scene.ipa] + f + urls + offline, scene)
      #expect(same.status == 0, "diff of an app with itself")
      try Self.run(["diff", inventory, scene.ipa] + f + offline, scene)
      let update = try Self.run(["diff", CLI.sample("XcentOnly.ipa"), scene.paired] + f + urls + offline, scene)
      #expect(update.status == 1, "diff of an update")
      if format == "json" {
        #expect(Self.strings(update.stdout).contains(Self.team), "diff json lacks the new team")
      } else {
        #expect(update.stdout.contains(Self.escapedStart("H0STILE")), "diff text lacks the new team")
      }
      try Self.run(["diff", scene.ipas, CLI.samples.path] + f + offline, scene)
    }
    for (index, input) in [scene.ipa, scene.ipas, inventory].enumerated() {
      let page = scene.path("report-\(index).html")
      try Self.run(["report", input, "-o", page] + offline, scene)
      #expect(((try? Data(contentsOf: URL(fileURLWithPath: page)))?.count ?? 0) > 0, "report wrote no page")
    }
  }

  @Test func whoClaimsFromTheIPAAndFromSavedInventories() throws {
    let scene = try Self.makeScene()
    defer { try? FileManager.default.removeItem(at: scene.root) }
    let offline = ["--aasa-dir", scene.aasa]
    let json = scene.path("inventory.json")
    let jsonl = scene.path("inventory.jsonl")
    for (file, format) in [(json, "json"), (jsonl, "jsonl")] {
      let saved = try Self.run(["inspect", scene.ipas, "--format", format, "--no-progress"] + offline, scene)
      try Data(saved.stdout.utf8).write(to: URL(fileURLWithPath: file))
    }
    for target in [Self.host, Self.urls[0]] {
      for format in ["text", "json"] {
        for source in [[scene.ipa] + offline, [scene.ipas] + offline, ["--inventory", json], ["--inventory", jsonl]] {
          let claims = try Self.run(["who-claims", target, "--format", format] + source, scene, exits: [0])
          if format == "json" {
            #expect(Self.strings(claims.stdout).contains(Self.appId), "who-claims json lacks the app")
          } else {
            #expect(claims.stdout.contains(Self.escapedStart("H0STILE")), "who-claims text lacks the app")
          }
        }
      }
    }
    // Many URLs at once, some of them lines of controls: decided or named by line number, never printed raw.
    let list = scene.path("urls.txt")
    try Data((Self.urls + [Self.controls, "https://\(Self.host)/\(Self.controls)"]).joined(separator: "\n").utf8)
      .write(to: URL(fileURLWithPath: list))
    for format in ["text", "json", "jsonl"] {
      let scan = try Self.run(
        ["who-claims", "--urls", list, "--inventory", jsonl, "--format", format], scene, exits: [0, 1])
      #expect(scan.stderr.contains("line "), "who-claims --urls names the bad lines")
    }
  }

  @Test func matchAASAAndFetchWithTheHostileAppID() throws {
    let scene = try Self.makeScene()
    defer { try? FileManager.default.removeItem(at: scene.root) }
    let app = ["--app-id", Self.appId]
    let show = try Self.run(["aasa", "show", scene.aasaFile], scene, exits: [0])
    #expect(show.stdout.contains(Self.escapedStart("H0STILE")), "aasa show lacks the app")
    #expect(
      Self.strings(try Self.run(["aasa", "show", scene.aasaFile, "--format", "json"], scene).stdout).contains(
        Self.appId))
    for format in ["text", "json"] {
      try Self.run(["aasa", "validate", scene.aasaFile, "--format", format] + app, scene, exits: [0, 1])
      try Self.run(["aasa", "validate", scene.aasaFile, "--strict", "--format", format], scene, exits: [0, 1])
      for explain in [[], ["--explain"]] {
        for domain in [[], ["--domain", Self.host]] {
          let match = try Self.run(
            ["match", "--aasa", scene.aasaFile, "--format", format] + app + explain + domain + Self.urls, scene,
            exits: [0, 1])
          if format == "json" {
            #expect(Self.strings(match.stdout).contains(Self.urls[0]), "match json lacks the URL")
          } else if !explain.isEmpty {
            #expect(match.stdout.contains(TerminalText.escape("\u{1b}[31m")), "match --explain lacks the rules")
          }
        }
      }
      for extra in [[], app] {
        let fetch = try Self.run(["fetch", "--aasa-dir", scene.aasa, Self.host, "--format", format] + extra, scene)
        #expect(Self.strings(fetch.stdout).contains(Self.appId) || fetch.stdout.contains(Self.escapedStart("H0STILE")))
      }
    }
    for format in ["text", "json"] {
      let diff = try Self.run(
        ["aasa", "diff", CLI.sample("aasa/shop.example.com.json"), scene.aasaFile, "--format", format], scene,
        exits: [1])
      #expect(diff.stdout.contains("H0STILE"), "aasa diff lacks the hostile app")
    }
    let body = try Self.run(["fetch", "--aasa-dir", scene.aasa, Self.host, "--body"] + app, scene)
    #expect(body.stdout.contains("H0STILE"), "fetch --body lacks the file")
  }
}
