import ArgumentParser
import IPALinksKit

extension UncoveredDomains: ExpressibleByArgument {}
extension BlocklistFormat: ExpressibleByArgument {}

/// `ipalinks blocklist`: the inventory of one or more apps as lists and guards that keep web views from opening
/// those apps.
struct BlocklistCommand: StatusCommand {
  static let configuration = CommandConfiguration(
    commandName: "blocklist",
    abstract: "Turn apps' universal links into blocklists and guards for web views.",
    discussion: """
      INPUTs are what `inspect` takes (their AASA files are fetched with the same options), but for '-', which \
      reads an inventory saved by `inspect --format json|jsonl` from standard input; --inventory adds saved \
      inventories too, so lists can be made later without network. --host and --hosts \
      add every app a host's AASA file lists, decided by the first entry that lists it, as iOS does; such claims \
      are assumed, as an app must also list the host in its entitlements. All apps go into one output.

      Formats: swift (the default: UniversalLinkGuard.swift, a self-contained guard for your WKNavigationDelegate \
      that stops exactly the navigations iOS would hand to an app, and leaves browsing within a site alone), rules \
      (its rules document, for apps that download newer rules), wkcontentrules (a WKContentRuleList: a hard block \
      of these URLs in every context, also on the sites' own pages, for hosts your web view never browses), js (a \
      tap guard for pages you serve: it stops taps on links and forms, not a page's own script, so it is not \
      protection on its own), domains, patterns and regex (plain lists for other tools). Without --format, -o \
      names it: .swift or .js; any other name needs --format.

      What a format cannot express exactly is printed on stderr and written to --report.

      Exit codes: 0 done (a format that leaves an exclude rule out blocks more, which is said, not partial); 1 \
      partial (an input or a domain's AASA file could not be read, a host's too, whether --uncovered blocks or \
      skips it, an app's rules do not fit in --max-rules, or the lists need -o); 2 nothing could be read, or no \
      rule is known while some app's entitlements, or with --uncovered skip some AASA file, are unknown (no list \
      is made, and -o's file is left as it was), or the output cannot be written (a missing folder is said before \
      anything is read); 3 with --if-changed, the file already holds this list and was not written; 64 usage error.
      """
  )

  @Argument(help: "The .ipa files (or anything `inspect` takes; '-': a saved inventory on standard input).")
  var inputs: [String] = []

  @Option(
    name: .customLong("inventory"),
    help: ArgumentHelp("A saved `inspect --format json` inventory (object, array or JSON Lines).", valueName: "file"))
  var inventories: [String] = []

  @Option(help: ArgumentHelp("A host whose AASA file's apps are taken to claim it. Repeatable.", valueName: "host"))
  var host: [String] = []

  @Option(help: ArgumentHelp("A file of hosts for --host, one per line (# starts a comment).", valueName: "file"))
  var hosts: [String] = []

  @Option(
    name: .shortAndLong,
    help: ArgumentHelp(
      "Output format: \(BlocklistFormat.allCases.map(\.rawValue).joined(separator: ", ")) (default: swift, or js "
        + "for -o NAME.js).", valueName: "format"))
  var format: BlocklistFormat?

  @Option(
    name: .shortAndLong,
    help: ArgumentHelp(
      "Write here instead of stdout ('-': stdout); for more than one rule list, also <name>-2.json and so on.",
      valueName: "file"))
  var output: String?

  @Flag(name: .customLong("if-changed"), help: "With -o: leave the files alone when they hold these rules already.")
  var ifChanged = false

  @Option(
    help: ArgumentHelp(
      "Write the notes (approximations, left-out rules, uncovered domains) as JSON ('-': stdout, with -o FILE).",
      valueName: "file"))
  var report: String?

  @Option(
    help: ArgumentHelp(
      "Sign the rules document (formats rules, swift, js) with this Ed25519 private key (PEM, from openssl genpkey "
        + "-algorithm ed25519), for an app's UpdatingLinkGuard(…, publicKey:).", valueName: "key"))
  var sign: String?

