import Foundation
import Testing
import UniversalLinks

@testable import IPALinksKit

/// The limits SECURITY.md lists that are not covered where their parser is tested: each one exceeded gives a clear
/// error naming the file, and the rest of the inventory survives.
struct ResourceLimitTests {
  @Test func entriesPerArchive() throws {
    let zip = try ZipTool()
    for i in 0..<11 { try zip.write("Payload/A.app/f\(i)", [UInt8(i)]) }
    let path = try zip.zip("many.ipa", flags: ["-D"])  // no directory entries: exactly 11
    #expect(throws: ArchiveError.tooManyEntries(file: path, count: 11, limit: 10)) {
      try ZipArchive(path: path, maximumEntries: 10)
    }
    #expect(
      ArchiveError.tooManyEntries(file: "a.ipa", count: 11, limit: 10).description
        == "a.ipa: 11 entries, over the limit of 10")
    #expect(try ZipArchive(path: path, maximumEntries: 11).paths.count == 11)
  }

  /// A deflated 3 MiB executable read near its end under a 1 MiB cap: refused before inflating that far.
  @Test func bytesInflatedPerEntry() throws {
    let zip = try ZipTool()
    try zip.write("Payload/A.app/A", [UInt8](repeating: 0x41, count: 3 << 20))
    let archive = try ZipArchive(path: try zip.zip("big.ipa"), maximumInflatedBytes: 1 << 20)
    let source = try archive.byteSource(for: "Payload/A.app/A")
    #expect(try source.read(at: 0, count: 16) == [UInt8](repeating: 0x41, count: 16))
    #expect(throws: ArchiveError.entryTooLarge(entry: "Payload/A.app/A", limit: 1 << 20)) {
      try source.read(at: 2 << 20, count: 16)
    }
    #expect(
      ArchiveError.entryTooLarge(entry: "Payload/A.app/A", limit: 1 << 20).description
        == "Payload/A.app/A: entry inflates past the 1 MiB limit; refused (possible zip bomb)")
  }

  /// What one archive's reads inflate together is capped too: entries that point at one entry's data each inflate
  /// it again (250 names for one 2 GiB executable kept `inspect` busy for five minutes).
  @Test func bytesInflatedPerArchive() throws {
    let zip = try ZipTool()
    for name in ["A", "B", "C"] { try zip.write("Payload/A.app/\(name)", [UInt8](repeating: 0x41, count: 1 << 20)) }
    let archive = try ZipArchive(path: try zip.zip("three.ipa"), maximumInflatedPerArchive: 5 << 19)
    #expect(try archive.contents(of: "Payload/A.app/A", limit: 2 << 20).count == 1 << 20)
    #expect(try archive.byteSource(for: "Payload/A.app/B").read(at: (1 << 20) - 16, count: 16).count == 16)
    #expect(throws: ArchiveError.archiveInflatesTooMuch(file: archive.name, entry: "Payload/A.app/C", limit: 5 << 19)) {
      try archive.contents(of: "Payload/A.app/C", limit: 2 << 20)
    }
    #expect(
      ArchiveError.archiveInflatesTooMuch(file: "a.ipa", entry: "Payload/A.app/C", limit: 8 << 30).description
        == "Payload/A.app/C: a.ipa has inflated past the 8 GiB one archive may; refused (possible zip bomb: entries "
        + "that share their compressed data)")
  }

  /// Two entries of one name: the first is read, as before, and the input is partial with an error that says an
  /// extractor may keep the other (Info-ZIP's `unzip` keeps the last).
  /// The second may be spelt otherwise (`./`, `//`), landing on the same file once extracted: it was not seen, the
  /// input "complete", and `unzip` installed the other.
  @Test(arguments: [
    "Payload/A.app/Info.plist", "Payload/A.app/./Info.plist", "Payload//A.app/Info.plist", "./Payload/A.app/Info.plist",
  ])
  func twoEntriesOfOneName(_ second: String) throws {
    let zip = try ZipTool()
    let path = zip.folder.appendingPathComponent("dup.ipa").path
    func info(_ id: String) -> String {
      #"<?xml version="1.0"?><plist version="1.0"><dict><key>CFBundleIdentifier</key><string>"# + id
        + #"</string></dict></plist>"#
    }
    let script = """
      import sys, zipfile, warnings
      warnings.simplefilter("ignore")
      with zipfile.ZipFile(sys.argv[1], "w") as z:
          z.writestr("Payload/A.app/Info.plist", sys.argv[2])
          z.writestr(sys.argv[4], sys.argv[3])
      """
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["python3", "-c", script, path, info("com.example.first"), info("com.example.second"), second]
    try p.run()
    p.waitUntilExit()
    try #require(p.terminationStatus == 0)
    let report = Inspector().inspect(path: path)
    #expect(report.status == .partial)
    #expect(report.bundles.first?.bundleId == "com.example.first")
    #expect(
      report.diagnostics.contains {
        $0.code == .archiveDuplicateEntry
          && $0.message.contains(#"more than one entry is named "Payload/A.app/Info.plist""#)
      }, "\(report.diagnostics)")
  }

  /// 60 nested SETs: swift-asn1 stops at 50 levels, and the message says so in words.
  @Test func derNestingDepth() throws {
    var der: [UInt8] = [0x0C, 0x01, 0x61]
    for _ in 0..<60 {
      precondition(der.count < 128)
      der = [0x31, UInt8(der.count)] + der
    }
    #expect(throws: DEREntitlementsError.self) { try DEREntitlements.decode(der) }
    do {
      _ = try DEREntitlements.decode(der)
    } catch {
      #expect(error.description == "DER entitlements: nests deeper than 50 levels (swift-asn1's limit); refused")
    }
  }

  @Test func bundlesPerArchive() throws {
    let zip = try ZipTool()
    try zip.writeApp(xcent: Array("<plist><dict/></plist>".utf8))
    for i in 0..<BundleLocator.maximumBundles {
      try zip.write("Payload/A.app/PlugIns/E\(i).appex/Info.plist", Array("<plist><dict/></plist>".utf8))
    }
    let path = try zip.zip("bundles.ipa")
    let report = Inspector().inspect(path: path)
    #expect(report.bundles.count == BundleLocator.maximumBundles)
    let finding = try #require(report.diagnostics.first { $0.code == .archiveTooManyBundles })
    #expect(finding.message == "\(path): more than 256 bundles; the rest are not inspected")
  }

  @Test func domainsPerBundle() throws {
    let domains = (0...Inspector.maximumDomainsPerBundle).map { "<string>applinks:d\($0).example.com</string>" }
    let xcent = """
      <?xml version="1.0"?><plist version="1.0"><dict>
      <key>application-identifier</key><string>ABCDE12345.com.example.a</string>
      <key>com.apple.developer.associated-domains</key><array>\(domains.joined())</array></dict></plist>
      """
    let zip = try ZipTool()
    try zip.writeApp(xcent: Array(xcent.utf8))
    let report = Inspector().inspect(path: try zip.zip("domains.ipa"))
    let bundle = try #require(report.bundles.first)
    #expect(bundle.associatedDomains.count == Inspector.maximumDomainsPerBundle)
    let finding = try #require(bundle.diagnostics.first { $0.code == .domainTooMany })
    #expect(finding.message == "Payload/A.app: 1001 associated domains; only the first 1000 are reported")
  }

  /// A non-string among the associated domains is said and left out, the strings read: one number hid every
  /// domain the app claims ("Associated domains  none"), and `who-claims` then answered no. A lone string is a
  /// list of one.
  @Test func aDomainThatIsNotAStringLeavesTheOthers() throws {
    for (value, domains, messages) in [
      (
        "<array><string>applinks:shop.example.com</string><integer>7</integer><string>applinks:pay.example.com</string></array>",
        ["shop.example.com", "pay.example.com"],
        ["Payload/A.app: com.apple.developer.associated-domains/1 is 7, not a string; left out"]
      ),
      (
        "<string>applinks:shop.example.com</string>", ["shop.example.com"],
        [
          "Payload/A.app: com.apple.developer.associated-domains is a string, not a list of strings; read as a list "
            + "of one"
        ]
      ),
      (
        "<integer>7</integer>", [],
        ["Payload/A.app: com.apple.developer.associated-domains is 7, not a list of strings"]
      ),
    ] {
      let xcent = """
        <?xml version="1.0"?><plist version="1.0"><dict>
        <key>application-identifier</key><string>ABCDE12345.com.example.a</string>
        <key>com.apple.developer.associated-domains</key>\(value)</dict></plist>
        """
      let zip = try ZipTool()
      try zip.writeApp(xcent: Array(xcent.utf8))
      let report = Inspector().inspect(path: try zip.zip("domains.ipa"))
      let bundle = try #require(report.bundles.first)
      #expect(bundle.associatedDomains.map(\.host) == domains, "\(value)")
      #expect(bundle.diagnostics.filter { $0.code == .domainNotAList }.map(\.message) == messages, "\(value)")
      #expect(report.status != .complete, "an entitlement misread leaves the input partial: \(value)")
    }
  }

  /// A file refused by our pattern limit is not "invalid JSON" (iOS might read it): the domain is unknown, and a
  /// blocklist says it is not covered instead of dropping it.
  @Test func aasaOverALimitLeavesTheDomainUncovered() throws {
    let paths = Array(repeating: "/a", count: AASAFile.maximumPatterns + 1)
    let body = [UInt8](
      try JSONSerialization.data(withJSONObject: [
        "applinks": ["details": [["appIDs": ["ABCDE12345.com.example.a"], "paths": paths]]]
      ]))
    let result = AASAFetchResult(host: "big.example.com", status: .ok, source: .aasaDir, message: "", body: body)
    let aasa = DomainAASA.evaluate(result, appID: "ABCDE12345.com.example.a")
    #expect(aasa.status == .overLimit)
    #expect(!aasa.status.isDefinite)
    #expect(aasa.fetch.message.contains("AASA file refused: the file has 100001 patterns"))
    var ignored: [Diagnostic] = []
    var bundle = BundleReport(path: "Payload/A.app", kind: .app)
    (bundle.appId, bundle.name) = ("ABCDE12345.com.example.a", "A")
    bundle.associatedDomains = [AssociatedDomain.parse("applinks:big.example.com", diagnostics: &ignored)]
    bundle.associatedDomains[0].aasa = aasa
    let reports = [InspectionReport(input: "a.ipa", inputKind: .ipa, bundles: [bundle])]
    let skipped = Blocklist(reports: reports, uncovered: .skip)
    #expect(skipped.apps.isEmpty)
    #expect(skipped.notes.map(\.kind) == [.uncovered])
    // By default the host is blocked whole instead: its file's size keeps nothing out of the list.
    let blocked = Blocklist(reports: reports)
    #expect(blocked.apps.map(\.appID) == ["ABCDE12345.com.example.a"] && blocked.notes.map(\.kind) == [.uncovered])
    #expect(blocked.notes.first?.message.hasSuffix("every URL of the host is blocked instead") == true)
  }
}
