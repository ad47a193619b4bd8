import ArgumentParser
import Foundation
import IPALinksKit

extension UncoveredDomains: ExpressibleByArgument {}

/// `ipalinks blocklist`: the inventory of one or more apps as lists and guards that keep web views from opening
/// those apps.
struct BlocklistCommand: AsyncParsableCommand {
  enum Format: String, CaseIterable, ExpressibleByArgument {
    case wkcontentrules, swift, js, domains, patterns, regex
  }

  static let configuration = CommandConfiguration(
    commandName: "blocklist",
    abstract: "Turn apps' universal links into blocklists and guards for web views.",
    discussion: """
      INPUTs are what `inspect` takes (their AASA files are fetched with the same options), and --inventory adds \
      inventories saved by `inspect --format json`, so lists can be made later without network. All apps go into \
      one output.

      Formats: wkcontentrules (WKContentRuleList JSON blocking document loads that would open an app), swift (a \
      self-contained UniversalLinkGuard with a decidePolicyFor helper), js (a click guard to inject in pages), \
      domains, patterns and regex (plain lists for proxies and other tools).

      What a format cannot express exactly is printed on stderr and written to --report.

      Exit codes: 0 done; 1 partial (an input or a domain's AASA file could not be read, or a rule was left out); \
      2 nothing could be read; 64 usage error.
      """
  )

  @Argument(help: "The .ipa files (or anything `inspect` takes).")
  var inputs: [String] = []

  @Option(
    name: .customLong("inventory"),
    help: ArgumentHelp("A saved `inspect --format json` inventory (object, array or JSON Lines).", valueName: "file"))
  var inventories: [String] = []

  @Option(name: .shortAndLong, help: "Output format: \(Format.allCases.map(\.rawValue).joined(separator: ", ")).")
  var format: Format = .wkcontentrules

  @Option(
    name: .shortAndLong,
    help: ArgumentHelp(
      "Write here instead of stdout; for more than one rule list, also <name>-2.json and so on.", valueName: "file"))
  var output: String?

  @Option(
    help: ArgumentHelp(
      "Write the notes (approximations, left-out rules, uncovered domains) as JSON.", valueName: "file"))
  var report: String?

  @Option(name: .customLong("max-rules"), help: "Most rules per WebKit list; more are split into several lists.")
  var maxRules = 150_000

  @Option(
    help: ArgumentHelp(
      "Domains whose AASA file could not be read (timeout, TLS, offline, over a limit): skip them with a note, or "
        + "block every URL of their hosts (fail closed).", valueName: "skip|block"))
  var uncovered: UncoveredDomains = .skip

  @OptionGroup(title: "AASA retrieval") var fetch: FetchOptions

  func validate() throws {
    if inputs.isEmpty && inventories.isEmpty { throw ValidationError("Give at least one input or --inventory.") }
    if maxRules < 1 { throw ValidationError("--max-rules must be at least 1.") }
  }

  func run() async throws {
    var reports = inputs.map { Inspector().inspect(path: $0) }
    let requests = UniversalLinkInventory.requests(for: reports)
    if !requests.isEmpty {
      let results = try await AASARetrieval.fetch(requests, options: fetch)
      for i in reports.indices { UniversalLinkInventory.attach(results, to: &reports[i]) }
    }
    var partial = false
    var readable = 0
    for report in reports {
      if report.status != .unreadable { readable += 1 }
      if report.status != .complete { partial = true }
      for d in report.diagnostics + report.bundles.flatMap(\.diagnostics) where d.severity == .error {
        Terminal.printError("ipalinks: \(d.message.hasPrefix(report.input) ? "" : report.input + ": ")\(d.message)")
      }
    }
    var blocklist = Blocklist(reports: reports, uncovered: uncovered)
    for path in inventories {
      do {
        let saved = Blocklist(reports: try InventoryReader.read(path: path), uncovered: uncovered)
        blocklist.apps += saved.apps
        blocklist.notes += saved.notes
        readable += 1
      } catch {
        Terminal.printError("ipalinks: \(error)")
        partial = true
      }
    }
    if readable == 0 { throw ExitCode(2) }

    let renderer = BlocklistRenderer(blocklist)
    let generator = "ipalinks blocklist"
    var notes = blocklist.notes
    var files: [(suffix: String, text: String)] = []
    switch format {
    case .wkcontentrules:
      let (lists, listNotes) = renderer.contentRules(maxRules: maxRules)
      notes = listNotes
      if lists.count > 1 && output == nil {
        Terminal.printError(
          "ipalinks: the rules need \(lists.count) lists of at most \(maxRules) rules; give -o FILE to write them all")
        throw ExitCode(1)
      }
      files = lists.enumerated().map { (index, list) in
        (index == 0 ? "" : "-\(index + 1)", BlocklistRenderer.json(list))
      }
    case .regex:
      let (text, listNotes) = renderer.regexes(maxRules: maxRules)
      notes = listNotes
      files = [("", text)]
    case .swift:
      files = [("", renderer.swiftGuard(generator: generator))]
    case .js:
      files = [("", renderer.javaScriptGuard(generator: generator))]
    case .domains:
      files = [("", renderer.domains())]
    case .patterns:
      files = [("", renderer.patterns())]
    }

    for note in notes { Terminal.printError("ipalinks: \(note.line)") }
    if let report {
      try Data(JSONReporter.render(BlocklistReport(apps: blocklist.apps.count, notes: notes)).utf8)
        .write(to: URL(fileURLWithPath: report))
    }
    if let output {
      for (suffix, text) in files {
        try Data(text.utf8).write(to: URL(fileURLWithPath: Self.path(output, suffix: suffix)))
      }
    } else {
      for (_, text) in files { FileHandle.standardOutput.write(Data(text.utf8)) }
    }
    if notes.contains(where: { $0.kind == .uncovered }) { partial = true }
    throw ExitCode(partial ? 1 : 0)
  }

  /// `rules.json` + `-2` → `rules-2.json`.
  static func path(_ output: String, suffix: String) -> String {
    guard !suffix.isEmpty else { return output }
    let url = URL(fileURLWithPath: output)
    let ext = url.pathExtension
    let base = ext.isEmpty ? output : String(output.dropLast(ext.count + 1))
    return base + suffix + (ext.isEmpty ? "" : "." + ext)
  }
}

/// What `--report` holds.
struct BlocklistReport: Encodable {
  var apps: Int
  var notes: [BlocklistNote]
}
