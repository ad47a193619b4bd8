import Foundation
import IPALinksKit

/// The store's text for people.
public enum StoreText {
  /// `store runs` in `format`: the text table, one JSON document with `runs`, or one JSON object per run.
  public static func runs(_ runs: [AuditStore.Run], format: OutputFormat, width: Int) -> String {
    switch format {
    case .json: JSONReporter.document(["runs": runs]) + "\n"
    case .jsonl: runs.map { JSONReporter.render($0, pretty: false) + "\n" }.joined()
    case .text: self.runs(runs, width: width)
    }
  }

  /// `store runs`: a line per run, oldest first, in columns: when it started (UTC), how long it took or that it did
  /// not finish, what it recorded, its label and shard, and the machine, whose name gives way when the line is too
  /// wide.
  public static func runs(_ runs: [AuditStore.Run], width: Int) -> String {
    guard !runs.isEmpty else { return "no runs\n" }
    let headings = ["RUN", "STARTED (UTC)", "TOOK", "COMMAND", "INPUTS", "APPS", "LABEL", "MACHINE"]
    let rows = runs.map { run in
      [
        String(run.id), String(run.startedAt.prefix(19)).replacingOccurrences(of: "T", with: " "),
        took(run), run.command, String(run.inputs), String(run.apps),
        (run.label ?? "") + (run.shard.map { " (shard \($0))" } ?? ""), run.machine,
      ].map { TerminalText.escape($0) }
    }
    var widths = headings.indices.map { i in max(headings[i].count, rows.map { $0[i].count }.max() ?? 0) }
    for column in [7, 6] {
      let excess = widths.reduce(0, +) + 2 * (widths.count - 1) - width
      if excess > 0 { widths[column] = max(headings[column].count, widths[column] - excess) }
    }
    func line(_ cells: [String]) -> String {
      let fitted = cells.indices.map { i in
        let cell = cells[i].count > widths[i] ? String(cells[i].prefix(widths[i] - 1)) + "…" : cells[i]
        let pad = String(repeating: " ", count: widths[i] - cell.count)
        return [0, 4, 5].contains(i) ? pad + cell : cell + pad
      }
      return String(fitted.joined(separator: "  ").reversed().drop { $0 == " " }.reversed()) + "\n"
    }
    return line(headings) + rows.map(line).joined()
  }

  /// `1.2 s`, `3 min`, or `not finished`.
  static func took(_ run: AuditStore.Run) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    guard let finished = run.finishedAt.flatMap(formatter.date), let started = formatter.date(from: run.startedAt)
    else { return "not finished" }
    let seconds = finished.timeIntervalSince(started)
    return seconds < 120 ? String(format: "%.1f s", seconds) : "\(Int(seconds / 60)) min"
  }
}