  @Option(
    name: .customLong("list-name"),
    help: ArgumentHelp(
      "Name the list in its stamp (letters, digits and . _ - : /), signed with it: an app's UpdatingLinkGuard takes "
        + "documents of its own list only.", valueName: "name"))
  var listName: String?

  @Option(name: .customLong("max-rules"), help: "Most rules per WebKit list; more are split into several lists.")
  var maxRules = 150_000

  @Option(
    help: ArgumentHelp(
      "Domains whose AASA file could not be read (timeout, TLS, offline, over a limit): block every URL of their "
        + "hosts (fail closed), or leave them out with a note.", valueName: "block|skip"))
  var uncovered: UncoveredDomains = .block

  @OptionGroup var store: StoreReadOptions
  @OptionGroup var audit: BatchOptions
  @OptionGroup(title: "AASA retrieval") var fetch: FetchOptions

  mutating func validate() throws {
    // `-o -` is standard output, as `-` is standard input for an inventory: not a file named `-`.
    if output == "-" { output = nil }
    if output == "" || report == "" { throw ValidationError("\(output == "" ? "-o" : "--report"): an empty path") }
    if report == "-" && output == nil {
      throw ValidationError("--report - and the list would both go to standard output: give -o FILE")
    }
    if inputs.isEmpty && inventories.isEmpty && host.isEmpty && hosts.isEmpty && !store.store.isGiven {
      throw ValidationError("Give at least one input, --inventory, --host or --store.")
    }
    if maxRules < 1 { throw ValidationError("--max-rules must be at least 1.") }
    if ifChanged && output == nil {
      throw ValidationError("--if-changed compares with the files -o names: give -o FILE")
    }
    // Said before any input is read: an inventory of a corpus takes seconds.
    let format = try chosenFormat()
    if sign != nil, ![.rules, .swift, .js].contains(format) {
      throw ValidationError("--sign signs the guards' rules document: give --format rules, swift or js")
    }
    if let listName {
      // Plain characters only, so the name reads the same in JSON, Swift, a terminal and a file name.
      let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-:/")
      guard (1...100).contains(listName.count), listName.allSatisfy(allowed.contains) else {
        throw ValidationError(
          "--list-name \(TerminalText.escape(listName)): 1 to 100 letters, digits and . _ - : / only")
      }
      guard [.rules, .swift, .js, .wkcontentrules].contains(format) else {
        throw ValidationError("--list-name names a list in its stamp: give --format rules, swift, js or wkcontentrules")
      }
    }
  }

  /// The format asked for, or the one -o's name says (``BlocklistFormat/chosen(_:output:)``).
  func chosenFormat() throws -> BlocklistFormat {
    try usageError { try BlocklistFormat.chosen(format, output: output) }
  }

  func execute() async throws -> Int32 {
    // A key that cannot be read, or a file that cannot be written, is said before the inputs are read.
    let key = try sign.map { path in try usageError { try BlocklistSigningKey(path: path) } }
    guard OutputFile.canWrite([output, report], readingFrom: inputs + inventories + hosts) else { return 2 }
    // The lists keep the apps in the order given; problems are told as in every batch (BatchConsole).
    // A list is as current as the files it is made from: the store's older than a week are said.
    let loaded = try await audit.load(
      inputs, inventories: inventories, hosts: (host, hosts), store: store, order: .asNamed,
      filesOlderThan: 7 * 86_400, fetch: fetch)
    guard BlocklistOutput.canMake(from: loaded, uncovered: uncovered, output: output) else { return 2 }
    let blocklist = Blocklist(reports: loaded.reports, uncovered: uncovered)
    let out = BlocklistOutput(
      blocklist, format: try chosenFormat(), maxRules: maxRules, generator: ToolVersion.generator, sign: key,
      list: listName)
    if let key, !audit.quiet { Terminal.warn(key.note) }
    return out.deliver(
      to: output, report: report, ifChanged: ifChanged, apps: blocklist.apps.count, loaded: loaded,
      policy: uncovered, quiet: audit.quiet)
  }
}
