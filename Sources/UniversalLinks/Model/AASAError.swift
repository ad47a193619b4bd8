/// Why an AASA file could not be read at all.
///
/// Anything short of these is tolerated while parsing, the way iOS tolerates it, and reported by
/// ``AASAValidator`` instead.
public enum AASAError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The bytes are not strict JSON.
  case invalidJSON(line: Int, column: Int, reason: String)
  /// The JSON is cut short: the bytes end before the document does, as in a truncated download.
  case endsEarly(line: Int, column: Int, reason: String)
  /// The JSON top level is not an object.
  case notAnObject(found: String)
  /// The bytes look like a PKCS#7 envelope but could not be unwrapped.
  case invalidEnvelope(CMSEnvelope.Error)
  /// The input is larger than ``AASAError/maximumInputSize``; refused before reading it.
  case inputTooLarge(byteCount: Int)
  /// More patterns than ``AASAFile/maximumPatterns``.
  case tooManyPatterns(count: Int)
  /// `$(…)` references would expand to more than ``AASAFile/maximumExpansion`` alternatives.
  case expansionTooLarge(alternatives: Int)

  /// The largest input the parser reads, far above what iOS accepts, so hostile input stays bounded.
  public static let maximumInputSize = 8 << 20

  /// One line for diagnostics; when a limit was passed, it names the limit.
  public var description: String {
    switch self {
    case .invalidJSON(let line, let column, let reason): "invalid JSON at line \(line), column \(column): \(reason)"
    case .endsEarly(let line, let column, let reason) where reason.hasPrefix("inside "):
      "the file ends early, at line \(line), column \(column), \(reason)"
    case .endsEarly(let line, let column, let reason):
      "the file ends early, at line \(line), column \(column), before the JSON document does"
        + (reason == "unexpected end of input" ? "" : " (\(reason))")
    case .notAnObject(let found): "the top level is \(found), not an object"
    case .invalidEnvelope(let error): "\(error)"
    case .inputTooLarge(let count): "input is \(count) bytes, over the \(Self.maximumInputSize)-byte reading limit"
    case .tooManyPatterns(let count):
      "the file has \(count) patterns, over the limit of \(AASAFile.maximumPatterns); refused as hostile"
    case .expansionTooLarge(let alternatives):
      "its $(…) variables expand to \(alternatives) alternatives, over the limit of \(AASAFile.maximumExpansion); "
        + "refused as hostile"
    }
  }
}
