import ArgumentParser
import IPALinksKit
import IPALinksStore

/// `ipalinks history`: what the audit store saw over time, for a host's AASA file or for an app.
struct HistoryCommand: StatusCommand {
  static let configuration = CommandConfiguration(
    commandName: "history",
    abstract: "What the audit store saw over time: a host's AASA file, version by version, or an app's versions.",
    usage: "ipalinks history (--host <host> | --app <id>) [<options>]",
    discussion: """
      --host lists each distinct version of the host's AASA file (first and last seen, and from where) and, between \
      consecutive versions, what behaves differently, as `aasa diff` computes it, with example URLs and the apps \
      each change is for. --app (a bundle ID or app ID) lists the versions of the app seen, and the associated \
      domains and URL schemes added or removed over time.

      Exit codes: 0 the store has a history for it; 1 it has none; 2 the store cannot be read; 64 usage error.
      """)

  @Option(help: ArgumentHelp("A host: the versions of its AASA file.", valueName: "host")) var host: String?
  @Option(help: ArgumentHelp("A bundle ID or app ID: the app's versions, domains and schemes.", valueName: "id"))
  var app: String?
  @Flag(
    name: .customLong("developer-mode"),
    help: ArgumentHelp(
      "With --host: the file as retrieved for associated domains in developer mode (?mode=developer), from the "
        + "site itself; without it, as retrieved for the others."))
  var developerMode = false
  @Option(
    name: .shortAndLong,
    help: "Output format: text, json (one document), or jsonl (one object per version; with --app, per app).")
  var format: OutputFormat = .text
  @OptionGroup var store: StoreReadOptions

  func validate() throws {
    if host != nil && app != nil { throw ValidationError("give --host HOST or --app ID, not both") }
    if host == nil && app == nil { throw ValidationError("give --host HOST or --app ID") }
    if let host, let problem = HostArgument.problem(host) { throw ValidationError("--host: " + problem) }
    if app == "" { throw ValidationError("--app: an empty ID") }
    if developerMode && host == nil {
      throw ValidationError("--developer-mode is a mode of --host's file: give --host")
    }
    _ = try store.store.required()
  }

  func execute() async throws -> Int32 {
    let subject: StoreText.HistorySubject =
      host.map { .host(HostArgument.normalized($0), developerMode: developerMode) } ?? .app(app ?? "")
    let answer = await StoreText.history(
      of: subject, in: try store.store.required(), at: store.at, format: format, style: Terminal.style,
      warn: Terminal.warn)
    guard let (text, found) = answer else { return 2 }
    Terminal.write(text)
    return found ? 0 : 1
  }
}
