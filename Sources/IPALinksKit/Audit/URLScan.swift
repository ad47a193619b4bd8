import UniversalLinks

/// Many URLs against many apps at once: for each URL, every app whose rules would open it and every app whose
/// rules exclude it. What `who-claims --urls` answers for a web view that shows thousands of links.
///
/// The apps' rules are compiled once into the runtime's table, which tries a URL only against the apps that claim
/// its host or a parent domain; within an app, rules are tried in order and the first match decides, as on iOS.
public struct URLScan: Sendable {
  /// One app's claim on a URL.
  public struct Claim: Sendable, Equatable, Codable {
    /// The app's `TEAMID.bundle.id`.
    public var appId: String
    /// The JSON pointer of the deciding rule in the domain's AASA file.
    public var pointer: String

    /// Creates a claim.
    public init(appId: String, pointer: String) {
      self.appId = appId
      self.pointer = pointer
    }
  }

  /// The answer for one URL.
  public struct Line: Sendable, Equatable, Codable {
    /// The URL as given.
    public var url: String
    /// The apps whose rules open the URL, in input order.
    public var apps: [Claim]
    /// The apps whose rules exclude it.
    public var excludedBy: [Claim]
    /// The app IDs whose AASA file for the URL's host is unknown (a timeout, an unreadable file, not fetched), so
    /// whether they open it is unknown; nil when there are none.
    public var unknown: [String]?

    /// Creates an answer.
    public init(url: String, apps: [Claim], excludedBy: [Claim], unknown: [String]? = nil) {
      self.url = url
      self.apps = apps
      self.excludedBy = excludedBy
      self.unknown = unknown
    }

    /// The line as one JSON Lines record, the same text `JSONReporter.render(line, pretty: false)` writes, built
    /// without an encoder: at tens of thousands of URLs a second, encoding is what would cost most.
    public var jsonLine: String {
      // Appended to one string: joining the pieces made a string for each.
      var out = ""
      out.reserveCapacity(url.utf8.count + 40 + 80 * (apps.count + excludedBy.count))
      func append(_ claims: [Claim]) {
        out += "["
        for (k, claim) in claims.enumerated() {
          out += k == 0 ? #"{"appId":"# : #",{"appId":"#
          JSONReporter.quote(claim.appId, into: &out)
          out += #","pointer":"#
          JSONReporter.quote(claim.pointer, into: &out)
          out += "}"
        }
        out += "]"
      }
      out += #"{"apps":"#
      append(apps)
      out += #","excludedBy":"#
      append(excludedBy)
      if let unknown {
        out += #","unknown":["#
        for (k, appID) in unknown.enumerated() {
          if k > 0 { out += "," }
          JSONReporter.quote(appID, into: &out)
        }
        out += "]"
      }
      out += #","url":"#
      JSONReporter.quote(url, into: &out)
      out += "}"
      return out
    }
  }

  /// A line that is not a URL universal links can apply to.
  public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
    /// The 1-based line number.
    public var line: Int
    /// What is wrong.
    public var message: String

    /// Creates a problem.
    public init(line: Int, message: String) {
      self.line = line
      self.message = message
    }

