import Crypto
import Foundation
import IPALinksKit
import Testing
import UniversalLinkGuard
import UniversalLinks

/// The rules document that `blocklist` writes, read back by the guard's front: the guard must give the library's
/// verdicts for every URL, on hand-picked rules and on random AASA files.
struct RulesDocumentTests {
  static func blocklist(_ files: [(appID: String, host: String, wildcard: Bool, json: String)]) throws -> Blocklist {
    var apps: [LinkingApp] = []
    for (index, file) in files.enumerated() {
      let rules = AppLinkRules(file: try AASAFile(json: file.json), appID: file.appID)
      let scope = RuleScope(host: file.host, wildcard: file.wildcard, rules: rules)
      if let last = apps.last, last.appID == file.appID {
        apps[apps.count - 1].scopes.append(scope)
      } else {
        apps.append(LinkingApp(appID: file.appID, name: "App \(index)", input: "app\(index).ipa", scopes: [scope]))
      }
    }
    return Blocklist(apps: apps)
  }

  static func expectSameVerdicts(_ blocklist: Blocklist, _ urls: [String]) throws {
    let document = BlocklistRenderer(blocklist).guardDocument(generator: "test")
    let linkGuard = try UniversalLinkGuard(rulesJSON: document)
    for url in urls {
      let expected = blocklist.verdict(for: url)
      let got: BlocklistVerdict
      switch linkGuard.verdict(for: url) {
      case .opensApp(let app, let rule): got = BlocklistVerdict(verdict: .match, appID: app, pointer: rule)
      case .excluded(let app, let rule): got = BlocklistVerdict(verdict: .exclude, appID: app, pointer: rule)
      case .staysInWebView: got = BlocklistVerdict(verdict: .noMatch)
      }
      #expect(got == expected, "\(url)")
    }
  }

  @Test func handPickedRules() throws {
    let app = "AAAAAAAAAA.com.example.alpha"
    let json = """
      {"applinks": {"substitutionVariables": {"campaign": ["spring", "summer-sale"]},
        "details": [{"appIDs": ["\(app)"], "components": [
          {"/": "/buy/gift/*", "exclude": true, "caseSensitive": false},
          {"/": "/buy/*", "caseSensitive": false},
          {"/": "/p/???", "?": {"ref": "?*"}},
          {"/": "/help/*", "#": "app"},
          {"/": "/promo/$(campaign)/*"},
          {"/": "/d/$(digit)*"},
          {"/": "/l/$(lang)/*"},
          {"/": "/u/$(undefined)"},
          {"/": "*.pdf", "percentEncoded": false}
        ]}]}}
      """
    let blocklist = try Self.blocklist([(app, "alpha.example", false, json), (app, "alpha.example", true, json)])
    let urls = [
      "https://alpha.example/buy/x", "https://alpha.example/BUY/Gift/1", "https://alpha.example/p/abc?ref=1",
      "https://alpha.example/p/abc?ref=", "https://alpha.example/help/1#app", "https://alpha.example/promo/spring/1",
      "https://alpha.example/promo/winter/1", "https://alpha.example/d/7x", "https://alpha.example/l/en/x",
      "https://alpha.example/l/xx/x", "https://alpha.example/u/x", "https://alpha.example/a%20b.pdf",
      "https://www.alpha.example/buy/x", "https://alpha.example.evil/buy/x", "ftp://alpha.example/buy/x",
      "not a url",
    ]
    try Self.expectSameVerdicts(blocklist, urls)
  }
}

/// Rules swapped in at run time: a newer document replaces the rules, a broken or older one is refused with a clear
/// error and the rules in use stay, and the same rules again change nothing.
struct UpdatingGuardTests {
  static let app = "AAAAAAAAAA.com.example.alpha"

