/// Where a set of entitlements was read from.
public struct EntitlementSource: Sendable, Equatable, Codable {
  public enum Kind: String, Sendable, Codable {
    case codeSignature = "code-signature"
    case xcent
    case provisioningProfile = "provisioning-profile"
  }

  public var kind: Kind
  /// Which part of the source: e.g. `arm64 der-application16`, `arm64 xml`, `archived-expanded-entitlements.xcent`.
  public var detail: String
  public var entitlements: [String: PlistValue]
  /// Set on the one source the effective entitlements came from.
  public var effective: Bool = false

  public init(kind: Kind, detail: String, entitlements: [String: PlistValue]) {
    self.kind = kind
    self.detail = detail
    self.entitlements = entitlements
  }
}

/// Picks the effective entitlements among all sources and reports where sources disagree.
///
/// The code signature wins because it is what iOS enforces and the only source App Store builds carry.
/// Within it, DER comes before XML (iOS 15 and later enforce the DER form), and arm64e/arm64 slices
/// before older ones. The `.xcent` is a fallback hint and may be stale. The profile is an allow-list
/// and never becomes effective.
public enum EntitlementResolver {
  static let associatedDomainsKey = "com.apple.developer.associated-domains"

  public static func resolve(_ sources: [EntitlementSource]) -> (
    sources: [EntitlementSource], diagnostics: [Diagnostic]
  ) {
    var sources = sources
    var diagnostics: [Diagnostic] = []
    let candidates = sources.indices.filter { sources[$0].kind != .provisioningProfile }
    guard let chosen = candidates.min(by: { rank(sources[$0]) < rank(sources[$1]) }) else { return (sources, []) }
    sources[chosen].effective = true
    let reference = sources[chosen]
    for index in candidates where index != chosen {
      let other = sources[index]
      for key in Set(reference.entitlements.keys).union(other.entitlements.keys).sorted() {
        let a = reference.entitlements[key]
        let b = other.entitlements[key]
        guard a != b else { continue }
        let sameKind = other.kind == reference.kind
        // Xcode adds keys such as application-identifier at signing time, so a key the .xcent lacks is
        // normal; a differing value, or associated domains on one side only, is worth a warning.
        if !sameKind && (a == nil || b == nil) && key != associatedDomainsKey { continue }
        diagnostics.append(
          Diagnostic(
            .warning, sameKind ? .entitlementsSignatureDisagreement : .entitlementsXcentDisagreement,
            "\(key): \(label(reference)) has \(a?.summary ?? "nothing") but \(label(other)) has \(b?.summary ?? "nothing")"
          ))
      }
    }
    return (sources, diagnostics)
  }

  private static func label(_ s: EntitlementSource) -> String {
    switch s.kind {
    case .codeSignature: "code signature (\(s.detail))"
    case .xcent: ".xcent"
    case .provisioningProfile: "provisioning profile"
    }
  }

  /// Lower is preferred.
  private static func rank(_ s: EntitlementSource) -> Int {
    guard s.kind == .codeSignature else { return 100 }
    let arch = s.detail.split(separator: " ").first.map(String.init) ?? ""
    let archRank =
      switch arch {
      case "arm64e": 0
      case "arm64": 1
      default: 2
      }
    return archRank * 10 + (s.detail.contains("der") ? 0 : 1)
  }
}
