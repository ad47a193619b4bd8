import Foundation

/// The second stage of an inspection: what a bundle's files say before anything is derived from them. Info.plist,
/// the executable's slices and code signatures, the `.xcent` and the profile, with each entitlements blob a source
/// of its own. A file that cannot be read becomes a finding, and the others are still read.
struct BundleContents {
  /// Cap for Info.plist, `.xcent` and profiles: real ones are kilobytes, a zip bomb is refused at this size.
  static let maximumSmallFileSize = 8 << 20
  /// The most a `__TEXT,__entitlements` section may hold; real ones are a few kilobytes.
  static let maximumEntitlementsSection: UInt64 = 1 << 20

  /// The report so far: what the files say directly, and the problems met reading them.
  var bundle: BundleReport
  /// Every entitlements blob found, none of them chosen yet.
  var sources: [EntitlementSource] = []
  /// Built for a simulator: a slice's `LC_BUILD_VERSION` names a simulator platform, or the executable keeps
  /// entitlements in its `__TEXT,__entitlements` section.
  var isSimulatorBuild = false
  /// The team of a slice signed with no entitlements blob at all, when one was.
  private var signedWithoutEntitlements: String?

  /// Reads a bundle found in a container.
  init(_ located: BundleLocator.Located, in container: any FileContainer, paths: Set<String>) {
    bundle = BundleReport(path: located.path, kind: located.kind)
    let root = located.path + "/"
    do {
      let bytes = try container.contents(of: root + "Info.plist", limit: Self.maximumSmallFileSize)
      readInfo(try PropertyList.decodeDictionary(bytes, file: root + "Info.plist"))
    } catch {
      bundle.diagnostics.append(Diagnostic(error, fallbackCode: .infoPlistUnreadable))
    }
    let folderName = String(located.path.split(separator: "/").last ?? "")
    let executable = bundle.executable ?? String(folderName.prefix { $0 != "." })
    bundle.executable = executable
    let executablePath = root + executable
    if paths.contains(executablePath) {
      do {
        readExecutable(try container.byteSource(for: executablePath))
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
        // With no entitlements in a signature the .xcent is the effective source: unread, the app's entitlements
        // (its associated domains among them) are unknown, not empty.
        let effective = !sources.contains { $0.kind == .codeSignature || $0.kind == .simulatorSection }
        bundle.diagnostics.append(
          Diagnostic(error, severity: effective ? .error : .warning, fallbackCode: .xcentUnreadable))
      }
    }
    // A team's signature without entitlements grants the app none on a device, whatever the .xcent says: the
    // .xcent still stands in (the lists then block more, never less), and the report says so.
    if let team = signedWithoutEntitlements, sources.contains(where: { $0.kind == .xcent }),
      !sources.contains(where: { $0.kind == .codeSignature || $0.kind == .simulatorSection })
    {
      bundle.diagnostics.append(
        Diagnostic(
          .warning, .signatureNoEntitlements,
          "\(executablePath): signed by team \(team) with no entitlements in its code signature, so iOS grants it "
            + "none and opens no link in it; the .xcent's, read instead, are what the build was meant to have"))
    }
    let profilePath = root + "embedded.mobileprovision"
    if paths.contains(profilePath) {
      do {
        let bytes = try container.contents(of: profilePath, limit: Self.maximumSmallFileSize)
        add(try ProvisioningProfile.parse(bytes, file: profilePath), detail: "embedded.mobileprovision")
      } catch {
        bundle.diagnostics.append(Diagnostic(error, severity: .warning, fallbackCode: .profileUnreadable))
      }
    }
  }

  /// A bare executable, read for its code signature.
  init(executable source: any ByteSource, path: String) {
    bundle = BundleReport(path: path, kind: .file)
    readExecutable(source)
  }

  /// A standalone provisioning profile.
  init(profile: ProvisioningProfile, path: String) {
    bundle = BundleReport(path: path, kind: .file)
    add(profile, detail: "profile")
  }

