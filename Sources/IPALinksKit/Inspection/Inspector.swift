import Foundation
import UniversalLinks

/// Runs the offline half of the pipeline on one input: archive → bundles → entitlements → domains.
///
/// It never throws: every problem becomes a ``Diagnostic`` and whatever could still be read is reported,
/// so one broken part (say, a corrupt signature) does not hide the rest.
public struct Inspector: Sendable {
  /// Cap for Info.plist, `.xcent` and profiles: real ones are kilobytes, a zip bomb is refused at this size.
  public static let maximumSmallFileSize = 8 << 20
  /// Cap on associated-domain entries per bundle; a hostile entitlement cannot flood the inventory.
  public static let maximumDomainsPerBundle = 1_000

  /// Creates an inspector; it holds no state, so one can inspect many inputs, even concurrently.
  public init() {}

  /// Inspects an .ipa, an unzipped .app (or a folder holding `Payload/`), a bare Mach-O,
  /// an entitlements plist, or a provisioning profile.
  public func inspect(path: String) -> InspectionReport {
    var report = InspectionReport(input: path, inputKind: .unknown, diagnostics: [], bundles: [])
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
      report.diagnostics.append(Diagnostic(.error, .inputNotFound, "\(path): no such file or folder"))
      return report
    }
    do {
      if isDirectory.boolValue {
        report.inputKind = .appFolder
        try inspectContainer(try folderContainer(path), into: &report)
        return report
      }
      let head = try FileByteSource(path: path)
      if head.size == 0 {
        report.diagnostics.append(Diagnostic(.error, .inputUnreadable, "\(path): empty file (0 bytes)"))
        return report
      }
      let magic = try head.read(at: 0, count: Int(min(head.size, 64)))
      if magic.starts(with: [0x50, 0x4B]) || path.lowercased().hasSuffix(".ipa") {
        report.inputKind = .ipa
        try inspectContainer(try ZipArchive(path: path), into: &report)
      } else if MachOFile.looksLikeMachO(magic) {
        report.inputKind = .executable
        var bundle = BundleReport(path: path, kind: .file)
        var sources: [EntitlementSource] = []
        readExecutable(head, into: &bundle, sources: &sources)
        finish(&bundle, sources: sources, info: nil)
        report.bundles.append(bundle)
      } else {
        try inspectStandaloneDocument(path: path, head: magic, into: &report)
      }
    } catch {
      report.diagnostics.append(Diagnostic(error, fallbackCode: .inputUnreadable))
    }
    return report
  }

  /// Inspects an IPA held in memory, as ``inspect(path:)`` does a file; fuzzing and piped input use it.
  public func inspect(ipaBytes bytes: [UInt8], name: String = "<memory>") -> InspectionReport {
    var report = InspectionReport(input: name, inputKind: .ipa, diagnostics: [], bundles: [])
    do {
      try inspectContainer(try ZipArchive(bytes: bytes, name: name), into: &report)
    } catch {
      report.diagnostics.append(Diagnostic(error, fallbackCode: .inputUnreadable))
    }
    return report
  }

  private func folderContainer(_ path: String) throws(ArchiveError) -> DirectoryContainer {
    let url = URL(fileURLWithPath: path)
    let name = url.standardizedFileURL.lastPathComponent
    if name.hasSuffix(".app") || FileManager.default.fileExists(atPath: url.appendingPathComponent("Info.plist").path) {
      let bundleName = name.hasSuffix(".app") ? name : name + ".app"
      return try DirectoryContainer(path: path, prefix: "Payload/\(bundleName)/")
    }
    return try DirectoryContainer(path: path)
  }

  private func inspectContainer(_ container: any FileContainer, into report: inout InspectionReport) throws {
    for unsafe in container.unsafePaths.prefix(20) {
      report.diagnostics.append(
        Diagnostic(
          .warning, .archiveUnsafeEntryName,
          "\(container.name): ignoring entry \"\(unsafe)\" whose name could escape the archive"))
    }
    let (bundles, truncated) = BundleLocator.locate(paths: container.paths)
    if truncated {
      report.diagnostics.append(
        Diagnostic(
          .error, .archiveTooManyBundles,
          "\(container.name): more than \(BundleLocator.maximumBundles) bundles; the rest are not inspected"))
    }
    guard !bundles.isEmpty else {
      report.diagnostics.append(
        Diagnostic(.error, .archiveNoPayload, "\(container.name): no Payload/<Name>.app/ at the archive root"))
      return
    }
    if bundles.filter({ $0.kind == .app }).count > 1 {
      report.diagnostics.append(
        Diagnostic(
          .warning, .archiveMultipleApps, "\(container.name): more than one Payload/<Name>.app; inspecting each"))
    }
    let paths = Set(container.paths)
    for located in bundles {
      report.bundles.append(inspectBundle(located, in: container, paths: paths))
    }
  }

  private func inspectBundle(_ located: BundleLocator.Located, in container: any FileContainer, paths: Set<String>)
    -> BundleReport
  {
    var bundle = BundleReport(path: located.path, kind: located.kind)
    let root = located.path + "/"
    var sources: [EntitlementSource] = []

    var info: [String: PlistValue]?
    do {
      let bytes = try container.contents(of: root + "Info.plist", limit: Self.maximumSmallFileSize)
      info = try PropertyList.decodeDictionary(bytes, file: root + "Info.plist")
    } catch {
      bundle.diagnostics.append(Diagnostic(error, fallbackCode: .infoPlistUnreadable))
    }
    if let info { readInfo(info, into: &bundle) }

    let folderName = String(located.path.split(separator: "/").last ?? "")
    let executable = bundle.executable ?? String(folderName.prefix { $0 != "." })
    bundle.executable = executable
    let executablePath = root + executable
    if paths.contains(executablePath) {
      do {
        readExecutable(try container.byteSource(for: executablePath), into: &bundle, sources: &sources)
      } catch {
        bundle.diagnostics.append(Diagnostic(error, fallbackCode: .executableUnreadable))
      }
    } else {
      bundle.diagnostics.append(
        Diagnostic(.error, .executableMissing, "\(executablePath): executable not found in the bundle"))
    }

    let xcentPath = root + "archived-expanded-entitlements.xcent"
    if paths.contains(xcentPath) {
      do {
        let bytes = try container.contents(of: xcentPath, limit: Self.maximumSmallFileSize)
        let plist = try PropertyList.decodeDictionary(bytes, file: xcentPath)
        sources.append(
          EntitlementSource(kind: .xcent, detail: "archived-expanded-entitlements.xcent", entitlements: plist))
      } catch {
        bundle.diagnostics.append(Diagnostic(error, severity: .warning, fallbackCode: .xcentUnreadable))
      }
    }

    let profilePath = root + "embedded.mobileprovision"
    if paths.contains(profilePath) {
      do {
        let bytes = try container.contents(of: profilePath, limit: Self.maximumSmallFileSize)
        let profile = try ProvisioningProfile.parse(bytes, file: profilePath)
        bundle.provisioningProfile = profile
        sources.append(
          EntitlementSource(
            kind: .provisioningProfile, detail: "embedded.mobileprovision", entitlements: profile.entitlements))
      } catch {
        bundle.diagnostics.append(Diagnostic(error, severity: .warning, fallbackCode: .profileUnreadable))
      }
    }
    finish(&bundle, sources: sources, info: info)
    return bundle
  }

  private func readInfo(_ info: [String: PlistValue], into bundle: inout BundleReport) {
    bundle.bundleId = info["CFBundleIdentifier"]?.stringValue
    bundle.name = info["CFBundleDisplayName"]?.stringValue ?? info["CFBundleName"]?.stringValue
    bundle.version = info["CFBundleShortVersionString"]?.stringValue
    bundle.build = info["CFBundleVersion"]?.stringValue
    bundle.minimumOSVersion = info["MinimumOSVersion"]?.stringValue ?? info["LSMinimumSystemVersion"]?.stringValue
    if let exe = info["CFBundleExecutable"]?.stringValue, !exe.isEmpty, !exe.contains("/"), exe != "..", exe != "." {
      bundle.executable = exe
    }
    var schemes: [String] = []
    for type in info["CFBundleURLTypes"]?.arrayValue ?? [] {
      for scheme in type["CFBundleURLSchemes"]?.stringArray ?? [] where !schemes.contains(scheme) {
        schemes.append(scheme)
      }
    }
    bundle.urlSchemes = schemes
    bundle.queriedURLSchemes = info["LSApplicationQueriesSchemes"]?.stringArray ?? []
  }

  /// Reads every slice's signature; a failure in one slice is reported and the others still count.
  /// The most a `__TEXT,__entitlements` section may hold; real ones are a few kilobytes.
  static let maximumEntitlementsSection: UInt64 = 1 << 20

  /// A simulator build's entitlements, from the slice's `__TEXT,__entitlements` section, as a source of its own.
  private func readSimulatorSection(
    _ source: any ByteSource, slice: MachOSlice, into bundle: inout BundleReport, sources: inout [EntitlementSource]
  ) {
    guard let section = slice.entitlementsSection, section.size > 0 else { return }
    let arch = slice.architecture
    let name = "\(source.name) (\(arch) __TEXT,__entitlements)"
    guard section.size <= Self.maximumEntitlementsSection, section.offset <= slice.size,
      section.size <= slice.size - section.offset
    else {
      bundle.diagnostics.append(
        Diagnostic(
          .error, .machOEntitlementsSection,
          "\(name): \(section.size) bytes at \(section.offset) lie outside the slice or over the 1 MiB limit"))
      return
    }
    do {
      let bytes = try source.read(at: slice.offset + section.offset, count: Int(section.size))
      let value = try PropertyList.decodeDictionary(bytes, file: name)
      sources.append(
        EntitlementSource(kind: .simulatorSection, detail: "__TEXT,__entitlements, \(arch)", entitlements: value))
    } catch {
      bundle.diagnostics.append(Diagnostic(error, fallbackCode: .machOEntitlementsSection))
    }
  }

  private func readExecutable(
    _ source: any ByteSource, into bundle: inout BundleReport, sources: inout [EntitlementSource]
  ) {
    let slices: [MachOSlice]
    do {
      slices = try MachOFile.slices(of: source)
    } catch {
      bundle.diagnostics.append(Diagnostic(error, fallbackCode: .machOUnreadable))
      return
    }
    bundle.architectures = slices.map(\.architecture)
    bundle.encrypted = slices.contains { ($0.cryptID ?? 0) != 0 }
    var directories: [CodeDirectory] = []
    for slice in slices {
      let arch = slice.architecture
      readSimulatorSection(source, slice: slice, into: &bundle, sources: &sources)
      let signature: CodeSignature?
      do {
        signature = try CodeSignatureReader.read(source, slice: slice)
      } catch {
        bundle.diagnostics.append(Diagnostic(error, fallbackCode: .signatureUnreadable))
        continue
      }
      guard let signature else {
        bundle.diagnostics.append(
          Diagnostic(.info, .signatureUnsigned, "\(source.name): \(arch) slice has no code signature"))
        continue
      }
      for warning in signature.warnings {
        bundle.diagnostics.append(
          Diagnostic(.warning, .signatureDuplicateBlob, "\(source.name) (\(arch)): \(warning)"))
      }
      if let best = signature.bestCodeDirectory { directories.append(best) }
      if let der = signature.derEntitlements {
        do {
          let (value, form) = try DEREntitlements.decode(der)
          sources.append(EntitlementSource(architecture: arch, form: .init(form), entitlements: value))
        } catch {
          bundle.diagnostics.append(Diagnostic(.error, error.code, "\(source.name) (\(arch)): \(error)"))
        }
      }
      if let xml = signature.xmlEntitlements {
        do {
          let value = try PropertyList.decodeDictionary(xml, file: "\(source.name) (\(arch) entitlements blob)")
          let form: EntitlementSource.Form = xml.starts(with: Array("bplist00".utf8)) ? .xmlBinaryPlist : .xml
          sources.append(EntitlementSource(architecture: arch, form: form, entitlements: value))
        } catch {
          // Real apps sometimes carry a malformed XML blob; the DER blob, when present, still counts.
          let severity: Diagnostic.Severity = signature.derEntitlements == nil ? .error : .warning
          bundle.diagnostics.append(Diagnostic(error, severity: severity, fallbackCode: .signatureXMLMalformed))
        }
      }
    }
    if let cd = directories.first {
      bundle.signingIdentifier = cd.identifier
      bundle.teamId = cd.teamID
    }
    if Set(directories.map(\.identifier)).count > 1 || Set(directories.map(\.teamID)).count > 1 {
      bundle.diagnostics.append(
        Diagnostic(
          .warning, .signatureSliceDisagreement,
          "\(source.name): slices are signed with different identifiers or teams"))
    }
  }

  /// Resolves effective entitlements and derives the identity and domains from them.
  private func finish(_ bundle: inout BundleReport, sources: [EntitlementSource], info: [String: PlistValue]?) {
    let (resolved, disagreements) = EntitlementResolver.resolve(sources)
    bundle.diagnostics += disagreements
    bundle.entitlementSourceDetails = resolved
    var kinds: [String] = []
    for s in resolved where !kinds.contains(s.kind.rawValue) { kinds.append(s.kind.rawValue) }
    bundle.entitlementSources = kinds
    bundle.entitlements = resolved.first(where: \.effective)?.entitlements ?? [:]
    let e = bundle.entitlements

    if let team = e["com.apple.developer.team-identifier"]?.stringValue { bundle.teamId = team }
    if bundle.teamId == nil, let team = bundle.provisioningProfile?.teamIdentifiers.first { bundle.teamId = team }
    let appIdentifier = e["application-identifier"]?.stringValue ?? e["com.apple.application-identifier"]?.stringValue
    if bundle.teamId == nil, let appIdentifier, let dot = appIdentifier.firstIndex(of: ".") {
      bundle.teamId = String(appIdentifier[..<dot])
    }
    if let appIdentifier, !appIdentifier.hasSuffix("*") {
      bundle.appId = appIdentifier
    } else if let team = bundle.teamId, let id = bundle.bundleId ?? bundle.signingIdentifier {
      bundle.appId = "\(team).\(id)"
    }
    if let appId = bundle.appId, let bundleId = bundle.bundleId, !appId.hasSuffix("." + bundleId) {
      bundle.diagnostics.append(
        Diagnostic(
          .warning, .identityAppIDMismatch,
          "\(bundle.path): application-identifier \(appId) does not end in the bundle id \(bundleId)"))
    }

    let getTaskAllow = e["get-task-allow"]?.boolValue
    if let profile = bundle.provisioningProfile {
      bundle.distribution = profile.kind.rawValue
    } else if bundle.encrypted == true {
      bundle.distribution = "app-store"
    } else if resolved.first(where: \.effective)?.kind == .simulatorSection {
      // Entitlements only in `__TEXT,__entitlements`: built for the simulator, which runs nowhere else.
      bundle.distribution = "simulator"
    } else if getTaskAllow == true {
      bundle.distribution = "development"
    }

    guard let value = e["com.apple.developer.associated-domains"] else { return }
    guard let entries = value.stringArray else {
      bundle.diagnostics.append(
        Diagnostic(
          .error, .domainNotAList,
          "\(bundle.path): com.apple.developer.associated-domains is \(value.summary), not a list of strings"))
      return
    }
    if entries.count > Self.maximumDomainsPerBundle {
      bundle.diagnostics.append(
        Diagnostic(
          .error, .domainTooMany,
          "\(bundle.path): \(entries.count) associated domains; only the first \(Self.maximumDomainsPerBundle) are reported"
        ))
    }
    var seen: Set<String> = []
    for raw in entries.prefix(Self.maximumDomainsPerBundle) {
      if !seen.insert(raw).inserted {
        bundle.diagnostics.append(Diagnostic(.info, .domainDuplicate, "associated domain \"\(raw)\" is listed twice"))
        continue
      }
      var domain = AssociatedDomain.parse(raw, diagnostics: &bundle.diagnostics)
      if domain.active && domain.modes.contains("developer") && getTaskAllow != true {
        domain.active = false
        domain.inactiveReason = "developer mode works only in development-signed builds (get-task-allow)"
      }
      bundle.associatedDomains.append(domain)
    }
  }

  private func inspectStandaloneDocument(path: String, head: [UInt8], into report: inout InspectionReport) throws {
    let source = try FileByteSource(path: path)
    guard source.size <= UInt64(Self.maximumSmallFileSize) else {
      throw ArchiveError.entryTooLarge(entry: path, limit: Self.maximumSmallFileSize)
    }
    let bytes = try source.read(at: 0, count: Int(source.size))
    var bundle = BundleReport(path: path, kind: .file)
    var sources: [EntitlementSource] = []
    if PropertyList.looksLikePlist(head) {
      let plist = try PropertyList.decodeDictionary(bytes, file: path)
      if plist["ExpirationDate"] != nil || plist["ProvisionedDevices"] != nil || plist["TeamIdentifier"] != nil {
        report.inputKind = .provisioningProfile
        let profile = ProvisioningProfile(plist: plist)
        bundle.provisioningProfile = profile
        sources.append(
          EntitlementSource(kind: .provisioningProfile, detail: "profile", entitlements: profile.entitlements))
      } else {
        report.inputKind = .entitlementsPlist
        sources.append(
          EntitlementSource(kind: .xcent, detail: URL(fileURLWithPath: path).lastPathComponent, entitlements: plist))
      }
    } else {
      guard CMSEnvelope.looksLikeEnvelope(head) else {
        throw ArchiveError.unreadable(
          file: path, detail: "not an .ipa, app folder, Mach-O executable, entitlements plist or provisioning profile")
      }
      report.inputKind = .provisioningProfile
      let profile = try ProvisioningProfile.parse(bytes, file: path)
      bundle.provisioningProfile = profile
      sources.append(
        EntitlementSource(kind: .provisioningProfile, detail: "profile", entitlements: profile.entitlements))
    }
    finish(&bundle, sources: sources, info: nil)
    report.bundles.append(bundle)
  }
}
