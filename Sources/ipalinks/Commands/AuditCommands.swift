import ArgumentParser
import Foundation
import IPALinksKit

/// `ipalinks diff`: what changed in the universal links between two versions of an app or two saved inventories.
struct DiffCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "diff",
    abstract: "Compare the universal links of two versions of an app, or of two saved inventories.",
    discussion: """
      OLD and NEW are each an .ipa (or anything `inspect` takes, or a folder of IPAs) or an inventory saved by \
      `inspect --format json|jsonl`. Bundles are paired by bundle id. Reported: bundles added or removed, changed \
      app id, team, version; associated domains and URL schemes added and removed; per domain, a change of AASA \
      status and the rules added, removed and reordered. With --url/--urls, the sample URLs whose verdict changed.

      Exit codes (like diff(1)): 0 no differences; 1 differences; 2 trouble (a side could not be read).
      """)

  @Argument(help: "The old version: IPA, folder or saved inventory.") var old: String
  @Argument(help: "The new version: IPA, folder or saved inventory.") var new: String

  @Option(help: "A sample URL to decide on both sides. Repeatable.") var url: [String] = []
  @Option(help: ArgumentHelp("A file of sample URLs, one per line (# starts a comment).", valueName: "file"))
  var urls: String?

  @Option(name: .shortAndLong, help: "Output format: text or json.") var format: DocumentFormat = .text

  @OptionGroup var audit: AuditInputOptions
  @OptionGroup(title: "AASA retrieval") var fetch: FetchOptions

  func run() async throws {
    var samples = url
    if let urls {
      guard let text = try? String(contentsOfFile: urls, encoding: .utf8) else {
        Terminal.warn("\(urls): cannot read the URL list")
        throw ExitCode(2)
      }
      samples += InventoryDiff.urls(inList: text)
    }
    let before = try await audit.load([old], fetch: fetch)
    let after = try await audit.load([new], fetch: fetch)
    // A side that gave nothing would make everything look added or removed.
    if before.reports.allSatisfy({ $0.bundles.isEmpty }) || after.reports.allSatisfy({ $0.bundles.isEmpty }) {
      Terminal.warn("nothing to compare: a side has no readable bundle")
      throw ExitCode(2)
    }
    let diff = InventoryDiff(old: before.reports, new: after.reports, urls: samples)
    switch format {
    case .json: Terminal.write(JSONReporter.document(diff) + "\n")
    case .text: Terminal.write(AuditTextReporter(style: Terminal.style).render(diff))
    }
    if before.partial || after.partial {
      Terminal.warn("warning: a side is partial; differences may come from what could not be read")
    }
    throw ExitCode(diff.hasDifferences ? 1 : 0)
  }
}

/// `ipalinks report`: one self-contained HTML page for people to look at.
struct ReportCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "report",
    abstract: "Write a self-contained HTML report of one or many apps.",
    discussion: """
      INPUTs are saved inventories (.json, .jsonl, or - for stdin) or anything `inspect` takes (folders are walked \
      for *.ipa). The page has no external assets and works offline; every string from the apps and AASA files is \
      escaped, and a Content-Security-Policy allows only the page's own sorting script.

      Exit codes: 0 done; 1 partial (some input could not be read; the rest is in the report); 2 nothing could \
      be read.
      """)

  @Argument(help: "Saved inventories, IPAs or folders.") var inputs: [String]
  @Option(name: .shortAndLong, help: ArgumentHelp("Write here instead of stdout.", valueName: "file"))
  var output: String?
  @Option(help: "The page title.") var title = "ipalinks report"

  @OptionGroup var audit: AuditInputOptions
  @OptionGroup(title: "AASA retrieval") var fetch: FetchOptions

  func validate() throws {
    if output == nil && Terminal.stdoutIsTerminal {
      throw ValidationError("the report is an HTML page: give -o FILE, or redirect standard output to a file")
    }
  }

  func run() async throws {
    let loaded = try await audit.load(inputs, fetch: fetch)
    if loaded.reports.isEmpty { throw ExitCode(2) }
    let html = HTMLReporter.render(loaded.reports, title: title)
    if let output {
      do { try Data(html.utf8).write(to: URL(fileURLWithPath: output)) } catch {
        Terminal.warn("\(output): cannot write: \((error as NSError).localizedDescription)")
        throw ExitCode(2)
      }
      if !audit.quiet { Terminal.warn("wrote \(output) (\(TerminalText.count(loaded.reports.count, "input")))") }
    } else {
      Terminal.write(html)
    }
    throw ExitCode(loaded.partial ? 1 : 0)
  }
}

/// `ipalinks who-claims`: which apps open links on a host.
struct WhoClaimsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "who-claims",
    abstract: "List the apps whose associated domains cover a host, directly or through a wildcard.",
    discussion: """
      HOST is a host name, or a URL to also get each app's verdict for it. Apps come from --inventory files \
      (saved by `inspect --format json|jsonl`) and from INPUTs, which are inspected. For each app: the entries \
      that cover the host (all services), which applinks entry iOS uses for it, and that entry's rules in order.

      Exit codes (like grep): 0 some app claims the host; 1 none does; 2 trouble.
      """)

  @Argument(help: "The host (example.com) or a URL (https://example.com/path).") var host: String
  @Argument(help: "IPAs or folders to inspect as well.") var inputs: [String] = []
  @Option(
    name: .customLong("inventory"),
    help: ArgumentHelp("A saved inventory (object, array or JSON Lines). Repeatable.", valueName: "file"))
  var inventories: [String] = []
  @Option(name: .shortAndLong, help: "Output format: text, json (one document), or jsonl (one object per app).")
  var format: OutputFormat = .text

  @OptionGroup var audit: AuditInputOptions
  @OptionGroup(title: "AASA retrieval") var fetch: FetchOptions

  func validate() throws {
    if FileManager.default.fileExists(atPath: host) {
      throw ValidationError(
        "'\(TerminalText.escape(host))' is a file, not a host: the host comes first (ipalinks who-claims HOST INPUT…)")
    }
    if let problem = HostArgument.problem(host, allowURL: true) { throw ValidationError(problem) }
    if inputs.isEmpty && inventories.isEmpty { throw ValidationError("Give --inventory or at least one input.") }
  }

  func run() async throws {
    let loaded = try await audit.load(inputs, inventories: inventories, fetch: fetch)
    if loaded.reports.isEmpty { throw ExitCode(2) }
    guard let claims = HostClaims(query: host, reports: loaded.reports) else {
      Terminal.warn("\"\(host)\" is neither a host nor a URL")
      throw ExitCode(64)
    }
    switch format {
    case .json: Terminal.write(JSONReporter.document(claims) + "\n")
    case .jsonl: Terminal.write(claims.claims.map { JSONReporter.render($0, pretty: false) + "\n" }.joined())
    case .text: Terminal.write(AuditTextReporter(style: Terminal.style).render(claims))
    }
    throw ExitCode(claims.claims.contains(where: \.isActive) ? 0 : 1)
  }
}
