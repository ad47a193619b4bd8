import SwiftASN1

/// Unwraps the content of a CMS / PKCS#7 `SignedData` envelope.
///
/// Provisioning profiles and AASA files from old servers are signed this way; we only need the signed
/// payload, not the signature. Parsing is a real BER walk (swift-asn1), because Apple's tools emit both
/// definite-length DER and indefinite-length BER, and the payload OCTET STRING may be split into chunks.
public enum CMSEnvelope {
  /// Why an envelope could not be unwrapped.
  public enum Error: Swift.Error, CustomStringConvertible, Equatable, Sendable {
    /// Not valid BER, or not shaped like ContentInfo around SignedData, or content over
    /// ``CMSEnvelope/maximumContentSize``; the string says which.
    case malformed(String)
    /// A ContentInfo of another type, such as encrypted EnvelopedData, which has no payload we can read.
    case notSignedData
    /// A detached signature: SignedData without the signed content, so there is nothing to unwrap.
    case noContent

    /// The reason in words, as diagnostics show it for a profile or an AASA file.
    public var description: String {
      switch self {
      case .malformed(let why): "not a valid CMS envelope: \(why)"
      case .notSignedData: "CMS envelope is not SignedData (OID 1.2.840.113549.1.7.2)"
      case .noContent: "CMS SignedData carries no encapsulated content (detached signature)"
      }
    }
  }

  /// The largest payload we assemble, so a hostile envelope cannot make us allocate without bound.
  public static let maximumContentSize = 8 << 20
  /// The most ASN.1 values an envelope may hold. A profile holds a few thousand (its certificates and its payload);
  /// 8 MB of empty BER chunks are 4 million, which the parser turned into a tree for 17 s and 450 MB each.
  public static let maximumValues = 100_000

  static let signedDataOID: ArraySlice<UInt8> = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]

  /// Returns true when `bytes` start like a CMS ContentInfo (a SEQUENCE holding the signedData OID).
  public static func looksLikeEnvelope(_ bytes: some Collection<UInt8>) -> Bool {
    let head = Array(bytes.prefix(32))
    guard head.first == 0x30 else { return false }
    return head.indices.contains { i in
      head[i...].starts(with: [0x06, 0x09] + Array(signedDataOID))
    }
  }

  /// The encapsulated content of a `ContentInfo { signedData, [0] SignedData { … encapContentInfo … } }`.
  public static func content(of bytes: [UInt8]) throws(Error) -> [UInt8] {
    let root: ASN1Node
    guard valueCount(bytes, limit: maximumValues) <= maximumValues else {
      throw .malformed("more than \(maximumValues) ASN.1 values")
    }
    do { root = try BER.parse(bytes) } catch { throw .malformed(reason(error)) }
    guard root.identifier == .sequence, case .constructed(let info) = root.content else {
      throw .malformed("top level is not a SEQUENCE")
    }
    var items = info.makeIterator()
    guard let oid = items.next(), oid.identifier == .objectIdentifier, case .primitive(let oidBytes) = oid.content
    else { throw .malformed("ContentInfo has no content type") }
    guard oidBytes.elementsEqual(signedDataOID) else { throw .notSignedData }
    guard let explicit = items.next(), case .constructed(let wrapped) = explicit.content,
      let signedData = wrapped.first(where: { _ in true }), case .constructed(let fields) = signedData.content
    else { throw .malformed("SignedData is missing") }
    // SignedData ::= SEQUENCE { version, digestAlgorithms SET, encapContentInfo SEQUENCE, ... }
    guard let encap = fields.first(where: { $0.identifier == .sequence }),
      case .constructed(let encapFields) = encap.content
    else { throw .malformed("encapContentInfo is missing") }
    var encapItems = encapFields.makeIterator()
    _ = encapItems.next()  // eContentType, normally id-data
    guard let eContent = encapItems.next(), case .constructed(let eWrapped) = eContent.content,
      let octets = eWrapped.first(where: { _ in true })
    else { throw .noContent }
    var out: [UInt8] = []
    try collectOctets(octets, into: &out)
    return out
  }

  /// How many BER values `bytes` holds, counted by walking their headers without building anything; past `limit`,
  /// `limit + 1`. What the walk cannot read it stops at, leaving the parser to say what is wrong.
  static func valueCount(_ bytes: [UInt8], limit: Int) -> Int {
    let n = bytes.count
    var i = 0
    var count = 0
    // The end of each constructed value open around the position: an offset, or nil until its end-of-contents.
    var ends: [Int?] = []
    while i < n {
      if let open = ends.last {
        if let end = open {
          if i >= end {
            ends.removeLast()
            continue
          }
        } else if i + 1 < n && bytes[i] == 0 && bytes[i + 1] == 0 {
          ends.removeLast()
          i += 2
          continue
        }
      } else if count > 0 {
        break
      }
      let tag = bytes[i]
      i += 1
      if tag & 0x1F == 0x1F {
        while i < n && bytes[i] & 0x80 != 0 { i += 1 }
        i += 1
      }
      guard i < n else { break }
      let first = bytes[i]
      i += 1
      var length: Int?
      if first < 0x80 {
        length = Int(first)
      } else if first != 0x80 {
        let width = Int(first & 0x7F)
        guard width <= 4, i + width <= n else { break }
        length = bytes[i..<i + width].reduce(0) { $0 << 8 | Int($1) }
        i += width
      }
      count += 1
      if count > limit { return count }
      if tag & 0x20 != 0 {
        ends.append(length.map { i + $0 })
      } else {
        guard let length else { break }
        i += length
      }
    }
    return count
  }

  /// BER allows an OCTET STRING to be constructed from chunks; concatenate them.
  /// swift-asn1's error in words: its description names its own source file and line.
  static func reason(_ error: any Swift.Error) -> String {
    guard let asn1 = error as? ASN1Error else { return "\(error)" }
    switch asn1.code {
    case .truncatedASN1Field: return "a length runs past the end of the data"
    case .unsupportedFieldLength: return "a length field is too large"
    default: return "not valid BER (\(asn1.code))"
    }
  }

  private static func collectOctets(_ node: ASN1Node, into out: inout [UInt8]) throws(Error) {
    switch node.content {
    case .primitive(let bytes):
      guard out.count + bytes.count <= maximumContentSize else { throw .malformed("content exceeds 8 MiB") }
      out.append(contentsOf: bytes)
    case .constructed(let children):
      for child in children { try collectOctets(child, into: &out) }
    }
  }
}
