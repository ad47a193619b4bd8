import Foundation

/// The formats of `ipalinks blocklist`.
public enum BlocklistFormat: String, CaseIterable, Sendable {
  /// WKContentRuleList JSON blocking document loads that would open an app.
  case wkcontentrules
  /// A self-contained `UniversalLinkGuard` with a `decidePolicyFor` helper.
  case swift
  /// A click guard to inject in pages.
  case js
  /// The hosts, one a line.
  case domains
  /// The rules, one a line: app, host, verdict, pattern.
  case patterns
  /// Regular expressions, one a line, for proxies and other tools.
  case regex
  /// The rules document the guards embed, alone: what an app downloads to swap in newer rules at run time
  /// (`UniversalLinkGuard(rulesJSON:)`).
  case rules
}

extension BlocklistFormat {
  /// Why an output file's name does not say which format to write: the message tells the formats it could mean.
  public struct Unnamed: Error, Sendable, CustomStringConvertible {
    /// The message, the name in it escaped.
    public var description: String
  }

  /// The format asked for; without one, the one `output`'s extension names (`.swift`, `.js`), else swift. Any other
  /// extension is refused rather than guessed: `rules.json` was the WebKit list before the default became the
  /// guard, and is now either that or the guard's rules document.
  public static func chosen(_ format: BlocklistFormat?, output: String?) throws(Unnamed) -> BlocklistFormat {
    if let format { return format }
    guard let output, output != "-" else { return .swift }
    let name = output.split(separator: "/").last.map(String.init) ?? output
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return .swift }
    switch name[name.index(after: dot)...].lowercased() {
    case "swift": return .swift
    case "js": return .js
    case "json":
      throw Unnamed(
        description: """
          \(TerminalText.escape(name)) could be either of two formats; give one:
            --format rules            the guard's rules document (apps download it)
            --format wkcontentrules   a WebKit list: blocks these URLs everywhere
          """)
    default:
      throw Unnamed(
        description: "Give --format for \(TerminalText.escape(name)): "
          + allCases.map(\.rawValue).joined(separator: ", ") + ".")
    }
  }
}

/// What `ipalinks blocklist` writes: the files of one format, and the notes on what the format could not express.
public struct BlocklistOutput: Sendable {
  /// One file: `suffix` is added to the output name (`""` for the first, `-2` for the second rule list, …).
  public struct File: Sendable, Equatable {
    /// What goes before the output name's extension.
    public var suffix: String
    /// The file's text.
    public var text: String
    /// What the file says about itself (``ListStamp``), for the formats that carry one.
    public var stamp: ListStamp? = nil

