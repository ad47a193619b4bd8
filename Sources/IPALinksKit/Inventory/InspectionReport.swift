/// Everything `inspect` learned about one input: plain values, handed to a reporter.
public struct InspectionReport: Sendable, Codable {
  /// How complete the result is; the CLI maps it to an exit code. Ordered from complete to unreadable, so the
  /// worst of several is their maximum.
  public enum Status: String, Sendable, Codable, Comparable {
    /// Every part was read.
    case complete
    /// Something could not be read, but other facts are reported.
    case partial
    /// Nothing could be read.
    case unreadable

    private var rank: Int {
      switch self {
      case .complete: 0
      case .partial: 1
      case .unreadable: 2
      }
    }

    /// Complete is the least, unreadable the greatest.
    public static func < (a: Self, b: Self) -> Bool { a.rank < b.rank }
  }

  /// What the input turned out to be.
  public enum InputKind: String, Sendable, Codable {
    case ipa
    case appFolder = "app-folder"
    case executable
    case entitlementsPlist = "entitlements-plist"
    case provisioningProfile = "provisioning-profile"
    case unknown
  }

  public var input: String
  public var inputKind: InputKind
  public var diagnostics: [Diagnostic]
  public var bundles: [BundleReport]

  public init(input: String, inputKind: InputKind, diagnostics: [Diagnostic] = [], bundles: [BundleReport] = []) {
    self.input = input
    self.inputKind = inputKind
    self.diagnostics = diagnostics
    self.bundles = bundles
  }

  public var status: Status {
    let all = diagnostics + bundles.flatMap(\.diagnostics)
    if bundles.isEmpty && all.contains(where: { $0.severity == .error }) { return .unreadable }
    return all.contains { $0.severity == .error } ? .partial : .complete
  }

  enum CodingKeys: String, CodingKey { case input, inputKind, status, diagnostics, bundles }

  /// Reads a saved report back. `status` is recomputed from the diagnostics, so it cannot disagree with them; keys
  /// other than `input` may be missing, so inventories from older and newer versions load.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    input = try c.decode(String.self, forKey: .input)
    inputKind = (try? c.decodeIfPresent(InputKind.self, forKey: .inputKind)) ?? .unknown
    diagnostics = try c.decodeIfPresent([Diagnostic].self, forKey: .diagnostics) ?? []
    bundles = try c.decodeIfPresent([BundleReport].self, forKey: .bundles) ?? []
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(input, forKey: .input)
    try c.encode(inputKind, forKey: .inputKind)
    try c.encode(status, forKey: .status)
    try c.encode(diagnostics, forKey: .diagnostics)
    try c.encode(bundles, forKey: .bundles)
  }
}

/// One bundle (app, extension, App Clip, watch app) or one bare file, with the source of each fact.
public struct BundleReport: Sendable, Codable {
  public enum Kind: String, Sendable, Codable {
    case app
    case appExtension = "app-extension"
    case appClip = "app-clip"
    case watchApp = "watch-app"
    /// A bare Mach-O, entitlements plist or profile given on the command line.
    case file
  }

  /// Path inside the archive (`Payload/Store.app/PlugIns/Share.appex`) or the file given.
  public var path: String
  public var kind: Kind
  public var bundleId: String?
  public var name: String?
  public var version: String?
  public var build: String?
  public var minimumOSVersion: String?
  public var executable: String?
  public var architectures: [String] = []
  /// The signing identifier of the chosen CodeDirectory (normally equals the bundle id).
  public var signingIdentifier: String?
  public var teamId: String?
  /// `TEAMID.bundle.id`: the key AASA files list apps by.
  public var appId: String?
  /// True when any slice is FairPlay-encrypted (`cryptid` 1); nil when no executable was read.
  public var encrypted: Bool?
  /// How the build is distributed, from the profile or from its shape (encrypted means App Store).
  public var distribution: String?
  public var entitlementSources: [String] = []
  /// Each source with what it said, so an auditor can see which source said what.
  public var entitlementSourceDetails: [EntitlementSource] = []
  /// The effective entitlements: code signature first, else `.xcent`.
  public var entitlements: [String: PlistValue] = [:]
  public var provisioningProfile: ProvisioningProfile?
  public var associatedDomains: [AssociatedDomain] = []
  /// Custom URL schemes from `CFBundleURLTypes`: the other way a web page can open the app.
  public var urlSchemes: [String] = []
  /// `LSApplicationQueriesSchemes`: schemes the app may ask about; these do not open it.
  public var queriedURLSchemes: [String] = []
  public var diagnostics: [Diagnostic] = []

  public init(path: String, kind: Kind) {
    self.path = path
    self.kind = kind
  }

  private enum CodingKeys: String, CodingKey {
    case path, kind, bundleId, name, version, build, minimumOSVersion, executable, architectures, signingIdentifier
    case teamId, appId, encrypted, distribution, entitlementSources, entitlementSourceDetails, entitlements
    case provisioningProfile, associatedDomains, urlSchemes, queriedURLSchemes, diagnostics
  }

  /// Lenient about missing keys, like ``InspectionReport/init(from:)``. Saved rules get this bundle's app id back,
  /// since JSON carries it once per bundle, not once per domain.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    path = try c.decode(String.self, forKey: .path)
    kind = try c.decodeIfPresent(Kind.self, forKey: .kind) ?? .app
    bundleId = try c.decodeIfPresent(String.self, forKey: .bundleId)
    name = try c.decodeIfPresent(String.self, forKey: .name)
    version = try c.decodeIfPresent(String.self, forKey: .version)
    build = try c.decodeIfPresent(String.self, forKey: .build)
    minimumOSVersion = try c.decodeIfPresent(String.self, forKey: .minimumOSVersion)
    executable = try c.decodeIfPresent(String.self, forKey: .executable)
    architectures = try c.decodeIfPresent([String].self, forKey: .architectures) ?? []
    signingIdentifier = try c.decodeIfPresent(String.self, forKey: .signingIdentifier)
    teamId = try c.decodeIfPresent(String.self, forKey: .teamId)
    appId = try c.decodeIfPresent(String.self, forKey: .appId)
    encrypted = try c.decodeIfPresent(Bool.self, forKey: .encrypted)
    distribution = try c.decodeIfPresent(String.self, forKey: .distribution)
    entitlementSources = try c.decodeIfPresent([String].self, forKey: .entitlementSources) ?? []
    entitlementSourceDetails =
      try c.decodeIfPresent([EntitlementSource].self, forKey: .entitlementSourceDetails) ?? []
    entitlements = try c.decodeIfPresent([String: PlistValue].self, forKey: .entitlements) ?? [:]
    provisioningProfile = try c.decodeIfPresent(ProvisioningProfile.self, forKey: .provisioningProfile)
    associatedDomains = try c.decodeIfPresent([AssociatedDomain].self, forKey: .associatedDomains) ?? []
    urlSchemes = try c.decodeIfPresent([String].self, forKey: .urlSchemes) ?? []
    queriedURLSchemes = try c.decodeIfPresent([String].self, forKey: .queriedURLSchemes) ?? []
    diagnostics = try c.decodeIfPresent([Diagnostic].self, forKey: .diagnostics) ?? []
    for index in associatedDomains.indices where associatedDomains[index].aasa?.appLinks != nil {
      if associatedDomains[index].service == "applinks" {
        associatedDomains[index].aasa?.appLinks?.appID = appId ?? ""
      } else {
        associatedDomains[index].aasa?.appLinks = nil
      }
    }
  }
}
