import SwiftASN1

/// Why DER entitlements could not be decoded.
public enum DEREntitlementsError: Error, CustomStringConvertible, Equatable, Sendable {
  /// The blob is not DER entitlements as Apple or ldid write them; the string says what broke, in words.
  case malformed(String)

  /// The reason prefixed with "DER entitlements", as printed in diagnostics.
  public var description: String {
    switch self {
    case .malformed(let why): "DER entitlements: \(why)"
    }
  }
}

/// Decodes the DER entitlements blob (slot 7) into a ``PlistValue`` dictionary.
///
/// Two encodings exist in the wild: Apple's `[APPLICATION 16] { INTEGER 1, [CONTEXT 16] dict }`
/// and the bare `SET` of entries that ldid writes; both are accepted. swift-asn1 does the DER walk,
/// which bounds nesting (50 levels) and rejects lengths that overrun the buffer.
public enum DEREntitlements {
  /// Which wrapper the blob used, reported as provenance.
  public enum Form: String, Sendable, Codable {
    /// Apple's form: `[APPLICATION 16] { INTEGER 1, [CONTEXT 16] dict }`, as written by codesign.
    case application16 = "der-application16"
    /// A bare `SET` of key-value entries with no wrapper, as written by ldid.
    case bareSet = "der-set"
  }

  /// swift-asn1 stops parsing past this depth; real entitlements nest three or four levels.
  public static let maximumDepth = 50

  static let application16 = ASN1Identifier(tagWithNumber: 16, tagClass: .application)
  static let context16 = ASN1Identifier(tagWithNumber: 16, tagClass: .contextSpecific)

  /// Decodes either form into a dictionary, also returning which form it was so reports can show provenance. Fails
  /// on tags an entitlements plist cannot hold, integers wider than 64 bits and anything swift-asn1 rejects.
  public static func decode(_ bytes: [UInt8]) throws(DEREntitlementsError) -> (value: [String: PlistValue], form: Form)
  {
    let root: ASN1Node
    do { root = try DER.parse(bytes) } catch { throw .malformed(Self.explain(error, bytes)) }
    if root.identifier == application16 {
      guard case .constructed(let children) = root.content else {
        throw .malformed("[APPLICATION 16] is not constructed")
      }
      var items = children.makeIterator()
      guard let version = items.next(), version.identifier == .integer else {
        throw .malformed("missing version INTEGER")
      }
      guard let dict = items.next(), dict.identifier == context16 else {
        throw .malformed("missing [CONTEXT 16] dictionary")
      }
      return (try dictionary(dict), .application16)
    }
    if root.identifier == .set {
      return (try dictionary(root), .bareSet)
    }
    throw .malformed("unexpected outer tag \(root.identifier)")
  }

  /// swift-asn1's errors print source locations; users need the reason in words. Its error for nesting too deep
  /// has no code of its own, so the depth is measured.
  static func explain(_ error: any Error, _ bytes: [UInt8]) -> String {
    guard let asn1 = error as? ASN1Error else { return "\(error)" }
    switch asn1.code {
    case .truncatedASN1Field: return "a length runs past the end of the blob"
    case .unsupportedFieldLength: return "a length field is too large"
    case .invalidASN1Object where depth(of: bytes) > maximumDepth:
      return "nests deeper than \(maximumDepth) levels (swift-asn1's limit); refused"
    default: return "invalid DER (\(asn1.code))"
    }
  }

  /// How deep constructed values nest in `bytes`, the outermost value being at depth 1, as far as the encoding
  /// can be followed: without recursion, so a hostile blob cannot exhaust the stack.
  static func depth(of bytes: [UInt8]) -> Int {
    var ends: [Int] = []  // where each enclosing constructed value ends
    var deepest = 0
    var at = 0
    while at < bytes.count {
      while let end = ends.last, at >= end { ends.removeLast() }
      let constructed = bytes[at] & 0x20 != 0
      at += 1
      if bytes[at - 1] & 0x1F == 0x1F {  // a tag number in the bytes that follow
        while at < bytes.count, bytes[at] & 0x80 != 0 { at += 1 }
        at += 1
      }
      guard at < bytes.count else { break }
      var length = Int(bytes[at])
      at += 1
      if length & 0x80 != 0 {
        let count = length & 0x7F
        guard count <= 4, at + count <= bytes.count else { break }
        length = bytes[at..<at + count].reduce(0) { $0 << 8 | Int($1) }
        at += count
      }
      deepest = max(deepest, ends.count + 1)
      if constructed {
        ends.append(at + length)
      } else {
        at += length
      }
    }
    return deepest
  }

  private static func dictionary(_ node: ASN1Node) throws(DEREntitlementsError) -> [String: PlistValue] {
    guard case .constructed(let entries) = node.content else { throw .malformed("dictionary is not constructed") }
    var out: [String: PlistValue] = [:]
    for entry in entries {
      guard entry.identifier == .sequence, case .constructed(let pair) = entry.content else {
        throw .malformed("dictionary entry is not a SEQUENCE")
      }
      var items = pair.makeIterator()
      guard let keyNode = items.next(), let key = string(keyNode), let valueNode = items.next() else {
        throw .malformed("dictionary entry lacks a UTF8String key and a value")
      }
      // Taken, the last of two would have been read silently; which one iOS reads is not known (codesign never
      // writes such a dictionary), so the blob is malformed and its entitlements unknown.
      guard out.updateValue(try value(valueNode), forKey: key) == nil else {
        throw .malformed("the key \(key) appears twice in one dictionary")
      }
    }
    return out
  }

  private static func string(_ node: ASN1Node) -> String? {
    guard node.identifier == .utf8String, case .primitive(let bytes) = node.content else { return nil }
    return String(decoding: bytes, as: UTF8.self)
  }

  private static func value(_ node: ASN1Node) throws(DEREntitlementsError) -> PlistValue {
    switch node.identifier {
    case .boolean:
      guard case .primitive(let b) = node.content, b.count == 1 else { throw .malformed("bad BOOLEAN") }
      return .bool(b.first! != 0)
    case .integer:
      guard case .primitive(let b) = node.content, (1...8).contains(b.count) else {
        throw .malformed("INTEGER wider than 64 bits")
      }
      var v: Int64 = (b.first! & 0x80) != 0 ? -1 : 0
      for byte in b { v = (v << 8) | Int64(byte) }
      return .integer(v)
    case .utf8String:
      // A constructed UTF8String (tag 0x2C) is not a string here; it crashed this force-unwrap (found by fuzzing).
      guard let s = string(node) else { throw .malformed("constructed UTF8String") }
      return .string(s)
    case .octetString:
      guard case .primitive(let b) = node.content else { throw .malformed("constructed OCTET STRING") }
      return .data(Array(b))
    case .sequence:
      guard case .constructed(let children) = node.content else { throw .malformed("array is not constructed") }
      var items: [PlistValue] = []
      for child in children { items.append(try value(child)) }
      return .array(items)
    case context16, .set:
      return .dictionary(try dictionary(node))
    default:
      throw .malformed("unsupported value tag \(node.identifier)")
    }
  }
}
