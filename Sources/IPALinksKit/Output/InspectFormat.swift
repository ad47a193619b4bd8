/// The formats of `inspect`: the shared ones plus JSON Lines, which only a batch needs.
public enum InspectFormat: String, CaseIterable, Sendable {
  /// ``TextReporter``'s text, for people.
  case text
  /// One pretty JSON object, or an array of them for a batch.
  case json
  /// One compact JSON object per input and line.
  case jsonl
}
