import Foundation

/// The shared corpus of real AASA files, which lives outside the repository (`../shared/aasa-corpus`, or
/// `AASA_CORPUS`); tests that need it are skipped when it is absent.
enum Corpus {
  static let directory: URL? = {
    let fm = FileManager.default
    if let env = ProcessInfo.processInfo.environment["AASA_CORPUS"], fm.fileExists(atPath: env) {
      return URL(fileURLWithPath: env)
    }
    // Tests/UniversalLinksTests/Model/CorpusSupport.swift → repository root → its sibling shared/.
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    let beside = root.deletingLastPathComponent().appendingPathComponent("shared/aasa-corpus")
    return fm.fileExists(atPath: beside.path) ? beside : nil
  }()

  static var isAvailable: Bool { directory != nil }

  static let skipMessage = "the shared AASA corpus (../shared/aasa-corpus or $AASA_CORPUS) is not present"

  static func files(extension ext: String, in subdirectory: String? = nil) -> [URL] {
    guard var dir = directory else { return [] }
    if let subdirectory { dir.appendPathComponent(subdirectory) }
    let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
    return names.filter { $0.hasSuffix("." + ext) }.sorted().map { dir.appendingPathComponent($0) }
  }

  static func bytes(_ url: URL) throws -> [UInt8] { Array(try Data(contentsOf: url)) }
}
