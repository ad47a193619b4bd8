import Foundation
import TestServers
import Testing

/// `fetch` and `inspect` against a real HTTPS server on loopback, through the CLI flags users type.
struct NetworkCommandTests {
  static let json =
    #"{"applinks":{"details":[{"appIDs":["FAT2SL1CE5.com.example.fat"],"components":[{"/":"/deals/*"}]}]}}"#

  /// Runs `body` with a server and a PEM file of its CA, cleaning both up.
  private func withServer(_ body: (HTTPSTestServer, String) async throws -> Void) async throws {
    let server = try await HTTPSTestServer.start(
      authority: nil, dnsNames: HTTPSTestServer.defaultDNSNames + ["fat.example.com"])
    let pem = FileManager.default.temporaryDirectory.appendingPathComponent("ca-\(UUID().uuidString).pem")
    try Data(server.caPEM.utf8).write(to: pem)
    do {
      try await body(server, pem.path)
    } catch {
      await server.stop()
      try? FileManager.default.removeItem(at: pem)
      throw error
    }
    await server.stop()
    try? FileManager.default.removeItem(at: pem)
  }

  @Test func fetchCommandDownloadsAndValidates() async throws {
    try await withServer { server, pem in
      server.respond(path: "/.well-known/apple-app-site-association", with: .json(Self.json))
      let result = try CLI.run([
        "fetch", "fat.example.com", "--source", "direct", "--format", "json", "--ca-file", pem, "--allow-private",
        "--connect-to", server.connectToEverything, "--no-cache", "--app-id", "FAT2SL1CE5.com.example.fat",
      ])
      #expect(result.status == 0, "\(result.stderr)")
      let list = try #require(result.json?["domains"] as? [[String: Any]])
      let fetched = try #require(list.first)
      #expect(fetched["status"] as? String == "ok")
      #expect(fetched["source"] as? String == "direct-well-known")
      #expect(fetched["appListed"] as? Bool == true)
      #expect(fetched["listedApps"] as? [String] == ["FAT2SL1CE5.com.example.fat"])
      #expect(
        server.requests(path: "/.well-known/apple-app-site-association").first?.header("Host") == "fat.example.com")
    }
  }

  /// `--source both` when Apple's CDN still serves last week's file: the change is told by behaviour, with an
  /// example URL whose verdict the origin's file changes, and a copy that differs only in a comment is no change.
  @Test func bothSourcesAreComparedByBehaviour() async throws {
    try await withServer { server, pem in
      let origin =
        #"{"applinks":{"details":[{"appIDs":["FAT2SL1CE5.com.example.fat"],"components":[{"/":"/deals/*","exclude":true}]}]}}"#
      server.respond(path: "/a/v1/fat.example.com", with: .json(Self.json))
      server.respond(path: "/.well-known/apple-app-site-association", with: .json(origin))
      let arguments = [
        "fetch", "fat.example.com", "--source", "both", "--ca-file", pem, "--allow-private", "--connect-to",
        server.connectToEverything, "--no-cache", "--app-id", "FAT2SL1CE5.com.example.fat",
      ]
      let json = try CLI.run(arguments + ["--format", "json"])
      let domain = try #require((json.json?["domains"] as? [[String: Any]])?.first, "\(json.stderr)")
      let change = try #require((domain["sourceChanges"] as? [[String: Any]])?.first)
      #expect(change["kind"] as? String == "rule changed")
      #expect((change["example"] as? String)?.hasPrefix("https://fat.example.com/deals/") == true)
      #expect(change["oldVerdict"] as? String == "match" && change["newVerdict"] as? String == "exclude")
      let text = try CLI.run(arguments)
      #expect(text.stdout.contains("the origin's file differs from the CDN's copy: rule changed"), "\(text.stdout)")

      let sameButForAComment =
        #"{"applinks":{"details":[{"appIDs":["FAT2SL1CE5.com.example.fat"],"components":[{"/":"/deals/*","comment":"x"}]}]}}"#
      server.respond(path: "/.well-known/apple-app-site-association", with: .json(sameButForAComment))
      let same = try CLI.run(arguments + ["--format", "json"])
      let unchanged = try #require((same.json?["domains"] as? [[String: Any]])?.first)
      #expect(unchanged["sourceChanges"] == nil)
    }
  }

  @Test func loopbackIsRefusedWithoutAllowPrivate() async throws {
    try await withServer { server, pem in
      server.respond(path: "/.well-known/apple-app-site-association", with: .json(Self.json))
      let result = try CLI.run([
        "fetch", "fat.example.com", "--source", "direct", "--format", "json", "--ca-file", pem,
        "--connect-to", server.connectToEverything, "--no-cache",
      ])
      #expect(result.status == 1)
      #expect(result.stdout.contains("refused-private-address"))
      #expect(server.requests.isEmpty, "nothing may reach a refused address")
    }
  }

  /// A host given alone whose server has no file (404 at both paths) is said to have none once: the note read
  /// "no AASA file: no AASA file: 404 at …".
  @Test func aHostWithoutAFileIsSaidOnce() async throws {
    try await withServer { server, pem in
      server.respond(path: "/.well-known/apple-app-site-association", with: .status(404))
      server.respond(path: "/apple-app-site-association", with: .status(404))
      let result = try CLI.run([
        "blocklist", "--host", "fat.example.com", "-f", "domains", "--source", "direct", "--ca-file", pem,
        "--allow-private", "--connect-to", server.connectToEverything, "--no-cache",
      ])
      #expect(result.status == 0, "\(result.stderr)")
      #expect(result.stderr.contains("fat.example.com: no AASA file: 404 at "), "\(result.stderr)")
      #expect(!result.stderr.contains("no AASA file: no AASA file"), "\(result.stderr)")
    }
  }

  @Test func inspectJoinsTheFetchedRules() async throws {
    try await withServer { server, pem in
      server.respond(path: "/.well-known/apple-app-site-association", with: .json(Self.json))
      let result = try CLI.run([
        "inspect", CLI.sample("Fat.ipa"), "--format", "json", "--source", "direct", "--ca-file", pem,
        "--allow-private", "--connect-to", server.connectToEverything, "--no-cache",
      ])
      #expect(result.status == 0, "\(result.stderr)")
      let bundle = try #require((result.json?["bundles"] as? [[String: Any]])?.first)
      let aasa = try #require((bundle["associatedDomains"] as? [[String: Any]])?.first?["aasa"] as? [String: Any])
      #expect(aasa["status"] as? String == "ok")
      #expect((aasa["rules"] as? [[String: Any]])?.first?["pattern"] as? String != nil)
    }
  }

  @Test func badConnectToIsAUsageError() throws {
    let result = try CLI.run(["fetch", "example.com", "--connect-to", "nonsense"])
    #expect(result.status == 64)
  }
}

