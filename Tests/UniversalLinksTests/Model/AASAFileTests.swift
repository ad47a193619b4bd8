import Foundation
import Testing
import UniversalLinks

/// Parsing: every accepted shape normalizes to the same model, the real corpus parses, and the JSON reader is
/// strict where Apple's is.
struct AASAFileTests {
  @Test(.enabled(if: Corpus.isAvailable, Comment(rawValue: Corpus.skipMessage)))
  func everyCorpusFileParses() throws {
    let files = Corpus.files(extension: "json")
    #expect(files.count == 22)
    for url in files {
      let file = try AASAFile(bytes: Corpus.bytes(url))
      let services = [
        file.applinks != nil, file.webcredentials != nil, file.appclips != nil,
        file.activitycontinuation != nil,
      ]
      #expect(services.contains(true), "\(url.lastPathComponent) has no service")
      #expect(!file.isSigned)
    }
  }

  @Test(.enabled(if: Corpus.isAvailable, Comment(rawValue: Corpus.skipMessage)))
  func signedCorpusFilesUnwrapToTheirJSON() throws {
    let signed = Corpus.files(extension: "p7m", in: "signed")
    #expect(signed.count == 2)
    for url in signed {
      let name = url.deletingPathExtension().lastPathComponent
      var fromEnvelope = try AASAFile(bytes: Corpus.bytes(url))
      let plain = try AASAFile(
        bytes: Corpus.bytes(
          url.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(name + ".json")))
      #expect(fromEnvelope.isSigned)
      #expect(fromEnvelope.byteCount > plain.byteCount)
      fromEnvelope.isSigned = false
      fromEnvelope.byteCount = plain.byteCount
      #expect(fromEnvelope == plain, "\(name)")
    }
  }

