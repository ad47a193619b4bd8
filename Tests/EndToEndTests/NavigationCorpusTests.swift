import Foundation
import IPALinksKit
import Testing
import UniversalLinks

/// Every way ipalinks protects a web view, measured in real WebKit (WebKitGTK under Xvfb) against iOS's decision:
/// hundreds of navigations on pages of the real hosts in `../shared/aasa-corpus` (taps on links to other hosts and
/// to the page's own host, iframes, script with and without a tap, form posts, redirects after a tap, back/forward,
/// reloads, the app's own loads), each run without protection, with the WebKit rule list and with the JavaScript
/// guard (`Tests/WebKit/navigation_harness.py`, whose proxy serves the pages over TLS on loopback).
///
/// iOS's decision for each navigation is the navigation rule (`LinkRuntime.Table.decide(_:)`) applied to what WebKit
/// reported of it: its URL, the page it left, its type, whether it carried the user's gesture, and whether the page
/// it left was reached by a tap (the permission a page's own script inherits). The Swift guard is the generated file,
/// compiled with swiftc, deciding each navigation from the facts its WebKit glue has on iOS (no gesture).
@Suite(
  .serialized,
  .enabled(if: Engines.available, "needs xvfb-run and WebKitGTK (make test installs them)"),
  .enabled(if: NavigationCorpus.available, "needs ../shared/aasa-corpus beside the project (absent: skipped)"))
struct NavigationCorpusTests {
  @Test func everyProtectionAgainstIOSsDecisionInRealWebKit() throws {
    let corpus = try NavigationCorpus()
    let plan = try Engines.write(corpus.planJSON(), ext: "json")
    let bare = try corpus.run(plan, [])
    let webKitList = BlocklistOutput(corpus.blocklist, format: .wkcontentrules, maxRules: 150_000, generator: "test")
    let listed = try corpus.run(plan, ["--rules", Engines.write(webKitList.files[0].text, ext: "json")])
    let script = BlocklistRenderer(corpus.blocklist).javaScriptGuard(generator: "test")
    let tapped = try corpus.run(plan, ["--guard", Engines.write(script, ext: "js")])
    let table = try corpus.tally(bare: bare, list: listed, js: tapped)
    let text = table.markdown(engine: bare["engine"] as? String ?? "?")
    print(text)
    let artifacts = CLI.repo.appendingPathComponent(".build/test-artifacts")
    try? FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
    try? Data(text.utf8).write(to: artifacts.appendingPathComponent("navigation-corpus.md"))

    let total = table.total
    #expect(total.navigations >= 300, "\(total.navigations) navigations")
    #expect(corpus.hosts.count >= 10, "\(corpus.hosts.count) hosts")
    #expect(total.opens >= 50 && total.navigations - total.opens >= 100, "both outcomes, often")
    // The guards: no navigation that would open an app gets through, and none iOS shows is blocked.
    #expect(total.swiftAllow.through == 0 && total.swiftAllow.overBlocked == 0)
    #expect(total.swiftCancel.through == 0)
    #expect(total.jsGestures == 0, "the JavaScript guard's own navigations must carry no gesture")
    #expect(total.js.overBlocked == 0)
    // A navigation the guarded run did not reach (a page's timer late on a loaded machine) is counted neither way; a
    // few may be, not so many that the count above says little.
    #expect(total.jsNotReached <= total.navigations / 20, "\(total.jsNotReached) not reached")
    // A tap WebKit did not follow in the run without protection has nothing to compare the guards with: named in
    // the table, and rare, or the count above hides what the guards were not measured on.
    #expect(table.untapped.count <= corpus.scenarios.count / 50, "taps that navigated nowhere: \(table.untapped)")
    // What the JavaScript guard lets through is only what a page's own script starts, which it cannot see.
    for row in table.rows where row.category.tap {
      #expect(row.js.through == 0, "\(row.category.name): \(row.js.through) got through the JavaScript guard")
    }
    // The rule list blocks every navigation that would open an app, and, as measured, more.
    #expect(total.list.through == 0)
    #expect(total.list.overBlocked > 0)
  }
}

