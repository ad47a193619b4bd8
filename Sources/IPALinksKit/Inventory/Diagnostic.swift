/// One finding about the input, with a stable code scripts can match on.
public struct Diagnostic: Sendable, Equatable, Codable {
  /// How much a finding matters; an error makes the report partial or unreadable.
  public enum Severity: String, Sendable, Codable, Comparable {
    /// Worth knowing; the result is still complete.
    case info
    /// Something is off but nothing was lost.
    case warning
    /// Part of the input could not be read or checked: the report is partial (or unreadable when nothing was read).
    case error

    private var rank: Int {
      switch self {
      case .info: 0
      case .warning: 1
      case .error: 2
      }
    }
    /// Info is the least, error the greatest.
    public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
  }

  /// How much the finding matters.
  public var severity: Severity
  /// Stable, dotted identifier such as `archive.entry-too-large`; documented in the README.
  public var code: DiagnosticCode
  /// One line naming the file or value and the problem.
  public var message: String

  /// Creates a finding.
  public init(_ severity: Severity, _ code: DiagnosticCode, _ message: String) {
    self.severity = severity
    self.code = code
    self.message = message
  }

  private enum CodingKeys: String, CodingKey { case severity, code, message }

  /// Reads a saved finding. A code this version does not know (one a newer version added) is read as
  /// `inventory.unknown-code`, the code put before the message: the whole report was refused, and the app with it.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    severity = try c.decode(Severity.self, forKey: .severity)
    let raw = try c.decode(String.self, forKey: .code)
    message = try c.decode(String.self, forKey: .message)
    if let known = DiagnosticCode(rawValue: raw) {
      code = known
    } else {
      code = .inventoryUnknownCode
      message = "[\(raw)] " + message
    }
  }

  /// Wraps any error the readers throw, keeping its code when it has one.
  public init(_ error: any Error, severity: Severity = .error, fallbackCode: DiagnosticCode) {
    self.severity = severity
    self.code = (error as? any CodedError)?.code ?? fallbackCode
    self.message = "\(error)"
  }
}

/// An error that carries a stable diagnostic code.
public protocol CodedError: Error, CustomStringConvertible {
  /// The code a diagnostic made from this error carries.
  var code: DiagnosticCode { get }
}

extension ArchiveError: CodedError {
  /// The code of the diagnostic this error becomes.
  public var code: DiagnosticCode {
    switch self {
    case .notAZip: .archiveNotZip
    case .corrupt: .archiveCorrupt
    case .unreadable: .inputUnreadable
    case .tooManyEntries: .archiveTooManyEntries
    case .entryMissing: .archiveEntryMissing
    case .entryTooLarge: .archiveEntryTooLarge
    case .entryEncrypted: .archiveEntryEncrypted
    case .readFailed: .archiveReadFailed
    case .outOfBounds: .archiveOutOfBounds
    case .archiveInflatesTooMuch: .archiveInflatesTooMuch
    }
  }
}

extension PlistError: CodedError {
  /// The code of the diagnostic this error becomes.
  public var code: DiagnosticCode {
    switch self {
    case .malformed: .plistMalformed
    case .tooDeep: .plistTooDeep
    case .tooLarge, .expandsTooLarge: .plistTooLarge
    case .notADictionary: .plistNotADictionary
    case .nulCharacter: .plistNulCharacter
    }
  }
}

extension MachOError: CodedError {
  /// The code of the diagnostic this error becomes.
  public var code: DiagnosticCode {
    switch self {
    case .notMachO: .machONotMachO
    case .truncated: .machOTruncated
    case .malformed: .machOMalformed
    }
  }
}

extension CodeSignatureError: CodedError {
  /// The code of the diagnostic this error becomes.
  public var code: DiagnosticCode {
    switch self {
    case .outOfRange: .signatureOutOfRange
    case .badMagic: .signatureBadMagic
    case .malformed: .signatureMalformed
    case .tooLarge: .signatureTooLarge
    }
  }
}

extension DEREntitlementsError: CodedError {
  /// The code of the diagnostic this error becomes.
  public var code: DiagnosticCode { .signatureDERMalformed }
}

extension ProvisioningProfileError: CodedError {
  /// The code of the diagnostic this error becomes.
  public var code: DiagnosticCode {
    switch self {
    case .envelope: .profileBadEnvelope
    case .plist(let e): e.code
    }
  }
}
