import Foundation
import Testing

@testable import IPALinksKit

/// `--aasa-dir`: files from a folder, no network at all.
struct AASADirectoryTests {
  /// A scratch folder with `example.test` (bare) and `json.test.json`, inside a parent that also holds a file the
  /// hostile names try to reach.
  static func withFolder(_ body: (URL) async throws -> Void) async throws {
    let parent = FileManager.default.temporaryDirectory.appendingPathComponent("ipalinks-aasa-\(UUID().uuidString)")
    let folder = parent.appendingPathComponent("aasa")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: parent) }
    try Data("{\"bare\":1}".utf8).write(to: folder.appendingPathComponent("example.test"))
    try Data("{\"json\":1}".utf8).write(to: folder.appendingPathComponent("json.test.json"))
    try Data(repeating: 0x20, count: 200_000).write(to: folder.appendingPathComponent("big.test"))
    try Data("secret".utf8).write(to: parent.appendingPathComponent("etc"))
    try Data("secret".utf8).write(to: parent.appendingPathComponent("etc.json"))
    try await body(folder)
  }

  static func fetch(_ host: String, from folder: URL) async throws -> AASAFetchResult {
    // No connect-to and no allowPrivate: any network attempt would fail loudly instead of reading the folder.
    let fetcher = try AASAFetcher(options: AASAFetchOptions(source: .both, aasaDirectories: [folder]))
    let request = AASARequest(host: host)
    return try #require(await fetcher.fetch([request])[request])
  }

  @Test func bareHostFileIsRead() async throws {
    try await Self.withFolder { folder in
      let result = try await Self.fetch("example.test", from: folder)
      #expect(result.status == .ok)
      #expect(result.source == .aasaDir)
      #expect(result.body == Array("{\"bare\":1}".utf8))
      #expect(result.bytes == 10)
      #expect(result.url == folder.appendingPathComponent("example.test").path)
    }
  }

  @Test func hostDotJSONFileIsRead() async throws {
    try await Self.withFolder { folder in
      let result = try await Self.fetch("json.test", from: folder)
      #expect(result.status == .ok)
      #expect(result.body == Array("{\"json\":1}".utf8))
    }
  }

  @Test func missingFileIsNotFound() async throws {
    try await Self.withFolder { folder in
      let result = try await Self.fetch("missing.test", from: folder)
      #expect(result.status == .notFound)
      #expect(result.source == .aasaDir)
      #expect(result.message.contains("missing.test"))
    }
  }

  /// An entry that is there but cannot be read (a folder, a device, a pipe) leaves the file unknown, a partial
  /// answer: it was `not-found`, which `refresh` recorded as the file removed, unblocking the host.
  @Test func anEntryThatCannotBeReadLeavesTheFileUnknown() async throws {
    try await Self.withFolder { folder in
      try FileManager.default.createDirectory(
        at: folder.appendingPathComponent("folder.test.json"), withIntermediateDirectories: true)
      try FileManager.default.createSymbolicLink(
        at: folder.appendingPathComponent("device.test"), withDestinationURL: URL(fileURLWithPath: "/dev/zero"))
      #expect(mkfifo(folder.appendingPathComponent("pipe.test").path, 0o600) == 0)
      for host in ["folder.test", "device.test", "pipe.test"] {
        let result = try await Self.fetch(host, from: folder)
        #expect(result.status == .unreadable && !result.status.isDefinite, "\(host): \(result.status)")
        #expect(result.message.hasSuffix("is not a regular file, so its AASA file is unknown"), "\(result.message)")
        #expect(result.body == nil)
      }
    }
  }

  @Test func fileOverTheCapIsTooLarge() async throws {
    try await Self.withFolder { folder in
      let result = try await Self.fetch("big.test", from: folder)
      #expect(result.status == .tooLarge)
      #expect(result.body == nil)
    }
  }

  @Test(arguments: ["../etc", "..", "../etc.json", "/etc/passwd", "sub/../../etc", "%2e%2e/etc"])
  func namesThatEscapeTheFolderAreRefused(host: String) async throws {
    try await Self.withFolder { folder in
      let result = try await Self.fetch(host, from: folder)
      #expect(result.status == .notFound)
      #expect(result.body == nil)
      #expect(result.message.contains("not a valid host name"))
    }
  }
}

/// `--aasa-dir` naming something that is no folder says which: missing, or a file.
@Suite struct AASADirectoryFlagTests {
  @Test func aFolderThatIsAFileOrMissingIsSaidSo() throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("aasa-\(UUID().uuidString)")
    try Data("x".utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let missing = file.path + "-missing"
    #expect {
      _ = try AASAFetchOptions(
        source: .cdn, offline: true, aasaDirectories: [file.path, missing], timeout: 10, concurrency: 8, caFile: nil,
        allowPrivate: false, connectTo: [], noCache: true, cacheDirectory: nil, environment: [:])
    } throws: { error in
      (error as? AASAFetchOptions.FlagProblems)?.lines == [
        "--offline reads only the cache, so it cannot be combined with --no-cache",
        "--aasa-dir \(file.path): not a folder", "--aasa-dir \(missing): no such folder",
      ]
    }
  }
}
