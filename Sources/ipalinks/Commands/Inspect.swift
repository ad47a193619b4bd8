import ArgumentParser
import IPALinksKit
import IPALinksStore

extension OutputFormat: ExpressibleByArgument {}
extension DocumentFormat: ExpressibleByArgument {}
extension InspectFormat: ExpressibleByArgument {}
extension BundleTable.Column: ExpressibleByArgument {}

/// `ipalinks inspect`: parses arguments, runs the library's ``Inspector`` (or its batch pipeline for many inputs),
/// fetches the domains' AASA files, and prints a reporter's output.
struct Inspect: StatusCommand {
  static let configuration = CommandConfiguration(
    commandName: "inspect",
    abstract: "Report an app's entitlements, associated domains and URL schemes, with where each came from.",
    discussion: """
      INPUT is an .ipa, an unzipped .app folder, a bare Mach-O executable, an .xcent/.entitlements plist, \
      or a .mobileprovision. Each associated domain's apple-app-site-association file is then fetched (or read \
      from --aasa-dir, or the cache with --offline) and this app's rules are reported; --no-fetch skips that.

      Several inputs, or a folder (walked for *.ipa), make a batch: inputs are sorted, --shard i/n keeps every \
      n-th starting at the i-th, --jobs of them are inspected at once, each host's AASA file is fetched once for \
      all apps, and each report is written as soon as it is done (--format jsonl: one JSON object per line). A \
      summary goes to stderr, with each failing AASA host told once, and a progress bar too when stderr is a \
      terminal. '-' reads one IPA from standard input.

      Exit codes: 0 complete result; 1 partial result (some part or some input could not be read; the rest is \
      reported); 2 nothing could be read; 64 usage error.
      """
  )

  @Argument(
    help: "The .ipa files, .app folders, Mach-O files, entitlements plists or profiles; folders are walked for *.ipa.")
  var inputs: [String]

  @Option(
    name: .shortAndLong,
    help: "Output format: text, json, jsonl (one JSON object per input and line), or table (one line per bundle).")
  var format: InspectFormat = .text

  @Option(
    help: ArgumentHelp(
      "With --format table, sort by a column: app, name, version, domains, ok, failed (counts, most first) or schemes.",
      valueName: "column"))
  var sort: BundleTable.Column?

  @Option(
    help: ArgumentHelp(
      "Inspect only the i-th of n parts of the sorted inputs (1-based), for spreading a corpus over machines.",
      valueName: "i/n"))
  var shard: String?

  @Option(
    name: .customLong("run-label"),
    help: ArgumentHelp("With --store: the run's label, which groups the shards of one audit.", valueName: "label"))
  var runLabel: String?

  @OptionGroup var store: StoreOptions
  @OptionGroup var batch: BatchOptions
  @OptionGroup(title: "AASA retrieval") var fetch: FetchOptions

  func validate() throws {
    if inputs.contains("-") && inputs.count > 1 {
      throw ValidationError("'-' (an IPA on standard input) cannot be combined with other inputs")
    }
    if sort != nil && format != .table { throw ValidationError("--sort orders --format table only") }
    if runLabel != nil && !store.isGiven {
      throw ValidationError("--run-label names the store's run: give --store too")
    }
    try StoreOptions.checkRunLabel(runLabel)
    if let shard, Shard(parsing: shard) == nil {
      throw ValidationError("--shard \"\(shard)\" must be i/n with 1 ≤ i ≤ n, e.g. 2/8")
    }
  }

  /// A batch, or one input's report; a shard or JSON Lines make a batch of one input too. With a store, the run is
  /// recorded as it goes, and a store that cannot be written is told and gives exit code 3, the report still printed.
  func execute() async throws -> Int32 {
    let recorder = try await beginRun()
    let status =
      shard != nil || format == .jsonl || BatchInputs.isBatch(inputs)
      ? try await runBatch(recorder) : try await runSingle(inputs[0], recorder)
    guard let recorder else { return status }
    // Arguments that named no input leave no run behind, as they inspected nothing.
    if status == 2, await recorder.discardIfEmpty() { return status }
    return await recorder.finish(showing: batch.console) ? status : 3
  }

  /// The run in the store, when one is given.
  func beginRun() async throws -> RecordingRun? {
    guard let location = try store.location() else { return nil }
    return await RecordingRun.begin(
      location, command: "inspect", arguments: StoreLocation.maskedCommandLine, label: runLabel, shard: shard,
      warn: { Terminal.warn($0) })
  }

  func runSingle(_ input: String, _ recorder: RecordingRun?) async throws -> Int32 {
    let fetches = try batch.fetches(fetch, keepingRetrievals: recorder != nil)
    recorder?.expect([input])
    return await InspectReporter(format: format, style: Terminal.style).inspect(input, fetches: fetches) {
      await recorder?.record($0, fetches)
    }
  }

  func runBatch(_ recorder: RecordingRun?) async throws -> Int32 {
    let fetches = try batch.fetches(fetch, keepingRetrievals: recorder != nil)
    var reporter = InspectReporter(format: format, style: Terminal.style)
    reporter.sortedBy = sort
    return await reporter.inspect(
      inputs, shard: shard.flatMap(Shard.init(parsing:)), jobs: batch.jobs, fetches: fetches, console: batch.console,
      expect: { recorder?.expect($0) }
    ) {
      await recorder?.record($0, fetches)
    } settle: {
      await recorder?.settle(showing: $0)
    }
  }
}