    /// Whether the file at `path` holds exactly this text, made at another time: for a stamped format, its bytes
    /// with the time it says it was made are this text's with that time (and, signed, with its signature, which
    /// `verify` must find valid for these rules at that time). A file cut short, edited by hand, signed with another
    /// key or unreadable is not held, so `--if-changed` replaces it; one with the same rules made earlier is.
    func isHeld(at path: String, verify: BlocklistRenderer.Verifier? = nil) -> Bool {
      guard let stamp else { return OutputFile.holds(text, at: path) }
      guard let handle = OutputFile.existingFile(path) else { return false }
      defer { try? handle.close() }
      // A few bytes more than this text at most (the time is fixed-width), so a huge file is never read whole.
      guard let data = try? handle.read(upToCount: text.utf8.count + 64), let disk = String(data: data, encoding: .utf8)
      else { return false }
      let pattern = #""generatedAt" ?: ?"([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z)""#
      guard let match = disk.range(of: pattern, options: .regularExpression),
        let made = disk[match].range(of: #"[0-9]{4}-[0-9-]+T[0-9:]+Z"#, options: .regularExpression)
      else { return false }
      guard let mine = text.range(of: stamp.generatedAt) else { return false }
      let then = String(disk[match][made])
      var expected = text.replacingCharacters(in: mine, with: then)
      if let signature = stamp.signature {
        // The signature covers the time, so the file's is checked rather than compared.
        let pattern = BlocklistOutput.signaturePattern
        guard let verify, let signed = stamp.signed, let found = disk.range(of: pattern, options: .regularExpression),
          let value = disk[found].split(separator: "\"").last, let bytes = Data(base64Encoded: String(value)),
          let ours = expected.range(of: signature)
        else { return false }
        expected.replaceSubrange(ours, with: value)
        let signedThen = signed.replacingOccurrences(
          of: #""generatedAt":"\#(stamp.generatedAt)""#, with: #""generatedAt":"\#(then)""#)
        guard verify(Array(signedThen.utf8), Array(bytes)) else { return false }
      }
      return expected == disk
    }
  }

  /// The files, the first one always there.
  public var files: [File]
  /// Approximations, left-out rules and uncovered domains.
  public var notes: [BlocklistNote]
  /// What the files hold, counted for people: `16 rules` (WebKit rules, regexes, or the AASA rules a guard or a
  /// pattern list carries), or `3 hosts`.
  public var size: String
  /// The most rules a WebKit list or a regex file holds.
  public let maxRules: Int
  /// Checks the signature of a signed list written earlier, for `--if-changed`.
  let verify: BlocklistRenderer.Verifier?
  /// For the rules document alone (`--format rules`, what apps download), its list's name (`--list-name`), or nil
  /// for one with no name: a document of another list is not written over it. Nil for the other formats.
  let rulesDocumentList: String??
  /// Whether the files are numbered WebKit lists (`rules.json`, `rules-2.json`, …), which a run may need fewer of
  /// than the last.
  let numbered: Bool

  /// Renders `blocklist` in `format`; WebKit lists and regexes hold at most `maxRules` rules each.
  ///
  /// The WebKit lists and the guards' rules carry a ``ListStamp`` made at `time`; with `sign`, the guards' rules
  /// document carries its signature too, made with that key. `list` names the list in every stamp; an
  /// ``UpdatingLinkGuard`` takes documents of its own list only.
  public init(
    _ blocklist: Blocklist, format: BlocklistFormat, maxRules: Int, generator: String, at time: Date = Clock.now,
    sign key: BlocklistSigningKey? = nil, list: String? = nil
  ) {
    let renderer = BlocklistRenderer(blocklist)
    let sign = key?.signer
    verify = key?.verifier
    self.maxRules = maxRules
    numbered = format == .wkcontentrules
    rulesDocumentList = format == .rules ? .some(list) : .none
    notes = blocklist.notes
    let aasaRules = blocklist.apps.reduce(0) { $0 + $1.scopes.reduce(0) { $0 + $1.rules.rules.count } }
    size = TerminalText.count(aasaRules, "rule")
    switch format {
    case .wkcontentrules:
      let (lists, listNotes) = renderer.contentRules(maxRules: maxRules)
      notes = listNotes
      files = lists.enumerated().map { (index, rules) in
        var stamp = ListStamp(generator: generator, at: time, content: Array(BlocklistRenderer.json(rules).utf8))
        stamp.list = list
        return File(
          suffix: index == 0 ? "" : "-\(index + 1)", text: BlocklistRenderer.json(rules, stamp: stamp), stamp: stamp)
      }
      size = TerminalText.count(lists.reduce(0) { $0 + $1.count }, "rule")
    case .regex:
      let (text, listNotes) = renderer.regexes(maxRules: maxRules)
      notes = listNotes
      files = [File(suffix: "", text: text)]
      size = TerminalText.count(text.split(separator: "\n").filter { !$0.hasPrefix("#") }.count, "rule")
    case .swift:
      let (text, stamp) = renderer.stampedSwiftGuard(generator: generator, at: time, sign: sign, list: list)
      files = [File(suffix: "", text: text, stamp: stamp)]
    case .js:
      let (text, stamp) = renderer.stampedJavaScriptGuard(generator: generator, at: time, sign: sign, list: list)
      files = [File(suffix: "", text: text, stamp: stamp)]
    case .rules:
      let (text, stamp) = renderer.stampedGuardDocument(generator: generator, at: time, sign: sign, list: list)
      files = [File(suffix: "", text: text + "\n", stamp: stamp)]
    case .domains:
      let hosts = renderer.domains()
      files = [File(suffix: "", text: hosts)]
      size = TerminalText.count(hosts.split(separator: "\n").count, "host")
    case .patterns: files = [File(suffix: "", text: renderer.patterns())]
    }
  }

  /// Where a file goes when the output is `output`: `rules.json` with `-2` gives `rules-2.json`.
  public static func path(_ output: String, suffix: String) -> String {
    guard !suffix.isEmpty else { return output }
    let ext = URL(fileURLWithPath: output).pathExtension
    let base = ext.isEmpty ? output : String(output.dropLast(ext.count + 1))
    return base + suffix + (ext.isEmpty ? "" : "." + ext)
  }

  /// Writes every file under `output` (``path(_:suffix:)``), each through a temporary file and a rename, and removes
  /// the numbered lists of an earlier run past them (``staleLists(beside:)``); with `ifChanged`, nothing when every
  /// file already holds its text and none is stale. Returns the lists removed, or nil when it wrote nothing.
  public func write(to output: String, ifChanged: Bool) throws(OutputFile.Failure) -> [String]? {
    if files.count > 1 && OutputFile.isStream(output) {
      // Its -2, -3 … files would be made beside a device or a descriptor, in /dev or /proc.
      throw OutputFile.Failure(
        description: "\(TerminalText.escape(output)) is not a file, and the rules need \(files.count) lists of at "
          + "most \(maxRules) rules; give -o FILE to write them all")
    }
    // The file there, read once for the three checks below.
    let existing = try Self.existingText(output)
    let signedText = existing.flatMap {
      $0.range(of: Self.signaturePattern, options: .regularExpression) == nil ? nil : $0
    }
    // An unsigned list over a signed one (a job whose key went missing): every app that takes signed documents only
    // refuses it and keeps rules that grow older, while the job said it published. Left as it was.
    if files.allSatisfy({ $0.stamp?.signature == nil }), signedText != nil {
      throw OutputFile.Failure(
        description: "\(TerminalText.escape(output)) holds a signed list and this one is not signed, which apps that "
          + "take signed lists only would refuse; give --sign KEY (or remove the file to publish unsigned lists); it "
          + "is left as it was")
    }
    // A rules document signed with another key (a CI secret replaced by mistake, a key rotated before the apps
    // know the new one): every app that takes documents signed with the old key refuses the new one, as with an
    // unsigned list, while the job said it published.
    if let verify, files.count == 1, files[0].stamp?.signature != nil,
      let old = signedText.flatMap(Self.signedRulesDocument), !verify(old.signed, old.signature)
    {
      throw OutputFile.Failure(
        description: "\(TerminalText.escape(output)) holds a rules document signed with another key, which apps that "
          + "take documents signed with that key would refuse; sign with that key (or remove the file to publish "
          + "documents signed with this one); it is left as it was")
    }
    // A document of another list: apps that update this one would refuse it (UpdatingLinkGuard takes its own
    // list's documents only), while the job said it published; most likely, the wrong -o.
    if case .some(let list) = rulesDocumentList, case .some(let held) = existing.flatMap(Self.rulesDocumentList),
      held != list
    {
      func named(_ list: String?) -> String {
        list.map { "the list \"\(TerminalText.escape($0))\"" } ?? "a list with no name"
      }
      let fix = held.map { "give --list-name \(TerminalText.escape($0))" } ?? "leave out --list-name"
      throw OutputFile.Failure(
        description: "\(TerminalText.escape(output)) holds the rules document of \(named(held)), and this one is of "
          + "\(named(list)), which apps that update that list would refuse; \(fix) (or remove the file to publish "
          + "another list there); it is left as it was")
    }
    let targets = files.map { (Self.path(output, suffix: $0.suffix), $0.text) }
    let stale = staleLists(beside: output)
    if ifChanged && stale.isEmpty && zip(files, targets).allSatisfy({ $0.isHeld(at: $1.0, verify: verify) }) {
      return nil
    }
    for (path, text) in targets { try OutputFile.write(text, to: path) }
    // Lists an earlier, bigger run split off: an app that compiles every `rules-N.json` would keep their rules.
    for path in stale where unlink(path) != 0 {
      throw OutputFile.Failure(
        description: "\(TerminalText.escape(path)): cannot remove this list of an earlier run, which the rules no "
          + "longer need: \(String(cString: strerror(errno)))")
    }
    return stale
  }

  /// A signed list's stamp: its `signature` key and base64 value, in the JSON and the guards alike.
  static let signaturePattern = #""signature" ?: ?"[A-Za-z0-9+/=]+""#

  /// The text of the regular file at `path`, else nil. A file that is there and cannot be read is an error, not
  /// "unsigned": a list whose permissions had been changed was replaced by an unsigned one, which every app that
  /// takes signed lists only then refused.
  static func existingText(_ path: String) throws(OutputFile.Failure) -> String? {
    var info = stat()
    guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
    let cannot = "\(TerminalText.escape(path)): cannot read this file to tell whether it holds a signed list"
    guard let handle = FileHandle(forReadingAtPath: path) else {
      throw OutputFile.Failure(description: "\(cannot): \(String(cString: strerror(errno))); it is left as it was")
    }
    defer { try? handle.close() }
    let data: Data
    do { data = try handle.readToEnd() ?? Data() } catch {
      throw OutputFile.Failure(description: "\(cannot): \(error.localizedDescription); it is left as it was")
    }
    return String(decoding: data, as: UTF8.self)
  }

  /// When `text` is a rules document (`blocklist --format rules`: an object with a stamp), its list's name
  /// (`--list-name`), or `.some(nil)` for a document of no named list; nil for any other text.
  static func rulesDocumentList(_ text: String) -> String?? {
    struct Stamp: Decodable {
      let generatedAt: String
      let list: String?
    }
    return (try? JSONDecoder().decode(Stamp.self, from: Data(text.utf8))).map(\.list)
  }

  /// The bytes a signed rules document (`blocklist --format rules --sign`) was signed over, with its signature: the
  /// document before its stamp's `sha256`, closed with `}`, as `UniversalLinkGuard.Stamp.signed(of:)` reads it. Nil
  /// for any other text, a guard's among them.
  static func signedRulesDocument(_ text: String) -> (signed: [UInt8], signature: [UInt8])? {
    // Inside a JSON string a quote is escaped, so the first such marker is the stamp's.
    guard text.hasPrefix("{"), let marker = text.range(of: #","sha256":""#),
      let found = text.range(of: signaturePattern, options: .regularExpression),
      let value = text[found].split(separator: "\"").last, let signature = Data(base64Encoded: String(value))
    else { return nil }
    return (Array((text[..<marker.lowerBound] + "}").utf8), Array(signature))
  }

  /// The WebKit lists numbered past these files' (`rules-3.json` when the rules need two), one after another, that
  /// `blocklist` wrote: a file that does not say it was made by ipalinks (``ListStamp``) ends the run of names, and
  /// is left alone.
  func staleLists(beside output: String) -> [String] {
    guard numbered, !OutputFile.isStream(output) else { return [] }
    var stale: [String] = []
    for number in (files.count + 1)... {
      let path = Self.path(output, suffix: "-\(number)")
      guard let handle = OutputFile.existingFile(path) else { break }
      defer { try? handle.close() }
      // The stamp is in the first rule, within its first few hundred bytes.
      guard let head = try? handle.read(upToCount: 512), let text = String(data: head, encoding: .utf8),
        text.hasPrefix("["), text.contains(#""ipalinks" : {"#), text.contains(#""generator" : "ipalinks "#)
      else { break }
      stale.append(path)
    }
    return stale
  }

  /// Whether `loaded` makes a list: something was read, or hosts whose AASA files are unknown are to be blocked
  /// whole (`uncovered` block), a list that fails closed. When not, says so on stderr, and that `output` is left as
  /// it was: no list is better than an empty one that would let every app open.
  public static func canMake(from loaded: LoadedInventory, uncovered: UncoveredDomains, output: String?) -> Bool {
    if loaded.readSomeInput || (uncovered == .block && !HostInputs.unknown(loaded.reports).isEmpty) { return true }
    Terminal.warn(
      "nothing could be read, so no list was made"
        + (output.map { "; \(TerminalText.escape($0)) is left as it was" } ?? ""))
    return false
  }

  /// What `blocklist` does with the files once made: tells the notes (unless `quiet`), writes the `--report`
  /// document, then the files to `output` (with `ifChanged`, only when they differ) or to standard output. Returns
  /// the exit code: 0 done; 1 partial (`loaded` is, or domains were left out, or the lists need `-o`); 2 a file
  /// cannot be written; 3 with `ifChanged`, the files already held these rules.
  public func deliver(
    to output: String?, report: String?, ifChanged: Bool, apps: Int, loaded: LoadedInventory,
    policy: UncoveredDomains, quiet: Bool
  ) -> Int32 {
    if files.count > 1 && output == nil {
      Terminal.warn("the rules need \(files.count) lists of at most \(maxRules) rules; give -o FILE to write them all")
      return 1
    }
    if !quiet {
      for note in notes { Terminal.warn(note.line) }
      if let leftOut = leftOut(policy) { Terminal.warn(leftOut) }
    }
    // No rule known and some unknown (an outage, offline with nothing cached): a list would block nothing, and
    // replacing a good one with it would let every app open. Said even with -q, as an error is.
    if apps == 0 && uncovered > 0 && policy == .skip {
      Terminal.warn(
        "no rule is known and the AASA files of \(TerminalText.count(uncovered, "domain")) are unknown, so no list "
          + "was made" + (output.map { "; \(TerminalText.escape($0)) is left as it was" } ?? "")
          + "; --uncovered block blocks their hosts whole")
      return 2
    }
    // The same when what is unknown is an app's domains (its entitlements could not be read).
    let unread = HostClaims.unreadEntitlements(loaded.reports).count
    if apps == 0 && unread > 0 {
      Terminal.warn(
        "no rule is known and the entitlements of \(TerminalText.count(unread, "bundle")) could not be read, so no "
          + "list was made" + (output.map { "; \(TerminalText.escape($0)) is left as it was" } ?? ""))
      return 2
    }
    // An app left out whole (its hosts' rules alone exceed --max-rules) lets its links through: partial. A format
    // that leaves an exception out (a note with its rule's pointer) blocks more, which is said, not partial.
    let appLeftOut = notes.contains { $0.kind == .dropped && $0.pointer == nil }
    let partial: Int32 = loaded.partial || uncovered > 0 || appLeftOut ? 1 : 0
    do throws(OutputFile.Failure) {
      if let report {
        var failures = HostFailures()
        loaded.reports.forEach { failures.add($0) }
        let assumed = loaded.reports.filter { $0.inputKind == .host }.map {
          AssumedClaims(host: $0.input, appIds: $0.bundles.compactMap(\.appId))
        }
        let text = self.report(apps: apps, failedLookups: failures.lookups, assumed: assumed)
        // `-`: standard output, which the command allows only when the list goes to a file.
        if report == "-" { Terminal.write(text) } else { try OutputFile.write(text, to: report) }
      }
      guard let output else {
        files.forEach { Terminal.write($0.text) }
        // Said as `-o` says it: an inventory of no app (`[]`) makes a list, which protects nothing.
        if apps == 0 && !quiet { Terminal.warn("wrote \(what(apps)) to standard output") }
        return partial
      }
      let removed = try write(to: output, ifChanged: ifChanged)
      if !quiet {
        Terminal.warn(
          removed.map { self.wrote(apps: apps, to: output, removed: $0) } ?? unchanged(apps: apps, at: output))
      }
      // Exit 3 says the files were left alone, and would hide that the list they hold is still partial (1 when
      // written): said even with -q, as the job that keeps it current may not look further.
      if removed == nil && partial != 0 {
        let why =
          uncovered > 0
          ? "the AASA files of \(TerminalText.count(uncovered, "domain")) are unknown"
            + (policy == .block ? " (blocked whole)" : " (left out)")
          : appLeftOut ? "an app's rules do not fit in --max-rules" : "not every input could be read wholly"
        Terminal.warn("\(TerminalText.escape(output)) is still partial: \(why)")
      }
      return removed == nil ? 3 : partial
    } catch {
      Terminal.warn(error.description)
      return 2
    }
  }

  /// `rules.json is unchanged (16 rules for 3 apps); not written`.
  public func unchanged(apps: Int, at output: String) -> String {
    "\(TerminalText.escape(output)) already holds \(what(apps)); not written"
  }

  /// `these 16 rules for 3 apps`, or for no app at all, what the file then is.
  private func what(_ apps: Int) -> String {
    apps == 0 ? "a list that blocks nothing (no app's rules)" : "these \(size) for \(TerminalText.count(apps, "app"))"
  }

  /// The domains left out because their files are unknown.
  public var uncovered: Int { notes.filter { $0.kind == .uncovered }.count }

  /// What to say after the notes when domains' files are unknown: how many were left out of the list, or blocked
  /// whole (more than iOS may open), and the ways on. Nil when none was.
  public func leftOut(_ policy: UncoveredDomains) -> String? {
    guard uncovered > 0 else { return nil }
    if policy == .block {
      return "\(TerminalText.count(uncovered, "domain")) blocked whole, as their AASA files are unknown: read the "
        + "files with --aasa-dir DIR, or from the cache with --offline, for their own rules"
    }
    return "\(TerminalText.count(uncovered, "domain")) left out of the list, as their AASA files are unknown: read "
      + "the files with --aasa-dir DIR, or from the cache with --offline, or block their hosts whole with "
      + "--uncovered block"
  }

  /// `wrote 16 rules for 3 apps to rules.json`, how many more files when the rules needed several, and the lists
  /// of an earlier run it `removed`.
  public func wrote(apps: Int, to output: String, removed: [String] = []) -> String {
    let more = files.count > 1 ? " and \(TerminalText.count(files.count - 1, "more file"))" : ""
    let held =
      apps == 0 ? "a list that blocks nothing (no app's rules)" : "\(size) for \(TerminalText.count(apps, "app"))"
    let gone =
      removed.isEmpty
      ? ""
      : "; removed \(removed.map { TerminalText.escape($0) }.joined(separator: ", ")), "
        + (removed.count == 1 ? "a list" : "lists") + " of an earlier run that these rules no longer need"
    return "wrote \(held) to \(TerminalText.escape(output))\(more)\(gone)"
  }

  /// The `--report` document: how many apps the list covers, every note, and every AASA lookup that failed, as
  /// JSON.
  public func report(
    apps: Int, failedLookups: [HostFailures.Lookup] = [], assumed: [AssumedClaims] = []
  ) -> String {
    JSONReporter.document(Report(apps: apps, notes: notes, failedLookups: failedLookups, assumedClaims: assumed))
  }

  /// What `--report` holds.
  struct Report: Encodable {
    var apps: Int
    var notes: [BlocklistNote]
    var failedLookups: [HostFailures.Lookup]
    var assumedClaims: [AssumedClaims]
  }

  /// The apps taken to claim a host given with `--host`, from its AASA file alone.
  public struct AssumedClaims: Encodable, Sendable {
    /// The host.
    public var host: String
    /// The app IDs its file lists, whose entitlements were not checked.
    public var appIds: [String]
  }
}
