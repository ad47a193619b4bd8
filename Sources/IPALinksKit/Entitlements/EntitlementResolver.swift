/// Where a set of entitlements was read from.
///
/// The resolver decides from ``kind``, ``architecture`` and ``form``; ``detail`` is only what people read. JSON
/// carries `kind`, `detail`, `entitlements` and `effective`, as it always has; the typed fields are not saved (the
/// choice is made once, when inspecting), so a source read back from an inventory has them nil.
public struct EntitlementSource: Sendable, Equatable, Codable {
  /// The kind of file the entitlements were read from.
  public enum Kind: String, Sendable, Codable {
    /// A blob of a Mach-O slice's code signature: what iOS enforces.
    case codeSignature = "code-signature"
    /// `archived-expanded-entitlements.xcent`, or an entitlements plist given on its own.
    case xcent
    /// A provisioning profile: an allow-list, never the app's own entitlements.
    case provisioningProfile = "provisioning-profile"
    /// The `__TEXT,__entitlements` section of a simulator build's executable: what the simulator enforces, as
    /// simulator builds carry no entitlements in their (ad hoc) code signature.
    case simulatorSection = "simulator-entitlements-section"
  }

  /// Which entitlements blob of a code signature, and how it was encoded.
  public enum Form: String, Sendable, Codable {
    /// The DER blob in Apple's `[APPLICATION 16]` wrapper; iOS 15 and later enforce the DER form.
    case derApplication16 = "der-application16"
    /// The DER blob as a bare `SET`, as ldid writes it.
    case derSet = "der-set"
    /// The XML blob.
    case xml
    /// The XML blob's slot holding a binary property list.
    case xmlBinaryPlist = "xml-binary-plist"

    /// The form of a decoded DER blob.
    public init(_ der: DEREntitlements.Form) {
      switch der {
      case .application16: self = .derApplication16
      case .bareSet: self = .derSet
      }
    }

    /// Whether this is one of the DER blob's forms.
    public var isDER: Bool { self == .derApplication16 || self == .derSet }
  }

  /// The kind of file.
  public var kind: Kind
  /// For a code signature, the architecture of its Mach-O slice (`arm64`, `armv7`); nil for other kinds.
  public var architecture: String? = nil
  /// For a code signature, the blob and its encoding; nil for other kinds.
  public var form: Form? = nil
  /// Which part of the source, for people: e.g. `arm64 der-application16`, `archived-expanded-entitlements.xcent`.
  public var detail: String
  /// What the source says.
  public var entitlements: [String: PlistValue]
  /// Set on the one source the effective entitlements came from.
  public var effective: Bool = false

  /// A source other than a code signature, or one whose slice and form are unknown.
  public init(kind: Kind, detail: String, entitlements: [String: PlistValue]) {
    self.kind = kind
    self.detail = detail
    self.entitlements = entitlements
  }

  /// One entitlements blob of one slice's code signature; the detail reads `<architecture> <form>`.
  public init(architecture: String, form: Form, entitlements: [String: PlistValue]) {
    self.init(kind: .codeSignature, detail: "\(architecture) \(form.rawValue)", entitlements: entitlements)
    self.architecture = architecture
    self.form = form
  }

  private enum CodingKeys: String, CodingKey { case kind, detail, entitlements, effective }
}

/// The third stage of an inspection: picks the effective entitlements among all sources and reports where sources
/// disagree.
///
/// A simulator build's `__TEXT,__entitlements` section wins: it is what the simulator enforces, and such a build's
/// signature is ad hoc, carrying `get-task-allow` at most. Otherwise the code signature wins, because it is what iOS
/// enforces and the only source App Store builds carry.
/// Within it, DER comes before XML (iOS 15 and later enforce the DER form), and arm64e/arm64 slices
/// before older ones. The `.xcent` is a fallback hint and may be stale. The profile is an allow-list
/// and never becomes effective.
public enum EntitlementResolver {
  static let associatedDomainsKey = "com.apple.developer.associated-domains"

  /// `sources` with the effective one marked, and a warning for each entitlement another source (not the profile)
  /// gives differently.
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
        // normal; a differing value, or associated domains on one side only, is worth a warning. A simulator
        // build's ad-hoc signature carries only what the section leaves out, such as get-task-allow.
        let adHoc = reference.kind == .simulatorSection && other.kind == .codeSignature
        if !sameKind && (a == nil || b == nil) && (key != associatedDomainsKey || adHoc) { continue }
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
    case .simulatorSection: "simulator entitlements section (\(s.detail))"
    }
  }

  /// Lower is preferred.
  private static func rank(_ s: EntitlementSource) -> Int {
    if s.kind == .simulatorSection { return -1 }
    guard s.kind == .codeSignature else { return 100 }
    let archRank =
      switch s.architecture {
      case "arm64e": 0
      case "arm64": 1
      default: 2
      }
    return archRank * 10 + (s.form?.isDER == true ? 0 : 1)
  }
}