/// The hosts, the blocklist of their files' apps, the plan of navigations, and how the runs are compared.
struct NavigationCorpus {
  static let folder = CLI.repo.deletingLastPathComponent().appendingPathComponent("shared/aasa-corpus")
  static let available = FileManager.default.fileExists(atPath: folder.path)
  static let neutral = "https://news.example"

  /// Hosts whose file lists an app with at least one rule that opens it.
  let hosts: [String]
  let blocklist: Blocklist
  let table: LinkRuntime.Table
  var scenarios: [Scenario] = []
  var pages: [String: String] = [:]

  /// What a scenario does, which says how its navigations count.
  enum Kind: String, CaseIterable {
    case tap, ownHost, frameSelf, frameTop, foreignFrameTop, scriptTap, scriptLoaded, scriptReached, post, redirect,
      history, reload
  }

  struct Scenario {
    var id: String
    var kind: Kind
    var host: String
    var destination: String
    var steps: [[String: Any]]
  }

  init() throws {
    let names = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter { $0.hasSuffix(".json") }
      .sorted()
    var apps: [LinkingApp] = []
    var hosts: [String] = []
    for name in names {
      let host = String(name.dropLast(".json".count))
      let data = try Data(contentsOf: Self.folder.appendingPathComponent(name))
      guard let file = try? AASAFile(json: String(decoding: data, as: UTF8.self)) else { continue }
      var listed = false
      for appID in Self.appIDs(file) where !apps.contains(where: { $0.appID == appID }) {
        let rules = AppLinkRules(file: file, appID: appID)
        guard rules.rules.contains(where: { !$0.exclude }) else { continue }
        apps.append(
          LinkingApp(
            appID: appID, name: appID, input: name,
            scopes: [RuleScope(host: host, wildcard: false, rules: rules)]))
        listed = true
      }
      if listed { hosts.append(host) }
    }
    self.hosts = hosts
    blocklist = Blocklist(apps: apps)
    table = blocklist.table()
    for host in hosts { try plan(host) }
  }

  /// The app IDs a file lists, in order.
  static func appIDs(_ file: AASAFile) -> [String] {
    var out: [String] = []
    for detail in file.applinks?.details ?? [] {
      for id in detail.appIDs where !out.contains(id) { out.append(id) }
    }
    return out
  }

  /// URLs on `host` that open an app, that an app excludes, and that no app claims: sampled from its rules.
  func samples(_ host: String) -> (open: [String], excluded: [String], unclaimed: [String]) {
    var open: [String] = []
    var excluded: [String] = []
    var unclaimed: [String] = ["https://\(host)/"]
    for app in blocklist.apps {
      for scope in app.scopes where scope.host == host {
        for rule in scope.rules.runtimeRules(keepingNever: false) {
          for url in URLSampler.urls(for: rule, host: host) {
            let text = url.absoluteString
            guard let read = LinkRuntime.WebURL(text), read.href == text else { continue }  // as a page writes it
            switch table.decide(text).verdict {
            case .match: if !open.contains(text) { open.append(text) }
            case .exclude: if !excluded.contains(text) { excluded.append(text) }
            case .noMatch: if !unclaimed.contains(text) { unclaimed.append(text) }
            }
          }
        }
      }
    }
    let opening = open.filter { table.decide($0).verdict == .match }
    return (
      Array(opening.prefix(3)), Array(excluded.prefix(1)),
      Array(unclaimed.filter { table.decide($0).verdict != .match }.prefix(2))
    )
  }

  /// A page with one element to tap, `#t`.
  static func page(_ body: String) -> String {
    "<!doctype html><meta charset=utf-8><title>corpus</title><body style=\"font-size:28px\">\(body)</body>"
  }

  static func attribute(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
      .replacingOccurrences(of: "<", with: "&lt;")
  }