  /// A standalone entitlements plist, such as an `.xcent` file.
  init(entitlements: [String: PlistValue], path: String) {
    bundle = BundleReport(path: path, kind: .file)
    sources.append(
      EntitlementSource(kind: .xcent, detail: URL(fileURLWithPath: path).lastPathComponent, entitlements: entitlements))
  }

  private mutating func add(_ profile: ProvisioningProfile, detail: String) {
    bundle.provisioningProfile = profile
    sources.append(EntitlementSource(kind: .provisioningProfile, detail: detail, entitlements: profile.entitlements))
  }

  private mutating func readInfo(_ info: [String: PlistValue]) {
    bundle.bundleId = string(info, "CFBundleIdentifier")
    bundle.name = string(info, "CFBundleDisplayName") ?? string(info, "CFBundleName")
    bundle.version = string(info, "CFBundleShortVersionString")
    bundle.build = string(info, "CFBundleVersion")
    bundle.minimumOSVersion = string(info, "MinimumOSVersion") ?? string(info, "LSMinimumSystemVersion")
    if let exe = string(info, "CFBundleExecutable"), !exe.isEmpty, !exe.contains("/"), exe != "..", exe != "." {
      bundle.executable = exe
    }
    var schemes: [String] = []
    // Each once, in order: a set, as 40,000 schemes made a list's own search take 40 s.
    var seenSchemes: Set<String> = []
    // A lone dictionary is read as a list of one; anything else that is not a list, said and left out.
    var typeList: [PlistValue] = []
    if let types = info["CFBundleURLTypes"] {
      if let list = types.arrayValue {
        typeList = list
      } else if types.dictionaryValue != nil {
        wrongType("CFBundleURLTypes", types, "an array; read as a list of one")
        typeList = [types]
      } else {
        wrongType("CFBundleURLTypes", types, "an array; left out")
      }
    }
    for (index, type) in typeList.enumerated() {
      guard type.dictionaryValue != nil else {
        wrongType("CFBundleURLTypes/\(index)", type, "a dictionary; left out")
        continue
      }
      for scheme in strings(type["CFBundleURLSchemes"], at: "CFBundleURLTypes/\(index)/CFBundleURLSchemes")
      where seenSchemes.insert(scheme).inserted {
        schemes.append(scheme)
      }
    }
    bundle.urlSchemes = schemes
    bundle.queriedURLSchemes = strings(info["LSApplicationQueriesSchemes"], at: "LSApplicationQueriesSchemes")
  }

  /// `info[key]` when it is a string; another type is said (``wrongType(_:_:_:)``) and read as none.
  private mutating func string(_ info: [String: PlistValue], _ key: String) -> String? {
    guard let value = info[key] else { return nil }
    guard let text = value.stringValue else {
      wrongType(key, value, "a string; left out")
      return nil
    }
    return text
  }

  /// The strings of a list of strings: a number among them is left out and said, and a lone string is read as a
  /// list of one (said too), so that a scheme an app registers is never dropped with its neighbours.
  private mutating func strings(_ value: PlistValue?, at path: String) -> [String] {
    guard let value else { return [] }
    if let text = value.stringValue {
      wrongType(path, value, "an array of strings; read as a list of one")
      return [text]
    }
    guard let items = value.arrayValue else {
      wrongType(path, value, "an array of strings; left out")
      return []
    }
    var out: [String] = []
    for (index, item) in items.enumerated() {
      if let text = item.stringValue {
        out.append(text)
      } else {
        wrongType("\(path)/\(index)", item, "a string; left out")
      }
    }
    return out
  }

  /// Says that the value at `path` of Info.plist is not of the type `expected` says (with what was done about it).
  private mutating func wrongType(_ path: String, _ value: PlistValue, _ expected: String) {
    bundle.diagnostics.append(
      Diagnostic(
        .warning, .infoPlistWrongType,
        "\(bundle.path)/Info.plist: \(path) is \(value.typeName), not \(expected)"))
  }