    /// `line 3: "ftp://x" is not an http(s) URL`.
    public var description: String { "line \(line): \(message)" }
  }

  private let table: LinkRuntime.Table

  /// Decides URLs with the claims model's runtime table. A domain whose AASA file is unknown makes the apps that
  /// claim it ``Line/unknown`` for its URLs, where their file decides (see ``ClaimsIndex/linkingApps(uncovered:)``).
  public init(claims: ClaimsIndex) {
    table = claims.table(uncovered: .block)
  }

  /// The same from inspections.
  public init(reports: [InspectionReport]) {
    self.init(claims: ClaimsIndex(reports: reports))
  }

  /// Decides one line of input (surrounding white space ignored); `number` names it in a problem.
  public func decide(_ text: some StringProtocol, line number: Int) -> Result<Line, Problem> {
    decide(trimmed: String(text).trimmingWhitespace(), line: number)
  }

  private func decide(trimmed: String, line number: Int) -> Result<Line, Problem> {
    var scratch = LinkRuntime.Table.Scratch()
    return decide(trimmed: trimmed, line: number, &scratch)
  }

  private func decide(
    trimmed: String, line number: Int, _ scratch: inout LinkRuntime.Table.Scratch
  ) -> Result<Line, Problem> {
    // The test `match` and `who-claims URL` make (a plain URL passes it in one pass over its bytes).
    if let why = URLList.problem(trimmed) { return .failure(Problem(line: number, message: why)) }
    guard let decisions = table.decisions(trimmed, reusing: &scratch) else {
      let message =
        UniversalLinkURL(string: trimmed) == nil ? "is not an absolute URL with a host" : "is not an http(s) URL"
      return .failure(Problem(line: number, message: "\(Self.quoted(trimmed)) \(message)"))
    }
    var line = Line(url: trimmed, apps: [], excludedBy: [])
    for decision in decisions {
      let claim = Claim(appId: decision.appID ?? "", pointer: decision.pointer ?? "")
      // The rule that stands for an unknown file (`AppLinkRules.everyURL`) has no pointer: no AASA file holds it.
      if decision.verdict == .match && claim.pointer.isEmpty {
        line.unknown = (line.unknown ?? []) + [claim.appId]
      } else if decision.verdict == .match {
        line.apps.append(claim)
      } else {
        line.excludedBy.append(claim)
      }
    }
    return .success(line)
  }

  /// Decides every line of `reader`, as `who-claims --urls` does. Blank lines and `#` comments are skipped, and a
  /// line over ``LineReader/maximumLineBytes`` is a problem. The others are decided in batches on up to `workers`
  /// threads: a batch ends after 2,048 URLs, or where the input has nothing more ready, so a slow pipe's lines are
  /// answered as they come. `body` gets each batch's results in the file's order, each with what `render` made
  /// of it on the thread that decided it.
  ///
  /// Not generic in what `render` makes: called from another module, a generic method runs unspecialized, and
  /// making a tuple of a generic type looked up its metadata for every line.
  public func decide(
    _ reader: LineReader, workers: Int, _ render: @Sendable (Result<Line, Problem>) -> String?,
    _ body: ([(result: Result<Line, Problem>, rendered: String?)]) -> Void
  ) {
    // A nil text stands for a line that was cut.
    var batch: [(line: Int, text: String?)] = []
    func flush() {
      let lines = batch
      body(
        // Each thread prepares its URLs in one scratch's memory.
        parallelMap(lines.count, workers: workers, state: LinkRuntime.Table.Scratch.init) { scratch, k in
          let (number, text) = lines[k]
          let result =
            text.map { decide(trimmed: $0, line: number, &scratch) }
            ?? .failure(
              Problem(line: number, message: "longer than \(LineReader.maximumLineBytes >> 20) MiB; not a URL"))
          return (result, render(result))
        })
      batch.removeAll(keepingCapacity: true)
    }
    var number = 0
    while let text = reader.next() {
      number += 1
      var trimmed = text.trimmingWhitespace()
      // A byte-order mark, as editors on Windows write one, is not part of the first URL (as in a hosts list).
      if number == 1, trimmed.hasPrefix("\u{FEFF}") { trimmed = String(trimmed.dropFirst()).trimmingWhitespace() }
      if !trimmed.isEmpty && !trimmed.hasPrefix("#") { batch.append((number, reader.cut ? nil : trimmed)) }
      if batch.count == 2_048 || (!batch.isEmpty && reader.mayWait) { flush() }
    }
    if !batch.isEmpty { flush() }
  }

  /// Why `text` is no URL when it holds a control character (a NUL, a CR of a list whose lines end in CR alone, a
  /// tab inside it), which a URL never does: the parsers would percent-encode it and decide what is left. Nil when
  /// it holds none.
  static func controlProblem(_ text: String) -> String? {
    guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return nil }
    return "\(quoted(text)) holds a control character, which no URL does"
      + (text.utf8.contains(0x0D) ? " (a list whose lines end in CR alone needs LF or CR LF)" : "")
  }

  /// A line as problems quote it: at most 200 characters of it, in quotes.
  static func quoted(_ text: String) -> String {
    "\"" + (text.count > 200 ? String(text.prefix(200)) + "…" : text) + "\""
  }
}

