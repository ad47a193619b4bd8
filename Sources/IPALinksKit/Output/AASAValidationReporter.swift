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

  /// The `aasa validate --format json` document: the file, whether it is valid (no error), the counts, and every
  /// finding; a clean file gives a document that says so, not nothing.
  public struct Document: Encodable, Sendable {
    /// The file as given on the command line.
    public var file: String
    /// True when the file has no error (warnings and notes allowed).
    public var valid: Bool
    /// How many findings are errors.
    public var errors: Int
    /// How many findings are warnings.
    public var warnings: Int
    /// How many findings are notes (`info`).
    public var notes: Int
    /// Every finding, in the order the validator found them.
    public var diagnostics: [Line]
  }

  /// `file: error[code] /pointer: message` per finding, then the counts (or "no problems found").
  public static func text(
    _ diagnostics: [AASADiagnostic], file: String, style: TextStyle = TextStyle(useColor: false)
  ) -> String {
    let file = TerminalText.escape(file)
    var out = ""
    for d in diagnostics {
      let where_ = d.pointer.isEmpty ? "(document)" : d.pointer
      let lines = style.findingLines(
        d.severity.rawValue, d.code.rawValue, TerminalText.escape("\(where_): \(d.message)"), lead: "\(file): ",
        rest: "    ")
      out += lines.map { $0 + "\n" }.joined()
    }
    let count = { (s: AASADiagnostic.Severity) in diagnostics.filter { $0.severity == s }.count }
    let summary =
      diagnostics.isEmpty
      ? "no problems found"
      : "\(TerminalText.count(count(.error), "error")), \(TerminalText.count(count(.warning), "warning")), "
        + TerminalText.count(count(.info), "note")
    // A long path keeps the counts whole on their own line rather than splitting them.
    out += file.count + 2 + summary.count <= style.width ? "\(file): \(summary)\n" : "\(file):\n    \(summary)\n"
    return out
  }

  /// The whole result as one JSON ``Document``.
  public static func document(_ diagnostics: [AASADiagnostic], file: String) -> String {
    let count = { (s: AASADiagnostic.Severity) in diagnostics.filter { $0.severity == s }.count }
    return JSONReporter.document(
      Document(
        file: file, valid: count(.error) == 0, errors: count(.error), warnings: count(.warning), notes: count(.info),
        diagnostics: diagnostics.map { Line(file: file, diagnostic: $0) })) + "\n"
  }

  /// JSON Lines: one compact object (``Line``) per finding; nothing when there is none.
  public static func jsonLines(_ diagnostics: [AASADiagnostic], file: String) -> String {
    diagnostics.map { JSONReporter.render(Line(file: file, diagnostic: $0), pretty: false) + "\n" }.joined()
  }
}