  /// The rules document of one app on alpha.example with `paths` opening it, made at `time`.
  static func document(_ paths: [String], at time: TimeInterval) throws -> String {
    let components = paths.map { #"{"/": "\#($0)"}"# }.joined(separator: ",")
    let json = #"{"applinks": {"details": [{"appIDs": ["\#(app)"], "components": [\#(components)]}]}}"#
    let blocklist = try RulesDocumentTests.blocklist([(app, "alpha.example", false, json)])
    let output = BlocklistOutput(
      blocklist, format: .rules, maxRules: 100, generator: "ipalinks test",
      at: Date(timeIntervalSince1970: time))
    return try #require(output.files.first).text
  }

  @Test func newerRulesReplaceTheOldAndBrokenOnesAreRefused() throws {
    let week1 = try Self.document(["/buy/*"], at: 1_790_000_000)
    let week2 = try Self.document(["/buy/*", "/sell/*"], at: 1_790_604_800)
    let first = try UniversalLinkGuard(rulesJSON: week1)
    #expect(first.stamp.generator == "ipalinks test")
    #expect(first.stamp.generatedAt == "2026-09-21T14:13:20Z")
    #expect(first.stamp.sha256?.count == 64)
    let linkGuard = UpdatingLinkGuard(first)
    let sell = "https://alpha.example/sell/1"
    #expect(linkGuard.current.verdict(for: sell) == .staysInWebView)

    #expect(try linkGuard.update(rulesJSON: week2, now: Self.later))
    #expect(
      linkGuard.current.verdict(for: sell) == .opensApp(appID: Self.app, rule: "/applinks/details/0/components/1"))

    // The same rules made later: taken, as their time is now the newest, so that a replay of a document made in
    // between is refused (it was taken, over the newer one: `/sell/` then stayed in the web view). Made earlier, or
    // again: nothing to do.
    let week3 = try Self.document(["/buy/*", "/sell/*"], at: 1_791_209_600)
    #expect(try linkGuard.update(rulesJSON: week3, now: Self.later))
    #expect(linkGuard.current.stamp.generatedAt == "2026-10-05T14:13:20Z")
    #expect(try !linkGuard.update(rulesJSON: week3, now: Self.later))
    #expect(try !linkGuard.update(rulesJSON: week2, now: Self.later))
    let between = try Self.document(["/buy/*"], at: 1_791_000_000)
    #expect {
      try linkGuard.update(rulesJSON: between, now: Self.later)
    } throws: { error in
      "\(error)".contains("before the rules in use (2026-10-05T14:13:20Z)")
    }
    // Another document of the same second as the rules in use: which is newer cannot be told, so it is refused
    // (two such documents replaced each other back and forth); rollBack(to:) takes it.
    let sameSecond = try Self.document(["/buy/*", "/rent/*"], at: 1_791_209_600)
    #expect {
      try linkGuard.update(rulesJSON: sameSecond, now: Self.later)
    } throws: { error in
      "\(error)".contains("the same second as the rules in use")
    }
    #expect(try linkGuard.rollBack(to: sameSecond, now: Self.later))
    #expect(try linkGuard.rollBack(to: week3, now: Self.later))

    for (broken, message) in [
      (String(week2.prefix(week2.count / 2)), "not valid JSON"), (#"{"generator": "x"}"#, #"no "apps""#),
      (#"{"apps": [{"appID": 7}]}"#, "apps/0/appID"), (week1, "before the rules in use"),
    ] {
      #expect {
        try linkGuard.update(rulesJSON: broken, now: Self.later)
      } throws: { error in
        "\(error)".contains(message) && "\(error)".contains("kept the rules in use")
      }
      // The rules in use stay.
      #expect(
        linkGuard.current.verdict(for: sell) == .opensApp(appID: Self.app, rule: "/applinks/details/0/components/1"))
    }
  }

  /// A time after every document these tests make: this device's clock.
  static let later = Date(timeIntervalSince1970: 1_800_000_000)

  /// What could switch the guard off or lock it is refused, naming why, and the rules in use stay: a document whose
  /// rules are not what its `sha256` says, one with no digest (`{"apps":[{"appID":"X.y"}]}`), one stamped in the
  /// future (2099), one with no rule; an older one only through `rollBack(to:)`.
  @Test func documentsThatWouldSwitchTheGuardOffOrLockItAreRefused() throws {
    let week1 = try Self.document(["/buy/*"], at: 1_790_000_000)
    let week2 = try Self.document(["/buy/*", "/sell/*"], at: 1_790_604_800)
    let linkGuard = UpdatingLinkGuard(try UniversalLinkGuard(rulesJSON: week2))
    let sell = "https://alpha.example/sell/1"
    let opens = UniversalLinkGuard.Verdict.opensApp(appID: Self.app, rule: "/applinks/details/0/components/1")
    #expect(linkGuard.current.stamp.matches(week2))
    let week3 = try Self.document(["/buy/*", "/sell/*", "/rent/*"], at: 1_791_209_600)
    // The rules changed but not the digest: an edit, or damage on the way.
    let edited = week3.replacingOccurrences(of: "/rent/", with: "/sell/")
    let future = try Self.document(["/buy/*"], at: 4_070_908_800)  // 2099-01-01
    let empty = try Self.emptyDocument(at: 1_791_209_600)
    for (document, message) in [
      (edited, "does not match its sha256"), (#"{"apps":[{"appID":"X.y"}]}"#, "has no sha256"),
      (future, "was made 2099-01-01T00:00:00Z, after this device's clock"), (empty, "holds no rule"),
      (week1, "call rollBack(to:)"),
    ] {
      #expect {
        try linkGuard.update(rulesJSON: document, now: Self.later)
      } throws: { error in
        "\(error)".contains(message) && "\(error)".contains("kept the rules in use")
      }
      #expect(linkGuard.current.verdict(for: sell) == opens, "after \(message)")
    }
    // A document whose only rule excludes opens no app, as an empty one: it was taken, and every link then stayed.
    let components = #"[{"/": "*", "exclude": true}]"#
    let excluding = try RulesDocumentTests.blocklist([
      (
        Self.app, "alpha.example", false,
        #"{"applinks": {"details": [{"appIDs": ["\#(Self.app)"], "components": "#
          + components + "}]}}"
      )
    ])
    let onlyExcludes = try #require(
      BlocklistOutput(
        excluding, format: .rules, maxRules: 100, generator: "ipalinks test",
        at: Date(timeIntervalSince1970: 1_791_209_600)
      ).files.first
    ).text
    #expect {
      try linkGuard.update(rulesJSON: onlyExcludes, now: Self.later)
    } throws: { error in
      "\(error)".contains("holds no rule that opens an app (its 1 only exclude)")
    }
    #expect(linkGuard.current.verdict(for: sell) == opens)
    // Within the allowed skew, a document from a clock a little ahead is taken.
    let ahead = try Self.document(["/buy/*", "/sell/*", "/lease/*"], at: 1_800_000_200)
    #expect(try linkGuard.update(rulesJSON: ahead, now: Self.later))
    // Going back, and to no rules, only when asked in so many words.
    #expect(try linkGuard.rollBack(to: week1, now: Self.later))
    #expect(linkGuard.current.verdict(for: sell) == .staysInWebView)
    #expect(try linkGuard.update(rulesJSON: empty, allowingNoRules: true, now: Self.later))
    #expect(linkGuard.current.ruleCount == 0)
  }

  /// A document from a newer ipalinks, with a pattern piece this guard does not know (its digest right), is
  /// refused and the rules in use stay: read as a piece that matches nothing, its rule would silently stop blocking.
  @Test func aDocumentWithAPieceThisGuardDoesNotKnowIsRefused() throws {
    let week2 = try Self.document(["/buy/*", "/sell/*"], at: 1_790_604_800)
    let linkGuard = UpdatingLinkGuard(try UniversalLinkGuard(rulesJSON: week2))
    let sell = "https://alpha.example/sell/1"
    let opens = try #require(Optional(linkGuard.current.verdict(for: sell)))
    let week3 = try Self.document(["/buy/*", "/sell/*", "/rent/*"], at: 1_791_209_600)
    for piece in ["7", #"{"choice":99}"#, #"{"weird":1}"#, "true"] {
      var document = week3.replacingOccurrences(of: #""/rent/",1]"#, with: #""/rent/",\#(piece)]"#)
      #expect(document != week3)
      // The digest made again over the changed rules, as a newer ipalinks would have written it.
      let old = try #require(UniversalLinkGuard.Stamp.rules(of: week3))
      let new = try #require(UniversalLinkGuard.Stamp.rules(of: document))
      document = document.replacingOccurrences(of: LinkRuntime.sha256Hex(old), with: LinkRuntime.sha256Hex(new))
      #expect {
        try linkGuard.update(rulesJSON: document, now: Self.later)
      } throws: { error in
        "\(error)".contains("unknown pattern piece")
      }
      #expect(linkGuard.current.verdict(for: sell) == opens, "after \(piece)")
    }
  }

  /// A rules document that lists no app, made at `time`.
  static func emptyDocument(at time: TimeInterval) throws -> String {
    let output = BlocklistOutput(
      Blocklist(apps: []), format: .rules, maxRules: 100, generator: "ipalinks test",
      at: Date(timeIntervalSince1970: time))
    return try #require(output.files.first).text
  }

  /// Signed lists: a guard made with a public key takes documents signed with its private key only; an unsigned one,
  /// one signed with another key, and a signed one whose rules were changed are refused, keeping the rules in use.
  @Test func aGuardWithAPublicKeyTakesOnlyDocumentsSignedWithItsKey() throws {
    let key = Curve25519.Signing.PrivateKey()
    let other = Curve25519.Signing.PrivateKey()
    func document(_ paths: [String], at time: TimeInterval, signedBy key: Curve25519.Signing.PrivateKey?) throws
      -> String
    {
      let components = paths.map { #"{"/": "\#($0)"}"# }.joined(separator: ",")
      let json = #"{"applinks": {"details": [{"appIDs": ["\#(Self.app)"], "components": [\#(components)]}]}}"#
      let blocklist = try RulesDocumentTests.blocklist([(Self.app, "alpha.example", false, json)])
      let output = BlocklistOutput(
        blocklist, format: .rules, maxRules: 100, generator: "ipalinks test", at: Date(timeIntervalSince1970: time),
        sign: key.map(BlocklistSigningKey.init))
      return try #require(output.files.first).text
    }
    let first = try UniversalLinkGuard(rulesJSON: try document(["/buy/*"], at: 1_790_000_000, signedBy: key))
    let linkGuard = try UpdatingLinkGuard(first, publicKey: key.publicKey.rawRepresentation)
    let signed = try document(["/buy/*", "/sell/*"], at: 1_790_604_800, signedBy: key)
    #expect(try UniversalLinkGuard(rulesJSON: signed).stamp.signature != nil)
    let sell = "https://alpha.example/sell/1"
    for (candidate, reason) in [
      (try document(["/buy/*", "/sell/*"], at: 1_790_604_800, signedBy: nil), "is not signed"),
      (try document(["/buy/*", "/sell/*"], at: 1_790_604_800, signedBy: other), "does not verify with the key"),
    ] {
      #expect {
        try linkGuard.update(rulesJSON: candidate, now: Self.later)
      } throws: { error in
        "\(error)".contains(reason)
      }
      #expect(linkGuard.current.verdict(for: sell) == .staysInWebView)
    }
    #expect(try linkGuard.update(rulesJSON: signed, now: Self.later))
    #expect(linkGuard.current.verdict(for: sell) != .staysInWebView)
    #expect(throws: UpdatingLinkGuard.KeyError.self) { try UpdatingLinkGuard(first, publicKey: Data([1, 2, 3])) }
  }

  /// A signed document's time is signed: an old one given a newer time (a replay that would undo newer rules) does
  /// not verify, one signed the old way (its rules alone) says so, and what follows the signature (a second `apps`,
  /// which one JSON decoder or another may take) changes nothing the guard uses.
  @Test func aSignedDocumentsTimeCannotBeChanged() throws {
    let key = Curve25519.Signing.PrivateKey()
    func document(_ paths: [String], at time: TimeInterval) throws -> String {
      let components = paths.map { #"{"/": "\#($0)"}"# }.joined(separator: ",")
      let json = #"{"applinks": {"details": [{"appIDs": ["\#(Self.app)"], "components": [\#(components)]}]}}"#
      let blocklist = try RulesDocumentTests.blocklist([(Self.app, "alpha.example", false, json)])
      let output = BlocklistOutput(
        blocklist, format: .rules, maxRules: 100, generator: "ipalinks test", at: Date(timeIntervalSince1970: time),
        sign: BlocklistSigningKey(key))
      return try #require(output.files.first).text
    }
    let old = try document(["/buy/*"], at: 1_790_000_000)
    let newer = try document(["/buy/*", "/sell/*"], at: 1_790_604_800)
    let sell = "https://alpha.example/sell/1"
    let linkGuard = try UpdatingLinkGuard(
      try UniversalLinkGuard(rulesJSON: old), publicKey: key.publicKey.rawRepresentation)
    #expect(try linkGuard.update(rulesJSON: newer, now: Self.later))
    #expect(linkGuard.current.verdict(for: sell) != .staysInWebView)
    // The old document replayed as it is is older than the rules in use; with a newer time, its signature fails.
    let replayed = old.replacingOccurrences(of: "2026-09-21T14:13:20Z", with: "2026-12-01T00:00:00Z")
    #expect(replayed != old && replayed.contains("2026-12-01T00:00:00Z"))
    #expect { try linkGuard.update(rulesJSON: old, now: Self.later) } throws: { "\($0)".contains("before the rules") }
    #expect { try linkGuard.update(rulesJSON: replayed, now: Self.later) } throws: {
      "\($0)".contains("has a signature that does not verify")
    }
    #expect(linkGuard.current.verdict(for: sell) != .staysInWebView)
    // Signed as before: the rules alone.
    let marker = try #require(old.range(of: #","generatedAt":""#))
    let rules = Array(old[..<marker.lowerBound].utf8) + [UInt8(ascii: "}")]
    let signature = try #require(try UniversalLinkGuard(rulesJSON: old).stamp.signature)
    let oldWay = old.replacingOccurrences(
      of: signature, with: try key.signature(for: Data(rules)).base64EncodedString())
    #expect { try linkGuard.rollBack(to: oldWay, now: Self.later) } throws: {
      "\($0)".contains("is signed without its time, by an older ipalinks")
    }
    // No rules after the signature: the ones signed are used.
    let emptied = String(newer.dropLast(2)) + #","apps":[]}"# + "\n"
    #expect(emptied.hasSuffix(#"","apps":[]}"# + "\n"))
    let fresh = try UpdatingLinkGuard(
      try UniversalLinkGuard(rulesJSON: old), publicKey: key.publicKey.rawRepresentation)
    #expect(try fresh.update(rulesJSON: emptied, now: Self.later))
    #expect(fresh.current.verdict(for: sell) != .staysInWebView)
    #expect(fresh.current.ruleCount == 2)
  }

  /// One key may sign several lists (a browser's and a mail client's): a guard takes documents of its own list only
  /// (`blocklist --list-name`), so another list's newer document cannot put its rules in place of this one's. The
  /// name is signed with the time, so it cannot be changed after signing either.
  @Test func aGuardTakesDocumentsOfItsOwnListOnly() throws {
    let key = Curve25519.Signing.PrivateKey()
    func document(_ paths: [String], at time: TimeInterval, list: String?) throws -> String {
      let components = paths.map { #"{"/": "\#($0)"}"# }.joined(separator: ",")
      let json = #"{"applinks": {"details": [{"appIDs": ["\#(Self.app)"], "components": [\#(components)]}]}}"#
      let blocklist = try RulesDocumentTests.blocklist([(Self.app, "alpha.example", false, json)])
      let output = BlocklistOutput(
        blocklist, format: .rules, maxRules: 100, generator: "ipalinks test", at: Date(timeIntervalSince1970: time),
        sign: BlocklistSigningKey(key), list: list)
      return try #require(output.files.first).text
    }
    let sell = "https://alpha.example/sell/1"
    let browser = try document(["/buy/*", "/sell/*"], at: 1_790_000_000, list: "browser")
    #expect(browser.contains(#""generator":"ipalinks test","list":"browser","sha256":"#))
    #expect(try UniversalLinkGuard(rulesJSON: browser).stamp.list == "browser")
    let linkGuard = try UpdatingLinkGuard(
      try UniversalLinkGuard(rulesJSON: browser), publicKey: key.publicKey.rawRepresentation)
    // Newer, signed with the same key, and of another list, or of none.
    for (candidate, reason) in [
      (
        try document(["/buy/*"], at: 1_790_604_800, list: "mail"),
        #"is of the list "mail", and the rules in use are of the list "browser""#
      ),
      (
        try document(["/buy/*"], at: 1_790_604_800, list: nil),
        #"is of a list with no name, and the rules in use are of the list "browser""#
      ),
      // The name changed after signing: its signature no longer verifies.
      (
        try document(["/buy/*"], at: 1_790_604_800, list: "mail").replacingOccurrences(
          of: #""list":"mail""#, with: #""list":"browser""#), "does not verify"
      ),
    ] {
      #expect {
        try linkGuard.update(rulesJSON: candidate, now: Self.later)
      } throws: { error in
        "\(error)".contains(reason) && "\(error)".contains("kept the rules in use")
      }
      #expect(linkGuard.current.verdict(for: sell) != .staysInWebView)
    }
    #expect(
      try linkGuard.update(rulesJSON: try document(["/buy/*"], at: 1_790_604_800, list: "browser"), now: Self.later))
    #expect(linkGuard.current.verdict(for: sell) == .staysInWebView)
    // A guard whose rules name no list takes no named one.
    let unnamed = UpdatingLinkGuard(
      try UniversalLinkGuard(rulesJSON: try document(["/buy/*"], at: 1_790_000_000, list: nil)))
    #expect {
      try unnamed.update(rulesJSON: try document(["/sell/*"], at: 1_790_604_800, list: "mail"), now: Self.later)
    } throws: { error in
      "\(error)".contains(#"is of the list "mail", and the rules in use are of a list with no name"#)
    }
  }
}
