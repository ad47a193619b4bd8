import ArgumentParser
import IPALinksKit
import IPALinksStore

/// `ipalinks diff`: what changed in the universal links between two versions of an app or two saved inventories.
struct DiffCommand: StatusCommand {
  static let configuration = CommandConfiguration(
    commandName: "diff",
    abstract: "Compare the universal links of two versions of an app, or of two saved inventories.",
    discussion: """
      OLD and NEW are each an .ipa (or anything `inspect` takes, or a folder of IPAs) or an inventory saved by \
      `inspect --format json|jsonl`. Bundles are paired by bundle id. Reported: bundles added or removed, changed \
      app id, team, version; associated domains and URL schemes added and removed; per domain, a change of AASA \
      status and the rules added, removed and reordered. With --url/--urls, the sample URLs whose verdict changed.

      With --store and --since (an age such as 7d, a date, an RFC 3339 time or a run label), OLD is the store's \
      state then and NEW its latest state (or the state --at names).

      Exit codes (like diff(1)): 0 no differences; 1 differences; 2 trouble (a side could not be read); 64 usage \
      error.
      """)

  @Argument(help: "The old version: IPA, folder or saved inventory.") var old: String?
  @Argument(help: "The new version: IPA, folder or saved inventory.") var new: String?
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "With --store: compare the state then (7d, 12h, 2w, a date, an RFC 3339 time or a run label) with the latest.",
      valueName: "time"))
  var since: String?

  @Option(help: "A sample URL to decide on both sides. Repeatable.") var url: [String] = []
  @Option(help: ArgumentHelp("A file of sample URLs, one per line (# starts a comment).", valueName: "file"))
  var urls: String?

  @Option(name: .shortAndLong, help: "Output format: text or json.") var format: DocumentFormat = .text

  @OptionGroup var store: StoreReadOptions
  @OptionGroup var audit: BatchOptions
  @OptionGroup(title: "AASA retrieval") var fetch: FetchOptions

  func validate() throws {
    if since != nil && old != nil { throw ValidationError("--since compares the store's states: give no OLD, NEW") }
    if since != nil && !store.store.isGiven { throw ValidationError("--since reads the store: give --store too") }
    if since == nil && new == nil { throw ValidationError("give OLD and NEW, or --store with --since") }
    let readers = [("OLD", [old ?? ""]), ("NEW", [new ?? ""]), ("--urls", [urls ?? ""])]
    if let problem = StandardInput.problem(readers) { throw ValidationError(problem) }
  }

  func execute() async throws -> Int32 {
    guard let samples = InventoryDiff.sampleURLs(url, listedIn: urls) else { return 2 }
    let (before, after) = try await sides()
    guard let before, let after else { return 2 }
    return InventoryDiff.compare(before, after, urls: samples, format: format)
  }

  /// OLD and NEW as given, or the store's two states; nil when the store cannot be read.
  func sides() async throws -> (LoadedInventory?, LoadedInventory?) {
    guard let since, let location = try store.store.location() else {
      // Two batches, each named in its lines: the same host failing on both sides was told twice, alike.
      return (
        try await audit.load([old ?? ""], fetch: fetch, side: "OLD " + TerminalText.escape(old ?? "")),
        try await audit.load([new ?? ""], fetch: fetch, side: "NEW " + TerminalText.escape(new ?? ""))
      )
    }
    let states = await AuditStore.states(location, since: since, at: store.at, warn: Terminal.warn)
    return (states.map { LoadedInventory(reports: $0.then) }, states.map { LoadedInventory(reports: $0.now) })
  }
}

/// `ipalinks report`: one self-contained HTML page for people to look at.
struct ReportCommand: StatusCommand {
  static let configuration = CommandConfiguration(
    commandName: "report",
    abstract: "Write a self-contained HTML report of one or many apps.",
    discussion: """
      INPUTs are saved inventories (.json, .jsonl, or - for stdin) or anything `inspect` takes (folders are walked \
      for *.ipa). The page has no external assets and works offline; every string from the apps and AASA files is \
      escaped, and a Content-Security-Policy allows only the page's own sorting script.

      Exit codes: 0 done; 1 partial (some input could not be read; the rest is in the report); 2 nothing could \
      be read, or the page cannot be written (said before anything is read); 64 usage error.
      """)

  @Argument(help: "Saved inventories, IPAs or folders.") var inputs: [String] = []
  @Option(name: .shortAndLong, help: ArgumentHelp("Write here instead of stdout ('-': stdout).", valueName: "file"))
  var output: String?
  @Option(help: "The page title.") var title = "ipalinks report"
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "With --store: what changed since then (a date, an RFC 3339 time, an age or a run label), instead of since "
        + "the run before the latest.", valueName: "time"))
  var since: StoreTime?

  @OptionGroup var store: StoreReadOptions
  @OptionGroup var audit: BatchOptions
  @OptionGroup(title: "AASA retrieval") var fetch: FetchOptions

  mutating func validate() throws {
    // `-o -` is standard output, as `-` is standard input for an inventory: not a file named `-`.
    if output == "-" { output = nil }
    if output == "" { throw ValidationError("-o: an empty path") }
    if inputs.isEmpty && !store.store.isGiven { throw ValidationError("Give an input, or --store.") }
    if since != nil && !store.store.isGiven { throw ValidationError("--since reads the store: give --store too") }
    if output == nil && Terminal.stdoutIsTerminal {
      throw ValidationError("the report is an HTML page: give -o FILE, or redirect standard output to a file")
    }
  }

  func execute() async throws -> Int32 {
    // Said before the inputs are read, which may take minutes.
    guard OutputFile.canWrite([output], readingFrom: inputs) else { return 2 }
    let loaded = try await audit.load(inputs, store: store, changes: true, since: since, fetch: fetch)
    // The comparison asked for could not be made (told already): no page that would answer another question.
    if !loaded.readSomeInput || (since != nil && loaded.changes == nil) { return 2 }
    return HTMLReporter.deliver(loaded, title: title, to: output, quiet: audit.quiet)
  }
}

