import Foundation

/// Builds big-endian or little-endian byte strings for parser tests, so each test shows its layout.
struct Bytes {
  var data: [UInt8] = []

  mutating func u32be(_ v: UInt32) {
    data += [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)]
  }
  mutating func u32le(_ v: UInt32) {
    data += [UInt8(v & 0xff), UInt8(v >> 8 & 0xff), UInt8(v >> 16 & 0xff), UInt8(v >> 24)]
  }
  mutating func raw(_ b: [UInt8]) { data += b }
  mutating func pad(to n: Int) { if data.count < n { data += [UInt8](repeating: 0, count: n - data.count) } }
}

enum Fixtures {
  /// `Tests/Fixtures`, found from this file so tests run from any working directory.
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fixtures")
  static let repo = root.deletingLastPathComponent().deletingLastPathComponent()
  static let samples = repo.appendingPathComponent("samples")
  /// `../shared` beside the repo: present on developer machines and in CI, absent in a user's clone.
  static let shared = repo.deletingLastPathComponent().appendingPathComponent("shared")

  static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }
  static func bytes(_ relative: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: root.appendingPathComponent(relative)))
  }
}

/// A minimal signed thin arm64 Mach-O: header, LC_CODE_SIGNATURE (and optional LC_ENCRYPTION_INFO_64), signature.
func makeMachO(signature: [UInt8]?, cryptid: UInt32? = nil) -> [UInt8] {
  var commands = Bytes()
  let sigOffset: UInt32 = 0x1000
  if let signature {
    commands.u32le(0x1d); commands.u32le(16); commands.u32le(sigOffset); commands.u32le(UInt32(signature.count))
  }
  if let cryptid {
    commands.u32le(0x2c); commands.u32le(24); commands.u32le(0x4000); commands.u32le(0x1000); commands.u32le(cryptid);
    commands.u32le(0)
  }
  var b = Bytes()
  b.raw([0xcf, 0xfa, 0xed, 0xfe])
  b.u32le(0x0100_000c); b.u32le(0); b.u32le(2)
  b.u32le(UInt32((signature != nil ? 1 : 0) + (cryptid != nil ? 1 : 0))); b.u32le(UInt32(commands.data.count));
  b.u32le(0); b.u32le(0)
  b.raw(commands.data)
  if let signature {
    b.pad(to: Int(sigOffset))
    b.raw(signature)
  }
  return b.data
}

/// A SuperBlob holding `blobs` (slot type, full blob bytes), laid out as codesign does.
func makeSuperBlob(_ blobs: [(UInt32, [UInt8])], countOverride: UInt32? = nil) -> [UInt8] {
  var offset = 12 + 8 * blobs.count
  var index = Bytes()
  var payload: [UInt8] = []
  for (type, blob) in blobs {
    index.u32be(type); index.u32be(UInt32(offset))
    payload += blob
    offset += blob.count
  }
  var b = Bytes()
  b.u32be(0xfade_0cc0); b.u32be(UInt32(offset)); b.u32be(countOverride ?? UInt32(blobs.count))
  b.raw(index.data); b.raw(payload)
  return b.data
}

func makeBlob(magic: UInt32, payload: [UInt8]) -> [UInt8] {
  var b = Bytes()
  b.u32be(magic); b.u32be(UInt32(payload.count + 8)); b.raw(payload)
  return b.data
}

/// A CodeDirectory header (version 0x20400) with identifier and optional team strings, no hash slots.
func makeCodeDirectory(identifier: String, team: String?, hashType: UInt8, version: UInt32 = 0x20400) -> [UInt8] {
  let headerSize = 0x58
  let identOffset = headerSize
  let teamOffset = identOffset + identifier.utf8.count + 1
  var b = Bytes()
  b.u32be(0xfade_0c02); b.u32be(0)  // length patched below
  b.u32be(version); b.u32be(0); b.u32be(0)
  b.u32be(UInt32(identOffset)); b.u32be(0); b.u32be(0); b.u32be(0)
  b.raw([hashType == 1 ? 20 : 32, hashType, 0, 12]); b.u32be(0); b.u32be(0)
  b.u32be(team == nil ? 0 : UInt32(teamOffset))
  b.pad(to: headerSize)
  b.raw(Array(identifier.utf8) + [0])
  if let team { b.raw(Array(team.utf8) + [0]) }
  let length = UInt32(b.data.count)
  b.data.replaceSubrange(
    4..<8, with: [UInt8(length >> 24), UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff)])
  return b.data
}
