import Foundation

/// Makes real archives with Info-ZIP's `zip` in a temporary folder, so the zip reader is tested on
/// files another implementation wrote.
struct ZipTool {
  let folder: URL

  init() throws {
    folder = FileManager.default.temporaryDirectory.appendingPathComponent("ipalinks-zip-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  }

  func write(_ relative: String, _ bytes: [UInt8]) throws {
    let url = folder.appendingPathComponent("tree").appendingPathComponent(relative)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(bytes).write(to: url)
  }

  /// `Payload/A.app` with a minimal Info.plist and `xcent` as its entitlements: an app around one file under test.
  func writeApp(bundleID: String = "com.example.a", xcent: [UInt8]) throws {
    let info =
      #"<?xml version="1.0"?><plist version="1.0"><dict><key>CFBundleIdentifier</key><string>"#
      + bundleID + #"</string></dict></plist>"#
    try write("Payload/A.app/Info.plist", Array(info.utf8))
    try write("Payload/A.app/archived-expanded-entitlements.xcent", xcent)
  }

  /// Zips everything written so far into `name`, with extra `zip` flags (e.g. `-0` to store).
  func zip(_ name: String, flags: [String] = []) throws -> String {
    let out = folder.appendingPathComponent(name).path
    try run(["zip", "-q", "-r", "-X"] + flags + [out, "."], in: folder.appendingPathComponent("tree"))
    return out
  }

  /// Streams `bytes` through `zip -` so the entry has a data descriptor and ZIP64 fields, like piped archives.
  func zipStreamed(_ name: String, _ bytes: [UInt8]) throws -> String {
    let out = folder.appendingPathComponent(name).path
    let input = folder.appendingPathComponent("stdin.bin")
    try Data(bytes).write(to: input)
    try run(["sh", "-c", "zip -q \(out) - < \(input.path)"], in: folder)
    return out
  }

  private func run(_ args: [String], in directory: URL) throws {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = args
    p.currentDirectoryURL = directory
    try p.run()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
  }

  func cleanUp() { try? FileManager.default.removeItem(at: folder) }
}

/// Deterministic pseudo-random bytes (xorshift) that deflate cannot shrink away.
func noise(_ count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [UInt8] {
  var x = seed
  return (0..<count).map { _ in
    x ^= x << 13; x ^= x >> 7; x ^= x << 17
    return UInt8(truncatingIfNeeded: x)
  }
}
