import Foundation

/// The output of `ipalinks inspect`: one report, or a batch's reports as they finish, each in pieces that are whole
/// on their own, so whatever was written before a crash or Ctrl-C can be read; plus the lines for stderr.
public struct InspectReporter: Sendable {
  /// The stdout format.
  public let format: InspectFormat
  /// Colour in the text format; the caller decides (TTY, `NO_COLOR`).
  public let useColor: Bool
  private var count = 0

  /// A reporter for `format`.
  public init(format: InspectFormat, useColor: Bool) {
    self.format = format
    self.useColor = useColor
  }

  /// The whole stdout of a single input: one JSON object, not an array.
  public func single(_ report: InspectionReport) -> String {
    switch format {
    case .json: JSONReporter.render(report) + "\n"
    case .jsonl: JSONReporter.render(report, pretty: false) + "\n"
    case .text: TextReporter(useColor: useColor).render(report)
    }
  }

  /// What a batch writes before its first report.
  public func begin() -> String { format == .json ? "[\n" : "" }

  /// One report of a batch, with what separates it from the one before.
  public mutating func next(_ report: InspectionReport) -> String {
    defer { count += 1 }
    switch format {
    case .jsonl: return JSONReporter.render(report, pretty: false) + "\n"
    case .json: return (count == 0 ? "" : ",\n") + JSONReporter.render(report)
    case .text: return (count == 0 ? "" : "\n") + TextReporter(useColor: useColor).render(report)
    }
  }

  /// What a batch writes after its last report.
  public func end() -> String {
    guard format == .json else { return "" }
    return count == 0 ? "]\n" : "\n]\n"
  }

  /// One line per error of a single input, each naming the file, so scripts and CI logs show it.
  public static func errorLines(_ report: InspectionReport) -> [String] {
    errors(report).map(\.message)
  }

  /// The one line a batch gives an input that is not complete: its status and first error; nil when complete.
  public static func problemLine(_ report: InspectionReport) -> String? {
    guard report.status != .complete else { return nil }
    let errors = errors(report)
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
    var line = "\(summary.inputs) input\(summary.inputs == 1 ? "" : "s")"
    if let shard { line += " (shard \(shard) of \(total))" }
    line += String(
      format: " in %.1f s (%.1f/s, %d jobs): ", seconds, Double(summary.inputs) / max(seconds, 0.001), jobs)
    line += "\(summary.complete) complete, \(summary.partial) partial, \(summary.unreadable) unreadable; "
    line += "\(summary.bundles) bundles, \(summary.domains) associated domains"
    if let lookups {
      line += "; \(lookups.fetched) AASA hosts looked up for \(lookups.requested) domain requests"
    }
    return line
  }
}
