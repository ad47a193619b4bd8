import Foundation
import Testing

@testable import IPALinksKit

struct ZipArchiveTests {
  @Test(arguments: [[], ["-0"]]) func randomAccessIntoDeflatedAndStoredEntries(flags: [String]) throws {
    let tool = try ZipTool()
    defer { tool.cleanUp() }
    let content = noise(3 << 20)
    try tool.write("Payload/A.app/A", content)
    let archive = try ZipArchive(path: try tool.zip("a.ipa", flags: flags))
    let source = try archive.byteSource(for: "Payload/A.app/A")
    #expect(source.size == UInt64(content.count))
    for offset in [0, 17, 1 << 20, (3 << 20) - 100, 5] {  // the last one goes backwards and reopens
      #expect(try source.read(at: UInt64(offset), count: 100) == Array(content[offset..<offset + 100]))
    }
    #expect(throws: ArchiveError.self) { try source.checkedRead(at: UInt64(content.count - 10), count: 100) }
  }

  @Test func namesAreListedWithoutDirectoryEntriesAndUnicodeIntact() throws {
    let tool = try ZipTool()
    defer { tool.cleanUp() }
    try tool.write("Payload/Café.app/Info.plist", Array("x".utf8))
    let archive = try ZipArchive(path: try tool.zip("u.ipa", flags: ["-D"]))
    #expect(archive.paths == ["Payload/Café.app/Info.plist"])
    #expect(try archive.contents(of: "Payload/Café.app/Info.plist", limit: 10) == Array("x".utf8))
  }

  @Test func dataDescriptorsAndZip64FromAStream() throws {
    let tool = try ZipTool()
    defer { tool.cleanUp() }
    let content = noise(70_000)
    let archive = try ZipArchive(path: try tool.zipStreamed("s.zip", content))
    #expect(try archive.contents(of: "-", limit: 1 << 20) == content)
  }

  @Test func sizeCapRefusesAZipBombWithoutInflatingIt() throws {
    let archive = try ZipArchive(path: Fixtures.path("bad/bomb.ipa"))
    let plist = try #require(archive.paths.first { $0.hasSuffix("Info.plist") })
    #expect(throws: ArchiveError.entryTooLarge(entry: plist, limit: 8 << 20)) {
      try archive.contents(of: plist, limit: 8 << 20)
    }
  }

  @Test func capAppliesEvenWhenTheHeaderUnderstatesTheSize() throws {
    let tool = try ZipTool()
    defer { tool.cleanUp() }
    try tool.write("big", [UInt8](repeating: 7, count: 5000))
    let archive = try ZipArchive(path: try tool.zip("b.zip"))
    #expect(throws: ArchiveError.entryTooLarge(entry: "big", limit: 4999)) {
      try archive.contents(of: "big", limit: 4999)
    }
    #expect(try archive.contents(of: "big", limit: 5000).count == 5000)
  }

  @Test func encryptedEntryIsAClearError() throws {
    let archive = try ZipArchive(path: Fixtures.path("bad/encrypted-entry.ipa"))
    let plist = try #require(archive.paths.first { $0.hasSuffix("Info.plist") })
    #expect(throws: ArchiveError.entryEncrypted(entry: plist)) { try archive.contents(of: plist, limit: 1 << 20) }
  }

  @Test func notAZipAndTruncatedZip() {
    #expect(throws: ArchiveError.self) { try ZipArchive(path: Fixtures.path("bad/not-a-zip.ipa")) }
    #expect {
      try ZipArchive(path: Fixtures.path("bad/truncated.ipa"))
    } throws: { error in
      guard case .corrupt(let file, _) = error as? ArchiveError else { return false }
      return file.hasSuffix("truncated.ipa")
    }
  }

  @Test func traversalNamesAreSetAsideNotListed() throws {
    let archive = try ZipArchive(path: Fixtures.path("bad/path-traversal.ipa"))
    #expect(!archive.paths.contains { $0.contains("..") || $0.hasPrefix("/") })
    #expect(archive.unsafePaths.count >= 3)
    #expect(archive.paths.contains { $0.hasPrefix("Payload/Trav.app/") })
  }

  @Test func unsafeNameRules() {
    #expect(EntryNames.isUnsafe("../x"))
    #expect(EntryNames.isUnsafe("Payload/../../x"))
    #expect(EntryNames.isUnsafe("/etc/passwd"))
    #expect(EntryNames.isUnsafe("a\\b"))
    #expect(!EntryNames.isUnsafe("Payload/A.app/..x"))
  }
}

struct ZipEntrySourceTests {
  @Test func steppingBackWithinTheWindowDoesNotReinflate() throws {
    let tool = try ZipTool()
    defer { tool.cleanUp() }
    let content = noise(2 << 20)
    try tool.write("exe", content)
    let archive = try ZipArchive(path: try tool.zip("w.zip"))
    let source = try #require(try archive.byteSource(for: "exe") as? ZipEntrySource)
    let far = 1_900_000
    #expect(try source.read(at: UInt64(far), count: 8) == Array(content[far..<far + 8]))
    #expect(try source.read(at: UInt64(far), count: 0x58) == Array(content[far..<far + 0x58]))
    #expect(try source.read(at: UInt64(far + 200), count: 16) == Array(content[far + 200..<far + 216]))
    #expect(source.opens == 1)
    #expect(try source.read(at: 10, count: 4) == Array(content[10..<14]))
    #expect(source.opens == 2, "a read before the window reopens the entry")
  }
}