/// `ipalinks who-claims`: which apps open links on a host, or which of many URLs open an app and which.
struct WhoClaimsCommand: StatusCommand {
  static let configuration = CommandConfiguration(
    commandName: "who-claims",
    abstract: "List the apps whose associated domains cover a host, directly or through a wildcard.",
    discussion: """
      HOST is a host name, a wildcard entry (*.example.com: the apps whose entries are it or a wider wildcard, and \
      the hosts below it that apps claim), or a URL to also get each app's verdict for it. Apps come from --inventory files \
      (saved by `inspect --format json|jsonl`), from INPUTs, which are inspected, and from --store; with none of \
      them, from the host's own AASA file, every app it lists taken to claim it. For each app: the entries \
      that cover the host (all services), which applinks entry iOS uses for it, and that entry's rules in order.

      For a URL, the apps that open it are counted and come first; the others claim the host without opening it \
      (their rules exclude or miss it, or only another service lists them). -q keeps each app to its verdict.

      With --urls FILE (or - for standard input), there is no HOST: every line of FILE is a URL, decided against \
      every app at once (first matching rule wins within each app); --host and --hosts then add the apps hosts' \
      AASA files list, with no IPA. Text lists the URLs that open an app, grouped by app; --format jsonl writes one \
      line per URL with the apps it opens and the apps whose rules exclude it. Lines that are not http(s) URLs are \
      named on stderr by line number and skipped.

      Exit codes (like grep): 0 some app claims the host (for a URL: opens it; with --urls: some URL opens an \
      app); 1 none does; 2 trouble (an input could not be read; what was read is still answered), or no app is \
      known to open the URL but an app's AASA file for it is unknown; 64 usage error; 130 interrupted.
      """)

  @Argument(help: "The host (example.com), a wildcard (*.example.com) or a URL; left out with --urls.")
  var host: String?
  @Argument(help: "IPAs or folders to inspect as well.") var inputs: [String] = []
  @Option(
    name: .customLong("inventory"),
    help: ArgumentHelp("A saved inventory (object, array or JSON Lines). Repeatable.", valueName: "file"))
  var inventories: [String] = []
  @Option(
    help: ArgumentHelp("Decide every URL in this file, one per line ('-' for standard input).", valueName: "file"))
  var urls: String?
  @Option(
    name: .customLong("host"),
    help: ArgumentHelp(
      "With --urls: a host whose AASA file's apps are taken to claim it, as without inputs. Repeatable.",
      valueName: "host"))
  var claimHosts: [String] = []
  @Option(
    name: .customLong("hosts"),
    help: ArgumentHelp("With --urls: a file of hosts for --host, one per line (# starts a comment).", valueName: "file")
  )
  var claimHostFiles: [String] = []
  @Option(
    name: .shortAndLong,
    help: "Output format: text, json (one document), or jsonl (one object per app; with --urls, per URL).")
  var format: OutputFormat = .text

  @OptionGroup var store: StoreReadOptions
  @OptionGroup var audit: BatchOptions
  @OptionGroup(title: "AASA retrieval") var fetch: FetchOptions

  /// What to inspect: with --urls, the first positional argument is an input too.
  var allInputs: [String] { urls == nil ? inputs : (host.map { [$0] } ?? []) + inputs }

  func validate() throws {
    if urls == nil, let problem = HostClaims.problem(query: host) { throw ValidationError(problem) }
    let hostsGiven = !claimHosts.isEmpty || !claimHostFiles.isEmpty
    if urls != nil && allInputs.isEmpty && inventories.isEmpty && !store.store.isGiven && !hostsGiven {
      throw ValidationError("Give --host, --hosts, --inventory, --store or at least one input.")
    }
    if urls == nil && hostsGiven {
      throw ValidationError("--host and --hosts go with --urls; for one host, give it as HOST")
    }
    if urls != nil, let problem = HostClaims.problem(firstInput: host) { throw ValidationError(problem) }
    let readers = [
      ("--urls", [urls ?? ""]), ("an input", allInputs), ("--inventory", inventories), ("--hosts", claimHostFiles),
    ]
    if let problem = StandardInput.problem(readers) { throw ValidationError(problem) }
  }

  func execute() async throws -> Int32 {
    // A host alone is answered from its own AASA file.
    let alone = urls == nil && allInputs.isEmpty && inventories.isEmpty && !store.store.isGiven
    let hosts = alone ? [host.flatMap(HostClaims.host(ofQuery:)) ?? ""] : claimHosts
    let list = urls.map { ($0, URLScan.open($0)) }
    if let list, list.1 == nil { return 2 }
    let loaded = try await audit.load(
      allInputs, inventories: inventories, hosts: (hosts, claimHostFiles), store: store,
      about: urls == nil ? host : nil, fetch: fetch)
    if loaded.readable == 0 { return 2 }
    let index = ClaimsIndex(reports: loaded.reports)
    let unread = HostClaims.unreadEntitlements(loaded.reports)
    if let (path, opened) = list, let lines = opened {
      return URLScan.scan(
        lines, from: path, claims: index, format: format, workers: audit.jobs, quiet: audit.quiet,
        trouble: loaded.unreadable > 0 || !unread.isEmpty)
    }
    return HostClaims.answer(
      host ?? "", claims: index, format: format, brief: audit.quiet, trouble: loaded.unreadable > 0, unread: unread)
  }
}
