import Foundation
import Testing
import UniversalLinks

/// The two AASA limits of SECURITY.md: patterns per file and `$(…)` expansion, each exactly at and one past it.
struct AASALimitsTests {
  static func file(paths: [String], variable: [String]? = nil) -> [UInt8] {
    var links: [String: Any] = ["details": [["appIDs": ["ABCDE12345.com.example.app"], "paths": paths]]]
    if let variable { links["substitutionVariables"] = ["v": variable] }
    return [UInt8](try! JSONSerialization.data(withJSONObject: ["applinks": links]))
  }

  @Test func patternsUpToTheLimitAreRead() throws {
    let (file, diagnostics) = AASAValidator.check(
      Self.file(paths: Array(repeating: "/a", count: AASAFile.maximumPatterns)))
    #expect(file != nil)
    #expect(!diagnostics.contains { $0.code == .tooManyPatterns })
  }

  @Test func onePatternPastTheLimitRefusesTheFile() throws {
    let bytes = Self.file(paths: Array(repeating: "/a", count: AASAFile.maximumPatterns + 1))
    let (file, diagnostics) = AASAValidator.check(bytes)
    #expect(file == nil)
    let finding = try #require(diagnostics.first { $0.code == .tooManyPatterns })
    #expect(finding.severity == .error)
    #expect(finding.message == "the file has 100001 patterns, over the limit of 100000; refused as hostile")
    #expect(throws: AASAError.tooManyPatterns(count: 100_001)) { try AASAFile(bytes: bytes) }
  }

  @Test func expansionUpToTheLimitIsRead() throws {
    // 1,000 references to a 1,000-value variable: exactly the limit.
    let values = (0..<1_000).map { "v\($0)" }
    let (file, _) = AASAValidator.check(Self.file(paths: Array(repeating: "/$(v)", count: 1_000), variable: values))
    #expect(file != nil)
  }

  @Test func expansionPastTheLimitRefusesTheFile() throws {
    let values = (0..<1_000).map { "v\($0)" }
    let bytes = Self.file(paths: Array(repeating: "/$(v)/$(v)", count: 501), variable: values)
    let (file, diagnostics) = AASAValidator.check(bytes)
    #expect(file == nil)
    let finding = try #require(diagnostics.first { $0.code == .expansionTooLarge })
    #expect(finding.message.contains("expand to 1002000 alternatives, over the limit of 1000000"))
  }

  @Test func builtinVariablesCountTheirValues() throws {
    // `$(lang)` alone has hundreds of values, so a few thousand references are enough to be refused.
    let lang = try #require(BuiltinVariables.values(of: "lang")).count
    let references = AASAFile.maximumExpansion / lang + 1
    let (file, diagnostics) = AASAValidator.check(Self.file(paths: Array(repeating: "/$(lang)", count: references)))
    #expect(file == nil)
    #expect(diagnostics.contains { $0.code == .expansionTooLarge })
  }
}
