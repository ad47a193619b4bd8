/// The formats `inspect` can print. One reporter type per format.
public enum OutputFormat: String, CaseIterable, Sendable {
  case text
  case json
}
