import Foundation

/// Turns command-line arguments into the sorted list of inputs a batch inspects, and picks one shard of it.
///
/// Sorting first makes the list, and so every shard, the same on every machine that sees the same files, whatever
/// order the file system lists them in; a job runner can then spread a corpus over machines and concatenate the
/// JSON Lines.
public enum BatchInputs {
  /// Folders are walked for these; anything else inside them is ignored.
  static let walkedExtension = "ipa"

  /// The inputs named by `arguments`, sorted and without duplicates, and one line per argument that named nothing.
  ///
  /// An app folder (see ``isAppFolder(_:)``) is inspected as it is; other folders are walked,
  /// recursively, for `*.ipa` files. Walking never follows a symbolic link to a folder (no loops) and skips hidden
  /// entries. A `*.ipa` that is a link to nothing is an input all the same (its error record names it, and the batch
  /// is partial); one that is an app folder (an unzipped IPA) is read as one app; a FIFO, a device or a socket,
  /// which could block the reader forever, is skipped and counted in `notes`.
  /// Files a walk passes over that `inspect` reads when they are named (Mach-O executables, entitlements plists,
  /// profiles) are counted, and said in `notes`, one line per folder. A folder it cannot read (its permissions) is an
  /// input of its own, whose error record says so: the batch is partial, rather than complete without what it holds.
  public static func collect(_ arguments: [String]) -> (inputs: [String], problems: [String], notes: [String]) {
    var inputs = Set<String>()
    var problems: [String] = []
    var notes: [String] = []
    let fm = FileManager.default
    for argument in arguments {
      var isDirectory: ObjCBool = false
      guard fm.fileExists(atPath: argument, isDirectory: &isDirectory) else {
        // Missing files still become inputs, so the inspector gives them their own error record.
        inputs.insert(argument)
        continue
      }
      if !isDirectory.boolValue || isAppFolder(argument) || access(argument, R_OK | X_OK) != 0 {
        inputs.insert(argument)
        continue
      }
      let (found, skipped) = walk(argument)
      if found.isEmpty && skipped.unreadableFolders.isEmpty {
        problems.append("\(argument): no .\(walkedExtension) files found in this folder")
      }
      inputs.formUnion(skipped.unreadableFolders)
      notes += skippedNotes(argument, skipped)
      inputs.formUnion(found)
    }
    // One file named two ways (`ipas`, `./ipas` and `$PWD/ipas` given together) is one input: the first name.
    var unique: [String] = []
    var twice: [(String, String)] = []
    var first: [String: String] = [:]
    for input in inputs.sorted() {
      let key = URL(fileURLWithPath: input).standardizedFileURL.path
      if let name = first[key] {
        twice.append((input, name))
      } else {
        unique.append(input)
        first[key] = input
      }
    }
    if let (again, name) = twice.first {
      notes.append(
        "\(TerminalText.count(twice.count, "input")) named again another way, inspected once: "
          + "\(TerminalText.escape(again)) is \(TerminalText.escape(name))" + (twice.count > 1 ? ", …" : ""))
    }
    return (unique, problems, notes)
  }

  /// What a walk passed over that `inspect` would read if named, by kind.
  struct Skipped: Equatable {
    var executables = 0
    var entitlements = 0
    var profiles = 0
    /// `*.ipa` entries that are neither files nor folders: FIFOs, devices, sockets.
    var notFiles = 0
    /// Links to folders, which a walk does not follow.
    var linkedFolders = 0
    /// Folders it could not list or enter (their permissions), by path: inputs, so each has its error record.
    var unreadableFolders: [String] = []
    /// The first few of each, by path, for the notes to name.
    var notFileNames: [String] = []
    var linkedFolderNames: [String] = []
    var total: Int { executables + entitlements + profiles }
  }

