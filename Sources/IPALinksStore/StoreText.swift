import Foundation
import IPALinksKit
import UniversalLinks

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
    let rows = runs.map { run in
      [
        String(run.id), time(run.startedAt), took(run), run.command, String(run.inputs),
        String(run.apps), String(run.hosts),
        (run.label ?? "") + (run.shard.map { " (shard \($0))" } ?? "") + (run.prunedAt == nil ? "" : " (pruned)"),
        run.machine,
      ]
    }
    return table(
      ["RUN", "STARTED (UTC)", "TOOK", "COMMAND", "INPUTS", "APPS", "HOSTS", "LABEL", "MACHINE"], rows,
      right: [0, 4, 5, 6], shrinking: [8, 7], width: width)
  }

  /// `store prune` in `format`: what went (or would go, with `--dry-run`), and the space given back.
  public static func prune(_ report: PruneReport, format: DocumentFormat) -> String {
    guard format == .text else { return JSONReporter.document(report) + "\n" }
    let count = { (n: Int, what: String) in TerminalText.count(n, what) }
    let untouched = report.runs - report.runsRemoved - report.runsThinned
    let removed = report.dryRun ? "would be removed" : "removed"
    var out =
      "\(count(report.runs, "run")) started before \(time(report.before)) UTC, "
      + "\(report.dryRun ? "to prune" : "pruned"):\n"
      + "  runs: \(report.runsRemoved) \(removed), \(report.runsThinned) "
      + (report.dryRun ? "would be thinned" : "thinned (marked pruned)")
      + (untouched > 0 ? ", \(untouched) left whole" : "") + "\n"
      + "  rows \(removed): \(count(report.inputs, "input")), \(count(report.apps, "app sighting")), "
      + "\(count(report.retrievals, "retrieval"))\n"
      + "  no longer pointed to, \(removed): \(count(report.observations, "observation")), "
      + "\(count(report.aasaFiles, "AASA file"))\n"
    if let before = report.bytesBefore, let after = report.bytesAfter {
      out += "  size: \(bytes(before)) → \(bytes(after)) bytes"
      if let failed = report.vacuumFailed {
        out += " (VACUUM failed: \(TerminalText.escape(failed)); later runs reuse the space)\n"
      } else if report.database == "postgres" {
        out += " (PostgreSQL keeps the space for later runs)\n"
      } else {
        out += " (SQLite, after VACUUM)\n"
      }
    } else if let before = report.bytesBefore {
      let why = [report.vacuumFailed.map { "VACUUM failed: \($0)" }, report.measureFailed].compactMap { $0 }
      out +=
        "  size: \(bytes(before)) bytes before; not measured after (\(TerminalText.escape(why.joined(separator: "; "))))\n"
    }
    return out
  }

  /// A size in bytes, grouped by thousands.
  private static func bytes(_ n: Int) -> String {
    let digits = String(n)
    var out = ""
    for (i, c) in digits.enumerated() {
      if i > 0 && (digits.count - i) % 3 == 0 { out += "," }
      out.append(c)
    }
    return out
  }

  /// `history --host` in `format`: the versions in a table and, between consecutive ones, the changes as
  /// `aasa diff` writes them; one JSON document with `versions` and `changes`; or one JSON object per version, with
  /// the changes that led to it.
  public static func history(_ history: HostHistory, format: OutputFormat, style: TextStyle) -> String {
    switch format {
    case .json: return JSONReporter.document(history) + "\n"
    case .jsonl:
      return history.versions.map { version in
        JSONReporter.render(
          VersionLine(
            host: history.host, developerMode: history.developerMode, version: version,
            changes: history.changes.filter { $0.to == version.version }),
          pretty: false) + "\n"
      }.joined()
    case .text: break
    }
    let host = TerminalText.escape(history.host) + (history.developerMode == true ? " in developer mode" : "")
    // The other mode's timeline, which this one leaves out: another file for as long as Apple's CDN keeps its copy.
    let other =
      history.otherModeRetrievals == 0
      ? []
      : fitted(
        "and " + TerminalText.count(history.otherModeRetrievals, "retrieval")
          + (history.developerMode == true
            ? " not in developer mode: ipalinks history --host "
            : " in developer mode (?mode=developer): ipalinks history --host ")
          + TerminalText.escape(history.host) + (history.developerMode == true ? "" : " --developer-mode"), style)
    guard !history.versions.isEmpty else {
      return "\(host): the store has no answer from its AASA file"
        + (history.unanswered > 0 ? " (\(TerminalText.count(history.unanswered, "retrieval")) without one)" : "")
        + "\n" + other.map { $0 + "\n" }.joined()
    }
    let seen = history.versions.map(\.retrievals).reduce(0, +)
    let head =
      "\(host): \(TerminalText.count(history.versions.count, "version")) of its AASA file, from "
      + TerminalText.count(seen, "retrieval")
      + (history.unanswered > 0 ? " (and \(history.unanswered) without an answer)" : "")
    let unstable = "unstable: it rewrites its file without changing what opens; files that behave alike are one version"
    var out =
      (([head] + (history.unstable ? [unstable] : [])).flatMap { fitted($0, style) } + other).map { $0 + "\n" }
      .joined() + "\n"
    out += table(
      ["VERSION", "FIRST SEEN (UTC)", "LAST SEEN (UTC)", "SEEN", "SOURCE", "FILE"],
      history.versions.map { v in
        [
          String(v.version), minute(v.firstSeen), minute(v.lastSeen), String(v.retrievals),
          v.sources.joined(separator: ","),
          (v.sha256.map { String($0.prefix(8)) + (v.size.map { " (\($0) B)" } ?? "") } ?? v.status)
            + (v.files > 1 ? ", \(v.files) files alike" : ""),
        ]
      }, right: [0, 3], shrinking: [4], width: style.width)
    let shared = sharedLabels(history.versions.dropFirst().map { ($0.firstRun, $0.firstRunNumber) })
    for (i, version) in history.versions.enumerated().dropFirst() {
      let (old, new) = ("version \(i)", "version \(i + 1)")
      out +=
        "\n" + style.bold("\(old) → \(new)") + ", first seen \(time(version.firstSeen))"
        + (runName(version.firstRun, version.firstRunNumber, shared: shared).map { " (\($0))" } ?? "") + ":\n"
      out += AASADiffReporter.text(
        history.comparisons[i - 1], old: old, new: new, files: (history.files[i - 1], history.files[i]), style: style)
    }
    return out
  }

  /// A run as `history` names it: its label, else its number (`run 3`), which `--at` takes too; a label `shared`
  /// by other runs the history names too (`nightly`) with the number as well, as `report` names it: `--at nightly`
  /// reads the last of them.
  static func runName(_ label: String?, _ number: Int?, shared: Set<String> = []) -> String? {
    guard let label else { return number.map { "run \($0)" } }
    return TerminalText.escape(label) + (shared.contains(label) ? number.map { " (run \($0))" } ?? "" : "")
  }

  /// The labels that name more than one run among `runs`.
  static func sharedLabels(_ runs: [(label: String?, number: Int?)]) -> Set<String> {
    var numbers: [String: Set<Int>] = [:]
    for case (let label?, let number?) in runs { numbers[label, default: []].insert(number) }
    return Set(numbers.filter { $0.value.count > 1 }.keys)
  }

  /// A line of text cut to the terminal's width (``TerminalText/wrap(_:width:first:rest:)``), the lines after the
  /// first indented.
  static func fitted(_ line: String, _ style: TextStyle) -> [String] {
    TerminalText.wrap(line, width: style.width, rest: "  ")
  }

  /// `history --app` in `format`: per app, its versions in a table and each observation that changed its
  /// associated domains or URL schemes; one JSON document; or one JSON object per app.
  public static func history(_ history: AppHistory, format: OutputFormat, style: TextStyle) -> String {
    switch format {
    case .json: return JSONReporter.document(history) + "\n"
    case .jsonl: return history.apps.map { JSONReporter.render($0, pretty: false) + "\n" }.joined()
    case .text: break
    }
    guard !history.apps.isEmpty else {
      return "no app with bundle ID or app ID \(TerminalText.escape(history.query))\n"
    }
    let e = { (text: String) in TerminalText.escape(text) }
    return history.apps.map { app in
      let seen = app.versions.map(\.observations).reduce(0, +)
      let names = [app.appId == app.appKey ? app.bundleId : nil, app.name].compactMap { $0 }.map(e)
      let head =
        fitted(
          e(app.appKey) + (names.isEmpty ? "" : " (\(names.joined(separator: ", ")))") + ": "
            + "\(TerminalText.count(app.versions.count, "version")), inspected \(TerminalText.count(seen, "time"))",
          style)
      // The key starts the first line however it is cut: it alone is bold.
      var out =
        style.bold(e(app.appKey)) + head[0].dropFirst(e(app.appKey).count) + "\n"
        + head.dropFirst().map { $0 + "\n" }.joined() + "\n"
      out += table(
        ["VERSION", "BUILD", "FIRST SEEN (UTC)", "LAST SEEN (UTC)", "SEEN"],
        app.versions.map {
          [$0.version ?? "?", $0.build ?? "?", minute($0.firstSeen), minute($0.lastSeen), String($0.observations)]
        }, right: [4], shrinking: [0, 1], width: style.width)
      out += "\n"
      let shared = sharedLabels(app.changes.map { ($0.run, $0.runNumber) })
      for change in app.changes {
        out +=
          [
            time(change.at), runName(change.run, change.runNumber, shared: shared),
            change.version.map { e($0) + (change.build.map { " (\(e($0)))" } ?? "") },
          ]
          .compactMap { $0 }.joined(separator: "  ") + "\n"
        let lines =
          change.domainsAdded.map { "+ " + e($0) } + change.domainsRemoved.map { "- " + e($0) }
          + change.schemesAdded.map { "+ URL scheme " + e($0) } + change.schemesRemoved.map { "- URL scheme " + e($0) }
          + change.queriedSchemesAdded.map { "+ queried scheme " + e($0) }
          + change.queriedSchemesRemoved.map { "- queried scheme " + e($0) }
        out += lines.map { "  " + $0 + "\n" }.joined()
      }
      return out
    }.joined(separator: "\n")
  }

  /// A JSON Lines object of `history --host`: one version and the changes that led to it.
  struct VersionLine: Encodable {
    var host: String
    var developerMode: Bool?
    var version: HostHistory.Version
    var changes: [HostHistory.Change]
  }

  /// Columns, escaped, `right` ones aligned right, the `shrinking` ones cut (in that order) when the line is wider
  /// than `width`; trailing spaces trimmed. When even that is wider, each row is a block of its own, a line per
  /// column, heading then value (as `psql`'s expanded display), values wrapped: a terminal of 60 columns
  /// otherwise wraps the table's lines itself, mid-word, and its columns no longer line up.
  static func table(_ headings: [String], _ rows: [[String]], right: Set<Int>, shrinking: [Int], width: Int)
    -> String
  {
    let rows = rows.map { $0.map { TerminalText.escape($0) } }
    var widths = headings.indices.map { i in max(headings[i].count, rows.map { $0[i].count }.max() ?? 0) }
    for column in shrinking {
      let excess = widths.reduce(0, +) + 2 * (widths.count - 1) - width
      if excess > 0 { widths[column] = max(headings[column].count, widths[column] - excess) }
    }
    if widths.reduce(0, +) + 2 * (widths.count - 1) > width {
      let label = (headings.map(\.count).max() ?? 0) + 2
      let indent = String(repeating: " ", count: label)
      return rows.map { row in
        headings.indices.filter { !row[$0].isEmpty }.flatMap { i in
          let first = headings[i] + String(repeating: " ", count: label - headings[i].count)
          return TerminalText.wrap(row[i], width: width, first: first, rest: indent).map { $0 + "\n" }
        }.joined()
      }.joined(separator: "\n")
    }
    func line(_ cells: [String]) -> String {
      let fitted = cells.indices.map { i in
        let cell = cells[i].count > widths[i] ? String(cells[i].prefix(widths[i] - 1)) + "…" : cells[i]
        let pad = String(repeating: " ", count: widths[i] - cell.count)
        return right.contains(i) ? pad + cell : cell + pad
      }
      return String(fitted.joined(separator: "  ").reversed().drop { $0 == " " }.reversed()) + "\n"
    }
    return line(headings) + rows.map(line).joined()
  }

  /// A stored timestamp as `2026-11-26 21:45:07`, as lines say it: to the second, as `--at` reads it back (to the
  /// minute, a version first seen at 09:01:45 read as 09:01, and `--at 09:01:00` showed the version before).
  static func time(_ timestamp: String) -> String {
    String(timestamp.prefix(19)).replacingOccurrences(of: "T", with: " ")
  }

  /// The same to the minute, `2026-11-26 21:45`, as the history tables give it in 80 columns: `--at` reads such a
  /// time to the end of that minute, so one copied from a table shows what was seen in it.
  static func minute(_ timestamp: String) -> String {
    String(timestamp.prefix(16)).replacingOccurrences(of: "T", with: " ")
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
