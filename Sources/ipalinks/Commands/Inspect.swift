import ArgumentParser
import Foundation
import IPALinksKit

extension OutputFormat: ExpressibleByArgument {}
extension DocumentFormat: ExpressibleByArgument {}

/// `ipalinks inspect`: parses arguments, runs the library's ``Inspector`` (or ``BatchInspector`` for many inputs),
/// fetches the domains' AASA files, and prints a reporter's output.
struct Inspect: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
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

  @Option(name: .shortAndLong, help: "Output format: text, json, or jsonl (one JSON object per input and line).")
  var format: InspectFormat = .text

  @Flag(name: .customLong("no-fetch"), help: "Report the app only; do not look up the domains' AASA files.")
  var noFetch = false

  // Optional, so the help says "the number of CPU cores" rather than the count of the machine that built the page.
  @Option(
    name: .customLong("jobs"),
    help: ArgumentHelp("How many inputs to inspect at once (default: the number of CPU cores).", valueName: "n"))
  var requestedJobs: Int?
  var jobs: Int { requestedJobs ?? ProcessInfo.processInfo.activeProcessorCount }

  @Option(
    help: ArgumentHelp(
      "Inspect only the i-th of n parts of the sorted inputs (1-based), for spreading a corpus over machines.",
      valueName: "i/n"))
  var shard: String?

  @Flag(name: .customLong("no-progress"), help: "No progress bar, even when stderr is a terminal.")
  var noProgress = false

  @Flag(name: .shortAndLong, help: "Print only errors on stderr: no progress bar, no summary.")
  var quiet = false

  @OptionGroup(title: "AASA retrieval") var fetch: FetchOptions

  func validate() throws {
    if inputs.isEmpty { throw ValidationError("Give at least one input.") }
    if inputs.contains("-") && inputs.count > 1 {
      throw ValidationError("'-' (an IPA on standard input) cannot be combined with other inputs")
    }
    if !(1...256).contains(jobs) { throw ValidationError("--jobs must be from 1 to 256") }
    if let shard, Shard(parsing: shard) == nil {
      throw ValidationError("--shard \"\(shard)\" must be i/n with 1 ≤ i ≤ n, e.g. 2/8")
    }
  }

  /// One plain input keeps the single-report output (a JSON object, not a line); anything else is a batch.
  var isBatch: Bool {
    if inputs.count > 1 || shard != nil || format == .jsonl { return true }
    var isDirectory: ObjCBool = false
    return FileManager.default.fileExists(atPath: inputs[0], isDirectory: &isDirectory) && isDirectory.boolValue
      && !BatchInputs.isAppFolder(inputs[0])
  }

  func run() async throws {
    if isBatch { try await runBatch() } else { try await runSingle(inputs[0]) }
  }

  func runSingle(_ input: String) async throws {
    let fetches = noFetch ? nil : SharedAASAFetches(fetcher: try fetch.makeFetcher())
    let report: InspectionReport
    if input == "-" {
      guard let bytes = StandardInput.read(limit: StandardInput.ipaLimit) else {
        Terminal.warn(
          "-: standard input is over \(StandardInput.ipaLimit >> 20) MiB; save the IPA to a file and inspect that")
        throw ExitCode(2)
      }
      report = await BatchInspector.inspect(ipaBytes: bytes, name: "-", fetches: fetches)
    } else {
      report = await BatchInspector.inspect(input, fetches: fetches)
    }
    let style = Terminal.style
    let reporter = InspectReporter(format: format, useColor: style.useColor, width: style.width)
    Terminal.write(reporter.single(report))
    // One failure is told once: the text report on a terminal already lists it.
    if format != .text || !Terminal.stdoutIsTerminal { InspectReporter.errorLines(report).forEach(Terminal.warn) }
    throw ExitCode(ExitStatus.code(for: report.status))
  }

  func runBatch() async throws {
    let started = Date()
    let console = BatchConsole(progress: !noProgress, quiet: quiet)
    let collected = BatchInputs.collect(inputs)
    collected.problems.forEach(console.problem)
    let shard = self.shard.flatMap(Shard.init(parsing:))
    let selected = shard?.select(collected.inputs) ?? collected.inputs
    if collected.inputs.isEmpty {
      console.problem("no inputs to inspect")
      throw ExitCode(2)
    }
    let fetches = noFetch ? nil : SharedAASAFetches(fetcher: try fetch.makeFetcher())
    let style = Terminal.style
    var reporter = InspectReporter(format: format, useColor: style.useColor, width: style.width)
    var summary = BatchSummary()
    console.output(reporter.begin())
    console.begin(total: selected.count)
    await BatchInspector(jobs: jobs, fetches: fetches).run(
      selected, started: console.started,
      finished: { report in
        console.output(reporter.next(report))
        summary.add(report)
        console.finished(report)
      })
    console.output(reporter.end())
    console.end()

    var lookups: (Int, Int)?
    if let fetches { lookups = (await fetches.fetched, await fetches.requested) }
    console.say(
      InspectReporter.summaryLine(
        summary, shard: shard, of: collected.inputs.count, seconds: Date().timeIntervalSince(started), jobs: jobs,
        lookups: lookups))
    let status = collected.problems.isEmpty ? summary.exitStatus : max(summary.exitStatus, .partial)
    throw ExitCode(ExitStatus.code(for: status))
  }
}
