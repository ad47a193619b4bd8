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
    /// A zip archive: a file named `.ipa` or starting with the zip signature.
    case ipa
    /// An unzipped folder: a `.app`, or one holding `Payload/`.
    case appFolder = "app-folder"
    /// A bare Mach-O, read for its code signature's entitlements.
    case executable
    /// A plist of entitlements, such as an `.xcent` file.
    case entitlementsPlist = "entitlements-plist"
    /// A `.mobileprovision`, signed or as its bare plist.
    case provisioningProfile = "provisioning-profile"
    /// A host given with `--host`: the apps its AASA file lists, assumed to claim it (``HostInputs``).
    case host
    /// Missing, unrecognised, or a saved report whose kind this version does not know.
    case unknown
  }

  /// The path given on the command line, as given: what reports and notes name the input by.
  public var input: String
  /// Which reader handled the input; `unknown` when none could.
  public var inputKind: InputKind
  /// Problems with the input as a whole; each bundle carries its own.
  public var diagnostics: [Diagnostic]
  /// Sorted by path, so each bundle comes before those nested in it; empty when nothing could be read.
  public var bundles: [BundleReport]

  /// Creates a report; ``Inspector`` starts with an empty one and fills it in.
  public init(input: String, inputKind: InputKind, diagnostics: [Diagnostic] = [], bundles: [BundleReport] = []) {
    self.input = input
    self.inputKind = inputKind
    self.diagnostics = diagnostics
    self.bundles = bundles
  }

  /// Derived from the errors, never stored, so it always agrees with them: unreadable when there are errors and
  /// no bundle, partial when there are errors, else complete.
  public var status: Status {
    let all = diagnostics + bundles.flatMap(\.diagnostics)
    if bundles.isEmpty && all.contains(where: { $0.severity == .error }) { return .unreadable }
    return all.contains { $0.severity == .error } ? .partial : .complete
  }

  enum CodingKeys: String, CodingKey { case input, inputKind, status, diagnostics, bundles }

  /// Reads a saved report back. `status` is recomputed from the diagnostics, so it cannot disagree with them; keys
  /// other than `input` and `bundles` (which every version wrote, `[]` for an input that gave none) may be missing,
  /// so inventories from older and newer versions load. Without `bundles` an object is no report (another command's
  /// line with an `input`), which would be taken for an input with no app.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    input = try c.decode(String.self, forKey: .input)
    inputKind = (try? c.decodeIfPresent(InputKind.self, forKey: .inputKind)) ?? .unknown
    diagnostics = try c.decodeIfPresent([Diagnostic].self, forKey: .diagnostics) ?? []
    bundles = try Self.decodeAtMost(BundleLocator.maximumBundles, BundleReport.self, from: c, forKey: .bundles)
  }

  /// An array of at most `limit` elements, which is as many as `inspect` writes: a hostile line of 500,000 empty
  /// bundles (6 MB) took 400 MB once decoded, and one of 24 MB 1.6 GB. Counted before any element is decoded.
  static func decodeAtMost<Element: Decodable, Key: CodingKey>(
    _ limit: Int, _ type: Element.Type, from c: KeyedDecodingContainer<Key>, forKey key: Key
  ) throws -> [Element] {
    var items = try c.nestedUnkeyedContainer(forKey: key)
    if let count = items.count, count > limit {
      throw DecodingError.dataCorruptedError(
        forKey: key, in: c, debugDescription: "\(count) elements, more than the \(limit) ipalinks writes")
    }
    var out: [Element] = []
    while !items.isAtEnd {
      guard out.count < limit else {
        throw DecodingError.dataCorruptedError(
          forKey: key, in: c, debugDescription: "more than the \(limit) elements ipalinks writes")
      }
      out.append(try items.decode(Element.self))
    }
    return out
  }

  /// Writes `status` alongside the stored keys, so scripts reading the JSON need not recompute it.
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
  /// The most associated-domain entries a saved bundle may have: ten times the ``Inspector/maximumDomainsPerBundle``
  /// `inspect` writes, for reports made by hand or by the library, and still a bound on what a line can make.
  static let maximumDomainsRead = 10 * Inspector.maximumDomainsPerBundle

  /// Whether its entitlements could not be read: none was found, and an error was said (a broken signature). What
  /// such a bundle claims is unknown, not nothing.
  public var entitlementsUnread: Bool {
    entitlementSources.isEmpty && diagnostics.contains { $0.severity == .error }
  }

  /// What sort of bundle it is, as told by the folder it sits in.
  public enum Kind: String, Sendable, Codable {
    /// A main app: `Payload/<Name>.app`.
    case app
    /// An app extension (`.appex`) in `PlugIns/` or `Extensions/`.
    case appExtension = "app-extension"
    /// An App Clip in `AppClips/`.
    case appClip = "app-clip"
    /// A watchOS app in `Watch/`.
    case watchApp = "watch-app"
    /// A bare Mach-O, entitlements plist or profile given on the command line.
    case file
  }

  /// Path inside the archive (`Payload/Store.app/PlugIns/Share.appex`) or the file given.
  public var path: String
  /// Which kind of bundle; `file` for a bare file given on the command line.
  public var kind: Kind
  /// `CFBundleIdentifier` from Info.plist; nil when there is no readable Info.plist.
  public var bundleId: String?
  /// `CFBundleDisplayName`, else `CFBundleName`: how reports and blocklists name the app to people.
  public var name: String?
  /// `CFBundleShortVersionString`: the marketing version.
  public var version: String?
  /// `CFBundleVersion`: the build number.
  public var build: String?
  /// `MinimumOSVersion` (or `LSMinimumSystemVersion`): the oldest OS the bundle runs on.
  public var minimumOSVersion: String?
  /// The executable's file name: `CFBundleExecutable`, else the bundle folder's name without its extension.
  public var executable: String?
  /// The Mach-O slices (`arm64`, …); entitlements are read from each, so they may disagree.
  public var architectures: [String] = []
  /// The signing identifier of the chosen CodeDirectory (normally equals the bundle id).
  public var signingIdentifier: String?
  /// The signing team: from the entitlements, else the code signature, the profile or the application identifier.
  public var teamId: String?
  /// `TEAMID.bundle.id`: the key AASA files list apps by.
  public var appId: String?
  /// True when any slice is FairPlay-encrypted (`cryptid` 1); nil when no executable was read.
  public var encrypted: Bool?
  /// How the build is distributed, from the profile or from its shape (encrypted means App Store).
  public var distribution: String?
  /// The kinds of source that held entitlements (`code-signature`, `xcent`, `provisioning-profile`), each once;
  /// ``entitlementSourceDetails`` says which one is effective.
  public var entitlementSources: [String] = []
  /// Each source with what it said, so an auditor can see which source said what.
  public var entitlementSourceDetails: [EntitlementSource] = []
  /// The effective entitlements: code signature first, else `.xcent`.
  public var entitlements: [String: PlistValue] = [:]
  /// The embedded (or given) profile, which says how the build is signed and for which team.
  public var provisioningProfile: ProvisioningProfile?
  /// `com.apple.developer.associated-domains`, in entitlement order and deduplicated, capped at
  /// ``Inspector/maximumDomainsPerBundle``; each with its AASA file once fetched.
  public var associatedDomains: [AssociatedDomain] = []
  /// Custom URL schemes from `CFBundleURLTypes`: the other way a web page can open the app.
  public var urlSchemes: [String] = []
  /// `LSApplicationQueriesSchemes`: schemes the app may ask about; these do not open it.
  public var queriedURLSchemes: [String] = []
  /// Problems found in this bundle, including its domains' AASA files; errors make the report partial.
  public var diagnostics: [Diagnostic] = []

  /// Creates an empty report for a bundle; the inspector fills in what it reads.
  public init(path: String, kind: Kind) {
    self.path = path
    self.kind = kind
  }

  private enum CodingKeys: String, CodingKey {
    case path, kind, bundleId, name, version, build, minimumOSVersion, executable, architectures, signingIdentifier
    case teamId, appId, encrypted, distribution, entitlementSources, entitlementSourceDetails, entitlements
    case provisioningProfile, associatedDomains, urlSchemes, queriedURLSchemes, diagnostics
  }

  /// A decoder's `userInfo` key: when true, the entitlements themselves (each source's, the effective ones and the
  /// profile) are left out, since a reader of claims alone needs none of them and they are most of the decoding.
  public static let claimsOnly = CodingUserInfoKey(rawValue: "ipalinks.claimsOnly")!

  /// Lenient about missing keys, like ``InspectionReport/init(from:)``. Saved rules get this bundle's app id back,
  /// since JSON carries it once per bundle, not once per domain.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let claimsOnly = decoder.userInfo[Self.claimsOnly] as? Bool == true
    path = try c.decode(String.self, forKey: .path)
    // A kind this version does not know (a newer one added it) is read as an app, as a missing one is.
    kind = c.contains(.kind) ? Kind(rawValue: try c.decode(String.self, forKey: .kind)) ?? .app : .app
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
    if !claimsOnly {
      entitlementSourceDetails =
        try c.decodeIfPresent([EntitlementSource].self, forKey: .entitlementSourceDetails) ?? []
      entitlements = try c.decodeIfPresent([String: PlistValue].self, forKey: .entitlements) ?? [:]
      provisioningProfile = try c.decodeIfPresent(ProvisioningProfile.self, forKey: .provisioningProfile)
    }
    let hasDomains = try c.contains(.associatedDomains) && !c.decodeNil(forKey: .associatedDomains)
    associatedDomains =
      hasDomains
      ? try InspectionReport.decodeAtMost(
        Self.maximumDomainsRead, AssociatedDomain.self, from: c, forKey: .associatedDomains) : []
    urlSchemes = try c.decodeIfPresent([String].self, forKey: .urlSchemes) ?? []
    queriedURLSchemes = try c.decodeIfPresent([String].self, forKey: .queriedURLSchemes) ?? []
    diagnostics = try c.decodeIfPresent([Diagnostic].self, forKey: .diagnostics) ?? []
    for index in associatedDomains.indices where associatedDomains[index].aasa?.appLinks != nil {
      if associatedDomains[index].service == .applinks {
        associatedDomains[index].aasa?.appLinks?.appID = appId ?? ""
      } else {
        associatedDomains[index].aasa?.appLinks = nil
      }
    }
  }
}

extension BundleReport {
  /// The bundle ID, or for an app known by its app ID alone (an entitlements file, a bare Mach-O) the bundle ID
  /// its app ID names (`com.example.app` of `ABCDE12345.com.example.app`): how outputs name and pair apps, never by
  /// the file's path when either is known, so that a moved file is the same app.
  public var identifier: String? { bundleId ?? appId.map { Self.bundleID(ofAppID: $0) ?? $0 } }

  /// The bundle ID an app ID names, after its team's prefix: `com.example.app` of `ABCDE12345.com.example.app`; nil
  /// for a string without both parts.
  public static func bundleID(ofAppID appId: String) -> String? {
    guard let dot = appId.firstIndex(of: "."), dot > appId.startIndex, appId.index(after: dot) < appId.endIndex
    else { return nil }
    return String(appId[appId.index(after: dot)...])
  }
}
