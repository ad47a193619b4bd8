import Foundation
import UniversalLinks

// What each command does once its arguments are parsed: the work, what it writes on stdout and stderr, and the exit
// code, so that the executable only parses arguments, picks these and exits with what they return.

extension InventoryDiff {
  /// `diff --url/--urls`: the URLs given one by one, then those of the list `file`, read as `match --urls` reads
  /// its own (``URLList``): what is not a URL is named on stderr and left out, and a list of no URL is said (the
  /// comparison then has no URL section, which would read as "no verdict changed"). Nil, said on stderr, when the
  /// file cannot be read.
  public static func sampleURLs(_ given: [String], listedIn file: String?) -> [String]? {
    var urls: [String] = []
    for url in given {
      if let problem = URLList.problem(url) { Terminal.warn("--url \(problem)") } else { urls.append(url) }
    }
    guard let file else { return urls }
    let before = urls.count
    guard URLList.read(file, warn: Terminal.warn, { urls.append($0) }) != nil else { return nil }
    if urls.count == before {
      Terminal.warn(
        "warning: \(file == "-" ? "standard input" : file): no URL in the list, so no verdict is compared")
    }
    return urls
  }

  /// `diff`: compares the two sides, writes the difference in `format`, and warns when a side is partial. Returns
  /// diff(1)'s exit code: 0 no differences; 1 differences; 2 trouble, whatever the differences: a side has no
  /// readable bundle, which would make everything look added or removed, or an input (or an inventory's line) of a
  /// side gave nothing, so that an app it held would look removed or added.
  public static func compare(
    _ old: LoadedInventory, _ new: LoadedInventory, urls: [String], format: DocumentFormat
  ) -> Int32 {
    if old.reports.allSatisfy({ $0.bundles.isEmpty }) || new.reports.allSatisfy({ $0.bundles.isEmpty }) {
      Terminal.warn("nothing to compare: a side has no readable bundle")
      return 2
    }
    var diff = InventoryDiff(
      old: ClaimsIndex(reports: old.reports), new: ClaimsIndex(reports: new.reports), urls: urls)
    (diff.oldPartial, diff.newPartial) = (old.partial, new.partial)
    Terminal.write(diff.rendered(format, style: Terminal.style))
    if old.partial || new.partial {
      let sides = old.partial && new.partial ? "both sides are" : old.partial ? "the old side is" : "the new side is"
      Terminal.warn("warning: \(sides) partial; differences may come from what could not be read")
    }
    if old.unreadable > 0 || new.unreadable > 0 { return 2 }
    return diff.hasDifferences ? 1 : 0
  }
}

extension HostClaims {
  /// Why `who-claims` cannot ask about `query`, or nil when it can: none is given, it names a file (the arguments
  /// in the wrong order), or it is no host, wildcard entry or URL with a valid host.
  public static func problem(query: String?) -> String? {
    guard let query else { return "Give a HOST (or a URL), or --urls FILE." }
    if FileManager.default.fileExists(atPath: query) {
      return "'\(TerminalText.escape(query))' is a file, not a host: the host comes first "
        + "(ipalinks who-claims HOST INPUT…)"
    }
    return HostArgument.problem(query, allowURL: true, allowWildcard: true)
  }

  /// Why `who-claims --urls` cannot take its first argument, `first`, as an input: it names no file but is a host,
  /// the HOST of `who-claims` without `--urls`, which `--host` gives here. Nil when it can (or is not given).
  public static func problem(firstInput first: String?) -> String? {
    guard let first, !FileManager.default.fileExists(atPath: first), HostArgument.problem(first) == nil else {
      return nil
    }
    let shown = TerminalText.escape(first)
    return "with --urls there is no HOST, and no file is named \(shown): for the apps its AASA file lists, give "
      + "--host \(shown)"
  }

