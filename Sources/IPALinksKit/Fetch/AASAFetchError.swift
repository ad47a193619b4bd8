/// Why the fetcher could not be set up. Problems with one domain never throw: they become an
/// ``AASAFetchResult`` with a status, so one bad host never hides the others.
public enum AASAFetchError: Error, CustomStringConvertible, Equatable, Sendable {
  /// A `HOST1:PORT1:HOST2:PORT2` rule that does not parse.
  case invalidConnectTo(rule: String, reason: String)
  /// Extra trust roots that are not PEM certificates.
  case invalidTrustRoots(detail: String)
  /// A numeric option below its minimum (timeout, concurrency, maximum bytes); `name` is the field.
  case invalidOption(name: String, reason: String)

  /// The offending rule or option and the reason, as the CLI prints it.
  public var description: String {
    switch self {
    case .invalidConnectTo(let rule, let reason): "connect-to rule \"\(rule)\": \(reason)"
    case .invalidTrustRoots(let detail): "extra trust roots: \(detail)"
    case .invalidOption(let name, let reason): "\(name): \(reason)"
    }
  }
}

extension AASAFetchError: CodedError {
  /// A stable code (`fetch.invalid-…`) that JSON output and scripts can match on, unlike the wording.
  public var code: DiagnosticCode {
    switch self {
    case .invalidConnectTo: .fetchInvalidConnectTo
    case .invalidTrustRoots: .fetchInvalidCA
    case .invalidOption: .fetchInvalidOption
    }
  }
}
