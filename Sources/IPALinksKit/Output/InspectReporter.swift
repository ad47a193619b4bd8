import Foundation

/// The output of `ipalinks inspect`: one report, or a batch's reports as they finish, each in pieces that are whole
/// on their own, so whatever was written before a crash or Ctrl-C can be read; plus the lines for stderr.
public struct InspectReporter: Sendable {
  /// The stdout format.
  public let format: InspectFormat
  /// Colour in the text format; the caller decides (TTY, `NO_COLOR`).
  public let useColor: Bool
  /// The width the text format fits.
  public let width: Int
  /// With `--format table`: the column to sort by.
  public var sortedBy: BundleTable.Column?
  private var count = 0
  /// With `--format table`: the lines so far, written at the end, when the columns' widths are known.
  private var table = BundleTable()

  /// A reporter for `format`.
  public init(format: InspectFormat, useColor: Bool, width: Int = 80) {
    self.format = format
    self.useColor = useColor
    self.width = width
  }

  /// The whole stdout of a single input: one JSON object, not an array.
  public func single(_ report: InspectionReport) -> String {
    switch format {
    case .json: JSONReporter.document(report) + "\n"
    case .jsonl: JSONReporter.document(report, pretty: false) + "\n"
    case .text: TextReporter(useColor: useColor, width: width).render(report)
    case .table: BundleTable(report).text(width: width)
    }
  }

  /// What a batch writes before its first report.
  public func begin() -> String { format == .json ? "[\n" : "" }

  /// One report of a batch, with what separates it from the one before.
  public mutating func next(_ report: InspectionReport) -> String {
    defer { count += 1 }
    switch format {
    case .jsonl: return JSONReporter.document(report, pretty: false) + "\n"
    case .json: return (count == 0 ? "" : ",\n") + JSONReporter.document(report)
    case .text: return (count == 0 ? "" : "\n") + TextReporter(useColor: useColor, width: width).render(report)
    case .table:
      table.add(report)
      return ""
    }
  }

  /// What closes the document written so far when Ctrl-C ends the batch: a JSON array's `]`; nil for the formats
  /// that need none (JSON Lines, text) or would print a partial table.
  public var closingOnInterrupt: String? { format == .json ? end() : nil }

  /// What a batch writes after its last report: the JSON array's end, or the table, whose columns fit every line.
  public func end() -> String {
    switch format {
    case .json: count == 0 ? "]\n" : "\n]\n"
    case .table: table.text(width: width, sortedBy: sortedBy)
    case .text, .jsonl: ""
    }
  }

  /// One line per error of a single input, each naming the file, so scripts and CI logs show it.
  public static func errorLines(_ report: InspectionReport) -> [String] {
    errors(report).map(\.message)
  }

  /// The one line a batch gives an input that is not complete: its status and first error; nil when complete, or
  /// when its only errors are AASA lookups, which ``HostFailures`` tells once per host at the end.
  public static func problemLine(_ report: InspectionReport) -> String? {
    guard report.status != .complete else { return nil }
    let errors = errors(report).filter { !$0.code.isAboutAASAFile }
    guard let first = errors.first else { return nil }
    let more = errors.count > 1 ? " (and \(errors.count - 1) more)" : ""
    return "\(report.status.rawValue): \(first.message)\(more)"
  }

  /// The report's errors; bundle-level messages name the entry inside the archive, so the input is prefixed
  /// unless the message already starts with it.
  private static func errors(_ report: InspectionReport) -> [Diagnostic] {
    (report.diagnostics + report.bundles.flatMap(\.diagnostics)).filter { $0.severity == .error }.map { d in
      var d = d
      if !d.message.hasPrefix(report.input) { d.message = "\(report.input): \(d.message)" }
      return d
    }
  }

