import Crypto
import Foundation
import Testing

@testable import IPALinksKit
@testable import IPALinksStore

/// `CanonicalJSON` writes what `JSONEncoder` (sorted keys, slashes unescaped) writes, byte for byte: an
/// observation's key is the SHA-256 of that text, and the keys older builds stored were made by `JSONEncoder`, so a
/// byte apart would store an unchanged app again.
@Suite struct CanonicalJSONTests {
  static func foundation<T: Encodable>(_ value: T, pretty: Bool = false) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    if pretty { encoder.outputFormatting.insert(.prettyPrinted) }
    return String(decoding: try encoder.encode(value), as: UTF8.self)
  }

  /// Every bundle of every sample, as a run stores it (without its domains' files) and as inspected, and each
  /// input's diagnostics.
  @Test func theSamplesBundlesAreWrittenAsJSONEncoderWritesThem() throws {
    let inputs = try FileManager.default.contentsOfDirectory(atPath: CLI.samples.path).filter { $0.hasSuffix(".ipa") }
    #expect(inputs.count >= 8)
    var bundles = 0
    for input in inputs {
      let report = Inspector().inspect(path: CLI.sample(input))
      #expect(try CanonicalJSON.encode(report.diagnostics) == Self.foundation(report.diagnostics), "\(input)")
      for bundle in report.bundles {
        var stored = bundle
        for d in stored.associatedDomains.indices { stored.associatedDomains[d].aasa = nil }
        for value in [bundle, stored] {
          #expect(try CanonicalJSON.encode(value) == Self.foundation(value), "\(input): \(bundle.path)")
          #expect(
            try CanonicalJSON.encode(value, pretty: true) == Self.foundation(value, pretty: true),
            "\(input): \(bundle.path)")
        }
        bundles += 1
      }
    }
    #expect(bundles >= 10)
  }

  /// Every line of `inspect --format jsonl` is written by it (``JSONReporter/render(_:pretty:)``): the samples'
  /// whole reports, with their AASA results and the `generator` stamp, are the bytes `JSONEncoder` writes, and none
  /// of them falls back to it.
  @Test func theSamplesJSONLinesAreWrittenAsJSONEncoderWritesThem() throws {
    let result = try CLI.run([
      "inspect", CLI.samples.path, "--aasa-dir", CLI.samples.appendingPathComponent("aasa").path, "--format", "jsonl",
      "--no-progress",
    ])
    let lines = result.stdout.split(separator: "\n")
    #expect(lines.count >= 8, "\(result.stderr)")
    var withFiles = 0
    for line in lines {
      let report = try JSONDecoder().decode(InspectionReport.self, from: Data(line.utf8))
      withFiles += report.bundles.contains { $0.associatedDomains.contains { $0.aasa != nil } } ? 1 : 0
      let stamped = Stamped(report: report)
      #expect(try CanonicalJSON.encode(stamped) == Self.foundation(stamped), "\(report.input)")
      #expect(JSONReporter.document(report, pretty: false) == JSONReporter.terminalSafe(try Self.foundation(stamped)))
      #expect(String(line) == JSONReporter.document(report, pretty: false), "\(report.input)")
      // And indented, as `--format json` writes it.
      #expect(try CanonicalJSON.encode(stamped, pretty: true) == Self.foundation(stamped, pretty: true))
      #expect(JSONReporter.document(report) == JSONReporter.terminalSafe(try Self.foundation(stamped, pretty: true)))
    }
    #expect(withFiles >= 3)
  }

  /// A report with the `generator` key beside its own, as `JSONReporter.document` stamps it.
  struct Stamped: Encodable {
    var report: InspectionReport
    enum Key: String, CodingKey { case generator }
    func encode(to encoder: any Encoder) throws {
      try report.encode(to: encoder)
      var container = encoder.container(keyedBy: Key.self)
      try container.encode(ToolVersion.generator, forKey: .generator)
    }
  }

  /// Keys in the byte order of their UTF-8; escapes for the C0 controls, quotes and backslashes alone; nulls, empty
  /// containers, a value that writes nothing, integers at their limits.
  @Test func edgesAreWrittenAsJSONEncoderWritesThem() throws {
    let keys: [String: Int] = [
      "a": 1, "B": 2, "_": 3, "a10": 4, "a9": 5, "é": 6, "Z": 7, "b": 8, "": 9, "a-b": 10, "😀": 11, "\u{7F}": 12,
    ]
    #expect(try CanonicalJSON.encode(keys) == Self.foundation(keys))
    let hostile =
      (0..<0x20).map { String(UnicodeScalar(UInt8($0))) }.joined()
      + "\"\\/\u{7F}\u{85}\u{2028}\u{202E}\u{FEFF}é😀'<>&"
    #expect(try CanonicalJSON.encode([hostile, hostile]) == Self.foundation([hostile, hostile]))
    struct Empty: Encodable { func encode(to encoder: any Encoder) throws {} }
    struct Optionals: Encodable {
      var a: Int? = nil
      var b: String? = nil
      var c: [String: [Int]] = ["x": [], "y": [Int.min, Int.max]]
      var d: [[String]] = [[]]
      var e: UInt64 = .max
      var f: Bool = false
      var g: [Int: String] = [10: "ten", 9: "nine"]
      var h: Int? = 0
    }
    for pretty in [false, true] {
      #expect(try CanonicalJSON.encode(keys, pretty: pretty) == Self.foundation(keys, pretty: pretty))
      #expect(try CanonicalJSON.encode([hostile], pretty: pretty) == Self.foundation([hostile], pretty: pretty))
      for value in [[Empty()], [Empty(), Empty()]] {
        #expect(try CanonicalJSON.encode(value, pretty: pretty) == Self.foundation(value, pretty: pretty))
      }
      #expect(
        try CanonicalJSON.encode(["k": Empty()], pretty: pretty) == Self.foundation(["k": Empty()], pretty: pretty))
      #expect(try CanonicalJSON.encode(Optionals(), pretty: pretty) == Self.foundation(Optionals(), pretty: pretty))
      #expect(try CanonicalJSON.encode([[String]](), pretty: pretty) == Self.foundation([[String]](), pretty: pretty))
      // Lists of strings are made apart from other arrays (the lists of apps a file names are most of an inventory).
      let lists: [String: [String]] = ["apps": ["b", hostile, "a"], "none": [], "one": [""]]
      #expect(try CanonicalJSON.encode(lists, pretty: pretty) == Self.foundation(lists, pretty: pretty))
      #expect(try CanonicalJSON.encode(7, pretty: pretty) == Self.foundation(7, pretty: pretty))
    }
    // A value that writes nothing, which JSONEncoder refuses at the top: `{}` either way.
    #expect(try CanonicalJSON.encode(Empty(), pretty: true) == "{}")
    // A key written twice keeps its last value, written once; and so when the second is a nested container, which
    // JSONEncoder does not allow (it stops the process).
    struct Twice: Encodable {
      enum Key: String, CodingKey { case b, a, c }
      var nested = false
      func encode(to encoder: any Encoder) throws {
        var keyed = encoder.container(keyedBy: Key.self)
        try keyed.encode(1, forKey: .a)
        try keyed.encode("x", forKey: .c)
        try keyed.encode(2, forKey: .a)
        try keyed.encode(3, forKey: .b)
        if nested {
          var items = keyed.nestedUnkeyedContainer(forKey: .c)
          try items.encode(4)
        }
      }
    }
    #expect(try CanonicalJSON.encode(Twice()) == #"{"a":2,"b":3,"c":"x"}"#)
    // Written three times, among keys that sort apart from the order they were written in.
    struct Thrice: Encodable {
      enum Key: String, CodingKey { case z, a, m }
      func encode(to encoder: any Encoder) throws {
        var keyed = encoder.container(keyedBy: Key.self)
        for (value, key) in [(1, Key.m), (2, .z), (3, .m), (4, .a), (5, .m), (6, .z)] {
          try keyed.encode(value, forKey: key)
        }
      }
    }
    #expect(try CanonicalJSON.encode(Thrice()) == #"{"a":4,"m":5,"z":6}"#)
    #expect(try CanonicalJSON.encode(Thrice()) == Self.foundation(Thrice()))
    #expect(try CanonicalJSON.encode(Twice()) == Self.foundation(Twice()))
    #expect(try CanonicalJSON.encode(Twice(nested: true)) == #"{"a":2,"b":3,"c":[4]}"#)
  }

  /// A string is scanned eight bytes at a time: each ASCII character, and a few beyond, alone and at every offset
  /// of a longer text (in a word, at its edges, in the bytes after the last whole word), is escaped exactly as
  /// `JSONEncoder` escapes it, and so is a text with one at every place at once.
  @Test func everyCharacterIsWrittenAsJSONEncoderWritesItAtEveryOffset() throws {
    let characters = (0..<0x80).map { String(UnicodeScalar(UInt8($0))) } + ["é", "\u{85}", "\u{2028}", "😀"]
    var texts: [String] = []
    for character in characters {
      texts.append(character)
      for length in [8, 9, 16, 23] {
        for offset in 0..<length {
          let plain = String(repeating: "a", count: length)
          texts.append(plain.prefix(offset) + character + plain.dropFirst(offset + 1))
        }
      }
      texts.append(String(repeating: character, count: 19))
    }
    let got = try CanonicalJSON.encode(texts)
    #expect(got == (try Self.foundation(texts)))
    // Each on its own as well, so that a failure names the character.
    for character in characters
    where (try CanonicalJSON.encode([character + "bcdefghij"])) != (try Self.foundation([character + "bcdefghij"])) {
      Issue.record("\(Array(character.unicodeScalars)) is written apart from JSONEncoder")
    }
  }

  /// An observation's key is the SHA-256 of its text's UTF-8, hashed in place: the same digest as of a copy, for
  /// ASCII, for text beyond it, and for a string Foundation made, which keeps its bytes elsewhere.
  @Test func keysAreTheSHA256OfTheTextsUTF8() {
    #expect(StoreObservations.digest("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(StoreObservations.digest("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    for text in ["é😀\u{0}\u{202E}x", String(repeating: "a", count: 100_000), NSString(string: "ab\u{0}é").description] {
      #expect(StoreObservations.digest(text) == hex(SHA256.hash(data: Data(text.utf8))))
    }
  }

  /// What it does not write as `JSONEncoder` does, it refuses, and `text`, which the store and JSON Lines write, is
  /// then `JSONEncoder`'s.
  @Test func datesDataAndFloatingPointAreLeftToJSONEncoder() throws {
    struct Mixed: Encodable {
      var when = Date(timeIntervalSince1970: 1_795_856_400.25)
      var bytes = Data([1, 2, 3])
      var ratio = 0.1
      var url = URL(string: "https://example.com/a/b")!
    }
    #expect(throws: CanonicalJSON.Unsupported.self) { try CanonicalJSON.encode(Mixed()) }
    #expect(throws: CanonicalJSON.Unsupported.self) { try CanonicalJSON.encode([1.5]) }
    #expect(CanonicalJSON.text(Mixed()) == (try Self.foundation(Mixed())))
    #expect(JSONReporter.render(Mixed(), pretty: false) == JSONReporter.terminalSafe(try Self.foundation(Mixed())))
    #expect(CanonicalJSON.text(Mixed(), pretty: true) == (try Self.foundation(Mixed(), pretty: true)))
    #expect(JSONReporter.render(Mixed()) == JSONReporter.terminalSafe(try Self.foundation(Mixed(), pretty: true)))
  }
}