  /// The lines that say what a walk of `folder` skipped: files `inspect` reads when named, `*.ipa` entries that are
  /// no files, and links to folders; none when it skipped none of them.
  static func skippedNotes(_ folder: String, _ skipped: Skipped) -> [String] {
    // Each named (the first three), as every other line of a batch names its file.
    func named(_ names: [String], of count: Int) -> String {
      ": " + names.map { TerminalText.escape($0) }.joined(separator: ", ")
        + (count > names.count ? " and \(count - names.count) more" : "")
    }
    let pipes =
      skipped.notFiles == 0
      ? nil
      : "\(folder): skipped \(TerminalText.count(skipped.notFiles, "entry", "entries")) named .\(walkedExtension) "
        + "that \(skipped.notFiles == 1 ? "is" : "are") not a file (a FIFO, a device or a socket, which a read could "
        + "wait on forever)" + named(skipped.notFileNames, of: skipped.notFiles)
    let them = skipped.linkedFolders == 1 ? "it" : "them"
    let links =
      skipped.linkedFolders == 0
      ? nil
      : "\(folder): skipped \(TerminalText.count(skipped.linkedFolders, "link to a folder", "links to folders")), "
        + "which a walk does not follow (a link may lead back up and loop); name \(them) to walk \(them)"
        + named(skipped.linkedFolderNames, of: skipped.linkedFolders)
    return [skippedNote(folder, skipped), pipes, links].compactMap { $0 }
  }

  private static func skippedNote(_ folder: String, _ skipped: Skipped) -> String? {
    guard skipped.total > 0 else { return nil }
    let kinds = [
      (skipped.executables, "Mach-O executable", "Mach-O executables"),
      (skipped.entitlements, "entitlements plist", "entitlements plists"),
      (skipped.profiles, "provisioning profile", "provisioning profiles"),
    ].filter { $0.0 > 0 }.map { TerminalText.count($0.0, $0.1, $0.2) }
    return "\(folder): skipped \(kinds.joined(separator: ", ")): a folder is walked for .\(walkedExtension) files "
      + "only; name \(skipped.total == 1 ? "it" : "them") to inspect \(skipped.total == 1 ? "it" : "them")"
  }

  /// Whether `arguments` make a batch: several inputs, or a folder of them that is not one app. One plain input
  /// keeps the single-report output (a JSON object, not a line).
  public static func isBatch(_ arguments: [String]) -> Bool {
    var isDirectory: ObjCBool = false
    return arguments.count > 1
      || (FileManager.default.fileExists(atPath: arguments[0], isDirectory: &isDirectory) && isDirectory.boolValue
        && !isAppFolder(arguments[0]))
  }

  /// A folder `inspect` reads as one app rather than walks: `X.app`, an unzipped IPA (with `Payload/`), or a folder
  /// with the app's `Info.plist` at the top.
  public static func isAppFolder(_ path: String) -> Bool {
    let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
    if trimmed.lowercased().hasSuffix(".app") { return true }
    var isDirectory: ObjCBool = false
    let fm = FileManager.default
    return (fm.fileExists(atPath: trimmed + "/Payload", isDirectory: &isDirectory) && isDirectory.boolValue)
      || fm.fileExists(atPath: trimmed + "/Info.plist")
  }

