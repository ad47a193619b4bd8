/// The `--format` of the commands that print records: the same three names everywhere.
public enum OutputFormat: String, CaseIterable, Sendable {
  /// For people: fitted to the terminal, coloured on one.
  case text
  /// One JSON document, indented, with a `generator` field.
  case json
  /// JSON Lines: one compact JSON object per record and line, written as each is ready.
  case jsonl
}

/// The `--format` of the commands whose result is one whole (`diff`, `aasa show`): text, or one JSON document.
public enum DocumentFormat: String, CaseIterable, Sendable {
  /// For people: fitted to the terminal, coloured on one.
  case text
  /// One JSON document, indented, with a `generator` field.
  case json
}

/// The formats of `inspect`; the same as every other command's.
public typealias InspectFormat = OutputFormat
