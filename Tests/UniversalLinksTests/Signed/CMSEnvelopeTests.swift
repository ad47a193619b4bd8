import Foundation
import Testing

@testable import UniversalLinks

struct CMSEnvelopeTests {
  /// ContentInfo { signedData, [0] SignedData { 1, {}, { data, [0] OCTET STRING "{}" }, {} } }, definite lengths.
  static let definite: [UInt8] = [
    0x30, 0x29, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02,
    0xA0, 0x1C, 0x30, 0x1A, 0x02, 0x01, 0x01, 0x31, 0x00,
    0x30, 0x11, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01, 0xA0, 0x04, 0x04, 0x02, 0x7B, 0x7D,
    0x31, 0x00,
  ]

  @Test func unwrapsDefiniteLengthDER() throws {
    #expect(CMSEnvelope.looksLikeEnvelope(Self.definite))
    #expect(try CMSEnvelope.content(of: Self.definite) == Array("{}".utf8))
  }

  @Test func unwrapsIndefiniteLengthBERWithChunkedContent() throws {
    let bytes: [UInt8] = [
      0x30, 0x80, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02,
      0xA0, 0x80, 0x30, 0x80, 0x02, 0x01, 0x01, 0x31, 0x00,
      0x30, 0x80, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01,
      0xA0, 0x80, 0x24, 0x80, 0x04, 0x01, 0x7B, 0x04, 0x01, 0x7D, 0x00, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x31, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    ]
    #expect(try CMSEnvelope.content(of: bytes) == Array("{}".utf8))
  }

  @Test func rejectsOtherContentTypesAndGarbage() {
    var other = Self.definite
    other[12] = 0x03  // envelopedData
    #expect(throws: CMSEnvelope.Error.notSignedData) { try CMSEnvelope.content(of: other) }
    #expect(throws: CMSEnvelope.Error.self) { try CMSEnvelope.content(of: [0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xFF]) }
    #expect(!CMSEnvelope.looksLikeEnvelope(Array("{\"applinks\":{}}".utf8)))
  }

  @Test func unwrapsRealSignedAASAFiles() throws {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("shared/aasa-corpus/signed")
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path), !names.isEmpty else {
      print("skipped: \(folder.path) is absent (../shared sits beside the repository on developer machines and in CI)")
      return
    }
    for name in names {
      let bytes = [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
      let content = try CMSEnvelope.content(of: bytes)
      #expect(content.first == UInt8(ascii: "{"), "\(name) did not unwrap to JSON")
    }
  }
}