  /// Every regular `*.ipa` file under `folder`, as paths that start with `folder`, and the files passed over that
  /// `inspect` reads when named: by name (`.xcent`, `.entitlements`, `.mobileprovision`), or, for a file without an
  /// extension, by its first four bytes (a Mach-O executable).
  static func walk(_ folder: String) -> (found: [String], skipped: Skipped) {
    // A folder named through a link is walked (the enumerator lists nothing under a link): only links met inside a
    // walk are not followed. The inputs keep the name the folder was given by.
    let base = URL(fileURLWithPath: folder, isDirectory: true).resolvingSymlinksInPath()
    guard
      let enumerator = FileManager.default.enumerator(
        at: base, includingPropertiesForKeys: [.isDirectoryKey, .isSymbolicLinkKey], options: [.skipsHiddenFiles])
    else { return ([], Skipped()) }
    let prefix = folder.hasSuffix("/") ? folder : folder + "/"
    /// The path of `url` as the folder was named.
    func named(_ url: URL) -> String {
      prefix + (url.path.hasPrefix(base.path + "/") ? String(url.path.dropFirst(base.path.count + 1)) : url.path)
    }
    var found: [String] = []
    var skipped = Skipped()
    for case let url as URL in enumerator {
      let suffix = url.pathExtension.lowercased()
      // A link to a folder is not walked (no loops): counted, so a folder of links to folders is not "empty".
      if suffix != walkedExtension, (try? url.resourceValues(forKeys: [.isSymbolicLinkKey]))?.isSymbolicLink == true,
        kind(url.path) == .folder
      {
        skipped.linkedFolders += 1
        if skipped.linkedFolderNames.count < 3 { skipped.linkedFolderNames.append(named(url)) }
        continue
      }
      if isUnreadableFolder(url) {
        skipped.unreadableFolders.append(named(url))
        enumerator.skipDescendants()
        continue
      }
      guard suffix == walkedExtension else {
        switch suffix {
        case "xcent", "entitlements": if isRegularFile(url.path) { skipped.entitlements += 1 }
        case "mobileprovision", "provisionprofile": if isRegularFile(url.path) { skipped.profiles += 1 }
        case "": if isRegularFile(url.path) && isMachO(url.path) { skipped.executables += 1 }
        default: break
        }
        continue
      }
      switch kind(url.path) {
      case .file, .missing: break  // a link to nothing is an input, so its error record says what it lacks
      case .folder where isAppFolder(url.path):
        enumerator.skipDescendants()  // an unzipped IPA named X.ipa, read as one app, as when named
      case .folder: continue
      case .other:
        skipped.notFiles += 1
        if skipped.notFileNames.count < 3 { skipped.notFileNames.append(named(url)) }
        continue
      }
      found.append(named(url))
    }
    return (found, skipped)
  }

  /// Whether `url` is a folder (not a link to one) this user cannot list or enter, which the walk would pass over
  /// without a word.
  private static func isUnreadableFolder(_ url: URL) -> Bool {
    var info = stat()
    guard lstat(url.path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return false }
    return access(url.path, R_OK | X_OK) != 0
  }

  /// Whether the file at `path` starts as a Mach-O or a universal binary does.
  private static func isMachO(_ path: String) -> Bool {
    guard let file = try? FileByteSource(path: path), let head = try? file.read(at: 0, count: Int(min(file.size, 8)))
    else { return false }
    return MachOFile.looksLikeMachO(head)
  }

  /// `stat` follows a symbolic link to a file (symlink farms of IPAs are common) but rejects FIFOs and devices.
  static func isRegularFile(_ path: String) -> Bool { kind(path) == .file }

  /// What a walked `*.ipa` entry is, through links: a file, nothing (a link to nothing, or one `stat` cannot
  /// follow), a folder, or something a read could block on forever (a FIFO, a device, a socket).
  enum Kind { case file, missing, folder, other }

  static func kind(_ path: String) -> Kind {
    var info = stat()
    guard stat(path, &info) == 0 else { return .missing }
    switch info.st_mode & S_IFMT {
    case S_IFREG: return .file
    case S_IFDIR: return .folder
    default: return .other
    }
  }
}

/// `--shard i/n`: the i-th of n deterministic parts of the sorted inputs.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
  /// 1-based.
  public var index: Int
  /// How many shards the inputs are split into; every machine of one job must use the same count.
  public var count: Int

  /// Takes the numbers as they are; ``init(parsing:)`` is the one that checks 1 ≤ index ≤ count.
  public init(index: Int, count: Int) {
    self.index = index
    self.count = count
  }

  /// Parses `i/n` with 1 ≤ i ≤ n; nil for anything else.
  public init?(parsing text: String) {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]), n >= 1, (1...n).contains(i) else {
      return nil
    }
    self.init(index: i, count: n)
  }

  /// `i/n`, the form ``init(parsing:)`` reads back, for log lines.
  public var description: String { "\(index)/\(count)" }

  /// Round-robin over the sorted list, so shards differ in size by at most one and neighbouring files (often the
  /// versions of one app) spread over machines.
  public func select<T>(_ items: [T]) -> [T] {
    items.enumerated().filter { $0.offset % count == index - 1 }.map(\.element)
  }
}
