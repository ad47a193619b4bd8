import Foundation
import IPALinksKit
import Testing

/// One hostile AASA file through every command that reads AASA files: no raw control byte, bidi control or line
/// separator from the file reaches the terminal, and no line the file wrote appears as a line of its own.
struct HostileAASATests {
  static let app = "ABCDE12345.com.example.app"
  /// ESC sequences, a C1 CSI, a bidi override, line separators and a forged line, in every kind of string.
  static let evil = #"\u001b[31m\u009b2J\u202e\u2028\u2029\u0085\u007f\nFORGED ipalinks: ok\r"#

  static let json = """
    {"applinks": {"substitutionVariables": {"v\(evil)": ["a\(evil)", "b"]},
      "defaults": {"caseSensitive": false},
      "details": [
        {"appIDs": ["\(app)", "X\(evil).app"], "components": [
          {"/": "/p/\(evil)*", "?": {"k\(evil)": "*\(evil)"}, "#": "\(evil)", "comment": "\(evil)"},
          {"/": "/$(v\(evil))/*", "exclude": true}, {"/": "/$(undefined\(evil))"}, {"/\(evil)": "/x"}]},
        {"appIDs": ["\(app)"], "paths": ["NOT \(evil)", "\(evil)*"]}
      ]},
     "webcredentials": {"apps": ["\(evil)"]}, "unknown\(evil)": 1}
    """

  static func file() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-\(UUID().uuidString).json")
    try Data(json.utf8).write(to: path)
    return path.path
  }

  static func expectClean(_ run: CLI.Result, _ what: String) {
    for (stream, text) in [("stdout", run.stdout), ("stderr", run.stderr)] {
      let bad = text.unicodeScalars.filter { TerminalText.needsEscape($0, true) }
      #expect(bad.isEmpty, "\(what) \(stream): \(bad.map { "U+" + String($0.value, radix: 16) })")
      // Split at the scalars: Swift reads CR LF as one character, which would hide a line forged after one.
      let lines = text.unicodeScalars.split { $0 == "\n" || $0 == "\r" }
      #expect(!lines.contains { String($0).hasPrefix("FORGED") }, "\(what) \(stream): a forged line")
    }
    #expect(run.exited, "\(what) crashed")
  }

  @Test func everyAASACommandEscapesWhatTheFileSays() throws {
    let path = try Self.file()
    defer { try? FileManager.default.removeItem(atPath: path) }
    // The file must parse, or the commands would print little of it.
    let show = try CLI.run(["aasa", "show", path], environment: ["NO_COLOR": "1"])
    #expect(show.status == 0, "\(show.stderr)")
    #expect(show.stdout.contains(#"\u{1b}"#) && show.stdout.contains(#"\u{9b}"#) && show.stdout.contains(#"\u{202e}"#))
    Self.expectClean(show, "aasa show")
    let urls = ["https://e.com/p/x?k=1#y", "https://e.com/a/1", "https://e.com/x"]
    for arguments in [
      ["aasa", "validate", path], ["aasa", "validate", "--format", "json", path],
      ["match", "--aasa", path, "--app-id", Self.app] + urls,
      ["match", "--explain", "--aasa", path, "--app-id", Self.app] + urls,
      ["match", "--explain", "--aasa", path, "--app-id", "X" + "\u{1b}[31m.app"] + urls,
      ["match", "--format", "json", "--explain", "--aasa", path, "--app-id", Self.app] + urls,
    ] {
      Self.expectClean(
        try CLI.run(arguments, environment: ["NO_COLOR": "1"]), arguments.prefix(3).joined(separator: " "))
    }
  }
}