/// `match` and `aasa` through the binary: verdicts, JSON Lines and exit codes.
struct MatchCommandTests {
  let aasa = CLI.samples.appendingPathComponent("aasa/shop.example.com.json").path
  let appID = "ST0REAPP42.com.example.store"

  @Test func matchPrintsVerdictsAndTheDecidingRule() throws {
    let result = try CLI.run([
      "match", "--aasa", aasa, "--app-id", appID, "--format", "jsonl",
      "https://shop.example.com/buy/42", "https://shop.example.com/buy/gift/1", "https://shop.example.com/about",
    ])
    #expect(result.status == 1, "one URL does not open the app")
    let lines = result.stdout.split(separator: "\n").compactMap {
      (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
    }
    #expect(lines.map { $0["verdict"] as? String } == ["match", "exclude", "no-match"])
    #expect(lines.allSatisfy { $0["appId"] as? String == appID })
  }

  @Test func matchExitsZeroWhenEveryURLOpensTheApp() throws {
    let result = try CLI.run(["match", "--aasa", aasa, "--app-id", appID, "https://shop.example.com/BUY/1"])
    #expect(result.status == 0, "caseSensitive false comes from applinks.defaults")
    #expect(result.stdout.contains("match"))
  }

  @Test func validateAndShow() throws {
    let valid = try CLI.run(["aasa", "validate", aasa, "--app-id", appID])
    #expect(valid.status == 0, "\(valid.stdout)")
    let missing = try CLI.run(["aasa", "validate", aasa, "--app-id", "ZZZZZZZZZZ.other", "--format", "jsonl"])
    #expect(missing.stdout.contains("ZZZZZZZZZZ.other"))
    // A clean file gives a document that says so, not nothing.
    let clean = try CLI.run(["aasa", "validate", aasa, "--format", "json"])
    #expect(clean.status == 0)
    #expect(clean.json?["valid"] as? Bool == true && clean.json?["errors"] as? Int == 0)
    #expect((clean.json?["diagnostics"] as? [Any])?.isEmpty == true)
    let cleanLines = try CLI.run(["aasa", "validate", aasa, "--format", "jsonl"])
    #expect(cleanLines.status == 0 && cleanLines.stdout.isEmpty)
    let show = try CLI.run(["aasa", "show", aasa])
    #expect(show.status == 0)
    #expect(show.stdout.contains("/buy/gift/*"))
  }
}

/// Bad AASA input to `aasa`/`match`: a clear error and the documented exit code, never an unbounded read.
struct AASAInputTests {
  @Test func oversizedInputIsRefusedNotSlurped() throws {
    let big = FileManager.default.temporaryDirectory.appendingPathComponent("big-\(UUID().uuidString).json")
    defer { try? FileManager.default.removeItem(at: big) }
    try Data(repeating: 0x20, count: (4 << 20) + 10).write(to: big)
    let result = try CLI.run(["aasa", "validate", big.path])
    #expect(result.exited)
    #expect(result.status == 65)
    #expect(result.stderr.contains("larger than the 4 MiB read limit"))
  }

  @Test func oversizedButReadableFileGetsTheSizeDiagnostic() throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("wide-\(UUID().uuidString).json")
    defer { try? FileManager.default.removeItem(at: file) }
    let padding = String(repeating: " ", count: 140_000)
    try Data(#"{"applinks":{"details":[]}}\#(padding)"#.utf8).write(to: file)
    let result = try CLI.run(["aasa", "validate", file.path, "--format", "json"])
    #expect(result.status == 1, "over 128 KB is an error iOS enforces")
    #expect(result.stdout.contains("file-too-large"), "\(result.stdout)")
  }

  @Test func missingFileExits66() throws {
    let result = try CLI.run(["aasa", "validate", "/nonexistent/aasa.json"])
    #expect(result.status == 66)
    #expect(result.stderr == "ipalinks: cannot read /nonexistent/aasa.json: No such file or directory\n")
    // A folder, in the system's words: Foundation's own were "NSCocoaErrorDomain error 256".
    let folder = FileManager.default.temporaryDirectory.path
    let notFile = try CLI.run(["match", "--aasa", folder, "https://shop.example.com/"])
    #expect(notFile.status == 66)
    #expect(notFile.stderr == "ipalinks: cannot read \(folder): Is a directory\n")
  }
}