  @Test(.enabled(if: Corpus.isAvailable, Comment(rawValue: Corpus.skipMessage)))
  func corpusVerdicts() throws {
    func verdict(_ name: String, _ app: String, _ url: String) throws -> MatchResult.Verdict {
      let dir = Corpus.directory!
      let file = try AASAFile(bytes: Corpus.bytes(dir.appendingPathComponent(name)))
      return file.matcher(appID: app).verdict(for: url).verdict
    }
    #expect(
      try verdict("ilovefreegle.org.json", "GMYU3K9D84.org.ilovefreegle.iphone", "https://ilovefreegle.org/api/x")
        == .exclude)
    #expect(
      try verdict("ilovefreegle.org.json", "GMYU3K9D84.org.ilovefreegle.iphone", "https://ilovefreegle.org/give")
        == .match)
    #expect(
      try verdict("catchplay.com.json", "MKK9DM2XD9.com.catchplay.AsiaPlay", "https://catchplay.com/tw/search/genre/1")
        == .match)
    #expect(
      try verdict("catchplay.com.json", "MKK9DM2XD9.com.catchplay.AsiaPlay", "https://catchplay.com/tw/about")
        == .noMatch)
    #expect(
      try verdict("albums.ente.io.json", "6Z68YJY9Q2.io.ente.frame", "https://albums.ente.io/?t=abc#key") == .match)
    #expect(
      try verdict("albums.ente.io.json", "6Z68YJY9Q2.io.ente.frame", "https://albums.ente.io/AbCdEfGhIj#k") == .match)
    #expect(
      try verdict(
        "5calls.org.json", "5A8RM3W5R7.org.fivecalls.FiveCalls-ios", "https://5calls.org/issue/x#no_universal_links")
        == .exclude)
    #expect(
      try verdict(
        "welcometomygarden.org.json", "9RZPVFH532.org.welcometomygarden.app", "https://welcometomygarden.org/en/terms/")
        == .exclude)
    #expect(try verdict("yelp.com.json", "SBSSF9BESA.com.yelp.yelpiphone", "https://yelp.com/biz/some-place") == .match)
    #expect(try verdict("pinterest.com.json", "RFSNDFBV8N.pinterest", "https://pinterest.com/pin/1/") == .match)
  }

  @Test func legacyDictionaryAndModernShapesNormalizeAlike() throws {
    let legacy = try AASAFile(
      json: ##"{"applinks": {"apps": [], "details": [{"appID": "ABCDE12345.a.b", "paths": ["NOT /x", "/y/*"]}]}}"##)
    let dictionary = try AASAFile(
      json: ##"{"applinks": {"apps": [], "details": {"ABCDE12345.a.b": {"paths": ["NOT /x", "/y/*"]}}}}"##)
    #expect(legacy.applinks?.details.first?.appIDs == ["ABCDE12345.a.b"])
    #expect(dictionary.applinks?.details.first?.appIDs == ["ABCDE12345.a.b"])
    #expect(dictionary.applinks?.details.first?.key == "ABCDE12345.a.b")
    let expected: AppLinksRules = .paths([
      LegacyPath(index: 0, pattern: "/x", exclude: true), LegacyPath(index: 1, pattern: "/y/*", exclude: false),
    ])
    #expect(legacy.applinks?.details.first?.rules == expected)
    #expect(dictionary.applinks?.details.first?.rules == expected)
    #expect(dictionary.applinks?.details.first?.pointer == "/applinks/details/ABCDE12345.a.b")
  }

  @Test func modernShapeKeepsEverything() throws {
    let file = try AASAFile(
      json: ##"""
        {"applinks": {"defaults": {"percentEncoded": false},
          "substitutionVariables": {"food": ["pizza"]},
          "details": [{"appIDs": ["ABCDE12345.a.b"], "defaults": {"caseSensitive": false},
            "components": [{"/": "/f/$(food)", "?": {"q": "1"}, "#": "x", "exclude": true, "comment": "c"}]}]},
         "webcredentials": {"apps": ["ABCDE12345.a.b"]},
         "appclips": {"apps": ["ABCDE12345.a.b.Clip"]},
         "activitycontinuation": {"apps": ["ABCDE12345.a.b"]}}
        """##)
    let links = try #require(file.applinks)
    #expect(links.defaults?.percentEncoded == false)
    #expect(links.substitutionVariables == [SubstitutionVariable(name: "food", values: ["pizza"])])
    #expect(links.details[0].defaults?.caseSensitive == false)
    let expected = AASAComponent(
      index: 0, path: "/f/$(food)", query: .items([QueryItemPattern(name: "q", pattern: "1")]), fragment: "x",
      exclude: true, comment: "c")
    #expect(links.details[0].rules == .components([expected]))
    #expect(file.webcredentials?.apps == ["ABCDE12345.a.b"])
    #expect(file.appclips?.apps == ["ABCDE12345.a.b.Clip"])
    #expect(file.activitycontinuation?.apps == ["ABCDE12345.a.b"])
    #expect(file.appLinksAppIDs == ["ABCDE12345.a.b"])
  }

  @Test func modelRoundTripsThroughCodable() throws {
    let file = try AASAFile(
      json:
        ##"{"applinks": {"details": [{"appIDs": ["ABCDE12345.a.b"], "components": [{"/": "/x", "?": "a=1"}, {"?": {"k": "v"}}]}, {"appID": "ABCDE12345.c.d", "paths": ["*"]}]}}"##
    )
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let data = try encoder.encode(file)
    #expect(try JSONDecoder().decode(AASAFile.self, from: data) == file)
    // Components encode with the AASA keys themselves.
    #expect(String(decoding: data, as: UTF8.self).contains(##""/":"/x""##))
  }

  @Test func wrongTypesAreDroppedAsIfAbsent() throws {
    let file = try AASAFile(
      json:
        ##"{"applinks": {"details": [{"appIDs": ["ABCDE12345.a.b", 7], "components": [{"/": 1, "#": "f", "exclude": "yes", "caseSensitive": 0}]}]}}"##
    )
    let detail = try #require(file.applinks?.details.first)
    #expect(detail.appIDs == ["ABCDE12345.a.b"])
    #expect(detail.rules == .components([AASAComponent(index: 0, fragment: "f")]))
  }

  @Test func strictJSON() {
    let invalid = [
      ##"{"a": 1,}"##, ##"{"a": [1,]}"##, "{'a': 1}", ##"{"a": 01}"##, ##"{"a": NaN}"##, ##"{"a": 1} // c"##,
      ##"{"a": "\x"}"##, ##"{"a": "\ud800"}"##, "{\"a\": \"\u{01}\"}", ##"{"a" 1}"##, "", ##"{"a": tru}"##,
      ##"{"a": 1.}"##,
      ##"{"a": -}"##, ##"{"a": 1e}"##, ##"{"a": "x"} {}"##,
    ]
    for text in invalid {
      #expect(throws: AASAError.self, "\(text)") { try AASAFile(json: text) }
    }
    #expect(throws: AASAError.self) { try AASAFile(bytes: [0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D]) }
    let deep = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
    #expect(throws: AASAError.self) { try AASAFile(json: ##"{"a": \##(deep)}"##) }
  }

  @Test func acceptsWhatAppleAccepts() throws {
    // BOM, escapes, surrogate pairs, exponent numbers, nesting under the limit.
    let text =
      "\u{FEFF}"
      + ##"{"applinks": {"details": [{"appIDs": ["ABCDE12345.a.b"], "components": [{"/": "\/caf\u00e9\ud83d\ude00", "n": -1.5e3, "z": null}]}]}}"##
    let file = try AASAFile(json: text)
    #expect(file.applinks?.details.first?.rules == .components([AASAComponent(index: 0, path: "/café😀")]))
  }

  @Test func topLevelMustBeAnObject() {
    #expect(throws: AASAError.notAnObject(found: "an array")) { try AASAFile(json: "[]") }
    #expect(throws: AASAError.notAnObject(found: "a string")) { try AASAFile(json: ##""x""##) }
  }

  @Test func invalidJSONReportsLineAndColumn() {
    do {
      _ = try AASAFile(json: "{\n  \"a\": 1,\n}")
      Issue.record("expected an error")
    } catch {
      guard case .invalidJSON(let line, let column, _) = error else {
        Issue.record("wrong error \(error)")
        return
      }
      #expect(line == 3)
      #expect(column == 1)
    }
  }

  @Test func booleansAreNotNumbers() throws {
    let numeric = try AASAFile(
      json: ##"{"applinks": {"details": [{"appIDs": ["ABCDE12345.a.b"], "components": [{"exclude": 1}]}]}}"##)
    #expect(numeric.applinks?.details.first?.rules == .components([AASAComponent(index: 0)]))
    let boolean = try AASAFile(
      json: ##"{"applinks": {"details": [{"appIDs": ["ABCDE12345.a.b"], "components": [{"exclude": true}]}]}}"##)
    #expect(boolean.applinks?.details.first?.rules == .components([AASAComponent(index: 0, exclude: true)]))
  }

  @Test func duplicateKeysKeepTheLastValue() throws {
    let file = try AASAFile(
      json:
        ##"{"applinks": {"details": [{"appIDs": ["ABCDE12345.a.b"], "components": [{"/": "/first", "/": "/last"}]}]}}"##
    )
    #expect(file.applinks?.details.first?.rules == .components([AASAComponent(index: 0, path: "/last")]))
  }

  @Test func sizeIsRecordedAndOversizedFilesNeverMatch() throws {
    let padding = String(repeating: " ", count: AASAFile.deviceSizeLimit)
    let file = try AASAFile(
      json: ##"{"applinks": {"details": [{"appIDs": ["ABCDE12345.a.b"], "components": [{}]}]}}"## + padding)
    #expect(file.exceedsDeviceSizeLimit)
    let result = file.matcher(appID: "ABCDE12345.a.b").verdict(for: "https://e.com/")
    #expect(result == MatchResult(verdict: .noMatch, reason: .fileTooLarge))
    #expect(throws: AASAError.inputTooLarge(byteCount: AASAError.maximumInputSize + 1)) {
      try AASAFile(bytes: [UInt8](repeating: 0x20, count: AASAError.maximumInputSize + 1))
    }
  }
}