  /// `who-claims HOST`: the claims on `query` written in `format` (`brief`: `-q`). Returns the exit code, like
  /// grep's: 2 for `trouble` (an input that could not be read), whatever the others said; else 0 when the answer is
  /// yes (``answersYes``), 2 when it is unknown (``answerUnknown``) and 1 when not; 64 when `query` is neither a host
  /// nor a URL.
  ///
  /// `unread` are the bundles whose entitlements could not be read (``unreadEntitlements(_:)``): what they claim is
  /// unknown, so an answer of no app is said to be unknown, exit 2.
  public static func answer(
    _ query: String, claims: ClaimsIndex, format: OutputFormat, brief: Bool, trouble: Bool,
    unread: [String] = []
  ) -> Int32 {
    guard let answer = HostClaims(query: query, claims: claims) else {
      Terminal.warn("\"\(query)\" is neither a host nor a URL")
      return 64
    }
    Terminal.write(answer.rendered(format, style: Terminal.style, brief: brief))
    if !answer.answersYes && !unread.isEmpty {
      let shown = unread.prefix(3).joined(separator: ", ") + (unread.count > 3 ? " and \(unread.count - 3) more" : "")
      Terminal.warn(
        "\(TerminalText.count(unread.count, "bundle")) whose entitlements could not be read may claim it too: "
          + shown)
      return 2
    }
    if trouble || answer.answerUnknown { return 2 }
    return answer.answersYes ? 0 : 1
  }

  /// The bundles of `reports` whose entitlements could not be read (``BundleReport/entitlementsUnread``), as
  /// `INPUT PATH`: what they claim is unknown.
  public static func unreadEntitlements(_ reports: [InspectionReport]) -> [String] {
    reports.flatMap { report in
      report.bundles.filter(\.entitlementsUnread).map { "\(report.input) \($0.path)" }
    }
  }
}

extension HTMLReporter {
  /// `report`: the page of `loaded`, with the store's changes it holds, written to the file `output`, else to
  /// standard output; a file written is said on stderr unless `quiet`. Returns the exit code: 0 done; 1 `loaded` is
  /// partial; 2 the file cannot be written.
  public static func deliver(_ loaded: LoadedInventory, title: String, to output: String?, quiet: Bool) -> Int32 {
    // Inputs that could not be read at all (a missing path, a file that is no app) are named in "Not read" as well
    // as lines of inventories: they were named only among the apps, below every table.
    let unread = loaded.reports.filter { $0.status == .unreadable }.map { report in
      let message = report.diagnostics.first { $0.severity == .error }?.message ?? "not read"
      return message.hasPrefix(report.input) ? message : "\(report.input): \(message)"
    }
    let html = render(
      ClaimsIndex(reports: loaded.reports), title: title, changes: loaded.changes, notRead: loaded.notRead + unread,
      lost: loaded.lost)
    if let output {
      do throws(OutputFile.Failure) { try OutputFile.write(html, to: output) } catch {
        Terminal.warn(error.description)
        return 2
      }
      // The inputs the page counts: those lost (a saved inventory that could not be read) among them; and, as the
      // page's header does, how many were not read wholly: the line read "wrote" alone, exit 1.
      if !quiet {
        let total = loaded.reports.count + loaded.lost
        let partial = loaded.reports.filter { $0.status == .partial }.count
        let unreadable = loaded.reports.filter { $0.status == .unreadable }.count + loaded.lost
        var statuses =
          partial + unreadable == 0
          ? "" : ": \(total - partial - unreadable) complete, \(partial) partial, \(unreadable) unreadable"
        // Partial for what no input counts (the store's changes not read): the page's first section says what.
        if loaded.partial && partial + unreadable == 0 {
          statuses = "; partial: its \"Not read\" section says what it lacks"
        }
        Terminal.warn("wrote \(output) (\(TerminalText.count(total, "input"))\(statuses))")
      }
    } else {
      Terminal.write(html)
    }
    return loaded.partial ? 1 : 0
  }
}

extension MatchReporter {
  /// `match`: what is odd about `file` (named `name`) and about URLs of several hosts, on stderr; then each URL
  /// decided for ``appID`` (with `explain`, every rule tried) and written in `format` as it is decided, or for json
  /// as one document at the end. Returns whether every URL opens the app.
  public func decide(_ urls: [String], in file: AASAFile, name: String, explain: Bool, format: OutputFormat) -> Bool {
    if let warning = warning(file, name: name) { Terminal.warn(warning) }
    if let warning = severalHosts(urls, name: name) { Terminal.warn(warning) }
    return decide(in: file, explain: explain, format: format) { each, _ in urls.forEach(each) }.allMatch
  }