  static func script(_ text: String) -> String {
    String(
      decoding: try! JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes]), as: UTF8.self
    )
    .dropFirst().dropLast().replacingOccurrences(of: "</", with: "<\\/")
  }

  mutating func add(_ kind: Kind, _ host: String, _ destination: String, steps: [[String: Any]]) {
    let id = "\(host)-\(scenarios.count)"
    scenarios.append(Scenario(id: id, kind: kind, host: host, destination: destination, steps: steps))
  }

  static func load(_ url: String) -> [String: Any] { ["do": "load", "url": url] }
  static func click(_ frame: String? = nil) -> [String: Any] {
    var step: [String: Any] = ["do": "click", "target": "#t"]
    if let frame { step["frame"] = frame }
    return step
  }

  mutating func plan(_ host: String) throws {
    let (open, excluded, unclaimed) = samples(host)
    guard let first = open.first else { return }
    func pageURL() -> String { "\(Self.neutral)/p/\(host)/\(scenarios.count)" }
    func link(_ url: String, target: String = "") -> String {
      "<a id=t href=\"\(Self.attribute(url))\"\(target)>a link</a>"
    }
    // Taps on links from another site's page, to each kind of URL.
    for url in open + excluded + unclaimed {
      let page = pageURL()
      pages[page] = Self.page(link(url))
      add(.tap, host, url, steps: [Self.load(page), Self.click()])
    }
    // Taps on links on the site's own pages.
    for url in open + unclaimed.prefix(1) {
      let page = "https://\(host)/ipalinks-corpus/\(scenarios.count)"
      pages[page] = Self.page(link(url))
      add(.ownHost, host, url, steps: [Self.load(page), Self.click()])
    }
    // Links in an iframe: one that navigates the iframe, one that navigates the whole page.
    for (kind, target) in [(Kind.frameSelf, ""), (.frameTop, " target=_top")] {
      let page = pageURL()
      let frame = "\(Self.neutral)/f/\(host)/\(scenarios.count)"
      pages[frame] = Self.page(link(first, target: target))
      pages[page] = Self.page("<iframe id=f src=\"\(Self.attribute(frame))\" width=600 height=120></iframe>")
      add(kind, host, first, steps: [Self.load(page), Self.click("#f")])
    }
    // A link in another site's iframe (an ad, an embed) that loads the whole page on the site's own host, which iOS
    // keeps in the web view: the link fills the frame, whose document the harness cannot read, and is tapped there.
    let ownPage = "https://\(host)/ipalinks-corpus/\(scenarios.count)"
    let foreign = "\(Self.neutral)/f/\(host)/\(scenarios.count)"
    pages[foreign] = Self.page(
      "<a id=t href=\"\(Self.attribute(first))\" target=_top style=\"display:block;height:100px\">a link</a>")
    pages[ownPage] = Self.page("<iframe id=f src=\"\(Self.attribute(foreign))\" width=600 height=120></iframe>")
    add(.foreignFrameTop, host, first, steps: [Self.load(ownPage), Self.click("#f")])
    // The page's own script: during a tap, and later on a page the app loaded or the user reached by a tap.
    let during = pageURL()
    pages[during] = Self.page(
      "<button id=t onclick='location.href = \(Self.attribute(Self.script(first)))'>go</button>")
    add(.scriptTap, host, first, steps: [Self.load(during), Self.click()])
    let timer = "<script>setTimeout(function () { location.href = \(Self.script(first)); }, 1200)</script>"
    let loaded = pageURL()
    pages[loaded] = Self.page("loaded" + timer)
    // Without a tap the script's navigation is awaited (its timer fires 1.2 s after the page loads).
    add(.scriptLoaded, host, first, steps: [Self.load(loaded), ["do": "wait", "for": "navigation", "ms": 8000]])
    let start = pageURL()
    let reached = start + "/next"
    pages[start] = Self.page(link(reached))
    pages[reached] = Self.page("reached" + timer)
    add(
      .scriptReached, host, first,
      steps: [Self.load(start), Self.click(), ["do": "wait", "for": "navigation", "ms": 8000]])
    // A form posted by a tap on its button.
    let post = pageURL()
    pages[post] = Self.page(
      "<form method=post action=\"\(Self.attribute(first))\"><input type=hidden name=q value=1>"
        + "<button id=t>send</button></form>")
    add(.post, host, first, steps: [Self.load(post), Self.click()])
    // A tap on a link that the server redirects.
    let redirectPage = pageURL()
    let bounce =
      "\(Self.neutral)/r?s=\(scenarios.count)&to="
      + (first.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
    pages[redirectPage] = Self.page(link(bounce))
    add(.redirect, host, first, steps: [Self.load(redirectPage), Self.click()])
    // Back and forward through a page of the host, loaded by the app.
    add(.history, host, first, steps: [Self.load(first), Self.load(pageURL()), ["do": "back"], ["do": "forward"]])
    // A reload of one of the host's pages.
    add(.reload, host, first, steps: [Self.load(open.count > 1 ? open[1] : first), ["do": "reload"]])
  }

  func planJSON() throws -> String {
    let object: [String: Any] = [
      "pages": pages,
      "scenarios": scenarios.map {
        ["id": $0.id, "group": $0.host, "steps": $0.steps, "fresh": $0.kind == .history] as [String: Any]
      },
    ]
    return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
  }

  func run(_ plan: String, _ options: [String]) throws -> [String: Any] {
    let harness = CLI.repo.appendingPathComponent("Tests/WebKit/navigation_harness.py")
    let result = try CLI.run(
      ["-a", "/usr/bin/python3", harness.path, plan] + options, executable: URL(fileURLWithPath: "/usr/bin/xvfb-run"))
    try #require(result.status == 0, "harness: \(result.stderr.suffix(2_000))")
    let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    let scenarios = try #require(document["scenarios"] as? [[String: Any]])
    try #require(scenarios.count == self.scenarios.count)
    return document
  }

  // MARK: - Comparing the runs

  /// One navigation WebKit asked about, with the facts iOS's rule reads.
  struct Navigation {
    var step: Int
    var uri: String
    var facts: LinkRuntime.Navigation
    var appLoad: Bool
    var guardMade: Bool
    var gesture: Bool
    var blocked: Bool
  }

  /// The navigations of one scenario's run, each with its facts, in order.
  func navigations(_ scenario: Scenario, _ run: [String: Any]) -> [Navigation] {
    let steps = scenario.steps
    let decisions = run["decisions"] as? [[String: Any]] ?? []
    let failures = run["failures"] as? [[String: Any]] ?? []
    var out: [Navigation] = []
    var allowsByPage: [String: Bool] = [:]
    var blankSeen: Set<Int> = []
    for d in decisions {
      let step = d["step"] as? Int ?? -1
      let uri = d["uri"] as? String ?? ""
      let page = d["page"] as? String
      let gesture = d["userGesture"] as? Bool == true
      let redirect = d["redirect"] as? Bool == true
      let type = d["navigationType"] as? String ?? "other"
      if uri == "about:blank" {
        blankSeen.insert(step)
        continue
      }
      let action = steps.indices.contains(step) ? steps[step]["do"] as? String : nil
      let appLoad = action == "load" && uri == steps[step]["url"] as? String
      var frame = LinkRuntime.Navigation.Frame.main
      if uri.hasPrefix(Self.neutral + "/f/") || (scenario.kind == .frameSelf && action == "click") { frame = .subframe }
      if d["kind"] as? String == "new-window" { frame = .newWindow }
      let kind: LinkRuntime.Navigation.Kind =
        switch type {
        case "link-clicked": .linkActivated
        case "form-submitted": .formSubmitted
        case "back-forward": .backForward
        case "reload": .reload
        case "form-resubmitted": .formResubmitted
        default: .other
        }
      let guardMade = blankSeen.contains(step) && !gesture
      // Whether WebKit lets it open apps: the user's gesture, or for the main document's own script, the
      // permission of a page reached by a tap; never a load the app starts; a redirect keeps its navigation's.
      var userInitiated: Bool
      if appLoad {
        userInitiated = false
      } else if redirect, let previous = out.last(where: { $0.step == step }) {
        userInitiated = previous.facts.userInitiated ?? false
      } else {
        let inherits =
          frame == .main && !guardMade && ![.frameTop, .foreignFrameTop].contains(scenario.kind)
          && page.map { allowsByPage[$0] ?? false } == true
        userInitiated = gesture || inherits
      }
      let facts = LinkRuntime.Navigation(
        destination: uri, page: page, frame: frame, kind: kind, userInitiated: userInitiated)
      if frame == .main { allowsByPage[uri] = userInitiated }
      // Blocked: never requested from the server, or (a redirect chain) failed on a content blocker's rule: WebKit
      // names the chain's first URL when its redirect is blocked, so the block is the chain's last decision's.
      let chainBlocked = failures.contains { $0["step"] as? Int == step && $0["blocker"] as? Bool == true }
      let blocked = !(d["served"] as? Bool ?? true) || (frame == .main && chainBlocked)
      if redirect, let last = out.indices.last, out[last].step == step { out[last].blocked = false }
      out.append(
        Navigation(
          step: step, uri: uri, facts: facts, appLoad: appLoad, guardMade: guardMade, gesture: gesture,
          blocked: blocked))
    }
    return out
  }

  /// What a navigation counts as in the table.
  struct Category: Hashable {
    var name: String
    /// A tap the JavaScript guard can see: on a link or a form's button, in the page it runs in.
    var tap: Bool
    var order: Int
  }

  func category(_ scenario: Scenario, _ n: Navigation) -> Category {
    if n.appLoad { return Category(name: "the app's own loads (`load(_:in:)`)", tap: false, order: 90) }
    if n.facts.frame == .subframe { return Category(name: "iframes: loads and taps inside them", tap: true, order: 40) }
    switch scenario.kind {
    case .tap: return Category(name: "taps on links to another host", tap: true, order: 10)
    case .ownHost: return Category(name: "taps on links to the page's own host", tap: true, order: 20)
    case .frameTop: return Category(name: "taps on links in an iframe that load the whole page", tap: true, order: 30)
    case .foreignFrameTop:
      return Category(name: "the same, in another site's iframe, to the page's own host", tap: true, order: 31)
    case .frameSelf: return Category(name: "iframes: loads and taps inside them", tap: true, order: 40)
    case .scriptTap: return Category(name: "script during a tap (`location.href` in `onclick`)", tap: false, order: 50)
    case .scriptLoaded:
      return Category(name: "script without a tap, on a page the app loaded", tap: false, order: 60)
    case .scriptReached:
      if n.facts.kind == .linkActivated {
        return Category(name: "taps on links to the page's own host", tap: true, order: 20)
      }
      return Category(name: "script without a tap, on a page reached by a tap", tap: false, order: 61)
    case .post: return Category(name: "form posts (a tap on the button)", tap: true, order: 70)
    // The JavaScript guard sees the link's URL, not where the server sends the tap.
    case .redirect: return Category(name: "taps on links the server redirects (both decisions)", tap: false, order: 75)
    case .history: return Category(name: "back and forward", tap: false, order: 80)
    case .reload: return Category(name: "reloads", tap: false, order: 85)
    }
  }

  struct Count {
    var through = 0
    var overBlocked = 0
  }

  struct Row {
    var category: Category
    var navigations = 0
    var opens = 0
    var list = Count()
    var listNotReached = 0
    var swiftAllow = Count()
    var swiftCancel = Count()
    var js = Count()
    var jsNotReached = 0
    var jsGestures = 0

    mutating func add(_ other: Row) {
      navigations += other.navigations
      opens += other.opens
      list.through += other.list.through
      list.overBlocked += other.list.overBlocked
      listNotReached += other.listNotReached
      swiftAllow.through += other.swiftAllow.through
      swiftAllow.overBlocked += other.swiftAllow.overBlocked
      swiftCancel.through += other.swiftCancel.through
      swiftCancel.overBlocked += other.swiftCancel.overBlocked
      js.through += other.js.through
      js.overBlocked += other.js.overBlocked
      jsNotReached += other.jsNotReached
      jsGestures += other.jsGestures
    }
  }

  struct Table {
    var rows: [Row]
    var hosts: Int
    /// Scenarios whose tap WebKit did not follow in the run without protection (its page loaded late, say), so
    /// neither guard was measured on them.
    var untapped: [String] = []
    var total: Row {
      var all = Row(category: Category(name: "all", tap: false, order: 999))
      for row in rows { all.add(row) }
      return all
    }

    func markdown(engine: String) -> String {
      func cell(_ c: Count) -> String { "\(c.through) / \(c.overBlocked)" }
      var out = "Measured in \(engine) on \(total.navigations) navigations over \(hosts) hosts. Each cell: "
      out += "navigations that would open an app and got through / navigations blocked that iOS keeps in the "
      out += "web view.\n\n"
      if !untapped.isEmpty {
        out += "Not measured: \(untapped.count) taps that navigated nowhere without protection ("
        out += untapped.joined(separator: ", ") + ").\n\n"
      }
      out += "| navigation | count | iOS opens an app | Swift guard, `.allowWithoutOpeningApp` or `.loadInWebView` "
      out += "| Swift guard, `.cancel` "
      out += "| JavaScript guard | WebKit rule list |\n|---|---:|---:|---:|---:|---:|---:|\n"
      for row in rows + [total] {
        let name = row.category.order == 999 ? "**all**" : row.category.name
        var list = cell(row.list)
        if row.listNotReached > 0 { list += " (\(row.listNotReached) not reached)" }
        var js = cell(row.js)
        if row.jsNotReached > 0 { js += " (\(row.jsNotReached) not reached)" }
        out += "| \(name) | \(row.navigations) | \(row.opens) | \(cell(row.swiftAllow)) | \(cell(row.swiftCancel)) "
        out += "| \(js) | \(list) |\n"
      }
      return out
    }
  }

  /// Compares the three runs and the Swift guard's decisions with iOS's, navigation by navigation.
  func tally(bare: [String: Any], list: [String: Any], js: [String: Any]) throws -> Table {
    let bareRuns = bare["scenarios"] as? [[String: Any]] ?? []
    let listRuns = list["scenarios"] as? [[String: Any]] ?? []
    let jsRuns = js["scenarios"] as? [[String: Any]] ?? []
    var counted: [(Scenario, Navigation)] = []
    for (scenario, run) in zip(scenarios, bareRuns) {
      for n in navigations(scenario, run) { counted.append((scenario, n)) }
    }
    let swift = try swiftGuard(counted.map(\.1))
    var rows: [Category: Row] = [:]
    var listIndex: [String: [Navigation]] = [:]
    var jsIndex: [String: [Navigation]] = [:]
    for (scenario, (l, j)) in zip(scenarios, zip(listRuns, jsRuns)) {
      listIndex[scenario.id] = navigations(scenario, l)
      jsIndex[scenario.id] = navigations(scenario, j)
    }
    for ((scenario, n), (allowIntervenes, cancelIntervenes)) in zip(counted, swift) {
      let category = category(scenario, n)
      var row = rows[category] ?? Row(category: category)
      row.navigations += 1
      let opens = table.decide(n.facts).opensApp
      if opens { row.opens += 1 }
      // The Swift guard: .allowWithoutOpeningApp loads the page without trying the app, so it blocks nothing.
      if opens && !allowIntervenes { row.swiftAllow.through += 1 }
      if opens && !cancelIntervenes { row.swiftCancel.through += 1 }
      if !opens && cancelIntervenes { row.swiftCancel.overBlocked += 1 }
      // The rule list, in the same step of the same scenario.
      let same = { (m: Navigation) in m.step == n.step && m.uri == n.uri && !m.guardMade }
      if let m = listIndex[scenario.id]?.first(where: same) {
        if opens && !m.blocked { row.list.through += 1 }
        if !opens && m.blocked { row.list.overBlocked += 1 }
      } else {
        row.listNotReached += 1
      }
      // The JavaScript guard: its own navigations carry the guard's facts (no gesture, from its iframe).
      let jsSame = jsIndex[scenario.id]?.filter { $0.step == n.step && $0.uri == n.uri } ?? []
      if jsSame.isEmpty && jsWaitTimedOut(jsRuns, scenario, n.step) {
        // The page's own script did not navigate within the step's wait (its timer ran late on a loaded
        // machine): the guard, which acts on taps and form submits only, stopped nothing.
        row.jsNotReached += 1
      } else if jsSame.isEmpty {
        if !opens { row.js.overBlocked += 1 }
      } else if opens && jsSame.contains(where: { table.decide($0.facts).opensApp }) {
        row.js.through += 1
      }
      row.jsGestures += jsSame.filter { $0.guardMade && $0.gesture }.count
      rows[category] = row
    }
    // Every click step of the run without protection starts a navigation, but for a tap that WebKit lost.
    let untapped = zip(scenarios, bareRuns).compactMap { scenario, run -> String? in
      let clicks = scenario.steps.indices.filter { scenario.steps[$0]["do"] as? String == "click" }
      let followed = Set(navigations(scenario, run).map(\.step))
      return clicks.allSatisfy(followed.contains) ? nil : scenario.id
    }
    return Table(
      rows: rows.values.sorted { $0.category.order < $1.category.order }, hosts: hosts.count, untapped: untapped)
  }

  /// Whether, in the JavaScript guard's run of `scenario`, step `step` waited for the page's own navigation and
  /// none came in time.
  func jsWaitTimedOut(_ runs: [[String: Any]], _ scenario: Scenario, _ step: Int) -> Bool {
    guard let run = runs.first(where: { $0["id"] as? String == scenario.id }),
      let steps = run["steps"] as? [[String: Any]], steps.indices.contains(step)
    else { return false }
    return steps[step]["do"] as? String == "wait"
      && (steps[step]["error"] as? String)?.hasPrefix("not reached") == true
  }

  /// The generated Swift guard's decision for each navigation, from the facts its glue has on iOS: whether the
  /// user's tap started it is unknown, except for the app's own loads (started with `load(_:in:)`). The same
  /// decision stands behind both policies; `.allowWithoutOpeningApp` then loads the page, `.cancel` does not.
  func swiftGuard(_ navigations: [Navigation]) throws -> [(Bool, Bool)] {
    let folder = try Engines.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let exe = try Engines.compileSwiftGuard(
      BlocklistRenderer(blocklist).swiftGuard(generator: "test"),
      driver: #"""
        import Foundation
        // One navigation per line: destination, page ("-" for none), frame, kind, app load (1 or 0), tab-separated.
        for line in try String(contentsOfFile: CommandLine.arguments[1], encoding: .utf8).split(separator: "\n") {
          let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
          let navigation = LinkRuntime.Navigation(
            destination: f[0], page: f[1] == "-" ? nil : f[1], frame: LinkRuntime.Navigation.Frame(rawValue: f[2])!,
            kind: LinkRuntime.Navigation.Kind(rawValue: f[3])!, userInitiated: f[4] == "1" ? false : nil)
          print(UniversalLinkGuard.shared.decide(navigation).opensApp ? "1" : "0")
        }
        """#, in: folder)
    let input = folder.appendingPathComponent("navigations.tsv")
    let lines = navigations.map { n in
      [n.facts.destination, n.facts.page ?? "-", n.facts.frame.rawValue, n.facts.kind.rawValue, n.appLoad ? "1" : "0"]
        .joined(separator: "\t")
    }
    try Data(lines.joined(separator: "\n").utf8).write(to: input)
    let run = try CLI.run([input.path], executable: exe)
    try #require(run.status == 0, "driver: \(run.stderr)")
    let answers = run.stdout.split(separator: "\n").map { $0 == "1" }
    try #require(answers.count == navigations.count)
    return answers.map { ($0, $0) }
  }
}
