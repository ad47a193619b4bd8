import Foundation
import Testing
import UniversalLinks

/// Every diagnostic code, with the pointer it must name.
struct AASAValidatorTests {
  struct CodeCase: Sendable, CustomTestStringConvertible {
    var code: AASADiagnosticCode
    var json: String
    var pointer: String
    var appID: String? = nil
    var testDescription: String { code.rawValue }
  }

  static let detailHead = ##"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": "##

  static let cases: [CodeCase] = [
    CodeCase(code: .invalidJSON, json: ##"{"applinks": }"##, pointer: ""),
    CodeCase(code: .notAnObject, json: "[1, 2]", pointer: ""),
    CodeCase(
      code: .duplicateKey, json: ##"{"applinks": {"details": [], "details": []}}"##, pointer: "/applinks/details"),
    CodeCase(
      code: .missingApplinks, json: ##"{"webcredentials": {"apps": ["ABCDE12345.com.example.app"]}}"##, pointer: ""),
    CodeCase(code: .noServiceKey, json: ##"{"error": "blocked by policy"}"##, pointer: ""),
    CodeCase(code: .invalidType, json: ##"{"applinks": {"details": "all"}}"##, pointer: "/applinks/details"),
    CodeCase(
      code: .invalidAppID,
      json: ##"{"applinks": {"details": [{"appIDs": ["REPLACE_ME.com.example"], "components": [{}]}]}}"##,
      pointer: "/applinks/details/0/appIDs/0"),
    CodeCase(
      code: .invalidAppID, json: ##"{"webcredentials": {"apps": ["com.example.app"]}, "applinks": {"details": []}}"##,
      pointer: "/webcredentials/apps/0"),
    CodeCase(
      code: .pathsWithComponents,
      json:
        ##"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "paths": ["*"], "components": [{}]}]}}"##,
      pointer: "/applinks/details/0/paths"),
    CodeCase(
      code: .invalidPattern, json: detailHead + ##"[{"/": 42}]}]}}"##, pointer: "/applinks/details/0/components/0/~1"),
    CodeCase(
      code: .invalidPattern, json: detailHead + ##"[{"?": {"id": 5}}]}]}}"##,
      pointer: "/applinks/details/0/components/0/?/id"),
    CodeCase(
      code: .invalidPattern,
      json: ##"{"applinks": {"details": [{"appID": "ABCDE12345.com.example.app", "paths": ["/a", null]}]}}"##,
      pointer: "/applinks/details/0/paths/1"),
    CodeCase(
      code: .invalidFlag, json: detailHead + ##"[{"/": "/a", "exclude": "true"}]}]}}"##,
      pointer: "/applinks/details/0/components/0/exclude"),
    CodeCase(
      code: .invalidFlag, json: ##"{"applinks": {"defaults": {"caseSensitive": 0}, "details": []}}"##,
      pointer: "/applinks/defaults/caseSensitive"),
    CodeCase(
      code: .undefinedVariable, json: detailHead + ##"[{"#": "$(food)"}]}]}}"##,
      pointer: "/applinks/details/0/components/0/#"),
    CodeCase(
      code: .nestedVariable,
      json: ##"{"applinks": {"substitutionVariables": {"a": ["x", "$(digit)"]}, "details": []}}"##,
      pointer: "/applinks/substitutionVariables/a/1"),
    CodeCase(code: .detailNeverMatches, json: detailHead + "[]}]}}", pointer: "/applinks/details/0"),
    CodeCase(
      code: .detailNeverMatches, json: detailHead + ##"[{"/": "/a", "exclude": true}]}]}}"##,
      pointer: "/applinks/details/0"),
    CodeCase(
      code: .detailNeverMatches, json: ##"{"applinks": {"details": [{"appIDs": [], "components": [{}]}]}}"##,
      pointer: "/applinks/details/0"),
    CodeCase(
      code: .detailNeverMatches,
      json:
        ##"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{}]}, {"appID": "ABCDE12345.com.example.app", "paths": ["*"]}]}}"##,
      pointer: "/applinks/details/1"),
    CodeCase(
      code: .unreachablePattern, json: detailHead + ##"[{"/": "/a"}, {"/": "*"}, {"/": "/b"}]}]}}"##,
      pointer: "/applinks/details/0/components/2"),
    CodeCase(
      code: .unreachablePattern,
      json: ##"{"applinks": {"details": [{"appID": "ABCDE12345.com.example.app", "paths": ["/*", "NOT /api/*"]}]}}"##,
      pointer: "/applinks/details/0/paths/1"),
    CodeCase(
      code: .shadowedRule,
      json: detailHead + ##"[{"/": "/buy/*"}, {"/": "/buy/gift/*", "exclude": true}]}]}}"##,
      pointer: "/applinks/details/0/components/1"),
    CodeCase(
      code: .appNotListed, json: detailHead + ##"[{}]}]}}"##, pointer: "/applinks/details",
      appID: "ABCDE12345.com.example.other"),
    CodeCase(
      code: .unencodedPattern, json: detailHead + ##"[{"/": "/café"}]}]}}"##,
      pointer: "/applinks/details/0/components/0/~1"),
    CodeCase(
      code: .unknownKey, json: detailHead + ##"[{"path": "/a"}]}]}}"##, pointer: "/applinks/details/0/components/0/path"
    ),
    CodeCase(code: .signedEnvelope, json: "", pointer: ""),
    CodeCase(code: .invalidEnvelope, json: "", pointer: ""),
    CodeCase(code: .fileTooLarge, json: "", pointer: ""),
    CodeCase(code: .tooManyPatterns, json: "", pointer: ""),
    CodeCase(code: .expansionTooLarge, json: "", pointer: ""),
    CodeCase(
      code: .patternHasHost, json: detailHead + ##"[{"/": "https://example.com/buy/*"}]}]}}"##,
      pointer: "/applinks/details/0/components/0/~1"),
    CodeCase(
      code: .numericTeamID,
      json: ##"{"applinks": {"details": [{"appIDs": ["1234567890.com.example.app"], "components": [{}]}]}}"##,
      pointer: "/applinks/details/0/appIDs/0"),
    CodeCase(
      code: .legacyAppsNotEmpty, json: ##"{"applinks": {"apps": ["ABCDE12345.com.example.app"], "details": []}}"##,
      pointer: "/applinks/apps"),
    CodeCase(
      code: .misplacedSection,
      json: ##"{"applinks": {"details": [], "webcredentials": {"apps": ["ABCDE12345.com.example.app"]}}}"##,
      pointer: "/applinks/webcredentials"),
    CodeCase(
      code: .appListedTwice,
      json: ##"""
        {"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/a/*"}]},
          {"appIDs": ["ABCDE12345.com.example.other", "ABCDE12345.com.example.app"], "components": [{"/": "/b/*"}]}]}}
        """##,
      pointer: "/applinks/details/1/appIDs/1"),
  ]

  /// Path patterns that name a host or a scheme, and look-alikes that are ordinary paths.
  @Test func patternHasHostOnlyForHostsAndSchemes() {
    func flagged(_ path: String) -> Bool {
      let json = Self.detailHead + "[{\"/\": \"\(path)\"}]}]}}"
      return AASAValidator.validate(Array(json.utf8)).contains { $0.code == .patternHasHost }
    }
    for path in ["github.com/org/*", "www.example.co.uk/x", "/https://example.com/x", "http://example.com/*"] {
      #expect(flagged(path), "\(path)")
    }
    for path in ["/index.html/*", "/files/v1.2/*", "*.pdf", "/buy/*", "index.html", "/a://b", "*/x.com/y"] {
      #expect(!flagged(path), "\(path)")
    }
  }

  /// Only text the URL must hold counts: a space in a variable's name is no space in a URL (it warned, though the
  /// rule matches), and one in a query item's name is (it never matches, and nothing warned).
  @Test func unencodedTextIsLookedForOutsideVariablesAndInItemNames() {
    func findings(_ components: String, variables: String = "") -> [String] {
      let json =
        #"{"applinks": {\#(variables)"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": "#
        + components + "}]}}"
      return AASAValidator.validate(Array(json.utf8)).filter { $0.code == .unencodedPattern }.map(\.pointer)
    }
    #expect(findings(#"[{"/": "/s/$(a b)"}]"#, variables: #""substitutionVariables": {"a b": ["y"]}, "#).isEmpty)
    #expect(
      findings(#"[{"/": "/s/$(a b) x"}]"#, variables: #""substitutionVariables": {"a b": ["y"]}, "#) == [
        "/applinks/details/0/components/0/~1"
      ])
    #expect(findings(#"[{"/": "/a/*", "?": {"a b": "1"}}]"#) == ["/applinks/details/0/components/0/?/a b"])
    #expect(findings(#"[{"/": "/a/*", "?": {"a b": "1"}, "percentEncoded": false}]"#).isEmpty)
  }

  @Test(arguments: cases)
  func reportsEachCode(_ c: CodeCase) {
    let bytes: [UInt8]
    switch c.code {
    case .signedEnvelope: bytes = CMSEnvelopeTests.envelope(Array(#"{"applinks": {"details": []}}"#.utf8))
    case .invalidEnvelope: bytes = Array(CMSEnvelopeTests.envelope(Array("{}".utf8)).dropLast(3))
    case .fileTooLarge:
      bytes = Array((##"{"applinks": {"details": []}}"## + String(repeating: " ", count: 131_072)).utf8)
    case .tooManyPatterns:
      bytes = AASALimitsTests.file(paths: Array(repeating: "/a", count: AASAFile.maximumPatterns + 1))
    case .expansionTooLarge:
      bytes = AASALimitsTests.file(paths: Array(repeating: "/$(lang)", count: AASAFile.maximumExpansion / 100))
    default: bytes = Array(c.json.utf8)
    }
    let found = AASAValidator.validate(bytes, appID: c.appID)
    let hit = found.first { $0.code == c.code }
    #expect(hit != nil, "\(c.code) not in \(found)")
    #expect(hit?.pointer == c.pointer)
    #expect(hit?.severity == c.code.severity)
    #expect(hit?.message.isEmpty == false)
  }

  @Test func everyCodeIsCovered() {
    #expect(Set(Self.cases.map(\.code)) == Set(AASADiagnosticCode.allCases))
  }

  /// A "components" or "paths" that is not an array is one error that says the entry matches nothing, not also a
  /// warning that calls the list empty.
  @Test func aMistypedRuleListIsOneError() {
    for json in [
      #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.b"], "components": "nope"}]}}"#,
      #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.b"], "paths": {"/": "/a"}}]}}"#,
    ] {
      let found = AASAValidator.validate(Array(json.utf8))
      #expect(found.map(\.code) == [.invalidType], "\(found)")
      #expect(found.first?.message.hasSuffix("the detail matches nothing") == true)
    }
    // An empty list still gets its warning.
    let empty = #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.b"], "paths": []}]}}"#
    #expect(
      AASAValidator.validate(Array(empty.utf8)).map(\.message) == [
        "\"paths\" holds no rule, so this entry matches nothing"
      ])
  }

  @Test func collectsEveryProblemAtOnce() {
    let json = ##"""
      {"applinks": {"details": [{"appIDs": ["bad", "ABCDE12345.com.example.app"],
        "components": [{"/": 1, "exclude": "no"}, {"?": {"a": 2}}, {"#": "$(nope)"}]}]}}
      """##
    let codes = AASAValidator.validate(Array(json.utf8)).map(\.code)
    #expect(codes.contains(.invalidAppID))
    #expect(codes.contains(.invalidPattern))
    #expect(codes.contains(.invalidFlag))
    #expect(codes.contains(.undefinedVariable))
    #expect(codes.filter { $0 == .invalidPattern }.count == 2)
  }

  @Test func cleanFileHasNoFindings() {
    let json =
      ##"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/buy/*"}, {"/": "/$(lang)/help/*"}]}]}}"##
    #expect(AASAValidator.validate(Array(json.utf8), appID: "ABCDE12345.com.example.app") == [])
  }

  @Test func customVariablesAreDefinedWhateverTheKeyOrder() {
    let json =
      ##"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/$(food)"}]}], "substitutionVariables": {"food": ["pizza"]}}}"##
    #expect(!AASAValidator.validate(Array(json.utf8)).contains { $0.code == .undefinedVariable })
  }

  @Test func appListedOnlyElsewhereSaysWhere() {
    let json = ##"{"applinks": {"details": []}, "webcredentials": {"apps": ["ABCDE12345.com.example.app"]}}"##
    let hit = AASAValidator.validate(Array(json.utf8), appID: "ABCDE12345.com.example.app").first {
      $0.code == .appNotListed
    }
    #expect(hit?.message.contains("webcredentials") == true)
  }

  @Test func descriptionNamesSeverityCodeAndPointer() {
    let d = AASADiagnostic(.invalidAppID, at: "/applinks/details/0/appID", "nope")
    #expect(d.description == "error[invalid-app-id] /applinks/details/0/appID: nope")
    #expect(AASADiagnostic(.missingApplinks, at: "", "x").description == "warning[missing-applinks] (document): x")
  }

  @Test(.enabled(if: Corpus.isAvailable, Comment(rawValue: Corpus.skipMessage)))
  func corpusHasOnlyTheKnownErrors() throws {
    let files = Corpus.files(extension: "json")
    try #require(!files.isEmpty, "no *.json in \(Corpus.directory?.path ?? "the corpus")")
    #expect(files.contains { $0.lastPathComponent == "diaryx.net.json" })
    for url in files {
      let errors = AASAValidator.validate(try Corpus.bytes(url)).filter { $0.severity == .error }
      if url.lastPathComponent == "diaryx.net.json" {
        // Its app ID is a template placeholder.
        #expect(errors.map(\.code) == [.invalidAppID])
      } else {
        #expect(errors.isEmpty, "\(url.lastPathComponent): \(errors)")
      }
    }
  }
}