  /// `match --urls LIST`: as ``decide(_:in:name:explain:format:)`` for `given`, then for each URL of the list at
  /// `list` (`-`: standard input) as it is read (``URLList``), in bounded memory but for json. A line that is not a
  /// URL is named on stderr and skipped; URLs of several hosts are said once all are decided. Returns whether every
  /// URL opens the app (false when a line was skipped, or the list held none), or nil when the list cannot be read.
  public func decide(
    _ given: [String], listedIn list: String, in file: AASAFile, name: String, explain: Bool, format: OutputFormat
  ) -> Bool? {
    if let warning = warning(file, name: name) { Terminal.warn(warning) }
    var skipped: Int?
    let (allMatch, hosts, count) = decide(in: file, explain: explain, format: format) { each, flush in
      given.forEach(each)
      skipped = URLList.read(list, warn: { flush($0) }, waiting: { flush(nil) }, each)
    }
    guard let skipped else { return nil }
    if count == 0 { Terminal.warn("\(list == "-" ? "standard input" : list): no URL to decide") }
    if let warning = severalHosts(hosts, name: name) { Terminal.warn(warning) }
    return allMatch && skipped == 0 && count > 0
  }

  /// Decides each URL `urls` gives, writing it in `format` as it is decided (json: one document at the end); says
  /// whether all opened the app, the hosts they named, and how many there were. Lines are written 64 KiB at a time
  /// (a `write` per URL was a tenth of the time), and whenever `urls` calls its second argument: with a warning to
  /// write after them (so `2>&1` keeps their order), or nil before it waits for more.
  private func decide(
    in file: AASAFile, explain: Bool, format: OutputFormat,
    _ urls: ((String) -> Void, (String?) -> Void) -> Void
  ) -> (allMatch: Bool, hosts: Set<String>, count: Int) {
    let matcher = file.matcher(appID: appID)
    var (allMatch, hosts, count) = (true, Set<String>(), 0)
    var results: [Line] = []
    var lines = JSONLines()
    var textLines = TextLines()
    let style = Terminal.style
    var out = ""
    out.reserveCapacity(1 << 16)
    func flush(_ warning: String?) {
      Terminal.write(out)
      out.removeAll(keepingCapacity: true)
      if let warning { Terminal.warn(warning) }
    }
    urls(
      { url in
        count += 1
        let host = domain == nil ? UniversalLinkURL(string: url)?.host : nil
        if let host { hosts.insert(host) }
        let explanation = explain ? matcher.explain(url, domain: domain) : nil
        let result = explanation?.result ?? matcher.verdict(for: url, domain: domain)
        if result.verdict != .match { allMatch = false }
        switch format {
        case .text:
          if explanation == nil {
            textLines.append(url, result, style: style, reporter: self, to: &out)
          } else {
            out += text(url, result, explanation: explanation, style: style)
          }
        case .jsonl:
          if explanation == nil {
            lines.append(url, result, domain: domain ?? host ?? "", reporter: self, to: &out)
          } else {
            out += json(url, result, explanation: explanation)
          }
        case .json: results.append(line(url, result, explanation: explanation))
        }
        if out.utf8.count >= 1 << 16 { flush(nil) }
      }, flush)
    flush(nil)
    if format == .json { Terminal.write(document(results)) }
    return (allMatch, hosts, count)
  }
}

extension MatchReporter {
  /// `match --format jsonl` lines without an explanation, many at a time. Lines that share a verdict, a domain and a
  /// rule differ only in their URL, so each such line is encoded once, as ``json(_:_:explanation:)`` writes it, and
  /// the next URLs are quoted into it: encoding each line was a third of the time of a list of URLs.
  struct JSONLines {
    private struct Key: Hashable {
      var domain: String
      var verdict: String
      var reason: String?
      var pointer: String?
    }
    /// The line before its URL and after it, by what the line says.
    private var templates: [Key: (head: String, tail: String)] = [:]

