/// One finding about the input, with a stable code scripts can match on.
public struct Diagnostic: Sendable, Equatable, Codable {
  public enum Severity: String, Sendable, Codable, Comparable {
    case info, warning, error

    private var rank: Int {
      switch self {
      case .info: 0
      case .warning: 1
      case .error: 2
      }
    }
    public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
  }

  public var severity: Severity
  /// Stable, dotted identifier such as `archive.entry-too-large`; documented in the README.
  public var code: String
  /// One line naming the file or value and the problem.
  public var message: String

  public init(_ severity: Severity, _ code: String, _ message: String) {
    self.severity = severity
    self.code = code
    self.message = message
  }

  /// Wraps any error the readers throw, keeping its code when it has one.
  public init(_ error: any Error, severity: Severity = .error, fallbackCode: String) {
    self.severity = severity
    self.code = (error as? any CodedError)?.code ?? fallbackCode
    self.message = "\(error)"
  }
}

/// An error that carries a stable diagnostic code.
public protocol CodedError: Error, CustomStringConvertible {
  var code: String { get }
}

extension ArchiveError: CodedError {
  public var code: String {
    switch self {
    case .notAZip: "archive.not-zip"
    case .corrupt: "archive.corrupt"
    case .unreadable: "input.unreadable"
    case .tooManyEntries: "archive.too-many-entries"
    case .entryMissing: "archive.entry-missing"
    case .entryTooLarge: "archive.entry-too-large"
    case .entryEncrypted: "archive.entry-encrypted"
    case .readFailed: "archive.read-failed"
    case .outOfBounds: "archive.out-of-bounds"
    }
  }
}

extension PlistError: CodedError {
  public var code: String {
    switch self {
    case .malformed: "plist.malformed"
    case .tooDeep: "plist.too-deep"
    case .tooLarge: "plist.too-large"
    case .notADictionary: "plist.not-a-dictionary"
    case .nulCharacter: "plist.nul-character"
    }
  }
}

extension MachOError: CodedError {
  public var code: String {
    switch self {
    case .notMachO: "macho.not-macho"
    case .truncated: "macho.truncated"
    case .malformed: "macho.malformed"
    }
  }
}

extension CodeSignatureError: CodedError {
  public var code: String {
    switch self {
    case .outOfRange: "signature.out-of-range"
    case .badMagic: "signature.bad-magic"
    case .malformed: "signature.malformed"
    case .tooLarge: "signature.too-large"
    }
  }
}

extension DEREntitlementsError: CodedError {
  public var code: String { "signature.der-malformed" }
}

extension ProvisioningProfileError: CodedError {
  public var code: String {
    switch self {
    case .envelope: "profile.bad-envelope"
    case .plist(let e): e.code
    }
  }
}
