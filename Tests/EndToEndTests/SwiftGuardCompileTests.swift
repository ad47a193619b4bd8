import Crypto
import Foundation
import IPALinksKit
import Testing
import UniversalLinks

/// The generated Swift guard compiled by `swiftc -swift-version 6` and run: it must build without a warning and give
/// the library matcher's verdicts, on the blocklist and corpus the WebKit checks use and on hostile strings in every
/// field. It needs only `swiftc`, not WebKit; it is CPU-heavy, so `make test` runs it with the engine suites.
@Suite(.serialized, .enabled(if: Engines.swiftcAvailable, "needs swiftc on the PATH"))
struct SwiftGuardCompileTests {
  @Test func swiftGuardCompiledWithSwiftcGivesTheMatchersVerdicts() throws {
    let blocklist = BlocklistEngineTests.blocklist
    let corpus = BlocklistEngineTests.corpus
    let folder = try Engines.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let exe = try Engines.compileSwiftGuard(
      BlocklistRenderer(blocklist).swiftGuard(generator: "test"),
      driver: """
        import Foundation
        for line in try String(contentsOfFile: CommandLine.arguments[1], encoding: .utf8).split(separator: "\\n") {
          switch UniversalLinkGuard.shared.verdict(for: URL(string: String(line))!) {
          case .opensApp(let app, let rule): print("match \\(app) \\(rule)")
          case .excluded(let app, let rule): print("exclude \\(app) \\(rule)")
          case .staysInWebView: print("no-match")
          }
        }
        """, in: folder)
    let urls = folder.appendingPathComponent("urls.txt")
    try Data(corpus.joined(separator: "\n").utf8).write(to: urls)
    let run = try CLI.run([urls.path], executable: exe)
    #expect(run.exited && run.status == 0, "driver: \(run.stderr)")
    let lines = run.stdout.split(separator: "\n").map(String.init)
    let expected = corpus.map { url in
      let v = blocklist.verdict(for: url)
      return v.verdict == .noMatch ? "no-match" : "\(v.verdict.rawValue) \(v.appID!) \(v.pointer!)"
    }
    // The corpus exercises every verdict, so agreeing is more than both saying "no-match".
    #expect(
      Set(expected.compactMap { $0.split(separator: " ").first.map(String.init) }) == ["match", "exclude", "no-match"])
    #expect(lines.count == corpus.count)
    for (url, (line, want)) in zip(corpus, zip(lines, expected)) {
      #expect(line == want, "\(url)")
    }
  }

  /// The guard's WebKit glue, type-checked and run against the SDK's declarations (`Tests/WebKit/WKDeclarations.swift`,
  /// since Apple's WebKit does not run here): each action's facts reach the navigation rule, so same-host browsing,
  /// back/forward, iframes and the app's own loads are left alone under both policies, and only a navigation iOS
  /// would hand to an app gets the policy.
  @Test func swiftGuardWebKitGlueAppliesTheNavigationRule() throws {
    let folder = try Engines.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let declarations = CLI.repo.appendingPathComponent("Tests/WebKit/WKDeclarations.swift")
    let module = try CLI.run(
      [
        "swiftc", "-swift-version", "6", "-parse-as-library", "-module-name", "WebKit", "-emit-module",
        "-emit-module-path", folder.appendingPathComponent("WebKit.swiftmodule").path, "-emit-library", "-static",
        "-o", folder.appendingPathComponent("libWebKit.a").path, declarations.path,
      ], executable: URL(fileURLWithPath: "/usr/bin/env"))
    try #require(module.status == 0, "swiftc WebKit: \(module.stderr)")
    let exe = try Engines.compileSwiftGuard(
      BlocklistRenderer(BlocklistEngineTests.blocklist).swiftGuard(generator: "test"),
      driver: #"""
        import Foundation
        import WebKit

        // One line per action: the policy under .allowWithoutOpeningApp, then under .cancel.
        @MainActor func policies(
          _ url: String, page: String?, frame: String = "main", type: WKNavigationType = .linkActivated,
          own: Bool = false, loading: String? = nil
        ) -> (String, WKWebView) {
          let view = WKWebView(page: page.flatMap(URL.init(string:)))
          let main = WKFrameInfo(isMainFrame: true, webView: view)
          let target = frame == "main" ? main : frame == "sub" ? WKFrameInfo(isMainFrame: false, webView: view) : nil
          var answers: [String] = []
          for policy in [UniversalLinkPolicy.allowWithoutOpeningApp, .cancel, .loadInWebView] {
            if own {
              UniversalLinkGuard.shared.load(URL(string: loading ?? url)!, in: view)
              view.loaded.removeAll()  // the app's load, not one the guard started
            }
            let action = WKNavigationAction(
              request: URLRequest(url: URL(string: url)!), targetFrame: target, sourceFrame: main, navigationType: type)
            var answer: WKNavigationActionPolicy? = nil
            UniversalLinkGuard.shared.decidePolicy(for: action, in: view, policy: policy) { answer = $0 }
            answers.append(answer.map { "\($0)" } ?? "none")
          }
          return (answers.joined(separator: " "), view)
        }

        @MainActor func run() -> [(String, WKWebView)] {
          let claimed = "https://alpha.example/buy/shoes"
          return [
            policies(claimed, page: "https://news.example/"),
            policies(claimed, page: "https://alpha.example/"),
            policies(claimed, page: "https://ALPHA.example:8443/feed"),
            policies(claimed, page: "https://www.alpha.example/"),
            policies(claimed, page: nil),
            policies(claimed, page: "https://news.example/", frame: "sub"),
            policies(claimed, page: "https://news.example/", frame: "new"),
            policies(claimed, page: "https://news.example/", type: .backForward),
            policies(claimed, page: "https://news.example/", type: .other),
            policies(claimed, page: "https://news.example/", type: .other, own: true),
            // WebKit's navigation names the app's load as it parsed it.
            policies(claimed, page: "https://news.example/", type: .other, own: true, loading: "HTTPS://Alpha.EXAMPLE:443/buy/shoes"),
            policies("https://alpha.example/buy/gift/card", page: "https://news.example/"),
            policies("https://alpha.example/buy/1", page: "https://alpha.example@news.example/"),
          ]
        }

        // The .loadInWebView policy loads the page after the decision: let those tasks run, then print.
        Task { @MainActor in
          let rows = run()
          try await Task.sleep(for: .milliseconds(100))
          var text = ""
          for (answers, view) in rows {
            // Each load .loadInWebView started comes back through the guard, which lets it through.
            let back = view.loaded.map { request -> String in
              let action = WKNavigationAction(
                request: request, targetFrame: WKFrameInfo(isMainFrame: true, webView: view),
                sourceFrame: WKFrameInfo(isMainFrame: true, webView: view), navigationType: .other)
              return "\(UniversalLinkGuard.shared.navigationPolicy(for: action, in: view, policy: .cancel))"
            }
            text += ([answers, "loads"] + back).joined(separator: " ") + "\n"
          }
          FileHandle.standardOutput.write(Data(text.utf8))
          exit(0)
        }
        dispatchMain()
        """#, in: folder, flags: ["-I", folder.path, "-L", folder.path, "-lWebKit"])
    let run = try CLI.run([], executable: exe)
    #expect(run.exited && run.status == 0, "driver: \(run.stderr)")
    // .loadInWebView cancels, then loads the same request as the app's own load, which the guard lets through.
    let block = "allowWithoutTryingAppLink cancel cancel loads allow"
    let leave = "allow allow allow loads"
    #expect(
      run.stdout.split(separator: "\n").map(String.init) == [
        block,  // another host: the app would open
        leave, leave,  // the page's own host, with any port or case
        block,  // www.alpha.example is another host
        block,  // no page yet
        leave,  // an iframe
        block,  // a new window
        leave,  // back/forward
        block,  // script: whether the user's tap started it is unknown, so it counts as the user's
        leave,  // the app's own load, started with load(_:in:)
        leave,  // the same, written otherwise
        leave,  // excluded by the file
        block,  // the page's host is news.example, not the user info
      ])
  }

  /// The updater in the generated file refuses, as the library's does, what would switch it off or lock it: a
  /// document whose rules are not its `sha256`'s, one without a digest, one from 2099, one with no rule, an older one
  /// (unless rolled back to in so many words); each refusal names its reason and keeps the rules in use.
  @Test func swiftGuardUpdaterRefusesWhatWouldSwitchItOff() throws {
    func blocklist(_ paths: [String]) throws -> Blocklist {
      let app = "AAAAAAAAAA.com.example.alpha"
      let components = paths.map { #"{"/": "\#($0)"}"# }.joined(separator: ",")
      let json = #"{"applinks": {"details": [{"appIDs": ["\#(app)"], "components": [\#(components)]}]}}"#
      let rules = AppLinkRules(file: try AASAFile(json: json), appID: app)
      return Blocklist(apps: [
        LinkingApp(
          appID: app, name: "Alpha", input: "alpha.ipa",
          scopes: [RuleScope(host: "alpha.example", wildcard: false, rules: rules)])
      ])
    }
    func document(_ paths: [String], at time: TimeInterval, format: BlocklistFormat = .rules) throws -> String {
      let output = BlocklistOutput(
        try blocklist(paths), format: format, maxRules: 100, generator: "ipalinks test",
        at: Date(timeIntervalSince1970: time))
      return try #require(output.files.first).text
    }
    let folder = try Engines.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let week3 = try document(["/buy/*", "/sell/*", "/rent/*"], at: 1_791_209_600)
    let empty = try #require(
      BlocklistOutput(
        Blocklist(apps: []), format: .rules, maxRules: 100, generator: "t",
        at: Date(timeIntervalSince1970: 1_791_209_600)
      ).files.first
    ).text
    let documents: [(String, String)] = [
      ("edited", week3.replacingOccurrences(of: "/rent/", with: "/sell/")),
      ("unstamped", #"{"apps":[{"appID":"X.y"}]}"#),
      ("future", try document(["/buy/*"], at: 4_070_908_800)),
      ("empty", empty),
      ("older", try document(["/buy/*"], at: 1_790_000_000)),
      ("newer", week3),
    ]
    for (name, text) in documents {
      try Data(text.utf8).write(to: folder.appendingPathComponent(name + ".json"))
    }
    let exe = try Engines.compileSwiftGuard(
      try document(["/buy/*", "/sell/*"], at: 1_790_604_800, format: .swift),
      driver: #"""
        import Foundation
        let folder = CommandLine.arguments[1]
        func read(_ name: String) -> String { try! String(contentsOfFile: folder + "/" + name + ".json", encoding: .utf8) }
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let linkGuard = UpdatingLinkGuard(.shared)
        func sell() -> String { linkGuard.current.opensApp(URL(string: "https://alpha.example/sell/1")!, from: nil) ? "sell opens" : "sell stays" }
        for name in ["edited", "unstamped", "future", "empty", "older", "newer"] {
          do { print(name, try linkGuard.update(rulesJSON: read(name), now: now) ? "taken" : "same", sell()) }
          catch { print(name, "refused:", error, sell()) }
        }
        do { print("rollback", try linkGuard.rollBack(to: read("older"), now: now) ? "taken" : "same", sell()) }
        catch { print("rollback refused:", error) }
        do { print("empty allowed", try linkGuard.update(rulesJSON: read("empty"), allowingNoRules: true, now: now), linkGuard.current.ruleCount) }
        catch { print("empty refused:", error) }
        """#, in: folder)
    let run = try CLI.run([folder.path], executable: exe)
    #expect(run.exited && run.status == 0, "driver: \(run.stderr)")
    let lines = run.stdout.split(separator: "\n").map(String.init)
    #expect(lines.count == 8, "\(run.stdout)")
    for (line, reason) in zip(
      lines,
      [
        "does not match its sha256", "has no sha256", "was made 2099-01-01T00:00:00Z, after this device's clock",
        "holds no rule", "call rollBack(to:)",
      ])
    {
      #expect(line.contains("refused:") && line.contains(reason) && line.hasSuffix("sell opens"), "\(line)")
    }
    #expect(lines.dropFirst(5).first == "newer taken sell opens")
    #expect(lines.dropFirst(6).first == "rollback taken sell stays")
    #expect(lines.last == "empty allowed true 0")
  }

  /// The generated file's updater made to take signed documents only refuses an unsigned one and one signed with
  /// another key, and takes the one signed with its key. Without CryptoKit (Linux), the check is the closure form,
  /// here an oracle of the signatures swift-crypto made for each document's rules: it proves the file hands the
  /// check exactly those bytes and that signature.
  @Test func swiftGuardUpdaterTakesOnlySignedDocumentsWhenAskedTo() throws {
    let app = "AAAAAAAAAA.com.example.alpha"
    let key = Curve25519.Signing.PrivateKey()
    let other = Curve25519.Signing.PrivateKey()
    func document(
      _ format: BlocklistFormat, at time: TimeInterval, signedBy key: Curve25519.Signing.PrivateKey?,
      path: String = "/sell/*"
    ) throws -> String {
      let json = #"{"applinks": {"details": [{"appIDs": ["\#(app)"], "components": [{"/": "\#(path)"}]}]}}"#
      let blocklist = Blocklist(apps: [
        LinkingApp(
          appID: app, name: "Alpha", input: "alpha.ipa",
          scopes: [
            RuleScope(
              host: "alpha.example", wildcard: false, rules: AppLinkRules(file: try AASAFile(json: json), appID: app))
          ])
      ])
      return try #require(
        BlocklistOutput(
          blocklist, format: format, maxRules: 100, generator: "t", at: Date(timeIntervalSince1970: time),
          sign: key.map(BlocklistSigningKey.init)
        ).files.first
      ).text
    }
    let folder = try Engines.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let signed = try document(.rules, at: 1_790_604_800, signedBy: key)
    for (name, text) in [
      ("unsigned", try document(.rules, at: 1_790_604_800, signedBy: nil)),
      ("other", try document(.rules, at: 1_790_604_800, signedBy: other)), ("signed", signed),
    ] {
      try Data(text.utf8).write(to: folder.appendingPathComponent(name + ".json"))
    }
    // The oracle: the rules' digest and the one signature the key makes for them.
    let rules = try #require(signedRules(of: signed))
    let valid = LinkRuntime.sha256Hex(rules) + " " + (try key.signature(for: Data(rules))).base64EncodedString()
    try Data(valid.utf8).write(to: folder.appendingPathComponent("valid.txt"))
    let exe = try Engines.compileSwiftGuard(
      try document(.swift, at: 1_790_000_000, signedBy: nil, path: "/buy/*"),
      driver: #"""
        import Foundation
        let folder = CommandLine.arguments[1]
        func read(_ name: String) -> String { try! String(contentsOfFile: folder + "/" + name, encoding: .utf8) }
        let valid = read("valid.txt")
        let linkGuard = UpdatingLinkGuard(.shared) { rules, signature in
          valid == LinkRuntime.sha256Hex(rules) + " " + Data(signature).base64EncodedString()
        }
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        for name in ["unsigned", "other", "signed"] {
          do { print(name, try linkGuard.update(rulesJSON: read(name + ".json"), now: now) ? "taken" : "same") }
          catch { print(name, "refused:", error) }
        }
        """#, in: folder)
    let run = try CLI.run([folder.path], executable: exe)
    #expect(run.exited && run.status == 0, "driver: \(run.stderr)")
    let lines = run.stdout.split(separator: "\n").map(String.init)
    #expect(lines.count == 3, "\(run.stdout)")
    #expect(lines.first?.hasPrefix("unsigned refused: the rules document is not signed") == true, "\(lines)")
    #expect(
      lines.dropFirst().first?.contains("refused: the rules document has a signature that does not verify") == true)
    #expect(lines.last == "signed taken")
  }

  @Test func swiftGuardCompilesAndGivesHostileStringsBackExactly() throws {
    let start = ContinuousClock.now
    let blocklist = OutputEscapingTests.blocklist
    let generator = OutputEscapingTests.generator
    let source = BlocklistRenderer(blocklist).swiftGuard(generator: generator)
    #expect(source.hasPrefix(BlocklistRenderer(blocklist).header(generator: generator)))
    let folder = try Engines.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let exe = try Engines.compileSwiftGuard(
      source,
      driver: #"""
        import Foundation

        // Reads a JSON array of URL strings and writes the guard's verdict for each as a JSON array.
        let input = try Data(contentsOf: URL(fileURLWithPath: CommandLine.arguments[1]))
        var rows: [[String]] = []
        for url in try JSONSerialization.jsonObject(with: input) as? [String] ?? [] {
          switch UniversalLinkGuard.shared.verdict(for: url) {
          case .opensApp(let app, let rule): rows.append(["match", app, rule])
          case .excluded(let app, let rule): rows.append(["exclude", app, rule])
          case .staysInWebView: rows.append(["no-match"])
          }
        }
        try JSONSerialization.data(withJSONObject: rows).write(to: URL(fileURLWithPath: CommandLine.arguments[2]))
        print("driver: done")
        """#, in: folder)

    // The hostile host fits in a URL string, which the Swift guard and the library split the same way.
    let corpus =
      OutputEscapingTests.corpus + [
        (
          "https://" + OutputEscapingTests.hostileHost + "/any",
          BlocklistVerdict(verdict: .match, appID: OutputEscapingTests.hostApp.appID, pointer: "/host")
        )
      ]
    let urls = folder.appendingPathComponent("urls.json")
    let out = folder.appendingPathComponent("verdicts.json")
    try JSONSerialization.data(withJSONObject: corpus.map(\.url)).write(to: urls)
    let run = try CLI.run([urls.path, out.path], executable: exe)
    #expect(run.exited && run.status == 0, "driver: \(run.stderr)")
    #expect(run.stdout == "driver: done\n")
    #expect(!run.stderr.contains("INJECTED") && !run.stdout.contains("INJECTED"))
    let rows = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: out)) as? [[String]])
    try #require(rows.count == corpus.count)
    for ((url, expected), row) in zip(corpus, rows) {
      #expect(blocklist.verdict(for: url) == expected, "library: \(url.debugDescription)")
      let want =
        expected.verdict == .noMatch ? ["no-match"] : [expected.verdict.rawValue, expected.appID!, expected.pointer!]
      #expect(row == want, "\(url.debugDescription)")
    }
    print("SwiftGuardCompileTests: hostile Swift guard compiled and checked in \(ContinuousClock.now - start)")
  }

  /// The guard is assembled from the real sources: the front and every runtime core file appear verbatim, in the
  /// order the writer puts them, and the whole file passes `swift format lint --strict`.
  @Test func swiftGuardIsTheRuntimeCoreVerbatimAndLintClean() throws {
    let source = BlocklistRenderer(BlocklistEngineTests.blocklist).swiftGuard(generator: "test")
    let runtime = CLI.repo.appendingPathComponent("Sources/UniversalLinks/Runtime")
    let names = try FileManager.default.contentsOfDirectory(atPath: runtime.path).filter { $0.hasSuffix(".swift") }
    #expect(names.count >= 5)
    var position = source.startIndex
    for path in ["Sources/UniversalLinkGuard/UniversalLinkGuard.swift"]
      + names.sorted().map({
        "Sources/UniversalLinks/Runtime/" + $0
      })
    {
      let text = try String(contentsOf: CLI.repo.appendingPathComponent(path), encoding: .utf8)
      let found = try #require(source.range(of: text, range: position..<source.endIndex), "\(path) not verbatim")
      position = found.upperBound
    }
    let folder = try Engines.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("UniversalLinkGuard.swift")
    try Data(source.utf8).write(to: file)
    let lint = try CLI.run(
      [
        "swift", "format", "lint", "--strict", "--configuration", CLI.repo.appendingPathComponent(".swift-format").path,
        file.path,
      ],
      executable: URL(fileURLWithPath: "/usr/bin/env"))
    #expect(lint.status == 0, "\(lint.stderr)")
  }

  /// The compiled guard on 12,000 URLs over random AASA files (the generator the JavaScript guard's Node check
  /// uses): every verdict, app and rule must be the library's.
  @Test func swiftGuardGivesTheLibrarysVerdictsOnRandomFiles() throws {
    var random = RandomAASA(seed: JSGuardNodeTests.seed)
    let (blocklist, _) = random.blocklist(worlds: 50)
    let urls = random.urls(for: blocklist, count: 12_000).filter { !$0.contains("\n") && !$0.contains("\r") }
    let folder = try Engines.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let exe = try Engines.compileSwiftGuard(
      BlocklistRenderer(blocklist).swiftGuard(generator: "test"),
      driver: """
        import Foundation
        let text = try String(contentsOfFile: CommandLine.arguments[1], encoding: .utf8)
        for line in text.split(separator: "\\n", omittingEmptySubsequences: false) {
          switch UniversalLinkGuard.shared.verdict(for: String(line)) {
          case .opensApp(let app, let rule): print("match \\(app) \\(rule)")
          case .excluded(let app, let rule): print("exclude \\(app) \\(rule)")
          case .staysInWebView: print("no-match")
          }
        }
        """, in: folder)
    let file = folder.appendingPathComponent("urls.txt")
    try Data(urls.joined(separator: "\n").utf8).write(to: file)
    let run = try CLI.run([file.path], executable: exe)
    #expect(run.exited && run.status == 0, "driver: \(run.stderr)")
    let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    try #require(lines.count == urls.count)
    let table = blocklist.table()
    var tally: [String: Int] = [:]
    for (url, line) in zip(urls, lines) {
      let decision = table.decide(url)
      let want =
        decision.verdict == .noMatch
        ? "no-match" : "\(decision.verdict.rawValue) \(decision.appID ?? "") \(decision.pointer ?? "")"
      tally[decision.verdict.rawValue, default: 0] += 1
      #expect(line == want, "seed \(JSGuardNodeTests.seed): \(url)")
    }
    // Not an all-"no-match" corpus.
    #expect((tally["match"] ?? 0) * 5 >= urls.count && (tally["exclude"] ?? 0) * 20 >= urls.count, "\(tally)")
  }
}

/// The bytes a rules document's signature is of, as `UniversalLinkGuard.Stamp.signed(of:)` reads them (this target
/// does not link the guard library): the rules and the stamp's time and generator, the bytes before `,"sha256":"`,
/// closed with `}`.
func signedRules(of document: String) -> [UInt8]? {
  guard let range = document.range(of: #","sha256":""#) else { return nil }
  return Array(document[..<range.lowerBound].utf8) + [UInt8(ascii: "}")]
}
