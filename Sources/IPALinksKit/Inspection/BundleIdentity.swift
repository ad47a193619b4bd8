/// The fourth stage of an inspection: who the bundle is and how it is distributed, derived from its effective
/// entitlements, its code signature and its profile.
struct BundleIdentity {
  /// The signing team: from the entitlements, else the code signature, the profile or the application identifier.
  var teamId: String?
  /// `TEAMID.bundle.id`: the application identifier, else the team and the bundle (or signing) identifier.
  var appId: String?
  /// How the build is distributed: the profile's kind, else told by its shape.
  var distribution: String?
  /// An application identifier that does not end in the bundle id.
  var diagnostics: [Diagnostic] = []

  /// Derives the identity of `contents` whose effective entitlements are `entitlements`.
  init(_ contents: BundleContents, entitlements e: [String: PlistValue]) {
    let bundle = contents.bundle
    teamId =
      e["com.apple.developer.team-identifier"]?.stringValue ?? bundle.teamId
      ?? bundle.provisioningProfile?.teamIdentifiers.first
    let appIdentifier = e["application-identifier"]?.stringValue ?? e["com.apple.application-identifier"]?.stringValue
    if teamId == nil, let appIdentifier, let dot = appIdentifier.firstIndex(of: ".") {
      teamId = String(appIdentifier[..<dot])
    }
    if let appIdentifier, !appIdentifier.hasSuffix("*") {
      appId = appIdentifier
    } else if let team = teamId, let id = bundle.bundleId ?? bundle.signingIdentifier {
      appId = "\(team).\(id)"
    }
    if let appId, let bundleId = bundle.bundleId, !appId.hasSuffix("." + bundleId) {
      diagnostics.append(
        Diagnostic(
          .warning, .identityAppIDMismatch,
          "\(bundle.path): application-identifier \(appId) does not end in the bundle id \(bundleId)"))
    }
    distribution = Self.distribution(contents, getTaskAllow: e["get-task-allow"]?.boolValue == true)
  }

  /// A simulator build runs nowhere else, whatever its signature says; otherwise the profile's kind, else an
  /// encrypted build is from the App Store and a `get-task-allow` one a development build.
  private static func distribution(_ contents: BundleContents, getTaskAllow: Bool) -> String? {
    if contents.isSimulatorBuild { return "simulator" }
    if let profile = contents.bundle.provisioningProfile { return profile.kind.rawValue }
    if contents.bundle.encrypted == true { return "app-store" }
    return getTaskAllow ? "development" : nil
  }
}