    /// Appends `url`'s line (``MatchReporter/json(_:_:explanation:)``, `domain` the host it names) to `out`.
    mutating func append(
      _ url: String, _ result: MatchResult, domain: String, reporter: MatchReporter, to out: inout String
    ) {
      let key = Key(
        domain: domain, verdict: result.verdict.rawValue, reason: result.reason?.rawValue, pointer: result.rule?.pointer
      )
      let template: (head: String, tail: String)
      if let known = templates[key] {
        template = known
      } else {
        // The line with its URL empty: that field appears once, as every other string in it is quoted, its quotes
        // escaped.
        var empty = reporter.line(url, result)
        empty.url = ""
        let model = JSONReporter.render(empty, pretty: false) + "\n"
        guard let field = model.range(of: #""url":"""#) else {
          out += reporter.json(url, result)
          return
        }
        // A list of a million hosts must not keep a template for each.
        if templates.count >= 4096 { templates.removeAll() }
        template = (String(model[..<field.upperBound].dropLast(2)), String(model[field.upperBound...]))
        templates[key] = template
      }
      out += template.head
      JSONReporter.quote(url, into: &out)
      out += template.tail
    }
  }
}

extension MatchReporter {
  /// `match --format text` lines without an explanation, many at a time. A verdict is its label, the URL, and the
  /// rule's fields (or why none decided), each on the line if it fits, else on one of its own: the label and fields
  /// are the same for every URL a rule decides, so they are escaped and measured once, and for a URL of printable
  /// ASCII that fits beside the label, as most do, only where the fields go is worked out. Any other line (a URL or
  /// rule that is not printable ASCII, or too long for a line) is laid out by ``verdictLines(_:_:style:)``: laying
  /// out each line was most of the time of a list of URLs.
  struct TextLines {
    private struct Key: Hashable {
      var verdict: String
      var reason: String?
      var pointer: String?
    }
    /// What a verdict's lines hold besides the URL: the label (coloured), its length, and the fields after the URL;
    /// nil when they are not printable ASCII, or a field would not fit on a line of its own.
    private struct Template {
      var head: String
      var length: Int
      var fields: [String]
    }
    private var templates: [Key: Template?] = [:]
    private static let indent = MatchReporter.indent

    /// Appends `url`'s lines (``MatchReporter/text(_:_:explanation:style:)``, without an explanation) to `out`.
    mutating func append(
      _ url: String, _ result: MatchResult, style: TextStyle, reporter: MatchReporter, to out: inout String
    ) {
      let key = Key(verdict: result.verdict.rawValue, reason: result.reason?.rawValue, pointer: result.rule?.pointer)
      let template: Template?
      if let known = templates[key] {
        template = known
      } else {
        let (label, all) = MatchReporter.parts(result)
        let fields = all.filter { !$0.isEmpty }
        template =
          fields.allSatisfy({
            TerminalText.isPrintableASCII($0) && Self.indent.utf8.count + $0.utf8.count <= style.width
          })
          ? Template(
            head: style.verdict(result.verdict) + label.dropFirst(result.verdict.rawValue.count),
            length: label.utf8.count, fields: fields) : nil
        // A list of a million URLs must not keep a template for each kind of line it could make.
        if templates.count >= 4096 { templates.removeAll() }
        templates[key] = template
      }
      guard let template, !url.isEmpty, template.length + url.utf8.count <= style.width,
        TerminalText.isPrintableASCII(url)
      else {
        out += reporter.text(url, result, style: style)
        return
      }
      out += template.head
      out += url
      var column = template.length + url.utf8.count
      for field in template.fields {
        if column + 2 + field.utf8.count <= style.width {
          out += "  "
          column += 2 + field.utf8.count
        } else {
          out += "\n" + Self.indent
          column = Self.indent.utf8.count + field.utf8.count
        }
        out += field
      }
      out += "\n"
    }

  }
}

