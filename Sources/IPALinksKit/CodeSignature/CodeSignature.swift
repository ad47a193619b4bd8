/// Why a code signature could not be read. Each case names the executable.
public enum CodeSignatureError: Error, CustomStringConvertible, Equatable, Sendable {
  /// The signature, or a blob or field inside it, points past the slice or the file; `what` says which part.
  case outOfRange(file: String, what: String)
  /// A blob without the magic number its slot requires, so it is damaged or not an Apple signature.
  case badMagic(file: String, what: String, magic: UInt32)
  /// A structure too short, or a count past a limit such as ``CodeSignatureReader/maximumBlobCount``.
  case malformed(file: String, what: String)
  /// An entitlements blob over ``CodeSignatureReader/maximumEntitlementsSize``, refused rather than allocated.
  case tooLarge(file: String, what: String, size: Int, limit: Int)

  /// One line naming the executable and the faulty part of its signature, as printed in diagnostics.
  public var description: String {
    switch self {
    case .outOfRange(let file, let what): "\(file): code signature \(what) lies outside the file"
    case .badMagic(let file, let what, let magic):
      "\(file): code signature \(what) has bad magic 0x\(String(magic, radix: 16))"
    case .malformed(let file, let what): "\(file): malformed code signature (\(what))"
    case .tooLarge(let file, let what, let size, let limit):
      "\(file): code signature \(what) is \(size) bytes, over the \(limit.byteCount) limit"
    }
  }
}

/// What a CodeDirectory says about who signed the code.
public struct CodeDirectory: Sendable, Equatable {
  /// The SuperBlob slot it came from: 0 for the primary, 0x1000–0x1004 for alternates signed with other hash types.
  public var slot: UInt32
  /// The CodeDirectory format version, which decides which header fields exist (the team ID needs 0x20200).
  public var version: UInt32
  /// Apple's hash type code (1 SHA-1, 2 SHA-256, 3 SHA-256 truncated, 4 SHA-384); ranks the directories for
  /// ``CodeSignature/bestCodeDirectory``.
  public var hashType: UInt8
  /// The signing identifier, normally the bundle id.
  public var identifier: String
  /// Only present from version 0x20200 on, and only when signed by a team.
  public var teamID: String?
}

/// The parts of one slice's embedded signature that carry identity and entitlements.
public struct CodeSignature: Sendable, Equatable {
  /// All CodeDirectories found (slot 0 and alternates 0x1000–0x1004).
  public var codeDirectories: [CodeDirectory] = []
  /// The raw payload of the XML entitlements blob (slot 5), which may actually be a binary plist.
  public var xmlEntitlements: [UInt8]?
  /// The raw payload of the DER entitlements blob (slot 7).
  public var derEntitlements: [UInt8]?
  /// Non-fatal oddities found while reading (e.g. duplicate entitlement blobs).
  public var warnings: [String] = []

  /// The CodeDirectory the kernel would use: the one with the strongest hash type it knows.
  public var bestCodeDirectory: CodeDirectory? {
    codeDirectories.max { Self.hashRank($0.hashType) < Self.hashRank($1.hashType) }
  }

  /// xnu's `hashPriorities`: SHA-1 < SHA-256 truncated < SHA-256 < SHA-384; unknown types rank lowest.
  static func hashRank(_ type: UInt8) -> Int {
    switch type {
    case 1: 1
    case 3: 2
    case 2: 3
    case 4: 4
    default: 0
    }
  }
}

/// Reads the embedded signature of a Mach-O slice, blob by blob, never the whole signature range.
public enum CodeSignatureReader {
  /// Real signatures have under a dozen blobs; a larger count is treated as hostile.
  public static let maximumBlobCount: UInt32 = 64
  /// Entitlement blobs are kilobytes; this bounds what a hostile signature can make us allocate.
  public static let maximumEntitlementsSize = 1 << 20
  /// Signing and team identifiers are short reverse-DNS names; a longer one is read as malformed, not allocated.
  public static let maximumStringSize = 1024

  static let superBlobMagic: UInt32 = 0xfade_0cc0
  static let codeDirectoryMagic: UInt32 = 0xfade_0c02
  static let entitlementsMagic: UInt32 = 0xfade_7171
  static let derEntitlementsMagic: UInt32 = 0xfade_7172

