import Testing

@testable import IPALinksKit

struct DEREntitlementsTests {
  @Test func emptyDictionaryVectorFromAppleCodesign() throws {
    let (value, form) = try DEREntitlements.decode([0x70, 0x05, 0x02, 0x01, 0x01, 0xB0, 0x00])
    #expect(value.isEmpty)
    #expect(form == .application16)
  }

  @Test func keyTrueVectorFromAppleCodesign() throws {
    let bytes: [UInt8] = [
      0x70, 0x0F, 0x02, 0x01, 0x01, 0xB0, 0x0A, 0x30, 0x08, 0x0C, 0x03, 0x6B, 0x65, 0x79, 0x01, 0x01, 0xFF,
    ]
    let (value, form) = try DEREntitlements.decode(bytes)
    #expect(value == ["key": .bool(true)])
    #expect(form == .application16)
  }

  @Test func bareSetFormWrittenByLdid() throws {
    // SET { SEQUENCE { "key", TRUE } }
    let bytes: [UInt8] = [0x31, 0x0A, 0x30, 0x08, 0x0C, 0x03, 0x6B, 0x65, 0x79, 0x01, 0x01, 0xFF]
    let (value, form) = try DEREntitlements.decode(bytes)
    #expect(value == ["key": .bool(true)])
    #expect(form == .bareSet)
  }

  @Test func valuesOfEveryKind() throws {
    // { "a": ["x"], "b": 300, "c": {"d": false}, "e": -1 }
    let entries: [UInt8] =
      [0x30, 0x0A, 0x0C, 0x01, 0x61, 0x30, 0x05, 0x0C, 0x03, 0x61, 0x3A, 0x78]
      + [0x30, 0x07, 0x0C, 0x01, 0x62, 0x02, 0x02, 0x01, 0x2C]
      + [0x30, 0x0D, 0x0C, 0x01, 0x63, 0xB0, 0x08, 0x30, 0x06, 0x0C, 0x01, 0x64, 0x01, 0x01, 0x00]
      + [0x30, 0x06, 0x0C, 0x01, 0x65, 0x02, 0x01, 0xFF]
    let bytes: [UInt8] = [0x70, UInt8(5 + entries.count), 0x02, 0x01, 0x01, 0xB0, UInt8(entries.count)] + entries
    let (value, _) = try DEREntitlements.decode(bytes)
    #expect(value["a"] == .array([.string("a:x")]))
    #expect(value["b"] == .integer(300))
    #expect(value["c"] == .dictionary(["d": .bool(false)]))
    #expect(value["e"] == .integer(-1))
  }

  /// A key twice in one dictionary is malformed: the last was read silently, and which one iOS reads is not known.
  @Test func aKeyTwiceIsMalformed() {
    // SET { SEQUENCE { "key", TRUE }, SEQUENCE { "key", FALSE } }
    let pair: (UInt8) -> [UInt8] = { [0x30, 0x08, 0x0C, 0x03, 0x6B, 0x65, 0x79, 0x01, 0x01, $0] }
    let bytes: [UInt8] = [0x31, 0x14] + pair(0xFF) + pair(0x00)
    #expect(throws: DEREntitlementsError.malformed("the key key appears twice in one dictionary")) {
      try DEREntitlements.decode(bytes)
    }
  }

  @Test func lengthOverflowIsAnErrorNotACrash() {
    let bytes: [UInt8] = [0x70, 0x84, 0xFF, 0xFF, 0xFF, 0xF0, 0x02, 0x01, 0x01]
    #expect(throws: DEREntitlementsError.self) { try DEREntitlements.decode(bytes) }
  }

  @Test func hostileNestingIsRefused() {
    // 200 nested SEQUENCEs inside a dictionary value: deeper than swift-asn1's 50-level bound.
    var inner: [UInt8] = [0x05, 0x00]
    for _ in 0..<200 { inner = [0x30] + derLength(inner.count) + inner }
    let entry: [UInt8] = [0x30] + derLength(inner.count + 3) + [0x0C, 0x01, 0x6B] + inner
    let bytes: [UInt8] = [0x31] + derLength(entry.count) + entry
    #expect(throws: DEREntitlementsError.self) { try DEREntitlements.decode(bytes) }
  }

  @Test func wrongOuterTagIsRejected() {
    #expect(throws: DEREntitlementsError.self) { try DEREntitlements.decode([0x04, 0x00]) }
    #expect(throws: DEREntitlementsError.self) { try DEREntitlements.decode([]) }
  }

  private func derLength(_ n: Int) -> [UInt8] {
    n < 0x80 ? [UInt8(n)] : n < 0x100 ? [0x81, UInt8(n)] : [0x82, UInt8(n >> 8), UInt8(n & 0xff)]
  }
}