  /// The summary a batch ends with on stderr: counts, speed, and how many AASA hosts were looked up.
  public static func summaryLine(
    _ summary: BatchSummary, shard: Shard?, of total: Int, seconds: Double, jobs: Int,
    lookups: (fetched: Int, requested: Int)?
  ) -> String {
    var line = TerminalText.count(summary.inputs, "input")
    if let shard { line += " (shard \(shard) of \(total))" }
    line += String(
      format: " in %.1f s (%.1f/s, %@): ", seconds, Double(summary.inputs) / max(seconds, 0.001),
      TerminalText.count(jobs, "job"))
    line += "\(summary.complete) complete, \(summary.partial) partial, \(summary.unreadable) unreadable; "
    line += TerminalText.count(summary.bundles, "bundle") + ", "
    line += TerminalText.count(summary.domains, "associated domain")
    if let lookups {
      line += "; " + TerminalText.count(lookups.fetched, "AASA host") + " looked up for "
      line += TerminalText.count(lookups.requested, "domain request")
    }
    return line
  }
}

/// The AASA lookups that failed in a batch, once per host: a batch fetches each host once for all its inputs, so one
/// failing host would otherwise be told once per input that claims it.
public struct HostFailures: Sendable {
  /// One failed lookup: the host asked, where from, how it failed, and how many inputs it failed for.
  public struct Lookup: Sendable, Hashable, Encodable {
    /// The host whose file was asked for.
    public var host: String
    /// Where it was asked: the CDN, the domain, the cache, a folder.
    public var source: AASAFetchResult.Source
    /// How it failed.
    public var status: AASAFetchResult.Status
    /// The retrieval's message, naming the host.
    public var message: String
    /// Inputs whose apps claim the host.
    public var inputs: Int
  }

  /// What tells two lookups apart.
  private struct Key: Hashable {
    var host: String
    var source: AASAFetchResult.Source
    var status: AASAFetchResult.Status
  }

  private var positions: [Key: Int] = [:]
  /// Every failed lookup, in the order first seen.
  public private(set) var lookups: [Lookup] = []
  private let errorsOnly: Bool

  /// An empty tally; `errorsOnly` keeps only lookups whose outcome is unknown (a timeout, a DNS or TLS error…),
  /// not the definite answers such as `not-found`, for `--quiet`.
  public init(errorsOnly: Bool = false) { self.errorsOnly = errorsOnly }

  /// Counts the failed lookups of one finished report.
  public mutating func add(_ report: InspectionReport) {
    var seen = Set<Key>()
    for bundle in report.bundles {
      for domain in bundle.associatedDomains {
        // A cached copy that stood in for an answer is a lookup that failed too, though its file is known.
        guard let aasa = domain.aasa, aasa.status != .ok || aasa.fetch.servedInstead,
          !errorsOnly || !aasa.status.isDefinite
        else { continue }
        let key = Key(host: aasa.fetch.host, source: aasa.fetch.source, status: aasa.status)
        guard seen.insert(key).inserted else { continue }
        if let at = positions[key] {
          lookups[at].inputs += 1
        } else {
          positions[key] = lookups.count
          lookups.append(
            Lookup(host: key.host, source: key.source, status: key.status, message: aasa.fetch.message, inputs: 1))
        }
      }
    }
  }

  /// Whether no lookup failed.
  public var isEmpty: Bool { lookups.isEmpty }

  /// One line per failure, in the order first seen: `shop.example.com: cannot resolve …: no such host (dns-error,
  /// 204 inputs)`. When more than `perStatus` hosts failed the same way (every host, offline with an empty cache),
  /// the first of them are listed and one line counts the rest, naming `-v`, so the summary stays short.
  public func lines(perStatus: Int = 5) -> [String] {
    var shown: [AASAFetchResult.Status: Int] = [:]
    var hidden: [AASAFetchResult.Status: Int] = [:]
    var statuses: [AASAFetchResult.Status] = []
    var out: [String] = []
    for lookup in lookups {
      if shown[lookup.status] == nil { statuses.append(lookup.status) }
      if shown[lookup.status, default: 0] < perStatus {
        shown[lookup.status, default: 0] += 1
        out.append("\(lookup.message) (\(lookup.status.rawValue), \(TerminalText.count(lookup.inputs, "input")))")
      } else {
        hidden[lookup.status, default: 0] += 1
      }
    }
    for status in statuses {
      if let more = hidden[status] {
        out.append("and \(TerminalText.count(more, "more host")) with \(status.rawValue) (-v lists every host)")
      }
    }
    return out
  }
}