  /// Reads `slice`'s signature from `source`; nil when the slice is unsigned.
  public static func read(_ source: any ByteSource, slice: MachOSlice) throws -> CodeSignature? {
    guard let range = slice.codeSignature else { return nil }
    let file = source.name
    let start = slice.offset + UInt64(range.offset)
    var length = UInt64(range.size)
    guard UInt64(range.offset) < slice.size, length <= slice.size - UInt64(range.offset), start + length <= source.size
    else {
      throw CodeSignatureError.outOfRange(
        file: file, what: "range \(range.offset)+\(range.size) (slice of \(slice.size) bytes)")
    }
    func bytes(_ offset: UInt64, _ count: Int, _ what: String) throws -> [UInt8] {
      guard offset <= length, UInt64(count) <= length - offset else {
        throw CodeSignatureError.outOfRange(file: file, what: what)
      }
      return try source.read(at: start + offset, count: count)
    }

    let header = ByteReader(try bytes(0, 12, "SuperBlob header"))
    let magic = header.u32(0, bigEndian: true)!
    guard magic == superBlobMagic else {
      throw CodeSignatureError.badMagic(file: file, what: "SuperBlob", magic: magic)
    }
    // The kernel (xnu's cs_validate_csblob) takes the SuperBlob's own length as the signature's extent, refuses
    // one shorter than its header or longer than the range, and requires every blob to lie inside it.
    let superBlobLength = header.u32(4, bigEndian: true)!
    guard superBlobLength >= 12, UInt64(superBlobLength) <= length else {
      throw CodeSignatureError.malformed(
        file: file, what: "SuperBlob length \(superBlobLength), signature range \(length) bytes")
    }
    length = UInt64(superBlobLength)
    let count = header.u32(8, bigEndian: true)!
    guard count <= maximumBlobCount else {
      throw CodeSignatureError.malformed(file: file, what: "SuperBlob claims \(count) blobs, limit \(maximumBlobCount)")
    }
    let index = ByteReader(try bytes(12, Int(count) * 8, "SuperBlob index of \(count) entries"))
    var entries: [(type: UInt32, offset: UInt32)] = (0..<Int(count)).map {
      (index.u32($0 * 8, bigEndian: true)!, index.u32($0 * 8 + 4, bigEndian: true)!)
    }
    // Visit blobs in file order so a streamed archive entry is read forward only.
    entries.sort { $0.offset < $1.offset }

    var signature = CodeSignature()
    for entry in entries {
      let isCD = entry.type == 0 || (0x1000...0x1004).contains(entry.type)
      let isXML = entry.type == 5
      let isDER = entry.type == 7
      guard isCD || isXML || isDER else { continue }
      let blobHeader = ByteReader(try bytes(UInt64(entry.offset), 8, "blob in slot 0x\(String(entry.type, radix: 16))"))
      let blobMagic = blobHeader.u32(0, bigEndian: true)!
      let blobLength = blobHeader.u32(4, bigEndian: true)!
      guard blobLength >= 8, UInt64(entry.offset) + UInt64(blobLength) <= length else {
        throw CodeSignatureError.outOfRange(
          file: file, what: "blob in slot 0x\(String(entry.type, radix: 16)) (\(blobLength) bytes)")
      }
      if isCD {
        guard blobMagic == codeDirectoryMagic else {
          throw CodeSignatureError.badMagic(file: file, what: "CodeDirectory", magic: blobMagic)
        }
        signature.codeDirectories.append(
          try codeDirectory(file: file, slot: entry.type, length: blobLength) { offset, count in
            try bytes(UInt64(entry.offset) + offset, count, "CodeDirectory field")
          })
        continue
      }
      let expected = isXML ? entitlementsMagic : derEntitlementsMagic
      guard blobMagic == expected else {
        throw CodeSignatureError.badMagic(
          file: file, what: isXML ? "entitlements blob" : "DER entitlements blob", magic: blobMagic)
      }
      let payloadSize = Int(blobLength) - 8
      guard payloadSize <= maximumEntitlementsSize else {
        throw CodeSignatureError.tooLarge(
          file: file, what: isXML ? "entitlements" : "DER entitlements", size: payloadSize,
          limit: maximumEntitlementsSize)
      }
      let payload = try bytes(UInt64(entry.offset) + 8, payloadSize, "entitlements payload")
      if isXML {
        if signature.xmlEntitlements != nil {
          signature.warnings.append(
            "more than one XML entitlements blob; the kernel rejects such a signature; using the first")
        } else {
          signature.xmlEntitlements = payload
        }
      } else {
        if signature.derEntitlements != nil {
          signature.warnings.append(
            "more than one DER entitlements blob; the kernel rejects such a signature; using the first")
        } else {
          signature.derEntitlements = payload
        }
      }
    }
    return signature
  }

  /// Parses a CodeDirectory from its header and the two strings it points to, not its hash slots.
  private static func codeDirectory(
    file: String, slot: UInt32, length: UInt32, read: (UInt64, Int) throws -> [UInt8]
  ) throws -> CodeDirectory {
    let headerSize = min(Int(length), 0x58)
    guard headerSize >= 0x2c else {
      throw CodeSignatureError.malformed(file: file, what: "CodeDirectory of \(length) bytes")
    }
    let h = ByteReader(try read(0, headerSize))
    let version = h.u32(8, bigEndian: true)!
    let identOffset = h.u32(0x14, bigEndian: true)!
    let hashType = h.u8(0x25)!
    // As xnu's cs_validate_codedirectory: each string starts inside the CodeDirectory and ends with a NUL
    // inside it, or the kernel refuses the signature; reading "" or nil instead would pass a broken identity.
    func string(_ name: String, at offset: UInt32) throws -> String {
      guard offset < length else {
        throw CodeSignatureError.malformed(
          file: file, what: "CodeDirectory \(name) at offset \(offset), past its \(length) bytes")
      }
      let available = min(maximumStringSize, Int(length - offset))
      guard let value = ByteReader(try read(UInt64(offset), available)).cString(0, limit: available) else {
        let why =
          Int(length - offset) > maximumStringSize
          ? "longer than \(maximumStringSize) bytes" : "without a terminating NUL inside the CodeDirectory"
        throw CodeSignatureError.malformed(file: file, what: "CodeDirectory \(name) \(why)")
      }
      return value
    }
    let identifier = try string("identifier", at: identOffset)
    var team: String?
    if version >= 0x20200, let teamOffset = h.u32(0x30, bigEndian: true), teamOffset != 0 {
      team = try string("team identifier", at: teamOffset)
    }
    return CodeDirectory(slot: slot, version: version, hashType: hashType, identifier: identifier, teamID: team)
  }
}
