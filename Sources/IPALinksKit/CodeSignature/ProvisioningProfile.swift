import Foundation
import UniversalLinks

/// Why a provisioning profile could not be read.
public enum ProvisioningProfileError: Error, CustomStringConvertible, Equatable, Sendable {
  case envelope(file: String, detail: String)
  case plist(PlistError)

  public var description: String {
    switch self {
    case .envelope(let file, let detail): "\(file): \(detail)"
    case .plist(let error): error.description
    }
  }
}

/// The facts of an `embedded.mobileprovision` that matter to an audit.
///
/// Its entitlements are an allow-list (they may say `*`), so they are reported but never used
/// to build the list of associated domains.
public struct ProvisioningProfile: Sendable, Equatable, Codable {
  /// How the profile lets the app be installed; inferred the way Xcode and fastlane do.
  public enum Kind: String, Sendable, Codable {
    case development
    case adHoc = "ad-hoc"
    case enterprise
    case appStore = "app-store"
  }

  public var name: String?
  public var uuid: String?
  public var teamIdentifiers: [String]
  public var teamName: String?
  public var appIDName: String?
  public var creationDate: Date?
  public var expirationDate: Date?
  public var kind: Kind
  public var provisionedDeviceCount: Int
  public var entitlements: [String: PlistValue]

  enum CodingKeys: String, CodingKey {
    case name, uuid, teamIdentifiers, teamName, appIDName, creationDate, expirationDate, kind, provisionedDeviceCount,
      entitlements
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    name = try c.decodeIfPresent(String.self, forKey: .name)
    uuid = try c.decodeIfPresent(String.self, forKey: .uuid)
    teamIdentifiers = try c.decodeIfPresent([String].self, forKey: .teamIdentifiers) ?? []
    teamName = try c.decodeIfPresent(String.self, forKey: .teamName)
    appIDName = try c.decodeIfPresent(String.self, forKey: .appIDName)
    let iso = ISO8601DateFormatter()
    creationDate = try c.decodeIfPresent(String.self, forKey: .creationDate).flatMap(iso.date(from:))
    expirationDate = try c.decodeIfPresent(String.self, forKey: .expirationDate).flatMap(iso.date(from:))
    kind = try c.decodeIfPresent(Kind.self, forKey: .kind) ?? .appStore
    provisionedDeviceCount = try c.decodeIfPresent(Int.self, forKey: .provisionedDeviceCount) ?? 0
    entitlements = try c.decodeIfPresent([String: PlistValue].self, forKey: .entitlements) ?? [:]
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encodeIfPresent(name, forKey: .name)
    try c.encodeIfPresent(uuid, forKey: .uuid)
    try c.encode(teamIdentifiers, forKey: .teamIdentifiers)
    try c.encodeIfPresent(teamName, forKey: .teamName)
    try c.encodeIfPresent(appIDName, forKey: .appIDName)
    let iso = ISO8601DateFormatter()
    try c.encodeIfPresent(creationDate.map(iso.string(from:)), forKey: .creationDate)
    try c.encodeIfPresent(expirationDate.map(iso.string(from:)), forKey: .expirationDate)
    try c.encode(kind, forKey: .kind)
    try c.encode(provisionedDeviceCount, forKey: .provisionedDeviceCount)
    try c.encode(entitlements, forKey: .entitlements)
  }

  /// Parses a profile: a CMS SignedData envelope around a plist, or (for saved copies) the bare plist.
  public static func parse(_ bytes: [UInt8], file: String) throws(ProvisioningProfileError) -> ProvisioningProfile {
    var payload = bytes
    if !PropertyList.looksLikePlist(bytes) {
      do { payload = try CMSEnvelope.content(of: bytes) } catch {
        throw .envelope(file: file, detail: error.description)
      }
    }
    let plist: [String: PlistValue]
    do { plist = try PropertyList.decodeDictionary(payload, file: file) } catch { throw .plist(error) }
    return ProvisioningProfile(plist: plist)
  }

  init(plist: [String: PlistValue]) {
    name = plist["Name"]?.stringValue
    uuid = plist["UUID"]?.stringValue
    teamIdentifiers = plist["TeamIdentifier"]?.stringArray ?? []
    teamName = plist["TeamName"]?.stringValue
    appIDName = plist["AppIDName"]?.stringValue
    creationDate = plist["CreationDate"]?.dateValue
    expirationDate = plist["ExpirationDate"]?.dateValue
    entitlements = plist["Entitlements"]?.dictionaryValue ?? [:]
    let devices = plist["ProvisionedDevices"]?.arrayValue
    provisionedDeviceCount = devices?.count ?? 0
    if entitlements["get-task-allow"]?.boolValue == true {
      kind = .development
    } else if plist["ProvisionsAllDevices"]?.boolValue == true {
      kind = .enterprise
    } else if devices != nil {
      kind = .adHoc
    } else {
      kind = .appStore
    }
  }
}
