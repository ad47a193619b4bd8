/// One problem found in an AASA file, in the shape of a linter finding.
public struct AASADiagnostic: Sendable, Equatable, Codable, CustomStringConvertible {
  /// How much a finding matters.
  public enum Severity: String, Sendable, Codable, CaseIterable, Comparable {
    /// iOS rejects the file, or part of it silently does nothing.
    case error
    /// Legal, but almost certainly not what the author meant.
    case warning
    /// Worth knowing; harmless.
    case info

    private var rank: Int {
      switch self {
      case .error: 0
      case .warning: 1
      case .info: 2
      }
    }

    /// Errors sort first.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }
  }

  /// Stable identifier, safe to match on in scripts and suppress lists.
  public var code: AASADiagnosticCode
  /// Always `code.severity`; stored so JSON output carries it.
  public var severity: Severity
  /// RFC 6901 pointer to the offending value (`""` for the whole document).
  public var pointer: String
  /// Human-readable explanation.
  public var message: String

  /// Creates a diagnostic with the code's severity.
  public init(_ code: AASADiagnosticCode, at pointer: String, _ message: String) {
    self.code = code
    self.severity = code.severity
    self.pointer = pointer
    self.message = message
  }

  /// `error[invalid-app-id] /applinks/details/0/appIDs/0: …`
  public var description: String {
    "\(severity.rawValue)[\(code.rawValue)] \(pointer.isEmpty ? "(document)" : pointer): \(message)"
  }
}

/// The stable codes of ``AASADiagnostic``. Raw values never change once published.
public enum AASADiagnosticCode: String, Sendable, Codable, CaseIterable {
  /// The bytes are not strict JSON.
  case invalidJSON = "invalid-json"
  /// The top level is valid JSON but not an object.
  case notAnObject = "not-an-object"
  /// The body is larger than the 128 KB devices accept.
  case fileTooLarge = "file-too-large"
  /// The bytes look like a PKCS#7 envelope that cannot be unwrapped.
  case invalidEnvelope = "invalid-envelope"
  /// The file is PKCS#7-signed: accepted, but a legacy format.
  case signedEnvelope = "signed-envelope"
  /// An object repeats a key; the last value wins.
  case duplicateKey = "duplicate-key"
  /// There is no `applinks` section, so no universal link opens any app.
  case missingApplinks = "missing-applinks"
  /// The object has none of the services' keys: it is no AASA file (a gateway's error in JSON, served with 200).
  case noServiceKey = "no-service-key"
  /// A structural value has the wrong type (for example `details` is a string); it is ignored.
  case invalidType = "invalid-type"
  /// An app ID is not `TEAMID.bundle.id` (ten upper-case letters or digits, a dot, a bundle ID).
  case invalidAppID = "invalid-app-id"
  /// A detail has both `paths` and `components`; `paths` is ignored.
  case pathsWithComponents = "paths-with-components"
  /// A pattern (`/`, `?`, `#`, a query item or a `paths` entry) is not a string; the key is ignored.
  case invalidPattern = "invalid-pattern"
  /// `exclude`, `caseSensitive` or `percentEncoded` is not a boolean; the key is ignored.
  case invalidFlag = "invalid-flag"
  /// A pattern uses `$(name)` that is neither custom nor built-in; the pattern never matches.
  case undefinedVariable = "undefined-variable"
  /// A substitution variable value contains `$(`, which is not expanded.
  case nestedVariable = "nested-variable"
  /// A detail can never produce a match (no apps, no rules, only excludes, or every app claimed earlier).
  case detailNeverMatches = "detail-never-matches"
  /// A pattern can never decide, because an earlier pattern in the same detail matches every URL.
  case unreachablePattern = "unreachable-pattern"
  /// A pattern can never decide, because an earlier pattern in the same detail matches every URL it matches
  /// (proven: the earlier one's patterns include the later one's).
  case shadowedRule = "shadowed-rule"
  /// The app given with `--app-id` is not listed in `applinks`.
  case appNotListed = "app-not-listed"
  /// A pattern compared with percent-encoded URLs contains a space or non-ASCII character, so it never matches.
  case unencodedPattern = "unencoded-pattern"
  /// A key that no iOS version reads; often a typo such as `path` for `paths`.
  case unknownKey = "unknown-key"
  /// More patterns than ``AASAFile/maximumPatterns``; the file is refused.
  case tooManyPatterns = "too-many-patterns"
  /// `$(…)` references expand past ``AASAFile/maximumExpansion`` alternatives; the file is refused.
  case expansionTooLarge = "expansion-too-large"
  /// A path pattern starts with a scheme or a host (`https://…`, `github.com/…`): paths are matched without them.
  case patternHasHost = "pattern-has-host"
  /// An app ID's team prefix is ten digits: usually an App Store id, not a team ID.
  case numericTeamID = "numeric-team-id"
  /// The legacy `apps` array of `applinks` is not empty; iOS ignores its contents.
  case legacyAppsNotEmpty = "legacy-apps-not-empty"
  /// `webcredentials`, `appclips` or `activitycontinuation` sits inside `applinks`, where it is ignored.
  case misplacedSection = "misplaced-section"
  /// An app is listed by two `details` entries; iOS uses the first, so the later one never applies to it.
  case appListedTwice = "app-listed-twice"

  /// The fixed severity of this code.
  public var severity: AASADiagnostic.Severity {
    switch self {
    case .invalidJSON, .notAnObject, .fileTooLarge, .invalidEnvelope, .invalidType, .invalidAppID, .invalidPattern,
      .invalidFlag, .undefinedVariable, .nestedVariable, .appNotListed, .tooManyPatterns, .expansionTooLarge,
      .noServiceKey:
      .error
    case .duplicateKey, .missingApplinks, .pathsWithComponents, .detailNeverMatches, .unreachablePattern, .shadowedRule,
      .unencodedPattern, .patternHasHost, .numericTeamID, .legacyAppsNotEmpty, .misplacedSection, .appListedTwice:
      .warning
    case .signedEnvelope, .unknownKey:
      .info
    }
  }
}
