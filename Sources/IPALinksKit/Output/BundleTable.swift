/// `inspect --format table`: one line per bundle (the app ID, else the bundle ID or path; the name; the version;
/// the associated domains with how many files were read and listed the app, and how many failed; the URL schemes),
/// in columns that fit the width, optionally sorted by one of them.
public struct BundleTable: Sendable {
  /// A column, by the name `--sort` takes.
  public enum Column: String, CaseIterable, Sendable {
    /// The app ID, else the bundle ID, else the bundle's path.
    case app
    /// The display name.
    case name
    /// The marketing version (else the build number).
    case version
    /// How many associated domains.
    case domains
    /// Domains whose file was read and lists the app.
    case ok
    /// Domains whose file failed or does not list the app.
    case failed
    /// The custom URL schemes.
    case schemes

    /// The heading printed over the column.
    var heading: String { rawValue.uppercased() }
    /// Counts sort most first; text sorts in order.
    var isCount: Bool { self == .domains || self == .ok || self == .failed }
  }

  /// One bundle's line, before it is fitted.
  public struct Row: Sendable, Equatable {
    /// The cells, in ``Column`` order.
    public var cells: [String]
    /// The counts, for sorting: domains, ok, failed.
    var counts: [Column: Int]
    /// The input the bundle came from, for the default order.
    var input: String
    /// Whether the input was read only in part: the row is marked (``partialMark``).
    var partial = false
  }

  /// The rows so far, in the order inputs finished.
  public private(set) var rows: [Row] = []

  /// An empty table.
  public init() {}

  /// The table of one input.
  public init(_ report: InspectionReport) { add(report) }

  /// Adds a line per bundle of `report`, or one line for an input nothing could be read from.
  public mutating func add(_ report: InspectionReport) {
    guard !report.bundles.isEmpty else {
      let cells = [report.input, "(\(report.status.rawValue))", "", "", "", "", ""]
      rows.append(Row(cells: cells, counts: [:], input: report.input))
      return
    }
    for bundle in report.bundles {
      let domains = bundle.associatedDomains
      let ok = domains.filter { $0.aasa?.outcome == .listed }.count
      let failed = domains.filter { $0.aasa != nil && $0.aasa?.outcome != .listed }.count
      let version = bundle.version ?? bundle.build ?? ""
      // A partial input's rows may miss what could not be read (a broken signature leaves no domains): marked, and
      // told under the table.
      let mark = report.status == .partial ? Self.partialMark : ""
      let cells = [
        mark + (bundle.appId ?? bundle.bundleId ?? bundle.path), bundle.name ?? "", version, String(domains.count),
        String(ok), String(failed), bundle.urlSchemes.joined(separator: ","),
      ]
      rows.append(
        Row(
          cells: cells, counts: [.domains: domains.count, .ok: ok, .failed: failed], input: report.input,
          partial: !mark.isEmpty))
    }
  }

  /// The table as text, `width` columns wide at most, by input (a batch's inputs finish in any order), or sorted by
  /// `column` (ties keep that order), every cell escaped. A cell too wide for its column ends in `…`, the app's
  /// the last to give way.
  public func text(width: Int, sortedBy column: Column? = nil) -> String {
    var rows = rows.enumerated().sorted { ($0.element.input, $0.offset) < ($1.element.input, $1.offset) }.map {
      Row(
        cells: $0.element.cells.map { TerminalText.escape($0) }, counts: $0.element.counts, input: $0.element.input,
        partial: $0.element.partial)
    }
    if let column {
      let index = Column.allCases.firstIndex(of: column)!
      rows = rows.enumerated().sorted { a, b in
        if column.isCount {
          let (x, y) = (a.element.counts[column] ?? -1, b.element.counts[column] ?? -1)
          return x != y ? x > y : a.offset < b.offset
        }
        let (x, y) = (a.element.cells[index], b.element.cells[index])
        return x != y ? x < y : a.offset < b.offset
      }.map(\.element)
    }
    let headings = Column.allCases.map(\.heading)
    var widths = headings.indices.map { i in max(headings[i].count, rows.map { $0.cells[i].count }.max() ?? 0) }
    // Until the line fits (two spaces between columns), the widest text column gives up a character, down to its
    // heading's width; the app's counts for less, so it keeps the most.
    let gaps = 2 * (widths.count - 1)
    let weights: [Int: Double] = [0: 0.4, 1: 1, 2: 1, 6: 1]
    // An input nothing could be read from says so in the name's column, `(unreadable)`, whole.
    var floors = headings.map { max($0.count, 8) }
    floors[1] = max(floors[1], rows.filter { $0.counts.isEmpty }.map { $0.cells[1].count }.max() ?? 0)
    while widths.reduce(0, +) + gaps > width,
      let widest = weights.keys.filter({ widths[$0] > floors[$0] })
        .max(by: { (Double(widths[$0]) * weights[$0]!, -$0) < (Double(widths[$1]) * weights[$1]!, -$1) })
    {
      widths[widest] -= 1
    }
    func line(_ cells: [String]) -> String {
      var out = ""
      for (i, cell) in cells.enumerated() {
        let fitted = cell.count > widths[i] ? String(cell.prefix(widths[i] - 1)) + "…" : cell
        let numeric = i >= 3 && i <= 5
        let padded =
          numeric
          ? String(repeating: " ", count: widths[i] - fitted.count) + fitted
          : fitted + String(repeating: " ", count: widths[i] - fitted.count)
        out += (i == 0 ? "" : "  ") + padded
      }
      return String(out.reversed().drop { $0 == " " }.reversed())
    }
    let partial = rows.filter(\.partial).count
    var note: [String] = []
    if partial > 0 {
      // Word by word, as wide as the table may be.
      let words =
        "\(Self.partialMark) \(TerminalText.count(partial, "row")) from inputs not read wholly (partial) may miss "
        + "what could not be read; --format json says what"
      for word in words.split(separator: " ") {
        if let last = note.last, last.count + 1 + word.count <= width {
          note[note.count - 1] += " " + word
        } else {
          note.append((note.isEmpty ? "" : "  ") + word)
        }
      }
    }
    return ([line(headings)] + rows.map { line($0.cells) } + note).map { $0 + "\n" }.joined()
  }

  /// What starts the app cell of a row from a partial input.
  static let partialMark = "*"
}
