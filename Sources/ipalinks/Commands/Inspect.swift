import ArgumentParser
import Foundation
import IPALinksKit

extension OutputFormat: ExpressibleByArgument {}

/// The formats of `inspect`: the shared ones plus JSON Lines, which only a batch needs.
enum InspectFormat: String, CaseIterable, ExpressibleByArgument {
  case text, json, jsonl
}

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
      summary goes to stderr, and a progress bar too when stderr is a terminal.

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

  @Option(help: "How many inputs to inspect at once (default: the number of CPU cores).")
  var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

  @Option(
    help: ArgumentHelp(
      "Inspect only the i-th of n parts of the sorted inputs (1-based), for spreading a corpus over machines.",
      valueName: "i/n"))
  var shard: String?

  @Flag(name: .customLong("no-progress"), help: "No progress bar, even when stderr is a terminal.")
  var noProgress = false

  @OptionGroup(title: "AASA retrieval") var fetch: FetchOptions

  func validate() throws {
    if inputs.isEmpty { throw ValidationError("Give at least one input.") }
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
    var report = Inspector().inspect(path: input)
    if !noFetch {
      let requests = UniversalLinkInventory.requests(for: report)
      if !requests.isEmpty {
        let results = try await AASARetrieval.fetch(requests, options: fetch)
        UniversalLinkInventory.attach(results, to: &report)
      }
    }
    switch format {
    case .json: print(JSONReporter.render(report))
    case .jsonl: print(JSONReporter.render(report, pretty: false))
    case .text: print(TextReporter(useColor: Terminal.wantsColor).render(report), terminator: "")
    }
    // One line per error on stderr, naming the file and the problem, so scripts and CI logs show it.
    for d in report.diagnostics + report.bundles.flatMap(\.diagnostics) where d.severity == .error {
      // Bundle-level messages name the entry inside the archive; prefix the archive so the file is unambiguous.
      let message = d.message.hasPrefix(input) ? d.message : "\(input): \(d.message)"
      Terminal.printError("ipalinks: \(message)")
    }
    throw ExitCode(ExitStatus.code(for: report.status))
  }

  func runBatch() async throws {
    let started = Date()
    let collected = BatchInputs.collect(inputs)
    for problem in collected.problems { Terminal.printError("ipalinks: \(problem)") }
    let shard = self.shard.flatMap(Shard.init(parsing:))
    let selected = shard?.select(collected.inputs) ?? collected.inputs
    if collected.inputs.isEmpty {
      Terminal.printError("ipalinks: no inputs to inspect")
      throw ExitCode(2)
    }
    var fetches: SharedAASAFetches?
    if !noFetch { fetches = SharedAASAFetches(fetcher: try AASARetrieval.makeFetcher(fetch)) }

    let output = BatchOutput(format: format)
    let progress =
      !noProgress && isatty(STDERR_FILENO) == 1 ? ProgressBar(total: selected.count, startedAt: started) : nil
    var summary = BatchSummary()
    output.begin()
    await BatchInspector(jobs: jobs, fetches: fetches).run(
      selected, started: { progress?.started($0) },
      finished: { report in
        output.write(report)
        summary.add(report)
        if let line = Self.problemLine(report) {
          progress?.clear()
          Terminal.printError(line)
        }
        progress?.finished(report.input)
      })
    output.end()
    progress?.clear()

    let seconds = Date().timeIntervalSince(started)
    var line = "ipalinks: \(summary.inputs) input\(summary.inputs == 1 ? "" : "s")"
    if let shard { line += " (shard \(shard) of \(collected.inputs.count))" }
    line += String(
      format: " in %.1f s (%.1f/s, %d jobs): ", seconds, Double(summary.inputs) / max(seconds, 0.001), jobs)
    line += "\(summary.complete) complete, \(summary.partial) partial, \(summary.unreadable) unreadable; "
    line += "\(summary.bundles) bundles, \(summary.domains) associated domains"
    if let fetches {
      let (fetched, requested) = (await fetches.fetched, await fetches.requested)
      line += "; \(fetched) AASA hosts looked up for \(requested) domain requests"
    }
    Terminal.printError(line)
    let status = collected.problems.isEmpty ? summary.exitStatus : max(summary.exitStatus, .partial)
    throw ExitCode(ExitStatus.code(for: status))
  }

  /// The one stderr line a batch gives an input that is not complete: its status and first error.
  static func problemLine(_ report: InspectionReport) -> String? {
    guard report.status != .complete else { return nil }
    let errors = (report.diagnostics + report.bundles.flatMap(\.diagnostics)).filter { $0.severity == .error }
    guard let first = errors.first else { return nil }
    let message = first.message.hasPrefix(report.input) ? first.message : "\(report.input): \(first.message)"
    let more = errors.count > 1 ? " (and \(errors.count - 1) more)" : ""
    return "ipalinks: \(report.status.rawValue): \(message)\(more)"
  }
}

extension InspectionReport.Status: Comparable {
  private var rank: Int {
    switch self {
    case .complete: 0
    case .partial: 1
    case .unreadable: 2
    }
  }
  public static func < (a: Self, b: Self) -> Bool { a.rank < b.rank }
}

/// Writes a batch's reports to stdout as they finish, each with one `write`, so whatever was written before a
/// crash or Ctrl-C is whole.
final class BatchOutput {
  let format: InspectFormat
  private var count = 0

  init(format: InspectFormat) { self.format = format }

  func begin() { if format == .json { emit("[\n") } }

  func write(_ report: InspectionReport) {
    switch format {
    case .jsonl: emit(JSONReporter.render(report, pretty: false) + "\n")
    case .json: emit((count == 0 ? "" : ",\n") + JSONReporter.render(report))
    case .text: emit((count == 0 ? "" : "\n") + TextReporter(useColor: Terminal.wantsColor).render(report))
    }
    count += 1
  }

  func end() { if format == .json { emit(count == 0 ? "]\n" : "\n]\n") } }

  private func emit(_ text: String) {
    FileHandle.standardOutput.write(Data(text.utf8))
  }
}

/// Maps results to the documented exit codes.
enum ExitStatus {
  static func code(for status: InspectionReport.Status) -> Int32 {
    switch status {
    case .complete: 0
    case .partial: 1
    case .unreadable: 2
    }
  }
}

/// Runs the fetcher for a command, turning a bad option into a usage error.
enum AASARetrieval {
  static func makeFetcher(_ options: FetchOptions) throws -> AASAFetcher {
    do {
      return try AASAFetcher(options: try options.makeFetchOptions())
    } catch let error as AASAFetchError {
      throw ValidationError("\(error)")
    }
  }

  static func fetch(_ requests: [AASARequest], options: FetchOptions) async throws -> [AASARequest: AASAFetchResult] {
    try await makeFetcher(options).fetch(requests)
  }
}

enum Terminal {
  /// Colour only on a terminal and never when `NO_COLOR` is set (https://no-color.org).
  static var wantsColor: Bool {
    isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"].map(\.isEmpty) ?? true
  }

  /// Error lines carry hosts, names and messages from untrusted input: escape sequences in them must not reach the
  /// terminal, and a line break in a file name or host must not forge a second `ipalinks:` line for the scripts
  /// that read one problem per line, so every control character, line breaks included, is written as an escape.
  static func printError(_ line: String) {
    let safe = TextReporter(useColor: false).clean(line)
    FileHandle.standardError.write(Data((safe + "\n").utf8))
  }
}
