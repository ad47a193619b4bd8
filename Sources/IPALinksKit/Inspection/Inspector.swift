import Foundation
import UniversalLinks

/// Runs the offline half of the pipeline on one input, in five stages: locate the bundles (``InputLocator``), read
/// each bundle's entitlement sources (``BundleContents``), resolve the effective entitlements
/// (``EntitlementResolver``), derive the identity (``BundleIdentity``) and parse the domains (``DomainEntries``).
///
/// It never throws: every problem becomes a ``Diagnostic`` and whatever could still be read is reported,
/// so one broken part (say, a corrupt signature) does not hide the rest.
public struct Inspector: Sendable {
  /// Cap for Info.plist, `.xcent` and profiles: real ones are kilobytes, a zip bomb is refused at this size.
  public static let maximumSmallFileSize = BundleContents.maximumSmallFileSize
  /// Cap on associated-domain entries per bundle; a hostile entitlement cannot flood the inventory.
  public static let maximumDomainsPerBundle = DomainEntries.maximum

  /// Creates an inspector; it holds no state, so one can inspect many inputs, even concurrently.
  public init() {}

  /// Inspects an .ipa, an unzipped .app (or a folder holding `Payload/`), a bare Mach-O,
  /// an entitlements plist, or a provisioning profile.
  public func inspect(path: String) -> InspectionReport {
    var report = InspectionReport(input: path, inputKind: .unknown)
    do {
      if let located = try InputLocator.locate(path, into: &report) { report.bundles = bundles(located, path: path) }
    } catch {
      report.diagnostics.append(Diagnostic(error, fallbackCode: .inputUnreadable))
    }
    return report
  }

  /// Inspects an IPA held in memory, as ``inspect(path:)`` does a file; fuzzing and piped input use it.
  public func inspect(ipaBytes bytes: [UInt8], name: String = "<memory>") -> InspectionReport {
    var report = InspectionReport(input: name, inputKind: .ipa)
    do {
      let located = InputLocator.bundles(in: try ZipArchive(bytes: bytes, name: name), into: &report)
      report.bundles = bundles(located, path: name)
    } catch {
      report.diagnostics.append(Diagnostic(error, fallbackCode: .inputUnreadable))
    }
    return report
  }

  /// The report of each bundle of a located input.
  private func bundles(_ located: InputLocator.Located, path: String) -> [BundleReport] {
    switch located {
    case .container(let container, let bundles):
      let paths = Set(container.paths)
      return bundles.map { report(BundleContents($0, in: container, paths: paths)) }
    case .executable(let source): return [report(BundleContents(executable: source, path: path))]
    case .profile(let profile): return [report(BundleContents(profile: profile, path: path))]
    case .entitlements(let plist): return [report(BundleContents(entitlements: plist, path: path))]
    }
  }

  /// The last three stages on what a bundle's files said.
  private func report(_ contents: BundleContents) -> BundleReport {
    var bundle = contents.bundle
    let resolved = EntitlementResolver.resolve(contents.sources)
    bundle.diagnostics += resolved.diagnostics
    bundle.entitlementSourceDetails = resolved.sources
    bundle.entitlementSources = resolved.sources.map(\.kind.rawValue).reduce(into: []) { kinds, kind in
      if !kinds.contains(kind) { kinds.append(kind) }
    }
    bundle.entitlements = resolved.sources.first(where: \.effective)?.entitlements ?? [:]

    let identity = BundleIdentity(contents, entitlements: bundle.entitlements)
    (bundle.teamId, bundle.appId, bundle.distribution) = (identity.teamId, identity.appId, identity.distribution)
    bundle.diagnostics += identity.diagnostics

    let domains = DomainEntries(bundle.entitlements, path: bundle.path)
    bundle.associatedDomains = domains.domains
    bundle.diagnostics += domains.diagnostics
    return bundle
  }
}
