import Testing

@testable import IPALinksKit

struct PropertyListTests {
  @Test func xmlPlistOfEveryType() throws {
    let xml = """
      <?xml version="1.0" encoding="UTF-8"?>
      <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
      <plist version="1.0"><dict>
        <key>s</key><string>héllo &amp; bye</string>
        <key>i</key><integer>42</integer>
        <key>r</key><real>1.5</real>
        <key>t</key><true/>
        <key>f</key><false/>
        <key>d</key><date>2001-01-01T00:00:10Z</date>
        <key>b</key><data>AAEC</data>
        <key>a</key><array><string>x</string><dict/></array>
      </dict></plist>
      """
    let value = try PropertyList.decodeDictionary(Array(xml.utf8), file: "t.plist")
    #expect(value["s"] == .string("héllo & bye"))
    #expect(value["i"] == .integer(42))
    #expect(value["r"] == .real(1.5))
    #expect(value["t"] == .bool(true))
    #expect(value["f"] == .bool(false))
    #expect(value["d"] == .date(978_307_210))
    #expect(value["b"] == .data([0, 1, 2]))
    #expect(value["a"] == .array([.string("x"), .dictionary([:])]))
  }

  @Test func binaryPlistFixture() throws {
    let bytes = try Fixtures.bytes("plists/info-binary.plist")
    #expect(bytes.starts(with: Array("bplist00".utf8)))
    let value = try PropertyList.decodeDictionary(bytes, file: "info-binary.plist")
    #expect(value["CFBundleIdentifier"]?.stringValue?.isEmpty == false)
  }

  @Test func hostileNestingIsRefusedBeforeLibplistSeesIt() throws {
    let deep = String(repeating: "<array>", count: 10_000) + String(repeating: "</array>", count: 10_000)
    let xml = "<?xml version=\"1.0\"?><plist version=\"1.0\">\(deep)</plist>"
    #expect(throws: PlistError.tooDeep(file: "deep", limit: PropertyList.maximumDepth)) {
      try PropertyList.decode(Array(xml.utf8), file: "deep")
    }
    #expect(throws: PlistError.self) {
      try PropertyList.decode(try Fixtures.bytes("plists/deep-nesting.plist"), file: "f")
    }
  }

  @Test func garbageIsMalformed() {
    #expect(throws: PlistError.malformed(file: "g")) { try PropertyList.decode(Array("not a plist".utf8), file: "g") }
    #expect(throws: PlistError.malformed(file: "g")) {
      try PropertyList.decode(Array("bplist00\u{0}\u{1}".utf8), file: "g")
    }
    #expect(throws: PlistError.malformed(file: "g")) { try PropertyList.decode([], file: "g") }
  }

  @Test func topLevelArrayIsNotADictionary() {
    let xml = "<?xml version=\"1.0\"?><plist version=\"1.0\"><array/></plist>"
    #expect(throws: PlistError.notADictionary(file: "a")) {
      try PropertyList.decodeDictionary(Array(xml.utf8), file: "a")
    }
  }

  @Test func nestingDepthCounterIgnoresSelfClosingTags() {
    #expect(PropertyList.xmlNestingDepth(Array("<dict><array/><array><dict/></array></dict>".utf8)) == 2)
  }
}
