import ArgumentParser
import Foundation
import IPALinksKit
import UniversalLinks

/// `ipalinks aasa`: lint or display an apple-app-site-association file. Parsing only; the work is in
/// `UniversalLinks`.
struct AASACommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "aasa",
    abstract: "Validate or display an apple-app-site-association file.",
    subcommands: [Validate.self, Show.self]
  )

  /// `ipalinks aasa validate FILE`: every problem at once, with stable codes, like a linter.
  struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Report every problem in an AASA file, each with a stable code, a severity and a JSON pointer.",
      discussion: """
        FILE may be plain JSON or a PKCS#7-signed file; '-' reads standard input. The codes are listed in \
        docs/MATCHING.md.

        Exit codes: 0 no errors (warnings and notes allowed; with --strict, no warnings either); 1 at least one \
        error (or warning with --strict); 64 usage error; 66 the file cannot be read.
        """
    )

    @Argument(help: "The AASA file ('-' for standard input).")
    var file: String

    @Option(name: .customLong("app-id"), help: "Also check that this app (TEAMID.bundle.id) is listed in applinks.")
    var appID: String?

    @Option(name: .shortAndLong, help: "Output format: text, or json (JSON Lines, one diagnostic per line).")
    var format: OutputFormat = .text

    @Flag(help: "Fail on warnings too.")
    var strict = false

    func run() throws {
      let bytes = try AASAInput.read(file)
      let diagnostics = AASAValidator.validate(bytes, appID: appID)
      switch format {
      case .json:
        for d in diagnostics { print(AASAInput.jsonLine(DiagnosticLine(file: file, diagnostic: d))) }
      case .text:
        for d in diagnostics { print("\(file): \(d)") }
        let count = { (s: AASADiagnostic.Severity) in diagnostics.filter { $0.severity == s }.count }
        print(
          diagnostics.isEmpty
            ? "\(file): no problems found"
            : "\(file): \(count(.error)) error(s), \(count(.warning)) warning(s), \(count(.info)) note(s)")
      }
      let failing = diagnostics.contains { $0.severity == .error || (strict && $0.severity == .warning) }
      if failing { throw ExitCode(1) }
    }
  }

  /// `ipalinks aasa show FILE`: the normalized rules, per app.
  struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Print the rules of an AASA file per app, normalized (defaults merged, legacy forms converted).",
      discussion: """
        FILE may be plain JSON or a PKCS#7-signed file; '-' reads standard input. --format json prints the \
        normalized model.

        Exit codes: 0 shown; 64 usage error; 65 the file is not valid AASA JSON; 66 the file cannot be read.
        """
    )

    @Argument(help: "The AASA file ('-' for standard input).")
    var file: String

    @Option(name: .shortAndLong, help: "Output format: text or json.")
    var format: OutputFormat = .text

    func run() throws {
      let aasa = try AASAInput.parse(try AASAInput.read(file), path: file)
      switch format {
      case .json:
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(aasa), as: UTF8.self))
      case .text:
        print(AASAShow.render(aasa, name: file), terminator: "")
      }
    }
  }
}

/// One `aasa validate --format json` line.
struct DiagnosticLine: Encodable {
  var file: String
  var code: String
  var severity: String
  var pointer: String
  var message: String

  init(file: String, diagnostic d: AASADiagnostic) {
    self.file = file
    code = d.code.rawValue
    severity = d.severity.rawValue
    pointer = d.pointer
    message = d.message
  }
}

/// Reading AASA input for the `aasa` and `match` commands, with the documented exit codes.
enum AASAInput {
  /// Far above the 128 KB iOS accepts, so the validator can still report an oversized file, yet bounded:
  /// the input is untrusted and may be a pipe that never ends.
  static let maximumBytes = 4 << 20

  /// Reads a file, or standard input for `-`, up to ``maximumBytes``; exits 66 (EX_NOINPUT) when it cannot,
  /// 65 (EX_DATAERR) when it is larger.
  static func read(_ path: String) throws -> [UInt8] {
    var bytes: [UInt8] = []
    do {
      let handle = path == "-" ? FileHandle.standardInput : try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
      while bytes.count <= maximumBytes, let chunk = try handle.read(upToCount: 64 << 10), !chunk.isEmpty {
        bytes += chunk
      }
    } catch {
      Terminal.printError("ipalinks: cannot read \(path): \(error.localizedDescription)")
      throw ExitCode(66)
    }
    guard bytes.count <= maximumBytes else {
      Terminal.printError("ipalinks: \(path): larger than the \(maximumBytes >> 20) MiB read limit; refused")
      throw ExitCode(65)
    }
    return bytes
  }

  /// Parses; exits 65 (EX_DATAERR) with the parser's message when the bytes are not an AASA file at all.
  static func parse(_ bytes: [UInt8], path: String) throws -> AASAFile {
    do {
      return try AASAFile(bytes: bytes)
    } catch {
      Terminal.printError("ipalinks: \(path): \(error)")
      throw ExitCode(65)
    }
  }

  /// One compact JSON object with sorted keys, for JSON Lines output.
  static func jsonLine(_ value: some Encodable) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
  }
}

/// The text of `aasa show`.
enum AASAShow {
  static func render(_ file: AASAFile, name: String) -> String {
    var out = "\(name): \(file.byteCount) bytes"
    if file.isSigned { out += ", PKCS#7-signed" }
    if file.exceedsDeviceSizeLimit { out += ", OVER THE 128 KB DEVICE LIMIT: iOS ignores this file" }
    out += "\n"
    if let links = file.applinks {
      out += "applinks\n"
      for v in links.substitutionVariables {
        out += "  $(\(v.name)) = \(v.values.map(JSONPointer.quote).joined(separator: ", "))\n"
      }
      if let d = links.defaults { out += "  defaults \(d.summary)\n" }
      var claimed = Set<String>()
      for detail in links.details {
        let apps = detail.appIDs.filter { !claimed.contains($0) }
        let label = "details[\(detail.key.map(JSONPointer.quote) ?? String(detail.index))]"
        if apps.isEmpty {
          out +=
            "  \(label): never used (\(detail.appIDs.isEmpty ? "lists no app" : "its apps use an earlier entry"))\n"
          continue
        }
        claimed.formUnion(apps)
        let kind: String
        switch detail.rules {
        case .components: kind = "components"
        case .paths: kind = "legacy paths"
        case .none: kind = "no rules"
        }
        out += "  \(apps.joined(separator: ", "))\n    \(label), \(kind)"
        if let d = detail.defaults { out += ", defaults \(d.summary)" }
        out += "\n"
        let rules = file.matcher(appID: apps[0]).ruleReferences
        if rules.isEmpty { out += "    (matches nothing)\n" }
        for rule in rules {
          let verdict = rule.exclude ? "exclude" : "match  "
          out += "    [\(rule.componentIndex)] \(verdict) \(rule.pattern)\n"
        }
      }
    } else {
      out += "applinks: none (no universal links)\n"
    }
    for (service, list) in [
      ("webcredentials", file.webcredentials), ("appclips", file.appclips),
      ("activitycontinuation", file.activitycontinuation),
    ] {
      if let list { out += "\(service): \(list.apps.isEmpty ? "(no apps)" : list.apps.joined(separator: ", "))\n" }
    }
    return out
  }
}
