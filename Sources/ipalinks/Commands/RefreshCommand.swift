import ArgumentParser
import IPALinksKit
import IPALinksStore

/// `ipalinks refresh`: the AASA file of every host the store's apps claim, retrieved again and compared.
struct RefreshCommand: StatusCommand {
  static let configuration = CommandConfiguration(
    commandName: "refresh",
    abstract: "Retrieve again the AASA file of every host the store's apps claim or it watches, and say what changed.",
    discussion: """
      Each host is retrieved once and recorded in a run of its own, which every reader of the store then uses. A new \
      version is shown as `aasa diff` shows it, with the apps in the store it affects. A timeout, DNS, TLS or \
      offline answer is no change: the last definite answer stays current, and the host is reported stale.

      --host and --hosts add hosts to watch without an app, as a web-view developer who has no IPAs does: the store \
      keeps them, every refresh retrieves them, and blocklist, who-claims and report --store take every app their \
      files list to claim them (said to be assumed). An outage never drops one: its last good file stays.

      Exit codes: 0 nothing changed; 1 a host's file changed or was removed; 2 the store cannot be read or \
      written, holds no app and watches no host, or no host answered; 64 usage error.
      """)

  @OptionGroup var store: StoreOptions
  @Option(name: .customLong("run-label"), help: ArgumentHelp("The run's label.", valueName: "label"))
  var runLabel: String?
  @Option(name: .shortAndLong, help: "Output format: text, json (one document), or jsonl (one object per host).")
  var format: OutputFormat = .text
  @Option(
    help: ArgumentHelp(
      "A host to watch without an app: kept in the store, retrieved by every refresh, and every app its AASA file "
        + "lists taken to claim it. Repeatable.", valueName: "host"))
  var host: [String] = []
  @Option(help: ArgumentHelp("A file of hosts for --host, one per line (# starts a comment).", valueName: "file"))
  var hosts: [String] = []
  @OptionGroup var progress: ProgressOptions
  @OptionGroup(title: "AASA retrieval") var fetch: FetchOptions

  func validate() throws {
    _ = try store.required()
    try StoreOptions.checkRunLabel(runLabel)
  }

  func execute() async throws -> Int32 {
    let watching = try usageError { try HostInputs.hosts(host, files: hosts) }
    let (text, status) = await AuditStore.refresh(
      // The store keeps the last good file through an outage, and records what the site answered: a cached copy
      // standing in would hide the outage as "unchanged".
      try store.required(), with: try fetch.makeFetcher(cachedCopyStandsIn: false), label: runLabel,
      arguments: StoreLocation.maskedCommandLine, watching: watching, format: format, style: Terminal.style,
      progress: !progress.noProgress && !progress.quiet, warn: Terminal.warn)
    text.map(Terminal.write)
    return status
  }
}
