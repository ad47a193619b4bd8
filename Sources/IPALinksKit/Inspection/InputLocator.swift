import Foundation
import UniversalLinks

/// The first stage of an inspection: what an input is, and where its bundles are.
///
/// An archive or folder is opened as a container and its bundles are found from its paths; a bare executable, an
/// entitlements plist or a profile is one file that stands for one bundle.
enum InputLocator {
  /// What the input turned out to be.
  enum Located {
    /// An .ipa or an unzipped folder, with the bundles found in it.
    case container(any FileContainer, [BundleLocator.Located])
    /// A bare Mach-O, read for its code signature.
    case executable(any ByteSource)
    /// A standalone provisioning profile, signed or as its bare plist.
    case profile(ProvisioningProfile)
    /// A standalone entitlements plist, such as an `.xcent` file.
    case entitlements([String: PlistValue])
  }

  /// Opens `path` and finds its bundles; the kind goes into `report`, and problems with the input as a whole into
  /// its diagnostics. Nil when nothing more can be read.
  static func locate(_ path: String, into report: inout InspectionReport) throws -> Located? {
    var isDirectory: ObjCBool = false
    var info = stat()
    if stat(path, &info) != 0 && errno == EACCES {
      // There, but behind a folder this user cannot search: not "no such file".
      report.diagnostics.append(
        Diagnostic(
          .error, .inputUnreadable,
          "\(path): cannot be reached: a folder on its path cannot be searched (permission denied)"))
      return nil
    }
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
      // A link whose file is gone (a symlink farm of IPAs, one deleted) says where it points.
      let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path)
      // Names reach Swift as UTF-8, bytes that are not (a Latin-1 name from an old archive or a share) as U+FFFD,
      // and that name is no file's: not missing, but a name ipalinks cannot open.
      if target == nil && path.unicodeScalars.contains("\u{FFFD}") {
        report.diagnostics.append(
          Diagnostic(
            .error, .inputUnreadable,
            "\(path): cannot be opened: its name is not UTF-8 (\u{FFFD} stands for the bytes that are not), and "
              + "ipalinks reads names as UTF-8; rename it"))
        return nil
      }
      let what = target.map { "a link to \($0), which does not exist" } ?? "no such file or folder"
      report.diagnostics.append(Diagnostic(.error, .inputNotFound, "\(path): \(what)"))
      return nil
    }
    if isDirectory.boolValue {
      // A folder a walk found and could not list (BatchInputs.walk), or one named that cannot be read.
      if access(path, R_OK | X_OK) != 0 {
        report.diagnostics.append(
          Diagnostic(
            .error, .inputUnreadable,
            "\(path): cannot read this folder: \(String(cString: strerror(errno))); what it holds is not inspected"))
        return nil
      }
      report.inputKind = .appFolder
      return bundles(in: try folderContainer(path), into: &report)
    }
    let head = try FileByteSource(path: path)
    if head.size == 0 {
      // A device (/dev/zero) has no size either: said as what it is, not as an empty file.
      var info = stat()
      let kind = stat(path, &info) == 0 ? info.st_mode & S_IFMT : S_IFREG
      let what: String =
        switch kind {
        case S_IFCHR: "a character device, not a file"
        case S_IFBLK: "a block device, not a file"
        case S_IFIFO: "a FIFO, not a file"
        case S_IFSOCK: "a socket, not a file"
        default: "empty file (0 bytes)"
        }
      report.diagnostics.append(Diagnostic(.error, .inputUnreadable, "\(path): \(what)"))
      return nil
    }
    let magic = try head.read(at: 0, count: Int(min(head.size, 64)))
    if magic.starts(with: [0x50, 0x4B]) || path.lowercased().hasSuffix(".ipa") {
      report.inputKind = .ipa
      return bundles(in: try ZipArchive(path: path), into: &report)
    }
    if MachOFile.looksLikeMachO(magic) {
      report.inputKind = .executable
      return .executable(head)
    }
    guard head.size <= UInt64(Inspector.maximumSmallFileSize) else {
      throw ArchiveError.entryTooLarge(entry: path, limit: Inspector.maximumSmallFileSize)
    }
    let bytes = try head.read(at: 0, count: Int(head.size))
    if PropertyList.looksLikePlist(magic) {
      let plist = try PropertyList.decodeDictionary(bytes, file: path)
      // A profile's own keys tell it from a plist of entitlements.
      if plist["ExpirationDate"] != nil || plist["ProvisionedDevices"] != nil || plist["TeamIdentifier"] != nil {
        report.inputKind = .provisioningProfile
        return .profile(ProvisioningProfile(plist: plist))
      }
      report.inputKind = .entitlementsPlist
      return .entitlements(plist)
    }
    guard CMSEnvelope.looksLikeEnvelope(magic) else {
      throw ArchiveError.unreadable(
        file: path, detail: "not an .ipa, app folder, Mach-O executable, entitlements plist or provisioning profile")
    }
    report.inputKind = .provisioningProfile
    return .profile(try ProvisioningProfile.parse(bytes, file: path))
  }

  /// The bundles of a container, with what is wrong with the container: unsafe entry names, too many bundles, no
  /// app at all, or several apps.
  static func bundles(in container: any FileContainer, into report: inout InspectionReport) -> Located {
    for unsafe in container.unsafePaths.prefix(20) {
      report.diagnostics.append(
        Diagnostic(
          .warning, .archiveUnsafeEntryName,
          "\(container.name): ignoring entry \"\(unsafe)\" whose name could escape the archive"))
    }
    // What an extractor installs may be another copy than the one read: the answer is not certain.
    for duplicate in ((container as? ZipArchive)?.duplicatePaths ?? []).prefix(20) {
      report.diagnostics.append(
        Diagnostic(
          .error, .archiveDuplicateEntry,
          "\(container.name): more than one entry is named \"\(duplicate)\"; the first is read, and a tool that "
            + "extracts the archive may keep another"))
    }
    let (bundles, truncated) = BundleLocator.locate(paths: container.paths)
    if truncated {
      report.diagnostics.append(
        Diagnostic(
          .error, .archiveTooManyBundles,
          "\(container.name): more than \(BundleLocator.maximumBundles) bundles; the rest are not inspected"))
    }
    if bundles.isEmpty {
      report.diagnostics.append(
        Diagnostic(.error, .archiveNoPayload, "\(container.name): no Payload/<Name>.app/ at the archive root"))
    } else if bundles.filter({ $0.kind == .app }).count > 1 {
      report.diagnostics.append(
        Diagnostic(
          .warning, .archiveMultipleApps, "\(container.name): more than one Payload/<Name>.app; inspecting each"))
    }
    return .container(container, bundles)
  }

  /// An unzipped `.app` (or a folder holding its files) is read as `Payload/<Name>.app`; any other folder as an
  /// unzipped archive.
  private static func folderContainer(_ path: String) throws(ArchiveError) -> DirectoryContainer {
    let url = URL(fileURLWithPath: path)
    let name = url.standardizedFileURL.lastPathComponent
    if name.hasSuffix(".app") || FileManager.default.fileExists(atPath: url.appendingPathComponent("Info.plist").path) {
      let bundleName = name.hasSuffix(".app") ? name : name + ".app"
      return try DirectoryContainer(path: path, prefix: "Payload/\(bundleName)/")
    }
    return try DirectoryContainer(path: path)
  }
}
