import Foundation

/// Writes reports as JSON through `Codable`, with sorted keys so output is stable for diffs and scripts.
public enum JSONReporter {
  /// `value` as JSON text without a trailing newline: indented for `--format json`, one line (`pretty: false`) for
  /// JSON Lines.
  public static func render<T: Encodable>(_ value: T, pretty: Bool = true) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting =
      pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
    // Encoding plain value types cannot fail; a failure here is a programming error worth seeing.
    guard let data = try? encoder.encode(value) else { return "{}" }
    return String(decoding: data, as: UTF8.self)
  }
}