extension String {
  /// The line without the white space around it, as every URL list reads a line (`who-claims --urls`, `match
  /// --urls`).
  func trimmingWhitespace() -> String {
    // A line that starts and ends with a printable ASCII character has nothing to trim: the Unicode properties of
    // its ends were a twelfth of `who-claims --urls`'s time.
    if let first = utf8.first, let last = utf8.last, (0x21...0x7E).contains(first), (0x21...0x7E).contains(last) {
      return self
    }
    var scalars = Substring(self).unicodeScalars
    while let first = scalars.first, first.properties.isWhitespace { scalars.removeFirst() }
    while let last = scalars.last, last.properties.isWhitespace { scalars.removeLast() }
    return String(scalars)
  }
}

/// The counts of a `who-claims --urls` run, and its text and JSON forms.
public struct URLScanSummary: Sendable {
  /// URLs decided.
  public var decided = 0
  /// URLs that open at least one app.
  public var opening = 0
  /// URLs that open no app but that some app's rules exclude.
  public var excluded = 0
  /// URLs that open no app known to, but that an app whose AASA file is unknown claims.
  public var unknown = 0
  /// Lines skipped because they are not http(s) URLs.
  public var skipped = 0

  /// Empty counts.
  public init() {}

  /// Counts one decided URL.
  public mutating func add(_ line: URLScan.Line) {
    decided += 1
    if !line.apps.isEmpty {
      opening += 1
    } else if line.unknown != nil {
      unknown += 1
    } else if !line.excludedBy.isEmpty {
      excluded += 1
    }
  }

  /// `5 URLs: 3 open an app, 1 excluded, 1 open none; 1 line skipped`, with `, 1 unknown` before `open none` when
  /// some are.
  public var line: String {
    var out = TerminalText.count(decided, "URL") + ": \(opening) open an app, \(excluded) excluded, "
    if unknown > 0 { out += "\(unknown) unknown, " }
    out += "\(decided - opening - excluded - unknown) open none"
    if skipped > 0 { out += "; " + TerminalText.count(skipped, "line") + " skipped" }
    return out
  }

  /// The `--format json` document: every URL's line.
  public struct Document: Encodable, Sendable {
    /// One record per URL, in the file's order.
    public var urls: [URLScan.Line]

    /// The document for `urls`.
    public init(urls: [URLScan.Line]) { self.urls = urls }
  }

  /// The text a line at a time: the URLs that open an app, grouped by app in the order apps first appear, each with
  /// the deciding rule, held in bounded memory (``GroupedText``) until ``write(_:)``.
  public final class Text: Sendable {
    private let grouped = GroupedText()
    private let style: TextStyle

    /// An empty text for `style`.
    public init(style: TextStyle) { self.style = style }

    /// Files the URL of `line` under each app it opens.
    public func add(_ line: URLScan.Line) {
      for app in line.apps { grouped.append(Self.hit(line.url, app.pointer, style: style), to: app.appId) }
      for app in line.unknown ?? [] {
        grouped.append(Self.hit(line.url, "AASA file unknown", style: style), to: app)
      }
    }

    /// Writes the text through `write`, app after app, then lets go of its temporary files.
    public func write(_ write: (String) -> Void) {
      grouped.write(write, header: { Self.header($0, count: $1, style: self.style) }, separator: "\n")
    }

