import Testing

@testable import IPALinksKit

struct CodeSignatureReaderTests {
  let xml = Array(
    """
    <?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict>
    <key>com.apple.developer.associated-domains</key><array><string>applinks:example.com</string></array>
    </dict></plist>
    """.utf8)

  private func read(_ blobs: [(UInt32, [UInt8])], count: UInt32? = nil) throws -> CodeSignature? {
    let bytes = makeMachO(signature: makeSuperBlob(blobs, countOverride: count))
    let source = MemoryByteSource(bytes)
    return try CodeSignatureReader.read(source, slice: try MachOFile.slices(of: source)[0])
  }

  @Test func choosesTheStrongestCodeDirectoryAndReadsTheTeam() throws {
    let signature = try #require(
      try read([
        (0, makeCodeDirectory(identifier: "com.example.app", team: nil, hashType: 1, version: 0x20100)),
        (0x1000, makeCodeDirectory(identifier: "com.example.app", team: "ABCDE12345", hashType: 2)),
        (5, makeBlob(magic: 0xfade_7171, payload: xml)),
        (7, makeBlob(magic: 0xfade_7172, payload: [0x70, 0x05, 0x02, 0x01, 0x01, 0xB0, 0x00])),
      ]))
    #expect(signature.codeDirectories.count == 2)
    #expect(signature.bestCodeDirectory?.slot == 0x1000)
    #expect(signature.bestCodeDirectory?.teamID == "ABCDE12345")
    #expect(signature.bestCodeDirectory?.identifier == "com.example.app")
    #expect(signature.xmlEntitlements == xml)
    #expect(signature.derEntitlements == [0x70, 0x05, 0x02, 0x01, 0x01, 0xB0, 0x00])
  }

  @Test func teamIsIgnoredBeforeVersion20200() throws {
    let signature = try #require(
      try read([(0, makeCodeDirectory(identifier: "id", team: "ABCDE12345", hashType: 2, version: 0x20100))]))
    #expect(signature.bestCodeDirectory?.teamID == nil)
  }

  @Test func absurdBlobCountIsRefused() {
    #expect(throws: CodeSignatureError.self) { try read([], count: 0xFFFF_FFFF) }
  }

  @Test func countLargerThanTheSignatureIsOutOfRange() {
    #expect(throws: CodeSignatureError.self) { try read([], count: 40) }
  }

  @Test func badSuperBlobMagic() throws {
    var bytes = makeMachO(signature: makeSuperBlob([]))
    bytes[0x1000] = 0x00
    let source = MemoryByteSource(bytes)
    #expect(throws: CodeSignatureError.badMagic(file: "<memory>", what: "SuperBlob", magic: 0x00de_0cc0)) {
      try CodeSignatureReader.read(source, slice: try MachOFile.slices(of: source)[0])
    }
  }

  @Test func blobOffsetPastTheSignatureIsOutOfRange() throws {
    var superBlob = makeSuperBlob([(5, makeBlob(magic: 0xfade_7171, payload: xml))])
    superBlob.replaceSubrange(16..<20, with: [0x00, 0xFF, 0xFF, 0x00])
    let source = MemoryByteSource(makeMachO(signature: superBlob))
    #expect(throws: CodeSignatureError.self) {
      try CodeSignatureReader.read(source, slice: try MachOFile.slices(of: source)[0])
    }
  }

  @Test func signatureOffsetPastEndOfFile() throws {
    var bytes = makeMachO(signature: makeSuperBlob([]))
    bytes = Array(bytes.prefix(0x800))  // the signature the load command points at is gone
    let source = MemoryByteSource(bytes)
    let slices = try MachOFile.slices(of: source)
    #expect(throws: CodeSignatureError.self) { try CodeSignatureReader.read(source, slice: slices[0]) }
  }

  @Test func duplicateEntitlementBlobsAreWarnedAbout() throws {
    let signature = try #require(
      try read([
        (5, makeBlob(magic: 0xfade_7171, payload: xml)), (5, makeBlob(magic: 0xfade_7171, payload: Array("x".utf8))),
      ]))
    #expect(signature.xmlEntitlements == xml)
    #expect(signature.warnings.count == 1)
  }
}
