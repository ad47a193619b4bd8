import Foundation
import IPALinksFuzzing
import Testing

@testable import IPALinksKit

/// Every input a fuzz harness ever crashed on, minimized and committed under `Tests/Fixtures/fuzz/<harness>/`,
/// replayed through the same harness body libFuzzer ran. A regression aborts this test process; the plain and
/// the sanitizer test runs both replay them.
struct FuzzRegressionTests {
  static let folder = Fixtures.root.appendingPathComponent("fuzz")

  static func inputs() throws -> [(harness: FuzzHarness, name: String, bytes: [UInt8])] {
    var out: [(FuzzHarness, String, [UInt8])] = []
    let harnesses = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    for name in harnesses where !name.hasPrefix(".") && name != "README.md" {
      let harness = try #require(FuzzHarness(rawValue: name), "Tests/Fixtures/fuzz/\(name) names no harness")
      let dir = folder.appendingPathComponent(name)
      for file in try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() {
        out.append((harness, file, [UInt8](try Data(contentsOf: dir.appendingPathComponent(file)))))
      }
    }
    return out
  }

  @Test func everyCommittedFindingReplaysCleanly() throws {
    let all = try Self.inputs()
    #expect(all.count >= 8)
    for input in all { input.harness.run(input.bytes) }
  }

  /// libplist 2.2 asserts `length == strlen(*val)` in `plist_get_string_val`, so a string holding U+0000 aborted
  /// the whole process (found by FuzzPlist, FuzzCMS and FuzzCodeSignature). Now it is a clear error naming the file.
  @Test(arguments: [
    "binary-ascii-string-nul.plist", "binary-key-nul.plist", "binary-utf16-string-nul.plist",
    "xml-key-raw-nul.plist", "xml-string-nul-reference.plist", "xml-string-raw-nul.plist",
  ])
  func plistWithNulCharacterIsRefused(name: String) throws {
    let bytes = try Fixtures.bytes("fuzz/plist/\(name)")
    #expect(throws: PlistError.nulCharacter(file: name)) { try PropertyList.decode(bytes, file: name) }
    #expect(PlistError.nulCharacter(file: name).description.contains("NUL character"))
  }

  @Test func characterReferencesOtherThanNulStillDecode() throws {
    let xml =
      #"<?xml version="1.0"?><plist version="1.0"><dict><key>a</key><string>&#48;&#x41;&#x100;</string></dict></plist>"#
    #expect(try PropertyList.decodeDictionary(Array(xml.utf8), file: "t.plist")["a"] == .string("0AĀ"))
  }

  /// A DER entitlement value tagged UTF8String but constructed (0x2C) hit a force-unwrap and trapped (found by
  /// FuzzCodeSignature in 60 s). Now it is a clear DER error, in the blob alone and inside a SuperBlob.
  @Test func constructedUTF8StringInDEREntitlementsIsAnError() throws {
    let der = try Fixtures.bytes("fuzz/der/constructed-utf8string-value.der")
    #expect(throws: DEREntitlementsError.malformed("constructed UTF8String")) { try DEREntitlements.decode(der) }
    let superBlob = try Fixtures.bytes("fuzz/codesignature/der-constructed-utf8string.bin")
    let slice = MachOSlice(
      offset: 0, size: UInt64(superBlob.count), cpuType: 12, cpuSubtype: 0, is64Bit: true,
      codeSignature: (0, UInt32(superBlob.count)))
    let signature = try #require(try CodeSignatureReader.read(MemoryByteSource(superBlob), slice: slice))
    #expect(signature.derEntitlements == der)
  }

  /// The same input inside a profile and inside an IPA: the rest of the inventory is still reported.
  @Test func nulCharacterInEntitlementsOfAnIPAIsADiagnostic() throws {
    let plist = try Fixtures.bytes("fuzz/plist/xml-string-raw-nul.plist")
    let zip = try ZipTool()
    try zip.writeApp(xcent: plist)
    let ipa = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try zip.zip("nul.ipa"))))
    let report = Inspector().inspect(ipaBytes: ipa, name: "nul.ipa")
    let bundle = try #require(report.bundles.first)
    #expect(bundle.bundleId == "com.example.a")
    #expect(bundle.diagnostics.contains { $0.code == .plistNulCharacter })
  }
}
