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

  /// A binary plist of 500,000 references to one string (5 KB zipped, within every size limit) is read in one pass:
  /// each item was fetched by index, which libplist finds by walking a binary plist's array from its start, and it
  /// took about a quarter of an hour. The limit is a hang's, not a measure.
  @Test(.timeLimit(.minutes(1))) func aLongBinaryArrayIsReadInOnePass() throws {
    let count = 500_000
    // bplist00: a dictionary {"X": [ref 3 × count]}, the key, the string; refs of 4 bytes, offsets of 4.
    func ref(_ i: UInt32) -> [UInt8] { withUnsafeBytes(of: i.bigEndian, Array.init) }
    var objects: [[UInt8]] = []
    objects.append([0xD1] + ref(1) + ref(2))
    objects.append([0x51] + Array("X".utf8))
    objects.append([0xAF, 0x12] + ref(UInt32(count)) + Array(repeating: ref(3), count: count).flatMap { $0 })
    objects.append([0x51] + Array("s".utf8))
    var bytes = Array("bplist00".utf8)
    var offsets: [UInt32] = []
    for object in objects {
      offsets.append(UInt32(bytes.count))
      bytes += object
    }
    let table = UInt64(bytes.count)
    bytes += offsets.flatMap(ref)
    bytes +=
      [0, 0, 0, 0, 0, 0, 4, 4] + withUnsafeBytes(of: UInt64(objects.count).bigEndian, Array.init)
      + withUnsafeBytes(of: UInt64(0).bigEndian, Array.init) + withUnsafeBytes(of: table.bigEndian, Array.init)
    let value = try PropertyList.decodeDictionary(bytes, file: "long.plist")
    let items = try #require(value["X"]?.arrayValue)
    #expect(items.count == count && items.allSatisfy { $0.stringValue == "s" })
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
    #expect(PropertyList.xmlNestingDepth(Array("<dict><array\n/><array\t><dict\r/></array></dict>".utf8)) == 2)
  }

  /// libplist reads a tag's name up to a space, tab, CR, LF, `<` or `>`: `<array` and a line feed opens an array,
  /// which the count missed, so 200,000 levels so written (1.8 MB) overflowed libplist's stack and killed the
  /// process. Nested `<plist>` elements recurse too, and a closing tag inside CDATA or a comment closes nothing.
  @Test func everySpellingOfALevelCounts() {
    for (open, close) in [
      ("<array\n>", "</array>"), ("<array\t>", "</array>"), ("<dict\r>", "</dict>"), ("<plist>", "</plist>"),
      ("<array><string><![CDATA[</array>]]></string>", "</array>"), ("<array><!-- </array> -->", "</array>"),
      ("<array><string>a</string>", "</array>"),
    ] {
      let xml =
        "<?xml version=\"1.0\"?><plist version=\"1.0\">" + String(repeating: open, count: 100_000)
        + String(repeating: close, count: 100_000) + "</plist>"
      #expect(throws: PlistError.tooDeep(file: "deep", limit: PropertyList.maximumDepth), "\(open)") {
        try PropertyList.decode(Array(xml.utf8), file: "deep")
      }
    }
  }
}

/// Regression: libplist 2.2 overflowed its stack on a 7 MB binary plist nested 800,000 levels deep.
struct BinaryPlistDepthTests {
  /// A bplist00 whose objects are one-element arrays, each holding the next: `depth` levels.
  static func nestedArrays(depth: Int) -> [UInt8] {
    var body = Array("bplist00".utf8)
    var offsets: [Int] = []
    for i in 0..<depth {
      offsets.append(body.count)
      if i < depth - 1 {
        body += [
          0xA1, UInt8((i + 1) >> 24), UInt8((i + 1) >> 16 & 0xff), UInt8((i + 1) >> 8 & 0xff), UInt8((i + 1) & 0xff),
        ]
      } else {
        body.append(0x09)
      }
    }
    let table = body.count
    for o in offsets { body += [UInt8(o >> 24), UInt8(o >> 16 & 0xff), UInt8(o >> 8 & 0xff), UInt8(o & 0xff)] }
    body += [0, 0, 0, 0, 0, 0, 4, 4]
    for v in [depth, 0, table] { body += (0..<8).reversed().map { UInt8(truncatingIfNeeded: v >> ($0 * 8)) } }
    return body
  }