  /// Reads every slice's signature; a failure in one slice is reported and the others still count.
  private mutating func readExecutable(_ source: any ByteSource) {
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
    isSimulatorBuild = slices.contains(where: \.isSimulator)
    for slice in slices {
      let section = readSimulatorSection(source, slice: slice)
      let directory = readSignature(source, slice: slice)
      if let directory { directories.append(directory) }
      // The section is a simulator build's: it counts where the platform is a simulator's, or unknown and the
      // slice signed by no team. A device build's is left out, as iOS reads the code signature alone: taken, a
      // decoy section without associated domains hid the signature's, and the report said it was complete.
      guard let section else { continue }
      if slice.isSimulator || (slice.platform == nil && directory?.teamID == nil) {
        isSimulatorBuild = true
      } else {
        let dropped = sources.remove(at: section)
        bundle.diagnostics.append(
          Diagnostic(
            .warning, .machOEntitlementsSection,
            "\(source.name) (\(slice.architecture) __TEXT,__entitlements): an entitlements section in a "
              + (slice.platform.map { "device build (platform \($0))" } ?? "build signed by a team")
              + ", which only the simulator reads: left out, as iOS reads the code signature's"
              + (dropped.entitlements.isEmpty
                ? "" : " (it has \(TerminalText.count(dropped.entitlements.count, "key")))")))
      }
    }
    // What the code signature says; the identity stage may find better in the entitlements.
    bundle.signingIdentifier = directories.first?.identifier
    bundle.teamId = directories.first?.teamID
    if Set(directories.map(\.identifier)).count > 1 || Set(directories.map(\.teamID)).count > 1 {
      bundle.diagnostics.append(
        Diagnostic(
          .warning, .signatureSliceDisagreement,
          "\(source.name): slices are signed with different identifiers or teams"))
    }
  }

  /// One slice's code signature: its DER and XML entitlements as sources; returns its chosen CodeDirectory.
  private mutating func readSignature(_ source: any ByteSource, slice: MachOSlice) -> CodeDirectory? {
    let arch = slice.architecture
    let signature: CodeSignature?
    do {
      signature = try CodeSignatureReader.read(source, slice: slice)
    } catch {
      bundle.diagnostics.append(Diagnostic(error, fallbackCode: .signatureUnreadable))
      return nil
    }
    guard let signature else {
      bundle.diagnostics.append(
        Diagnostic(.info, .signatureUnsigned, "\(source.name): \(arch) slice has no code signature"))
      return nil
    }
    if signature.derEntitlements == nil && signature.xmlEntitlements == nil,
      let team = signature.bestCodeDirectory?.teamID
    {
      signedWithoutEntitlements = team
    }
    for warning in signature.warnings {
      bundle.diagnostics.append(Diagnostic(.warning, .signatureDuplicateBlob, "\(source.name) (\(arch)): \(warning)"))
    }
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
    return signature.bestCodeDirectory
  }

  /// A simulator build's entitlements, from the slice's `__TEXT,__entitlements` section, as a source of its own in
  /// ``sources``: the index it was added at, or nil.
  private mutating func readSimulatorSection(_ source: any ByteSource, slice: MachOSlice) -> Int? {
    guard let section = slice.entitlementsSection, section.size > 0 else { return nil }
    let arch = slice.architecture
    let name = "\(source.name) (\(arch) __TEXT,__entitlements)"
    guard section.size <= Self.maximumEntitlementsSection, section.offset <= slice.size,
      section.size <= slice.size - section.offset
    else {
      bundle.diagnostics.append(
        Diagnostic(
          .error, .machOEntitlementsSection,
          "\(name): \(section.size) bytes at \(section.offset) lie outside the slice or over the 1 MiB limit"))
      return nil
    }
    do {
      let bytes = try source.read(at: slice.offset + section.offset, count: Int(section.size))
      let value = try PropertyList.decodeDictionary(bytes, file: name)
      sources.append(
        EntitlementSource(kind: .simulatorSection, detail: "__TEXT,__entitlements, \(arch)", entitlements: value))
      return sources.count - 1
    } catch {
      bundle.diagnostics.append(Diagnostic(error, fallbackCode: .machOEntitlementsSection))
      return nil
    }
  }
}
