import Foundation
import UniversalLinks

/// Why a provisioning profile could not be read.
public enum ProvisioningProfileError: Error, CustomStringConvertible, Equatable, Sendable {
  /// The CMS SignedData wrapper around the plist could not be unpacked; `detail` says why.
  case envelope(file: String, detail: String)
  /// The payload was unwrapped but is not a readable dictionary plist.
  case plist(PlistError)

  /// The underlying reason with the file name, as printed in diagnostics.
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
    /// Has `get-task-allow`, so a debugger may attach; installs only on the devices it lists.
    case development
    /// Lists devices but without `get-task-allow`: a release build for registered test devices.
    case adHoc = "ad-hoc"
    /// `ProvisionsAllDevices`: an in-house build from the Enterprise Program that installs on any device.
    case enterprise
    /// No device list: App Store and TestFlight distribution. Also assumed when a saved report omits the kind.
    case appStore = "app-store"
  }

  /// The `Name` given in the developer portal, as Xcode shows it.
  public var name: String?
  /// The profile's `UUID`, which tells apart profiles that share a name.
  public var uuid: String?
  /// `TeamIdentifier`; its first entry stands in for the app's team ID when the signature and entitlements give none.
  public var teamIdentifiers: [String]
  /// The team's display name, for people; ``teamIdentifiers`` is what identifies the team.
  public var teamName: String?
  /// The App ID's description in the developer portal (`AppIDName`), not the bundle identifier.
  public var appIDName: String?
  /// When the developer portal issued the profile.
  public var creationDate: Date?
  /// After this, builds that rely on the profile (development, ad hoc, enterprise) no longer install or launch.
  public var expirationDate: Date?
  /// How the app installs, judged from `get-task-allow`, then `ProvisionsAllDevices`, then the device list.
  public var kind: Kind
  /// How many devices `ProvisionedDevices` lists; the UDIDs themselves are not kept.
  public var provisionedDeviceCount: Int
  /// What the profile allows the app to claim, possibly with wildcards; reported, never read as the app's domains.
  public var entitlements: [String: PlistValue]

  enum CodingKeys: String, CodingKey {
    case name, uuid, teamIdentifiers, teamName, appIDName, creationDate, expirationDate, kind, provisionedDeviceCount,
      entitlements
  }

  /// Reads a profile back from a JSON report; absent fields become empty, and an absent kind App Store.
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

  /// Writes dates as ISO 8601 strings (whole seconds) instead of Foundation's default seconds since 2001.
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