    /// What went wrong with the temporary files, if anything (see ``GroupedText/problem``).
    public var problem: String? { grouped.problem }

    /// Removes the temporary files, from any thread: what Ctrl-C does before exiting.
    public func discard() { grouped.discard() }

    /// The line that heads an app's URLs: `ST0REAPP42.com.example.store  (2 URLs)`.
    static func header(_ appID: String, count: Int, style: TextStyle) -> String {
      style.bold(TerminalText.escape(appID)) + "  (" + TerminalText.count(count, "URL") + ")\n"
    }

    /// One URL under its app's header, with the rule that opens it, fitted to the width.
    static func hit(_ url: String, _ pointer: String, style: TextStyle) -> String {
      TerminalText.pack(
        [TerminalText.escape(url), TerminalText.escape(pointer)], width: style.width, first: "  ", rest: "      "
      ).map { $0 + "\n" }.joined()
    }
  }

  /// The `--format json` document a batch of records at a time, so that a long list is never held whole: ``head``,
  /// each batch's ``records(_:)`` (the first bare, the others after `,\n`), then ``tail`` make the same text as
  /// `JSONReporter.document(Document(urls:))`, since each batch is cut from such a document.
  public enum JSONStream {
    /// The document up to its `urls` array's first record.
    public static let head = String(empty[...open]) + "\n"
    /// The document after its `urls` array's last record.
    public static let tail = "\n" + empty[empty.index(after: open)...].drop { $0 == "\n" }

    /// The document of no URL: the `urls` array is its last `[`, then an empty line and the array's closing line.
    private static let empty = JSONReporter.document(Document(urls: []))
    private static let open = empty.lastIndex(of: "[")!

    /// `lines` as the document writes them, indented as its array nests them and separated by `,\n`; one
    /// encoding for the batch, as one per record took twice as long.
    public static func records(_ lines: [URLScan.Line]) -> String {
      guard !lines.isEmpty else { return "" }
      let document = JSONReporter.document(Document(urls: lines))
      return String(document.utf8.dropFirst(head.utf8.count).dropLast(tail.utf8.count))!
    }
  }
}

/// The output of `who-claims --urls` in one format, made batch by batch as ``URLScan/decide(_:workers:_:_:)`` hands
/// the results over: JSON Lines and the JSON document stream out, and the text, grouped by app, waits in bounded
/// memory (``URLScanSummary/Text``) until ``finish(_:)``. The caller only writes the pieces.
public struct URLScanWriter: Sendable {
  /// What to write next, in order: output, or a line that is not a URL, told on stderr beside the URLs around it.
  public enum Piece: Sendable, Equatable {
    /// Text for standard output.
    case output(String)
    /// A line that could not be decided.
    case problem(URLScan.Problem)
  }

  /// The format written.
  public let format: OutputFormat
  /// The counts so far.
  public private(set) var summary = URLScanSummary()
  /// The text's URLs, grouped by app; shared with an interrupt handler, which discards them.
  public let text: URLScanSummary.Text
  private var records = 0

  /// A writer of `format`; the text fits `style`.
  public init(format: OutputFormat, style: TextStyle) {
    self.format = format
    text = URLScanSummary.Text(style: style)
  }

  /// What goes first: the JSON document's head.
  public var head: String { format == .json ? URLScanSummary.JSONStream.head : "" }

  /// What each decided line is rendered as on the thread that decided it: its JSON Lines record.
  public var render: @Sendable (Result<URLScan.Line, URLScan.Problem>) -> String? {
    let format = format
    return { result in format == .jsonl ? (try? result.get()).map { $0.jsonLine + "\n" } : nil }
  }

