import UniversalLinks

/// The output of `ipalinks aasa validate`: every finding, named by the file, like a linter's.
public enum AASAValidationReporter {
  /// One JSON Lines object: a finding and the file it is in.
  public struct Line: Encodable, Sendable {
    /// The file as given on the command line (`-` for standard input).
    public var file: String
    /// The finding's stable code.
    public var code: String
    /// `error`, `warning` or `info`.
    public var severity: String
    /// RFC 6901 pointer to the value (`""` for the whole document).
    public var pointer: String
    /// The explanation.
    public var message: String

    /// The line for one finding in `file`.
    public init(file: String, diagnostic d: AASADiagnostic) {
      self.file = file
      code = d.code.rawValue
      severity = d.severity.rawValue
      pointer = d.pointer
      message = d.message
    }
  }

  /// `file: error[code] /pointer: message` per finding, then a count (or "no problems found").
  public static func text(_ diagnostics: [AASADiagnostic], file: String) -> String {
    let file = TerminalText.escape(file)
    var out = diagnostics.map { "\(file): \(TerminalText.escape($0.description))\n" }.joined()
    let count = { (s: AASADiagnostic.Severity) in diagnostics.filter { $0.severity == s }.count }
    out +=
      diagnostics.isEmpty
      ? "\(file): no problems found\n"
      : "\(file): \(count(.error)) error(s), \(count(.warning)) warning(s), \(count(.info)) note(s)\n"
    return out
  }

  /// JSON Lines: one compact object (``Line``) per finding; nothing when there is none.
  public static func jsonLines(_ diagnostics: [AASADiagnostic], file: String) -> String {
    diagnostics.map { JSONReporter.render(Line(file: file, diagnostic: $0), pretty: false) + "\n" }.joined()
  }
}
