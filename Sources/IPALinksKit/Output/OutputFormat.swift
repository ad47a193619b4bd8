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

/// The formats of `inspect`: every other command's three, and a table of one line per bundle, for batches.
public enum InspectFormat: String, CaseIterable, Sendable {
  /// For people: fitted to the terminal, coloured on one.
  case text
  /// One JSON document (an object for one input, an array for a batch), with a `generator` field.
  case json
  /// JSON Lines: one compact JSON object per input and line, written as each is ready.
  case jsonl
  /// One line per bundle, in columns that fit the terminal: what a batch of many apps reads best as.
  case table
}