  /// The pieces of one batch, counting its URLs.
  public mutating func add(_ batch: [(result: Result<URLScan.Line, URLScan.Problem>, rendered: String?)]) -> [Piece] {
    var pieces: [Piece] = []
    var out = ""
    // The JSON records since the last problem, written as one piece of the document.
    var json: [URLScan.Line] = []
    func flush() {
      if !json.isEmpty {
        out += (records == 0 ? "" : ",\n") + URLScanSummary.JSONStream.records(json)
        records += json.count
        json.removeAll()
      }
      if !out.isEmpty { pieces.append(.output(out)) }
      out = ""
    }
    for (result, rendered) in batch {
      switch result {
      case .failure(let problem):
        summary.skipped += 1
        // Standard output so far first, so a problem shows beside the URLs around it.
        flush()
        pieces.append(.problem(problem))
      case .success(let line):
        summary.add(line)
        switch format {
        case .jsonl: out += rendered ?? ""
        case .json: json.append(line)
        case .text: text.add(line)
        }
      }
    }
    flush()
    return pieces
  }

  /// Counts one batch and writes its pieces: output through `output`, each line that is not a URL through
  /// `problem`, in order.
  public mutating func write(
    _ batch: [(result: Result<URLScan.Line, URLScan.Problem>, rendered: String?)], output: (String) -> Void,
    problem: (URLScan.Problem) -> Void
  ) {
    for piece in add(batch) {
      switch piece {
      case .output(let text): output(text)
      case .problem(let line): problem(line)
      }
    }
  }

  /// Writes what goes last: the text grouped by app, or the JSON document's tail.
  public func finish(_ write: (String) -> Void) {
    switch format {
    case .jsonl: break
    case .json: write(URLScanSummary.JSONStream.tail + "\n")
    case .text: text.write(write)
    }
  }

  /// What an interrupted run has written, for the line Ctrl-C leaves on stderr.
  public var interrupted: String {
    switch format {
    case .text: "interrupted: nothing listed, as the URLs are listed by app once the list ends"
    case .json: "interrupted: the JSON document is cut short"
    case .jsonl: "interrupted: every URL decided so far is written"
    }
  }
}

extension URLScan {
  /// The URL list at `path` (`-`: standard input), opened before any input is read, so that one that cannot be read
  /// is said at once rather than after a batch's inspection; nil when it cannot, said on stderr.
  public static func open(_ path: String) -> LineReader? {
    guard let lines = LineReader(path: path) else {
      Terminal.warn(LineReader.cannotRead(path, "URL list"))
      return nil
    }
    return lines
  }

  /// `who-claims --urls`: the lines of the list at `path`, read from `lines` (``open(_:)``), decided in batches as
  /// they are read (``decide(_:workers:_:_:)``), so the file is never held whole, and written on the terminal as
  /// ``URLScanWriter`` makes them in `format`; Ctrl-C removes what the text kept on disk. Returns the exit code: 2
  /// for `trouble`, else 0 when some URL opens an app, 2 when none is known to but some app's answer is unknown,
  /// and 1 when none does.
  public static func scan(
    _ lines: LineReader, from path: String, claims: ClaimsIndex, format: OutputFormat, workers: Int, quiet: Bool,
    trouble: Bool
  ) -> Int32 {
    var writer = URLScanWriter(format: format, style: Terminal.style)
    let (text, interrupted) = (writer.text, writer.interrupted)
    let interrupt = InterruptWatch {
      text.discard()
      Terminal.warn(interrupted)
    }
    Terminal.write(writer.head)
    URLScan(claims: claims).decide(lines, workers: workers, writer.render) { batch in
      writer.write(batch, output: Terminal.write) {
        Terminal.warn("\(TerminalText.escape(path)): \(TerminalText.escape($0.description))")
      }
    }
    writer.finish(Terminal.write)
    if let problem = writer.text.problem { Terminal.warn(problem) }
    interrupt.stop()
    if !quiet { Terminal.warn(writer.summary.line) }
    // No URL opens an app, but some may: "none" is not the answer either.
    return trouble ? 2 : writer.summary.opening > 0 ? 0 : writer.summary.unknown > 0 ? 2 : 1
  }
}
