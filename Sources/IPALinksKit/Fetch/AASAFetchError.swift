/// Why the fetcher could not be set up. Problems with one domain never throw: they become an
/// ``AASAFetchResult`` with a status, so one bad host never hides the others.
public enum AASAFetchError: Error, CustomStringConvertible, Equatable, Sendable {
  /// A `HOST1:PORT1:HOST2:PORT2` rule that does not parse.
  case invalidConnectTo(rule: String, reason: String)
  /// Extra trust roots that are not PEM certificates.
  case invalidTrustRoots(detail: String)
  case invalidOption(name: String, reason: String)

  public var description: String {
    switch self {
    case .invalidConnectTo(let rule, let reason): "connect-to rule \"\(rule)\": \(reason)"
    case .invalidTrustRoots(let detail): "extra trust roots: \(detail)"
    case .invalidOption(let name, let reason): "\(name): \(reason)"
    }
  }
}

extension AASAFetchError: CodedError {
  /// The code of the diagnostic this error becomes.
  public var code: DiagnosticCode {
    switch self {
    case .invalidConnectTo: .fetchInvalidConnectTo
    case .invalidTrustRoots: .fetchInvalidCA
    case .invalidOption: .fetchInvalidOption
    }
  }
}
