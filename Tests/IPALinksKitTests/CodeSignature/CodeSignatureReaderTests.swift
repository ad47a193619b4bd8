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
  /// `what` of the malformed error `read` throws for a signature holding `blobs`, or nil when it reads.
  private func malformed(_ superBlob: [UInt8]) -> String? {
    let source = MemoryByteSource(makeMachO(signature: superBlob))
    do {
      _ = try CodeSignatureReader.read(source, slice: try MachOFile.slices(of: source)[0])
      return nil
    } catch CodeSignatureError.malformed(_, let what) {
      return what
    } catch {
      return "\(error)"
    }
  }

  /// A CodeDirectory whose big-endian u32 at `field` is replaced by `value`, its length unchanged.
  private func codeDirectory(_ field: Int, _ value: UInt32, team: String? = "ABCDE12345") -> [UInt8] {
    var cd = makeCodeDirectory(identifier: "com.example.app", team: team, hashType: 2)
    cd.replaceSubrange(field..<field + 4, with: withUnsafeBytes(of: value.bigEndian, Array.init))
    return cd
  }

  // The kernel refuses each of these signatures (xnu's cs_validate_codedirectory); the reader read them as a
  // complete signature with an empty identifier or no team.
  @Test func aCodeDirectorysStringsMustLieInsideIt() throws {
    let valid = makeCodeDirectory(identifier: "com.example.app", team: "ABCDE12345", hashType: 2)
    #expect(malformed(makeSuperBlob([(0, valid)])) == nil)
    let length = UInt32(valid.count)
    #expect(
      malformed(makeSuperBlob([(0, codeDirectory(0x14, length))]))
        == "CodeDirectory identifier at offset \(length), past its \(length) bytes")
    #expect(
      malformed(makeSuperBlob([(0, codeDirectory(0x30, 0xFFFF_FF00))]))
        == "CodeDirectory team identifier at offset 4294967040, past its \(length) bytes")
    // The team identifier is last: its NUL cut off by a shorter length leaves it unterminated.
    var unterminated = valid
    unterminated.removeLast()
    unterminated.replaceSubrange(4..<8, with: withUnsafeBytes(of: (length - 1).bigEndian, Array.init))
    #expect(
      malformed(makeSuperBlob([(0, unterminated)]))
        == "CodeDirectory team identifier without a terminating NUL inside the CodeDirectory")
    let long = makeCodeDirectory(identifier: String(repeating: "a", count: 2000), team: nil, hashType: 2)
    #expect(malformed(makeSuperBlob([(0, long)])) == "CodeDirectory identifier longer than 1024 bytes")
    // Team offset 0 is "no team", as before.
    #expect(malformed(makeSuperBlob([(0, codeDirectory(0x30, 0))])) == nil)
  }

  @Test func theSuperBlobsOwnLengthBoundsIt() throws {
    let blobs: [(UInt32, [UInt8])] = [(5, makeBlob(magic: 0xfade_7171, payload: xml))]
    func withLength(_ value: UInt32) -> [UInt8] {
      var superBlob = makeSuperBlob(blobs)
      superBlob.replaceSubrange(4..<8, with: withUnsafeBytes(of: value.bigEndian, Array.init))
      return superBlob
    }
    let whole = UInt32(makeSuperBlob(blobs).count)
    #expect(malformed(withLength(whole)) == nil)
    #expect(malformed(withLength(4))?.hasPrefix("SuperBlob length 4, signature range ") == true)
    #expect(malformed(withLength(0xFFFF_FFFF))?.hasPrefix("SuperBlob length 4294967295, ") == true)
    // A blob that ends past the SuperBlob's length lies outside the signature, though inside the range.
    let source = MemoryByteSource(makeMachO(signature: withLength(whole - 1)))
    #expect(throws: CodeSignatureError.outOfRange(file: "<memory>", what: "blob in slot 0x5 (\(xml.count + 8) bytes)"))
    {
      try CodeSignatureReader.read(source, slice: try MachOFile.slices(of: source)[0])
    }
  }
}