extension FetchReporter {
  /// `fetch`: each of `hosts` fetched with `fetcher` as iOS does, validated (listing `appID` too, when given) and
  /// written in `format`, with each file's body when `bodies`. Returns the exit code: 0 every file was fetched and
  /// has no validation error; 1 a fetch failed or a file has errors.
  public static func fetch(
    _ hosts: [String], with fetcher: AASAFetcher, appID: String?, format: OutputFormat, bodies: Bool
  ) async -> Int32 {
    let requests = hosts.map { AASARequest(host: $0.lowercased(), developerMode: false) }
    let results = await fetcher.fetch(requests)
    let outcomes = requests.compactMap { request in
      results[request].map { result in
        var outcome = DomainAASA.evaluate(result, appID: appID)
        outcome.forApp = appID != nil
        return outcome
      }
    }
    let shown: [String: [UInt8]] = bodies ? results.reduce(into: [:]) { $0[$1.key.host] = $1.value.body } : [:]
    Terminal.write(rendered(outcomes, format: format, bodies: shown, style: Terminal.style))
    let failed = outcomes.contains { $0.status != .ok || $0.diagnostics.contains { $0.severity == .error } }
    // The text already tells a failure; stderr repeats it only when stdout is not where people read.
    if format != .text || !Terminal.stdoutIsTerminal {
      for o in outcomes where o.status != .ok { Terminal.warn(o.fetch.message) }
    }
    return failed ? 1 : 0
  }
}

extension AASADiffReporter {
  /// `aasa diff`: compares `old` with `new` (each a file and the name it was given) for `appIDs` (empty: every app)
  /// and writes the comparison in `format`. Example URLs are on `domain`, else on the host a file is named after
  /// (as `--aasa-dir` names them), else on example.com. Returns diff(1)'s exit code: 0 the files behave the same;
  /// 1 they differ; 64 an app of `appIDs` is listed in neither file, which would compare nothing and say "the same".
  public static func compare(
    old: (name: String, file: AASAFile), new: (name: String, file: AASAFile), appIDs: [String], domain: String?,
    format: DocumentFormat
  ) -> Int32 {
    let listed = Set(old.file.appLinksAppIDs + new.file.appLinksAppIDs)
    let unlisted = appIDs.filter { !listed.contains($0) }
    if !unlisted.isEmpty {
      for appID in unlisted {
        let guess =
          MatchReporter.likelyMeant(appID, among: Array(listed).sorted()).map { "; did you mean \($0)?" } ?? ""
        Terminal.warn(
          "--app-id \(TerminalText.escape(appID)) is listed in the applinks of neither \(TerminalText.escape(old.name))"
            + " nor \(TerminalText.escape(new.name)), so nothing of it can be compared\(guess)")
      }
      return 64
    }
    let host =
      domain?.lowercased() ?? AASAInput.host(namedBy: new.name) ?? AASAInput.host(namedBy: old.name) ?? "example.com"
    let comparison = AASAComparison(
      old: old.file, new: new.file, appIDs: appIDs.isEmpty ? nil : appIDs, host: host)
    Terminal.write(
      rendered(
        comparison, old: old.name, new: new.name, files: (old.file, new.file), appIDs: appIDs, format: format,
        style: Terminal.style))
    return comparison.equivalent ? 0 : 1
  }
}

extension InspectReporter {
  /// A reporter whose text fits `style` (colour and width).
  public init(format: InspectFormat, style: TextStyle) {
    // A table in a file or a pipe keeps its cells whole, as `store runs` does: a cut app ID cannot be read back.
    self.init(format: format, useColor: style.useColor, width: format == .table ? Terminal.tableWidth : style.width)
  }

  /// `inspect INPUT`: one input (`-`: an IPA on standard input) inspected, handed to `record` (the audit store's
  /// run), and written in this reporter's format. Its errors go to stderr too, unless the text on a terminal lists
  /// them already: one failure is told once. Returns the exit code of the report's status.
  public func inspect(
    _ input: String, fetches: SharedAASAFetches?, record: (InspectionReport) async -> Void
  ) async -> Int32 {
    let report =
      input == "-"
      ? await BatchInspector.inspectStandardInput(fetches: fetches)
      : await BatchInspector.inspect(input, fetches: fetches)
    await record(report)
    Terminal.write(single(report))
    if format != .text || !Terminal.stdoutIsTerminal { Self.errorLines(report).forEach(Terminal.warn) }
    return report.status.exitCode
  }

