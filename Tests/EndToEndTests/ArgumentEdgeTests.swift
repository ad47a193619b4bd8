import Foundation
import IPALinksStore
import Testing

/// What users type that the usual cases do not: a host with the dot of a fully qualified name, a pipe for a file,
/// standard input named twice, empty values, a list that shrank since the last run, a PostgreSQL URL without a port.
/// Each is either what the user meant or a usage error that names it; never a silent wrong answer.
struct ArgumentEdgeTests {
  static let aasa = CLI.sample("aasa")

  static func folder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ipalinks-edges-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
  }

  /// `shop.example.com.` names `shop.example.com`: it was accepted, then never looked up, so `blocklist` replaced a
  /// list with an empty one and exited 0.
  @Test func aHostEndingInADotIsTheHostItNames() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let plain = try CLI.run(["blocklist", "--host", "shop.example.com", "--aasa-dir", Self.aasa, "-f", "domains", "-q"])
    let dotted = try CLI.run([
      "blocklist", "--host", "SHOP.example.com.", "--aasa-dir", Self.aasa, "-f", "domains", "-q",
    ])
    #expect(plain.status == 0 && plain.stdout == "shop.example.com\n", "\(plain.stdout)\(plain.stderr)")
    #expect(dotted.status == 0 && dotted.stdout == plain.stdout, "\(dotted.stdout)\(dotted.stderr)")
    let fetched = try CLI.run(["fetch", "shop.example.com.", "--aasa-dir", Self.aasa, "--format", "json"])
    #expect(fetched.status == 0, "\(fetched.stderr)")
    let domain = try #require(
      ((try JSONSerialization.jsonObject(with: Data(fetched.stdout.utf8)) as? [String: Any])?["domains"]
        as? [[String: Any]])?.first)
    #expect(domain["host"] as? String == "shop.example.com" && domain["status"] as? String == "ok", "\(domain)")
    // The store keeps hosts without the dot, and history finds them either way.
    let store = folder.appendingPathComponent("audit.db").path
    let made = try CLI.run(["inspect", CLI.sample("Store.ipa"), "--aasa-dir", Self.aasa, "--store", store, "-q"])
    #expect(made.status == 0, "\(made.stderr)")
    let history = try CLI.run(["history", "--host", "shop.example.com", "--store", store])
    let dottedHistory = try CLI.run(["history", "--host", "shop.example.com.", "--store", store])
    #expect(history.status == 0 && !history.stdout.isEmpty, "\(history.stderr)")
    #expect(dottedHistory.status == 0 && dottedHistory.stdout == history.stdout, "\(dottedHistory.stderr)")
    let matched = try CLI.run([
      "match", "--aasa", CLI.sample("aasa/shop.example.com.json"), "--domain", "shop.example.com.", "--app-id",
      "ST0REAPP42.com.example.store", "https://shop.example.com/buy/1",
    ])
    #expect(matched.status == 0 && matched.stdout.hasPrefix("match"), "\(matched.stdout)\(matched.stderr)")
  }

  /// WebKit lists split into `rules.json`, `rules-2.json`, …: a later run that needs fewer removes the numbered lists
  /// ipalinks wrote past its own, which an app compiling every `rules-N.json` would otherwise keep, and leaves a file
  /// it did not write.
  @Test func aSmallerSplitRemovesTheListsOfTheRunBefore() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let output = folder.appendingPathComponent("rules.json").path
    func names() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() }
    let all = try CLI.run([
      "blocklist", CLI.samples.path, "--aasa-dir", Self.aasa, "-f", "wkcontentrules", "--max-rules", "1", "-q", "-o",
      output,
    ])
    #expect(all.status <= 1, "\(all.stderr)")
    let split = try names()
    #expect(split.count >= 3 && split.first == "rules-2.json" && split.last == "rules.json", "\(split)")
    // Someone else's file, numbered past the stale ones: not ipalinks's to remove.
    let foreign = folder.appendingPathComponent("rules-\(split.count + 1).json")
    try Data("[{\"trigger\": {\"url-filter\": \"x\"}, \"action\": {\"type\": \"block\"}}]\n".utf8).write(to: foreign)
    let one = [
      "blocklist", CLI.sample("Store.ipa"), "--aasa-dir", Self.aasa, "-f", "wkcontentrules", "-o", output,
      "--if-changed",
    ]
    let smaller = try CLI.run(one)
    #expect(smaller.status <= 1, "\(smaller.stderr)")
    let left = try names()
    #expect(left == [foreign.lastPathComponent, "rules.json"], "\(left)")
    let stale = (2..<split.count + 1).map { folder.appendingPathComponent("rules-\($0).json").path }
    #expect(
      smaller.stderr.contains(
        "; removed \(stale.joined(separator: ", ")), lists of an earlier run that these rules no longer need"),
      "\(smaller.stderr)")
    // Nothing stale now: the same rules again are left as they are.
    let again = try CLI.run(one)
    #expect(again.status == 3, "\(again.stderr)")
  }

  /// A pipe (`<(…)`) cannot be sought in: `inspect` reads an IPA from it whole, as from `-`, and `diff` and `report`
  /// take it for a saved inventory; Foundation's error never reaches the user.
  @Test func aPipeIsReadAsItComes() throws {
    let binary = CLI.binary.path
    func shell(_ script: String) throws -> CLI.Result {
      try CLI.run(["-c", script], executable: URL(fileURLWithPath: "/bin/bash"))
    }
    let ipa = CLI.sample("Store.ipa")
    let inspected = try shell("'\(binary)' inspect <(cat '\(ipa)') --no-fetch --format json")
    #expect(inspected.status == 0, "\(inspected.stderr)")
    let report = try #require(try JSONSerialization.jsonObject(with: Data(inspected.stdout.utf8)) as? [String: Any])
    #expect((report["input"] as? String)?.hasPrefix("/dev/fd/") == true, "\(report["input"] ?? "")")
    #expect((report["bundles"] as? [[String: Any]])?.first?["bundleId"] as? String == "com.example.store")
    let diffed = try shell(
      "'\(binary)' diff <('\(binary)' inspect '\(ipa)' --no-fetch --format json) '\(ipa)' --no-fetch")
    #expect(diffed.status == 0 && diffed.stdout == "No differences.\n", "\(diffed.stdout)\(diffed.stderr)")
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let page = folder.appendingPathComponent("r.html").path
    let reported = try shell("'\(binary)' report <(cat '\(ipa)') -o '\(page)'")
    #expect(reported.status == 2, "\(reported.stderr)")
    #expect(reported.stderr.contains(": a zip archive (an IPA?), not a saved inventory"), "\(reported.stderr)")
    #expect(!reported.stderr.contains("NSCocoaErrorDomain") && !reported.stderr.contains("Illegal seek"))
  }

  /// Standard input can be read once: naming `-` twice is a usage error that says which two, not an empty second
  /// read (`no inventory found`) or an inventory's lines taken for hosts.
  @Test func standardInputIsNamedOnce() throws {
    let cases: [([String], String)] = [
      (["blocklist", "--inventory", "-", "--hosts", "-", "-f", "domains"], "--inventory - and --hosts - cannot both"),
      (["diff", "-", "-"], "OLD - and NEW - cannot both read standard input"),
      (["report", "-", "-", "-o", "/dev/null"], "- is given twice as an input, but standard input can be read once"),
      (["store", "import", "-", "-", "--store", "/nonexistent/x.db"], "- is given twice as an inventory"),
      (["who-claims", "--urls", "-", "--hosts", "-"], "--urls - and --hosts - cannot both read standard input"),
    ]
    for (arguments, message) in cases {
      let run = try CLI.run(arguments, stdin: FileHandle.nullDevice)
      #expect(run.status == 64, "\(arguments): \(run.status) \(run.stderr)")
      #expect(run.stderr.hasPrefix("Error: \(message)"), "\(arguments): \(run.stderr)")
    }
  }

  /// What cannot be used is said before anything is inspected: a URL list that cannot be read, a host where
  /// `--urls` takes inputs, empty values, and a store option without a store.
  @Test func listsAndValuesThatCannotBeUsedAreSaidFirst() throws {
    let missing = "/nonexistent-\(UUID().uuidString)/urls.txt"
    // Inspecting Store.ipa would tell dev.example.com's missing file first.
    let urls = try CLI.run(["who-claims", "--urls", missing, CLI.sample("Store.ipa"), "--aasa-dir", Self.aasa])
    #expect(urls.status == 2)
    #expect(
      urls.stderr == "ipalinks: \(missing): cannot read the URL list: No such file or directory\n", "\(urls.stderr)")
    let cases: [([String], String)] = [
      (
        ["who-claims", "shop.example.com", "--urls", "/dev/null", CLI.sample("Store.ipa")],
        "with --urls there is no HOST, and no file is named shop.example.com: for the apps its AASA file lists, "
          + "give --host shop.example.com"
      ),
      (["blocklist", CLI.sample("Store.ipa"), "-o", ""], "-o: an empty path"),
      (["blocklist", CLI.sample("Store.ipa"), "--report", "", "-o", "/dev/null"], "--report: an empty path"),
      (["report", CLI.sample("Store.ipa"), "-o", ""], "-o: an empty path"),
      (["history", "--app", "", "--store", "/nonexistent/x.db"], "--app: an empty ID"),
      (["history", "--host", "example.com", "--at", "", "--store", "/nonexistent/x.db"], "The value '' is invalid"),
      (["inspect", CLI.sample("Store.ipa"), "--run-label", "week-1"], "--run-label names the store's run"),
      (
        ["inspect", CLI.sample("Store.ipa"), "--run-label", "", "--store", "/nonexistent/x.db"], "--run-label: an empty"
      ),
    ]
    for (arguments, message) in cases {
      let run = try CLI.run(arguments, environment: ["IPALINKS_STORE": ""])
      #expect(run.status == 64, "\(arguments): \(run.status) \(run.stderr)")
      #expect(run.stderr.hasPrefix("Error: \(message)"), "\(arguments): \(run.stderr)")
    }
    // A line that is no host is quoted by its start: an inventory's line is kilobytes long.
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let inventory = folder.appendingPathComponent("inventory.jsonl")
    let saved = try CLI.run(["inspect", CLI.sample("Store.ipa"), "--no-fetch", "--format", "jsonl"])
    try Data(saved.stdout.utf8).write(to: inventory)
    let hosts = try CLI.run(["blocklist", "--hosts", inventory.path, "-f", "domains"])
    let first = hosts.stderr.split(separator: "\n").first ?? ""
    #expect(hosts.status == 64 && first.hasSuffix("…' is not a host name") && first.count < 220, "\(first)")
  }

  /// `--at` takes an RFC 3339 time with `t` and `z` in lower case, as RFC 3339 allows: it was taken for a run's
  /// label, and no run was labelled so.
  @Test func aTimeInLowerCaseIsATime() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = folder.appendingPathComponent("audit.db").path
    let made = try CLI.run(
      ["inspect", CLI.sample("Store.ipa"), "--aasa-dir", Self.aasa, "--store", store, "-q"],
      environment: ["SOURCE_DATE_EPOCH": "1795078800"])
    #expect(made.status == 0, "\(made.stderr)")
    let upper = try CLI.run(["history", "--host", "shop.example.com", "--store", store, "--at", "2026-11-19T10:00:00Z"])
    let lower = try CLI.run(["history", "--host", "shop.example.com", "--store", store, "--at", "2026-11-19t10:00:00z"])
    #expect(upper.status == 0 && upper.stdout.contains("2026-11-19 09:00"), "\(upper.stdout)\(upper.stderr)")
    #expect(lower.status == 0 && lower.stdout == upper.stdout, "\(lower.stderr)")
  }

  /// Messages in the tool's words, not a library's: swift-asn1's error named its source file and line, a UTF-16
  /// file was "unexpected character 'ÿ'" (the byte 0xFF as Latin-1), and a key encrypted with a passphrase was "not
  /// an Ed25519 private key".
  @Test func messagesAreInTheToolsWords() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    func validate(_ bytes: [UInt8]) throws -> String {
      let file = folder.appendingPathComponent("file-\(UUID().uuidString).json")
      try Data(bytes).write(to: file)
      let run = try CLI.run(["aasa", "validate", file.path])
      #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
      return run.stdout.replacingOccurrences(of: "\n    ", with: " ")
    }
    // A CMS envelope's start, cut short.
    let envelope = try validate([0x30, 0x80, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02, 0xA0])
    #expect(envelope.contains("not a valid CMS envelope: a length runs past the end of the data"), "\(envelope)")
    #expect(!envelope.contains("SwiftASN1") && !envelope.contains("ASN1Error"), "\(envelope)")
    let utf16 = try validate([0xFF, 0xFE] + Array("{}".utf16).flatMap { [UInt8($0), 0] })
    #expect(utf16.contains("the text is UTF-16 or UTF-32, not UTF-8"), "\(utf16)")
    // A gzip stream (a server that compresses unasked) was said to be UTF-16, from its NUL bytes.
    let gzip = try validate([0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xAB, 0xAE, 0x05, 0x00])
    #expect(gzip.contains("the body is gzip-compressed (Content-Encoding: gzip, which was not asked for)"), "\(gzip)")
    let latin1 = try validate(Array("{\"applinks\": ".utf8) + [0xE9] + Array("}".utf8))
    #expect(latin1.contains("unexpected byte 0xE9"), "\(latin1)")
    let key = folder.appendingPathComponent("encrypted.pem")
    try Data(Self.encryptedKey.utf8).write(to: key)
    let signed = try CLI.run([
      "blocklist", CLI.sample("Store.ipa"), "--no-fetch", "-f", "rules", "--sign", key.path, "-o",
      folder.appendingPathComponent("rules.json").path,
    ])
    #expect(signed.status == 2 || signed.status == 64, "\(signed.stderr)")
    #expect(
      signed.stderr.contains("\(key.path) is encrypted with a passphrase; give the key unencrypted"), "\(signed.stderr)"
    )
  }

  /// `openssl genpkey -algorithm ed25519 -aes256 -pass pass:x`.
  static let encryptedKey = """
    -----BEGIN ENCRYPTED PRIVATE KEY-----
    MIGbMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAiRQYk1sGtZfgICCAAw
    DAYIKoZIhvcNAgkFADAdBglghkgBZQMEASoEEK6HtqIc3xEdZXtCZwl9wUoEQNZx
    pr+Eu14I9S4EOQ4zsKq6ND6FKYfcwvxWFo8kHBIh8xy42GFpes36HpB6ZY9hgl0a
    BERbnx6IsZIeuhSWvXs=
    -----END ENCRYPTED PRIVATE KEY-----
    """

  /// A saved inventory's or a store's partial and unreadable inputs count as they did when inspected: `report`,
  /// `blocklist` and `who-claims` read from it exited 0, as if every app had been read, where the IPAs gave 1 (2 for
  /// `who-claims`, like grep); each is told on stderr as the inspection told it.
  @Test func anInventorysBrokenInputsCountAsTheInputsDid() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let inputs = [
      CLI.sample("Store.ipa"), CLI.fixture("bad/broken-signature.ipa"), CLI.fixture("bad/not-a-zip.ipa"),
    ]
    let inventory = folder.appendingPathComponent("week.jsonl")
    let inspected = try CLI.run(["inspect"] + inputs + ["--aasa-dir", Self.aasa, "--format", "jsonl", "-q"])
    #expect(inspected.status == 1)
    try Data(inspected.stdout.utf8).write(to: inventory)
    let fromIPAs = [
      try CLI.run(["report"] + inputs + ["--aasa-dir", Self.aasa, "-o", "/dev/null", "-q"]).status,
      try CLI.run(["blocklist"] + inputs + ["--aasa-dir", Self.aasa, "-f", "domains", "-o", "/dev/null", "-q"]).status,
      try CLI.run(["who-claims", "shop.example.com"] + inputs + ["--aasa-dir", Self.aasa, "-q"]).status,
    ]
    let page = folder.appendingPathComponent("week.html")
    let report = try CLI.run(["report", inventory.path, "-o", page.path, "-q"])
    // The page says so at its top, as the summary line counts them (its cards beside the inputs').
    let html = try String(contentsOf: page, encoding: .utf8)
    #expect(html.contains(#"<p class="muted">3 inputs, 2 bundles · 1 complete, 1 partial, 1 unreadable · "#))
    #expect(
      html.contains(
        #"<b>3</b><span>inputs</span></div><div class="card sev-warning"><b>1</b><span>input read in part</span>"#
          + #"</div><div class="card sev-error"><b>1</b><span>input not read</span>"#))
    let blocklist = try CLI.run(["blocklist", "--inventory", inventory.path, "-f", "domains", "-o", "/dev/null"])
    let whoClaims = try CLI.run(["who-claims", "shop.example.com", "--inventory", inventory.path, "-q"])
    #expect(fromIPAs == [1, 1, 2], "\(fromIPAs)")
    #expect([report.status, blocklist.status, whoClaims.status] == fromIPAs, "\(report.stderr)\(blocklist.stderr)")
    let told = blocklist.stderr.split(separator: "\n").map(String.init)
    #expect(
      told.contains { $0.hasPrefix("ipalinks: partial: \(CLI.fixture("bad/broken-signature.ipa")): ") }, "\(told)")
    #expect(told.contains("ipalinks: unreadable: \(CLI.fixture("bad/not-a-zip.ipa")): not a zip archive"), "\(told)")
    // A store of the same run counts them too, `who-claims HOST` as well: it read the apps on the host alone, and
    // said nothing of an input it could not read, which might claim the host (exit 0).
    let store = folder.appendingPathComponent("audit.db").path
    let stored = try CLI.run(
      ["inspect"] + inputs + ["--aasa-dir", Self.aasa, "--format", "jsonl", "-q", "--store", store])
    #expect(stored.status == 1, "\(stored.stderr)")
    let fromStore = [
      try CLI.run(["report", "--store", store, "-o", "/dev/null"]),
      try CLI.run(["blocklist", "--store", store, "-f", "domains", "-o", "/dev/null"]),
      try CLI.run(["who-claims", "shop.example.com", "--store", store]),
    ]
    #expect(fromStore.map(\.status) == fromIPAs, "\(fromStore.map(\.stderr))")
    // Each told on stderr, as from the inventory; `who-claims HOST` reads the apps on the host alone, and those
    // whose entitlements could not be read (the broken signature's), which may claim it.
    for run in fromStore {
      let lines = run.stderr.split(separator: "\n").map(String.init)
      #expect(
        lines.contains("ipalinks: unreadable: \(CLI.fixture("bad/not-a-zip.ipa")): not a zip archive"), "\(lines)")
      #expect(
        lines.contains { $0.hasPrefix("ipalinks: partial: \(CLI.fixture("bad/broken-signature.ipa")): ") }, "\(lines)")
    }
  }

  /// A URL whose deciding AASA file is unknown (here a folder where the file should be) is answered as unknown, from
  /// the IPAs and from a store: `who-claims URL` said "does not open it" (exit 1), its JSON `appListed: false`, and
  /// `--urls` counted it among the URLs that open none.
  @Test func aURLWhoseAASAFileIsUnknownIsNotAnsweredNo() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let aasa = folder.appendingPathComponent("aasa")
    try FileManager.default.copyItem(atPath: Self.aasa, toPath: aasa.path)
    try FileManager.default.removeItem(at: aasa.appendingPathComponent("shop.example.com.json"))
    try FileManager.default.createDirectory(
      at: aasa.appendingPathComponent("shop.example.com.json"), withIntermediateDirectories: false)
    let store = folder.appendingPathComponent("audit.db").path
    let ipa = CLI.sample("Store.ipa")
    let stored = try CLI.run(["inspect", ipa, "--aasa-dir", aasa.path, "--store", store, "--format", "jsonl", "-q"])
    #expect(stored.status == 1, "\(stored.stderr)")
    let url = "https://shop.example.com/buy/1"
    for source in [[ipa, "--aasa-dir", aasa.path], ["--store", store]] {
      // Wide enough for the first line to stay whole.
      let text = try CLI.run(["who-claims", url] + source, environment: ["COLUMNS": "200"])
      #expect(text.status == 2, "\(source): \(text.stderr)")
      #expect(
        text.stdout.hasPrefix("\(url): opened by no app; 1 more may open it (its AASA file unknown)\n"),
        "\(text.stdout)")
      #expect(text.stdout.contains("  verdict: unknown (the AASA file that decides is unknown)\n"))
      #expect(!text.stdout.contains("does not list the app"), "\(text.stdout)")
      let json = try CLI.run(["who-claims", url, "--format", "json"] + source)
      let claims = try #require(
        (try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])?["claims"]
          as? [[String: Any]])
      #expect(claims.count == 1 && claims[0]["verdictUnknown"] as? Bool == true && claims[0]["verdict"] == nil)
      let entries = try #require(claims[0]["entries"] as? [[String: Any]])
      #expect(entries.first { $0["status"] as? String == "unreadable" }.map { $0["appListed"] == nil } == true)
      // Where a known file decides (the wildcard's), the answer stands.
      #expect(try CLI.run(["who-claims", "https://www.example.com/s/1", "-q"] + source).status == 0)
    }
    let list = folder.appendingPathComponent("urls.txt")
    try Data("\(url)\nhttps://nowhere.example/\n".utf8).write(to: list)
    let scanned = try CLI.run(["who-claims", "--urls", list.path, ipa, "--aasa-dir", aasa.path, "--format", "jsonl"])
    #expect(scanned.status == 2, "\(scanned.stderr)")
    #expect(
      scanned.stdout == #"{"apps":[],"excludedBy":[],"unknown":["ST0REAPP42.com.example.store"],"url":"\#(url)"}"#
        + "\n" + #"{"apps":[],"excludedBy":[],"url":"https://nowhere.example/"}"# + "\n", "\(scanned.stdout)")
    #expect(scanned.stderr.hasSuffix("ipalinks: 2 URLs: 0 open an app, 0 excluded, 1 unknown, 1 open none\n"))
  }

  /// `IPALINKS_STORE` counts only when no other input is given: beside inputs, `--at` (which reads the store) is a
  /// usage error, as without the variable, where the store went unread and `--at` unsaid, the inputs' answer of now
  /// given as the answer of then.
  @Test func atBesideInputsNeedsAStoreGivenWithStore() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = folder.appendingPathComponent("audit.db").path
    let ipa = CLI.sample("Store.ipa")
    #expect(try CLI.run(["inspect", ipa, "--aasa-dir", Self.aasa, "--store", store, "-q"]).status == 0)
    let url = "https://shop.example.com/buy/1"
    let beside = try CLI.run(
      ["who-claims", url, ipa, "--no-fetch", "--at", "1d"], environment: ["IPALINKS_STORE": store])
    #expect(beside.status == 64, "\(beside.stdout)\(beside.stderr)")
    #expect(beside.stderr.contains("--at reads the store: give --store too (IPALINKS_STORE counts only"))
    #expect(beside.stdout.isEmpty)
    // Alone, the variable is the store, and --at reads it.
    let alone = try CLI.run(["who-claims", url, "--at", "2099-01-01"], environment: ["IPALINKS_STORE": store])
    #expect(alone.status == 2 && alone.stderr.contains("in the future"), "\(alone.stderr)")
    let now = try CLI.run(["who-claims", url, "-q"], environment: ["IPALINKS_STORE": store])
    #expect(now.status == 0, "\(now.stderr)")
  }

  #if os(Linux)
    /// A file whose name is not UTF-8 (Latin-1, from an old archive or a share) cannot be opened by a Swift path; it
    /// was said to be missing ("no such file or folder"), and now says why it cannot be opened. Linux only: macOS
    /// file systems refuse such names.
    @Test func aNameThatIsNotUTF8IsSaidSo() throws {
      let folder = try Self.folder()
      defer { try? FileManager.default.removeItem(at: folder) }
      let sample = try Data(contentsOf: URL(fileURLWithPath: CLI.sample("Store.ipa")))
      let raw = Array((folder.path + "/caf").utf8) + [0xE9] + Array(".ipa".utf8) + [0]
      let fd = raw.withUnsafeBufferPointer {
        open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o644)
      }
      try #require(fd >= 0)
      _ = sample.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      close(fd)
      try sample.write(to: folder.appendingPathComponent("plain.ipa"))
      let run = try CLI.run(["inspect", folder.path, "--no-fetch", "--format", "jsonl", "-q"])
      #expect(run.status == 1, "\(run.stderr)")
      #expect(run.stderr.contains(".ipa: cannot be opened: its name is not UTF-8"), "\(run.stderr)")
      #expect(!run.stderr.contains("no such file"), "\(run.stderr)")
      #expect(run.stdout.contains("com.example.store"))
    }
  #endif

  /// `--at` takes a run's number, as `inspect --store` says it and `store runs` lists it, where only labels were
  /// taken ("no run is labelled 1"); an unlabelled run (every `refresh`) could be named by its exact time alone.
  @Test func atTakesARunsNumber() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = folder.appendingPathComponent("audit.db").path
    for (epoch, label, aasa) in [
      ("1795078800", "a", [Self.aasa]), ("1795683600", "b", [Self.aasa + "/next", Self.aasa]),
    ] {
      let run = try CLI.run(
        ["inspect", CLI.sample("Store.ipa"), "--store", store, "--run-label", label, "-q"]
          + aasa.flatMap { ["--aasa-dir", $0] }, environment: ["SOURCE_DATE_EPOCH": epoch])
      #expect(run.status == 0, "\(run.stderr)")
    }
    let url = "https://shop.example.com/buy/gift/card"
    func claims(_ at: String) throws -> CLI.Result {
      try CLI.run(["who-claims", url, "--store", store, "--at", at, "-q"])
    }
    #expect(try claims("1").stdout == claims("a").stdout)
    #expect(try claims("2").stdout == claims("b").stdout)
    #expect(try claims("1").stdout != claims("2").stdout)
    let none = try claims("9")
    #expect(none.status == 2 && none.stderr.contains("no run is labelled 9 or numbered 9"), "\(none.stderr)")
    // `store prune --before 2` keeps run 2, as `--before b` does.
    for before in ["2", "b"] {
      let prune = try CLI.run(["store", "prune", "--before", before, "--store", store, "--dry-run"])
      #expect(
        prune.stdout.hasPrefix("1 run started before 2026-11-26 09:00:00 UTC, to prune:\n"), "\(prune.stdout)")
    }
  }

  /// `store runs` counts the hosts each run retrieved: a `refresh` run, which records hosts alone, showed 0 inputs and
  /// 0 apps and nothing else, so a refresh left unfinished could not be checked against what it said it holds.
  @Test func storeRunsCountsTheHostsARunRetrieved() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = folder.appendingPathComponent("audit.db").path
    #expect(
      try CLI.run(["inspect", CLI.sample("Store.ipa"), "--aasa-dir", Self.aasa, "--store", store, "-q"]).status == 0)
    let refresh = try CLI.run(["refresh", "--store", store, "--aasa-dir", Self.aasa, "-q"])
    #expect(refresh.status == 0, "\(refresh.stderr)")
    let runs = try CLI.run(["store", "runs", "--store", store, "--format", "jsonl"]).stdout.split(separator: "\n")
      .compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    #expect(runs.map { $0["command"] as? String } == ["inspect", "refresh"])
    #expect(runs.map { $0["hosts"] as? Int } == [3, 3] && runs.last?["inputs"] as? Int == 0, "\(runs)")
    let text = try CLI.run(["store", "runs", "--store", store], environment: ["COLUMNS": "80"]).stdout
    #expect(text.hasPrefix("RUN  STARTED (UTC)        TOOK   COMMAND  INPUTS  APPS  HOSTS  LABEL"), "\(text)")
  }

  /// `--format table`: a partial input's rows are marked and the mark explained under the table, an unreadable
  /// input's status is whole, and in a file without `COLUMNS` no cell is cut (an app ID cut to 80 columns cannot
  /// be read back).
  @Test func aTableMarksPartialRowsAndKeepsCellsWholeInAFile() throws {
    let inputs = [
      CLI.sample("Nested.ipa"), CLI.fixture("bad/broken-signature.ipa"), CLI.fixture("bad/not-a-zip.ipa"),
    ]
    let arguments = ["inspect"] + inputs + ["--aasa-dir", Self.aasa, "--format", "table", "-q"]
    let fitted = try CLI.run(arguments)
    let lines = fitted.stdout.split(separator: "\n").map(String.init)
    #expect(lines.allSatisfy { $0.count <= 80 }, "\(lines)")
    #expect(lines.contains { $0.hasPrefix("*com.example.fixture.brok") }, "\(lines)")
    #expect(lines.contains { $0.hasPrefix(CLI.fixture("bad/not-a-zip.ipa").prefix(8)) && $0.hasSuffix("(unreadable)") })
    #expect(lines.suffix(2).first?.hasPrefix("* 1 row from inputs not read wholly (partial) may miss") == true)
    let whole = try CLI.run(
      ["-u", "COLUMNS", CLI.binary.path] + arguments, executable: URL(fileURLWithPath: "/usr/bin/env"))
    #expect(
      whole.stdout.contains("N3STEDAPP7.com.example.nested.cafe.watchkitapp.watchkitextension"), "\(whole.stdout)")
    #expect(!whole.stdout.contains("…"), "\(whole.stdout)")
  }

  /// A saved inventory that is not one says what it is, in the tool's words: an IPA given to `store import`, a
  /// file that is not JSON; a folder given as a store is one.
  @Test func whatIsNotAnInventoryOrAStoreIsSaidSo() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = folder.appendingPathComponent("audit.db").path
    let imported = try CLI.run(["store", "import", CLI.sample("Store.ipa"), "--store", store])
    #expect(imported.status == 2)
    #expect(
      imported.stderr.hasPrefix(
        "ipalinks: \(CLI.sample("Store.ipa")): a zip archive (an IPA?), not a saved inventory, which `inspect "
          + "--format json` or `jsonl` writes\n"), "\(imported.stderr)")
    let broken = folder.appendingPathComponent("broken.json")
    try Data("{\"bundles\": [".utf8).write(to: broken)
    let read = try CLI.run(["report", broken.path, "-o", "/dev/null"])
    #expect(
      read.stderr == "ipalinks: \(broken.path): line 1 is not an ipalinks inventory: not JSON\n", "\(read.stderr)")
    let runs = try CLI.run(["store", "runs", "--store", folder.path])
    #expect(runs.status == 2 && runs.stderr == "ipalinks: \(folder.path): a folder, not a store (a SQLite file)\n")
  }

  /// Without `--app-id`, `fetch` asks about no app: its JSON says nothing of whether "the app" is listed.
  @Test func fetchWithoutAnAppSaysNothingOfOne() throws {
    let bare = try CLI.run(["fetch", "shop.example.com", "--aasa-dir", Self.aasa, "--format", "jsonl"])
    let forApp = try CLI.run([
      "fetch", "shop.example.com", "--aasa-dir", Self.aasa, "--format", "jsonl", "--app-id",
      "ST0REAPP42.com.example.store",
    ])
    let line = try #require(try JSONSerialization.jsonObject(with: Data(bare.stdout.utf8)) as? [String: Any])
    let listed = try #require(try JSONSerialization.jsonObject(with: Data(forApp.stdout.utf8)) as? [String: Any])
    #expect(line["appListed"] == nil && line["rules"] == nil && line["listedApps"] != nil, "\(line)")
    #expect(listed["appListed"] as? Bool == true && (listed["rules"] as? [Any])?.isEmpty == false, "\(listed)")
  }

  /// The text report fits 40 columns but for tokens no break can split (a rule's JSON pointer, a long entry): a
  /// domain's status line wraps after its commas (`ok  aasa-dir, 2 rules, file from example.com` took 50).
  @Test func aDomainsStatusLineWrapsToTheTerminal() throws {
    let run = try CLI.run(
      ["inspect", CLI.sample("Store.ipa"), "--aasa-dir", CLI.sample("aasa")], environment: ["COLUMNS": "40"])
    let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false)
    let status = try #require(lines.firstIndex { $0.hasPrefix("      ok  aasa-dir, 2 rules") }, "\(run.stdout)")
    #expect(lines[status] == "      ok  aasa-dir, 2 rules,")
    #expect(lines[status + 1] == "        file from example.com")
    #expect(lines.filter { $0.contains("aasa-dir") }.allSatisfy { $0.count <= 40 })
  }

  /// A date or time that does not exist is a usage error, not a run label to look for (`no run labelled
  /// 2026-13-45`, exit 2), nor a label to give; a label that only starts as a date is one.
  @Test func aTimeThatDoesNotExistIsAUsageError() throws {
    let store = FileManager.default.temporaryDirectory.appendingPathComponent("none-\(UUID().uuidString).db").path
    for at in ["2026-13-45", "2026-02-30 25:00", "2026-13-01T00:00:00Z", "2026-02-30 UTC"] {
      let run = try CLI.run(["who-claims", "shop.example.com", "--store", store, "--at", at])
      #expect(run.status == 64 && run.stderr.contains("is invalid for '--at <time>'"), "\(at): \(run.stderr)")
    }
    let label = try CLI.run([
      "inspect", CLI.sample("Store.ipa"), "--no-fetch", "--store", store, "--run-label", "2026-02-30",
    ])
    #expect(label.status == 64 && label.stderr.contains("a date that does not exist"), "\(label.stderr)")
    #expect(!FileManager.default.fileExists(atPath: store))
    // Both of two options that exclude each other are named as such.
    let both = try CLI.run(["history", "--host", "shop.example.com", "--app", "A.b", "--store", store])
    #expect(both.status == 64 && both.stderr.hasPrefix("Error: give --host HOST or --app ID, not both\n"))
    let nightly = try CLI.run(["who-claims", "shop.example.com", "--store", store, "--at", "2026-11-19-nightly"])
    #expect(nightly.status == 2 && nightly.stderr.contains("no such store"), "\(nightly.stderr)")
  }

  /// As libpq reads a URL: no port is `PGPORT`, else 5432, for TCP and for a socket's folder alike.
  @Test func aPostgreSQLURLWithoutAPortTakesLibpqsDefault() throws {
    func server(_ url: String, _ environment: [String: String] = [:]) throws -> StoreLocation.Postgres? {
      if case .postgres(let server) = try StoreLocation(url, environment: environment) { return server }
      return nil
    }
    #expect(try server("postgres://localhost/db")?.port == 5432)
    #expect(try server("postgres://localhost/db", ["PGPORT": "6543"])?.port == 6543)
    #expect(try server("postgres://localhost:7000/db", ["PGPORT": "6543"])?.port == 7000)
    // An empty PGPASSWORD is none, as libpq reads it, and the location says no password.
    #expect(try server("postgres://aud@localhost/db", ["PGPASSWORD": ""])?.password == nil)
    #expect(
      try StoreLocation("postgres://aud@localhost/db", environment: ["PGPASSWORD": ""]).description
        == "postgres://aud@localhost:5432/db")
    #expect(try server("postgres://aud@localhost/db", ["PGPASSWORD": "s"])?.password == "s")
    #expect(
      try server("postgres://auditor@/audits?host=/var/run/postgresql")?.socketPath
        == "/var/run/postgresql/.s.PGSQL.5432")
    #expect(throws: StoreLocation.Problem.self) {
      try StoreLocation("postgres://localhost/db?port=x", environment: [:])
    }
    let run = try CLI.run(["store", "runs", "--store", "postgres://localhost/db?port=0"])
    #expect(run.status == 64 && run.stderr.contains("the port must be a number from 1 to 65535"), "\(run.stderr)")
    // An IPv6 address in brackets is the address without them (it was looked up as "[::1]").
    #expect(try server("postgres://auditor:secret@[::1]:55432/audits")?.host == "::1")
    #expect(
      "\(try StoreLocation("postgres://auditor:secret@[::1]:55432/audits"))"
        == "postgres://auditor:***@[::1]:55432/audits")
    // A misspelt sslmode is refused, as libpq refuses it: `requir` connected without TLS.
    for mode in ["requir", "REQUIRE", "bogus"] {
      let typo = try CLI.run(["store", "runs", "--store", "postgres://auditor:secret@localhost/db?sslmode=\(mode)"])
      #expect(typo.status == 64, "\(mode): \(typo.stderr)")
      #expect(
        typo.stderr.contains(
          "postgres://auditor:***@localhost/db?sslmode=\(mode): sslmode=\(mode) is not one of disable, allow, prefer, "
            + "require, verify-ca, verify-full"), "\(typo.stderr)")
    }
    #expect(try server("postgres://localhost/db?sslmode=verify-full")?.requireTLS == true)
    #expect(try server("postgres://localhost/db?sslmode=disable")?.requireTLS == false)
  }
}
