import Testing

@testable import UniversalLinks

/// PKCS#7 / CMS unwrapping, on envelopes built byte by byte (DER and BER forms) and on the corpus files.
struct CMSEnvelopeTests {
  static func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
    var length: [UInt8]
    if content.count < 0x80 {
      length = [UInt8(content.count)]
    } else {
      var n = content.count
      length = []
      while n > 0 {
        length.insert(UInt8(n & 0xFF), at: 0)
        n >>= 8
      }
      length.insert(0x80 | UInt8(length.count), at: 0)
    }
    return [tag] + length + content
  }

  static let signedDataOID: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]
  static let dataOID: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01]

  /// `ContentInfo { signedData, [0] SignedData { 1, {}, { data, [0] OCTET STRING payload }, {} } }` in DER.
  static func envelope(_ payload: [UInt8]?, contentType: [UInt8] = signedDataOID) -> [UInt8] {
    var encap = dataOID
    if let payload { encap += tlv(0xA0, tlv(0x04, payload)) }
    let signedData = tlv(0x30, tlv(0x02, [1]) + tlv(0x31, []) + tlv(0x30, encap) + tlv(0x31, []))
    return tlv(0x30, contentType + tlv(0xA0, signedData))
  }

  /// The same structure with indefinite lengths and the payload split into two OCTET STRING chunks (BER).
  static func berEnvelope(_ first: [UInt8], _ second: [UInt8]) -> [UInt8] {
    let eoc: [UInt8] = [0, 0]
    let chunks = [0x24, 0x80] + tlv(0x04, first) + tlv(0x04, second) + eoc
    let encap = [0x30, 0x80] + dataOID + [0xA0, 0x80] + chunks + eoc + eoc
    let signedData = [0x30, 0x80] + tlv(0x02, [1]) + tlv(0x31, []) + encap + tlv(0x31, []) + eoc
    return [0x30, 0x80] + signedDataOID + [0xA0, 0x80] + signedData + eoc + eoc
  }

  let json = Array(#"{"applinks": {"details": [{"appID": "ABCDE12345.a.b", "paths": ["*"]}]}}"#.utf8)

  @Test func unwrapsDER() throws {
    #expect(CMSEnvelope.looksLikeEnvelope(Self.envelope(json)))
    #expect(try CMSEnvelope.content(of: Self.envelope(json)) == json)
  }

  @Test func unwrapsLongDER() throws {
    let big = json + [UInt8](repeating: 0x20, count: 70_000)
    #expect(try CMSEnvelope.content(of: Self.envelope(big)) == big)
  }

  @Test func unwrapsIndefiniteLengthChunkedBER() throws {
    let envelope = Self.berEnvelope(Array(json[..<10]), Array(json[10...]))
    #expect(CMSEnvelope.looksLikeEnvelope(envelope))
    #expect(try CMSEnvelope.content(of: envelope) == json)
    let file = try AASAFile(bytes: envelope)
    #expect(file.isSigned)
    #expect(file.matcher(appID: "ABCDE12345.a.b").verdict(for: "https://e.com/x").verdict == .match)
  }

  /// An envelope of 8 MB whose payload is split into 4 million empty chunks took 17 s and 450 MB to parse, and an
  /// archive may hold 256 of them: refused from a count of its values, before the parser builds them. The counts
  /// of the envelopes above, DER and BER, are exact.
  @Test func millionsOfEmptyChunksAreRefused() {
    let eoc: [UInt8] = [0, 0]
    let chunks =
      [0x24, 0x80]
      + Array([[UInt8]](repeating: [0x04, 0x00], count: 2_000_000).joined())
      + Self.tlv(0x04, json) + eoc
    let encap = [0x30, 0x80] + Self.dataOID + [0xA0, 0x80] + chunks + eoc + eoc
    let signedData = [0x30, 0x80] + Self.tlv(0x02, [1]) + Self.tlv(0x31, []) + encap + Self.tlv(0x31, []) + eoc
    let envelope = [0x30, 0x80] + Self.signedDataOID + [0xA0, 0x80] + signedData + eoc + eoc
    #expect(throws: CMSEnvelope.Error.malformed("more than 100000 ASN.1 values")) {
      try CMSEnvelope.content(of: envelope)
    }
    // ContentInfo, its OID, [0], SignedData, version, SET, encap, its OID, [0], the payload (or its 3 parts), SET.
    #expect(CMSEnvelope.valueCount(Self.envelope(json), limit: 100) == 11)
    #expect(CMSEnvelope.valueCount(Self.berEnvelope([1], [2]), limit: 100) == 13)
  }

  @Test func rejectsWhatIsNotSignedData() {
    let envelopedDataOID: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x03]
    #expect(throws: CMSEnvelope.Error.notSignedData) {
      try CMSEnvelope.content(of: Self.envelope(json, contentType: envelopedDataOID))
    }
    #expect(throws: CMSEnvelope.Error.noContent) { try CMSEnvelope.content(of: Self.envelope(nil)) }
    #expect(throws: CMSEnvelope.Error.self) { try CMSEnvelope.content(of: Array(Self.envelope(json).dropLast())) }
    #expect(!CMSEnvelope.looksLikeEnvelope(json))
  }

  @Test func aTruncatedEnvelopeIsAnAASAError() {
    let truncated = Array(Self.envelope(json).dropLast(5))
    #expect(throws: AASAError.self) { try AASAFile(bytes: truncated) }
  }

  @Test(.enabled(if: Corpus.isAvailable, Comment(rawValue: Corpus.skipMessage)))
  func unwrapsTheCorpusEnvelopes() throws {
    let files = Corpus.files(extension: "p7m", in: "signed")
    try #require(!files.isEmpty, "no signed/*.p7m in \(Corpus.directory?.path ?? "the corpus")")
    for url in files {
      let content = try CMSEnvelope.content(of: Corpus.bytes(url))
      #expect(content.first == UInt8(ascii: "{"), "\(url.lastPathComponent)")
    }
  }
}
