import ArgumentParser
import IPALinksKit
import IPALinksStore

/// `ipalinks store`: what the audit store holds, and bringing saved inventories into it.
struct StoreCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "store",
    abstract: "List the runs of the audit store, bring saved inventories into it, or prune old runs.",
    discussion: """
      The store is a SQLite file or a postgres:// URL, given with --store or IPALINKS_STORE. `inspect --store` \
      records a run as it goes; docs/store.md describes the tables.
      """,
    subcommands: [Runs.self, Import.self, Prune.self])

  /// `ipalinks store runs`: every run, oldest first.
  struct Runs: StatusCommand {
    static let configuration = CommandConfiguration(
      commandName: "runs",
      abstract: "List the runs in the store: when, which ipalinks, where, and what they recorded.",
      usage: "ipalinks store runs [<options>]",
      discussion: "Exit codes: 0 listed; 2 the store cannot be read; 64 usage error.")

    @OptionGroup var store: StoreOptions
    @Option(name: .shortAndLong, help: "Output format: text, json (one document), or jsonl (one object per run).")
    var format: OutputFormat = .text

    func validate() throws { _ = try store.required() }

    func execute() async throws -> Int32 {
      let runs = await AuditStore.reading(try store.required(), warn: Terminal.warn) { try await $0.runs() }
      runs.map { Terminal.write(StoreText.runs($0, format: format, width: Terminal.tableWidth)) }
      return runs == nil ? 2 : 0
    }
  }

  /// `ipalinks store prune --before TIME`: what old runs saw, but for what history and the state need.
  struct Prune: StatusCommand {
    static let configuration = CommandConfiguration(
      commandName: "prune",
      abstract: "Remove what the runs before a time saw, but for what history and the latest state need.",
      usage: "ipalinks store prune --before <time> [<options>]",
      discussion: """
        Each version history shows keeps its first and last sighting, so `history` keeps its shape (its counts of \
        sightings drop), and the state at any time, the latest one included, reads as before. A run left with \
        nothing is removed; the others are marked pruned in `store runs`. One transaction: an interrupted prune \
        leaves the store as it was. Then SQLite's file is compacted (VACUUM); PostgreSQL keeps the space for \
        later runs.

        Exit codes: 0 pruned (or counted, with --dry-run); 2 the store cannot be read or written; 64 usage error.
        """)

    @Option(
      parsing: .unconditional,
      help: ArgumentHelp(
        "Prune the runs that started before this: a date (from its start), an RFC 3339 time, an age (90d, 12w) or "
          + "a run label (its first run) or number.", valueName: "time"))
    var before: StoreTime
    @Flag(name: .customLong("dry-run"), help: "Say what would be removed, and remove nothing.") var dryRun = false
    @Option(name: .shortAndLong, help: "Output format: text or json.") var format: DocumentFormat = .text
    @OptionGroup var store: StoreOptions

    func validate() throws { _ = try store.required() }

    func execute() async throws -> Int32 {
      let report = await AuditStore.reading(try store.required(), warn: Terminal.warn) {
        try await $0.prune(before: before, dryRun: dryRun)
      }
      report.map { Terminal.write(StoreText.prune($0, format: format)) }
      return report == nil ? 2 : 0
    }
  }

  /// `ipalinks store import FILE…`: saved inventories, as runs of their own.
  struct Import: StatusCommand {
    static let configuration = CommandConfiguration(
      commandName: "import",
      abstract: "Bring inventories saved by `inspect --format json|jsonl` into the store, one run per file.",
      usage: "ipalinks store import <files> ... [<options>]",
      discussion: """
        Each file becomes a run labelled with --run-label (or its name), observed when the file was saved (its \
        modification time; now for standard input), so the store's history places it where it belongs. The apps \
        keep the AASA results they were saved with, until a later run retrieves the files again.

        JSON Lines are read a batch at a time, so an inventory of any size fits in memory; a line that is not a \
        report (a file cut short as it was written) is named and skipped, and the rest of the file imported.

        Exit codes: 0 imported; 1 some file could not be read, or had lines that are not reports (the rest is \
        imported); 2 nothing could be imported, or the store cannot be written; 64 usage error.
        """)

    @Argument(help: "Saved inventories (.json, .jsonl, or - for standard input).") var files: [String]
    @Option(name: .customLong("run-label"), help: ArgumentHelp("The runs' label.", valueName: "label"))
    var runLabel: String?
    @OptionGroup var store: StoreOptions
    @OptionGroup var progress: ProgressOptions

    func validate() throws {
      _ = try store.required()
      if let problem = StandardInput.problem([("an inventory", files)]) { throw ValidationError(problem) }
      try StoreOptions.checkRunLabel(runLabel)
    }

    func execute() async throws -> Int32 {
      // A bar on a terminal, and Ctrl-C saying what the store holds, as every batch has.
      await AuditStore.importInventories(
        files, into: try store.required(), label: runLabel, arguments: StoreLocation.maskedCommandLine,
        console: BatchConsole(progress: !progress.noProgress, quiet: progress.quiet), warn: Terminal.warn
      )
    }
  }
}