  @Test func deepBinaryPlistIsRefusedBeforeLibplistParsesIt() {
    let bytes = Self.nestedArrays(depth: 800_000)
    #expect(BinaryPlistDepth.check(bytes, limit: 64) == .tooDeep)
    #expect(throws: PlistError.tooDeep(file: "deep", limit: PropertyList.maximumDepth)) {
      try PropertyList.decode(bytes, file: "deep")
    }
  }

  @Test func shallowBinaryPlistStillParses() throws {
    let bytes = Self.nestedArrays(depth: 10)
    #expect(BinaryPlistDepth.check(bytes, limit: 64) == .withinLimit)
    var value = try PropertyList.decode(bytes, file: "shallow")
    for _ in 0..<9 { value = try #require(value.arrayValue?.first) }
    #expect(value == .bool(true))
  }

  /// A binary plist of `levels` arrays, each holding the one below twice, over `true`: 2^levels values once read.
  static func sharedArrays(levels: Int) -> [UInt8] {
    var body = Array("bplist00".utf8)
    var offsets: [Int] = []
    let be32 = { (v: Int) in [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }
    for i in 0..<levels {
      offsets.append(body.count)
      body += [0xA2] + be32(i + 1) + be32(i + 1)
    }
    offsets.append(body.count)
    body.append(0x09)
    let table = body.count
    for o in offsets { body += be32(o) }
    body += [0, 0, 0, 0, 0, 0, 4, 4]
    for v in [levels + 1, 0, table] { body += (0..<8).reversed().map { UInt8(truncatingIfNeeded: v >> ($0 * 8)) } }
    return body
  }

  /// Each value is copied for each reference to it once read: a kilobyte of arrays that each hold the one below
  /// twice took 1.5 GB at 22 levels, and a megabyte of 1,500 references to one 1 MiB string took 3.1 GB. Refused
  /// before libplist reads them, where a file of as many values written out is read.
  @Test func sharedValuesThatExpandPastTheLimitAreRefused() throws {
    let bomb = Self.sharedArrays(levels: 40)
    #expect(bomb.count < 1_000)
    #expect(BinaryPlistDepth.check(bomb, limit: 64) == .expandsTooLarge)
    #expect(throws: PlistError.expandsTooLarge(file: "b", limit: PropertyList.maximumExpansion)) {
      try PropertyList.decode(bomb, file: "b")
    }
    #expect(PlistError.expandsTooLarge(file: "b", limit: 1).code == .plistTooLarge)
    var value = try PropertyList.decode(Self.sharedArrays(levels: 8), file: "small")
    for _ in 0..<8 { value = try #require(value.arrayValue?.last) }
    #expect(value == .bool(true))
    // One array of 1,500 references to a string of 1 MiB.
    let be32 = { (v: Int) in [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }
    var strings = Array("bplist00".utf8) + [0xAF, 0x11, 0x05, 0xDC] + (0..<1_500).flatMap { _ in be32(1) }
    let second = strings.count
    strings += [0x5F, 0x12] + be32(1 << 20) + [UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20)
    let table = strings.count
    strings += be32(8) + be32(second) + [0, 0, 0, 0, 0, 0, 4, 4]
    for v in [2, 0, table] { strings += (0..<8).reversed().map { UInt8(truncatingIfNeeded: v >> ($0 * 8)) } }
    #expect(BinaryPlistDepth.check(strings, limit: 64) == .expandsTooLarge)
  }

  @Test func cyclesAndBrokenTrailersAreMalformed() {
    var cyclic = Self.nestedArrays(depth: 3)
    // Point the last array (object 1) back at object 0: 0 → 1 → 0.
    cyclic[8 + 5 + 1..<8 + 5 + 5] = [0, 0, 0, 0]
    #expect(BinaryPlistDepth.check(cyclic, limit: 64) == .malformed)
    #expect(
      BinaryPlistDepth.check(Array("bplist00".utf8) + [UInt8](repeating: 0xFF, count: 40), limit: 64) == .malformed)
  }
}