  /// `inspect` of a batch: the `shard` of what `arguments` name inspected `jobs` at a time under `console`, each
  /// report handed to `record` and written as soon as it is done, `expect` having heard the inputs first (the store
  /// looks up what it knows of them); then `settle` (the store writing what it still holds queued), and the summary
  /// line, whose time includes it, unless the console is quiet. Returns the exit code: 2 when the arguments named no
  /// input; else the batch's status, at least partial when an argument named nothing.
  public func inspect(
    _ arguments: [String], shard: Shard?, jobs: Int, fetches: SharedAASAFetches?, console: BatchConsole,
    expect: ([String]) -> Void = { _ in }, record: (InspectionReport) async -> Void,
    settle: (BatchConsole) async -> Void = { _ in }
  ) async -> Int32 {
    let started = Date()
    var reporter = self
    let outcome = await BatchInspector.run(
      arguments, shard: shard, jobs: jobs, fetches: fetches, console: console,
      willInspect: {
        expect($0)
        defer { Terminal.closeOnInterrupt(with: reporter.closingOnInterrupt) }
        return reporter.begin()
      }
    ) { report in
      await record(report)
      // Set before the report is written: Ctrl-C then closes the array after it, or before it (`[` then `]`).
      defer { Terminal.closeOnInterrupt(with: reporter.closingOnInterrupt) }
      return reporter.next(report)
    }
    if outcome.named == 0 {
      Terminal.warn("no inputs to inspect")
      return 2
    }
    Terminal.end(reporter.end())
    await settle(console)
    if !console.quiet {
      Terminal.warn(
        Self.summaryLine(
          outcome.summary, shard: shard, of: outcome.named, seconds: Date().timeIntervalSince(started), jobs: jobs,
          lookups: outcome.lookups))
    }
    let status = outcome.problems == 0 ? outcome.summary.exitStatus : max(outcome.summary.exitStatus, .partial)
    return status.exitCode
  }
}

extension BatchInspector {
  /// ``run(_:shard:jobs:fetches:problem:note:willInspect:started:finished:)`` under a ``BatchConsole``: the progress
  /// bar, a problem line per input as it is found, each failing AASA host once at the end, and Ctrl-C. What
  /// `willInspect` and `finished` return goes to standard output, with the bar out of the way.
  public static func run(
    _ arguments: [String], shard: Shard?, jobs: Int, fetches: SharedAASAFetches?, console: BatchConsole,
    willInspect: ([String]) -> String, finished: (InspectionReport) async -> String
  ) async -> Outcome {
    let outcome = await run(
      arguments, shard: shard, jobs: jobs, fetches: fetches, problem: console.problem, note: console.problem,
      willInspect: {
        console.output(willInspect($0))
        console.begin(total: $0.count)
      }, started: console.started
    ) { report in
      console.finished(report, writing: await finished(report))
    }
    console.end()
    return outcome
  }
}

extension LoadedInventory {
  /// ``load(_:inventories:hosts:order:fetcher:jobs:problem:willInspect:started:inspected:)`` under a
  /// ``BatchConsole``: first the note on retrieval `flags` given for saved inventories
  /// (``unusedFlags(_:paths:inventories:)``), then the progress bar, a problem line per input as it is found, and
  /// each failing AASA host once at the end.
  public static func load(
    _ paths: [String], inventories: [String], hosts: [String], order: Order, fetcher: AASAFetcher?, jobs: Int,
    flags: [String], console: BatchConsole, about query: String? = nil
  ) async -> LoadedInventory {
    if let note = unusedFlags(flags, paths: paths, inventories: inventories) { console.say(note) }
    let loaded = await load(
      paths, inventories: inventories, hosts: hosts, order: order, fetcher: fetcher, jobs: jobs, about: query,
      problem: console.problem, countingAhead: console.showsProgress,
      reading: { reading in
        // A bar of its own for each file: the 416 MB inventory of 10,000 apps of `make bench-store` took 4 s to read.
        switch reading {
        case .opened(let name, let reports):
          if let reports { console.begin(total: reports) } else { console.beginUncounted() }
          console.started(name)
        case .read(let lines): console.moved(to: lines)
        case .closed: console.end()
        }
      }, willInspect: console.begin(total:), started: console.started, inspected: console.finished)
    console.end()
    return loaded
  }
}
