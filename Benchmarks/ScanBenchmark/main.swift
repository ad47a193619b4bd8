// Measures `who-claims --urls`'s core: one URL decided against many apps at once through the host index and each
// file's prefix index, against the per-app matcher (every app's compiled matcher asked in turn), on a generated
// inventory of 1,000 apps (a few shared hosts, wildcard claims, 5-50 rules each) and 1,000,000 URLs made a chunk
// at a time, so memory holds the rules and one chunk of URLs. Only deciding is timed. Reports URLs per second on
// one thread and on every core, the ratios, and peak memory.
//
//   swift run -c release ScanBenchmark [APPS] [URLS]
//
// With `--count`, it only decides URLS URLs (20,000 by default) through the scan, and the first tenth of them through
// the per-app matcher, each in a function of its own (`scanEach`, `perAppEach`), untimed: what
// `scripts/bench-scan-count.py` runs under callgrind to count instructions and simulated cache misses per URL,
// figures a shared machine's speed does not move.
import BenchmarkSupport
import Foundation
import UniversalLinks

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let counting = CommandLine.arguments.contains("--count")
let appCount = arguments.first ?? 1_000
let urlCount = arguments.dropFirst().first ?? (counting ? 20_000 : 1_000_000)
var rng = SplitMix(state: 1_000)

let sharedHosts = (0..<8).map { "shop\($0).example.com" }
let wildcardHosts = (0..<4).map { "brand\($0).example" }
let sections = ["buy", "help", "p", "o", "deals", "account", "c", "t"]

/// One rule: a section, an id, and now and then a wildcard, a query item, a variable or an exclusion.
func component(_ i: Int, _ rng: inout SplitMix) -> (json: String, path: String) {
  let section = sections[Int.random(in: 0..<sections.count, using: &rng)]
  let id = Int.random(in: 0..<500, using: &rng)
  switch i % 6 {
  case 0: return (##"{"/": "/\##(section)/\##(id)/private/*", "exclude": true}"##, "/\(section)/\(id)/private/x")
  case 1: return (##"{"/": "/\##(section)/\##(id)/*"}"##, "/\(section)/\(id)/a")
  case 2: return (##"{"/": "/\##(section)/*", "?": {"ref": "?*"}}"##, "/\(section)/x?ref=home")
  case 3: return (##"{"/": "/$(lang)/\##(section)/\##(id)"}"##, "/fr/\(section)/\(id)")
  case 4:
    return (##"{"/": "/\##(section)/\##(id)/$(digit)*", "caseSensitive": false}"##, "/\(section.uppercased())/\(id)/7x")
  default: return (##"{"/": "*/\##(section)-\##(id).html"}"##, "/en/\(section)-\(id).html")
  }
}

struct GeneratedApp {
  var appID: String
  var scopes: [(host: String, wildcard: Bool, rules: AppLinkRules)]
  var paths: [String]
}

let setupClock = ContinuousClock()
let setupStart = setupClock.now
let generated: [GeneratedApp] = (0..<appCount).map { a in
  let appID = "TEAM\(String(a, radix: 10)).com.example.app\(a)"
  let made = (0..<Int.random(in: 5...50, using: &rng)).map { component($0, &rng) }
  let json =
    #"{"applinks": {"details": [{"appIDs": ["\#(appID)"], "components": ["#
    + made.map(\.json).joined(separator: ",") + "]}]}}"
  let rules = AppLinkRules(file: try! AASAFile(json: json), appID: appID)
  var scopes: [(String, Bool, AppLinkRules)] = [("app\(a).example.net", false, rules)]
  if a % 3 == 0 { scopes.append((sharedHosts[a % sharedHosts.count], false, rules)) }
  if a % 10 == 0 { scopes.append((wildcardHosts[a % wildcardHosts.count], true, rules)) }
  return GeneratedApp(appID: appID, scopes: scopes, paths: made.map(\.path))
}
var builder = LinkRuntime.PatternBuilder()
let table = LinkRuntime.Table(
  apps: generated.map { app in
    LinkRuntime.Table.App(
      appID: app.appID,
      scopes: app.scopes.map {
        .init(
          host: $0.host, wildcard: $0.wildcard,
          program: LinkRuntime.RuleProgram(rules: $0.rules.runtimeRules(keepingNever: false), builder: &builder))
      })
  })
let setupSeconds = seconds(setupClock.now - setupStart)

/// The i-th URL: a claimed host (shared, one app's own, or under a wildcard) with a path one of its apps claims,
/// or, one time in five, a path nobody claims.
func url(_ rng: inout SplitMix) -> String {
  let app = generated[Int.random(in: 0..<generated.count, using: &rng)]
  let scope = app.scopes[Int.random(in: 0..<app.scopes.count, using: &rng)]
  let host = scope.wildcard ? "www." + scope.host : scope.host
  if Int.random(in: 0..<5, using: &rng) == 0 {
    return "https://\(host)/nothing/\(Int.random(in: 0..<1000, using: &rng))"
  }
  return "https://\(host)" + app.paths[Int.random(in: 0..<app.paths.count, using: &rng)]
}

/// Every app's own compiled matcher for each of its entries, by host (`*.` before a wildcard's): the baseline.
func perAppMatchers() -> [[String: AASAMatcher]] {
  generated.map { app in
    Dictionary(app.scopes.map { ($0.wildcard ? "*." + $0.host : $0.host, AASAMatcher(rules: $0.rules)) }) { a, _ in a }
  }
}

/// The per-app matcher: every app asked in turn, with its own compiled matcher for the entry that governs the host
/// (chosen as the table chooses it), as a scan without the host index would.
func perAppDecide(_ text: String, _ matchers: [[String: AASAMatcher]]) -> LinkRuntime.Verdict {
  guard let parsed = UniversalLinkURL(string: text) else { return .noMatch }
  var excluded = false
  for (index, app) in table.apps.enumerated() {
    guard let scope = app.scope(for: parsed.host),
      let matcher = matchers[index][scope.wildcard ? "*." + scope.host : scope.host]
    else { continue }
    switch matcher.verdict(for: parsed).verdict {
    case .match: return .match
    case .exclude: excluded = true
    case .noMatch: break
    }
  }
  return excluded ? .exclude : .noMatch
}

if counting {
  var countRNG = SplitMix(state: 42)
  let urls = (0..<urlCount).map { _ in url(&countRNG) }
  let matchers = perAppMatchers()
  // Each in a function that is never inlined, for callgrind to count it alone.
  @inline(never) func scanEach(_ urls: [String]) -> Int {
    var scratch = LinkRuntime.Table.Scratch()
    return urls.reduce(0) { $0 + (table.decide($1, reusing: &scratch).verdict == .match ? 1 : 0) }
  }
  @inline(never) func perAppEach(_ urls: ArraySlice<String>) -> Int {
    urls.reduce(0) { $0 + (perAppDecide($1, matchers) == .match ? 1 : 0) }
  }
  let baseline = urls.prefix(max(1, urlCount / 10))
  let (opened, openedBefore) = (scanEach(urls), perAppEach(baseline))
  let differ = baseline.filter { perAppDecide($0, matchers) != table.decide($0).verdict }.count
  print("count: \(appCount) apps, \(generated.reduce(0) { $0 + $1.paths.count }) rules")
  print("scan: \(urls.count) URLs, \(opened) open an app")
  print("per-app matcher: the first \(baseline.count), \(openedBefore) open an app; \(differ) verdicts differ")
  exit(differ == 0 ? 0 : 1)
}

let clock = ContinuousClock()

/// URLs are made a chunk at a time and only deciding them is timed: making a URL (building a string from a random
/// app's paths) took about 0.5 µs, a share of the figure that was the benchmark's work, not the scan's. A chunk
/// keeps memory bounded however many URLs are asked for.
let chunkSize = 10_000

/// Decides `count` URLs from `rng` with `body`, made a chunk at a time; returns the time spent deciding.
func timed(_ count: Int, _ rng: inout SplitMix, _ body: (String) -> Void) -> Duration {
  var chunk: [String] = []
  chunk.reserveCapacity(chunkSize)
  var spent = Duration.zero
  var left = count
  while left > 0 {
    chunk.removeAll(keepingCapacity: true)
    for _ in 0..<min(left, chunkSize) { chunk.append(url(&rng)) }
    left -= chunk.count
    spent += clock.measure { for text in chunk { body(text) } }
  }
  return spent
}

var counts: [LinkRuntime.Verdict: Int] = [:]
var scanRNG = SplitMix(state: 42)
// As `who-claims --urls` decides URLs: each thread prepares them in one scratch's memory.
var scratch = LinkRuntime.Table.Scratch()
// In passes, whose median is the figure: on a shared machine, a stall of the neighbours moves one pass, not it.
let passCount = min(10, urlCount)
var passRates: [Double] = []
var scanTime = Duration.zero
for pass in 0..<passCount {
  let count = urlCount / passCount + (pass < urlCount % passCount ? 1 : 0)
  let spent = timed(count, &scanRNG) { counts[table.decide($0, reusing: &scratch).verdict, default: 0] += 1 }
  scanTime += spent
  passRates.append(Double(count) / seconds(spent))
}
passRates.sort()
let scanRate = passRates[passRates.count / 2]

// The same work on every core, as `who-claims --urls --jobs N` does it: each thread decides its own share of the
// URLs (made from its own seed) against the one shared table.
let cores = ProcessInfo.processInfo.activeProcessorCount
let shares = UnsafeMutableBufferPointer<Int>.allocate(capacity: cores)
shares.initialize(repeating: 0)
nonisolated(unsafe) let opened = shares
// Each round makes every thread's chunk first, then times the threads deciding theirs at once.
var parallelRNGs = (0..<cores).map { SplitMix(state: 42 &+ UInt64($0) &* 7_919) }
var parallelTime = Duration.zero
var perCore = urlCount / cores
while perCore > 0 {
  let size = min(perCore, chunkSize)
  let chunks = (0..<cores).map { core in (0..<size).map { _ in url(&parallelRNGs[core]) } }
  perCore -= size
  parallelTime += clock.measure {
    DispatchQueue.concurrentPerform(iterations: cores) { core in
      var matched = 0
      var scratch = LinkRuntime.Table.Scratch()
      for text in chunks[core] where table.decide(text, reusing: &scratch).verdict == .match { matched += 1 }
      opened[core] += matched
    }
  }
}
let parallelRate = Double(urlCount / cores * cores) / seconds(parallelTime)

// Peak memory of the inventory, its table and the scan, read before the baseline compiles its own matchers.
var usage = rusage()
#if os(Linux)
  getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
#else
  getrusage(RUSAGE_SELF, &usage)
#endif
#if canImport(Darwin)
  let peakMiB = Double(usage.ru_maxrss) / 1_048_576
#else
  let peakMiB = Double(usage.ru_maxrss) / 1_024
#endif

// The baseline on a prefix of the same URLs (it is far slower), with every verdict compared.
let baselineCount = min(urlCount, 20_000)
var baselineRNG = SplitMix(state: 42)
var differ = 0
var sink = 0
let matchers = perAppMatchers()
let baselineTime = timed(baselineCount, &baselineRNG) { if perAppDecide($0, matchers) == .match { sink += 1 } }
var checkRNG = SplitMix(state: 42)
for _ in 0..<baselineCount {
  let text = url(&checkRNG)
  if perAppDecide(text, matchers) != table.decide(text).verdict { differ += 1 }
}
let baselineRate = Double(baselineCount) / seconds(baselineTime)

let ruleCount = generated.reduce(0) { $0 + $1.paths.count }
print("inventory: \(appCount) apps, \(ruleCount) rules, built and compiled in \(Int(setupSeconds * 1000)) ms")
print(
  "scan: \(urlCount) URLs in \(String(format: "%.2f", seconds(scanTime))) s: \(Int(scanRate)) URLs/s "
    + "(match \(counts[.match, default: 0]), exclude \(counts[.exclude, default: 0]), "
    + "no-match \(counts[.noMatch, default: 0]))")
print("  (the median of \(passCount) passes of \(urlCount / passCount) URLs; the best: \(Int(passRates.last!)))")
print(
  "scan on \(cores) threads: \(Int(parallelRate)) URLs/s (\(String(format: "%.2f", parallelRate / scanRate))x one "
    + "thread; \(shares.reduce(0, +)) of \(urlCount / cores * cores) open an app)")
print("per-app matcher: \(Int(baselineRate)) URLs/s on the first \(baselineCount) URLs, one thread")
print(
  "ratio: \(String(format: "%.1f", scanRate / baselineRate))x faster on one thread, "
    + "\(String(format: "%.1f", parallelRate / baselineRate))x on \(cores) (verdicts compared on \(baselineCount) URLs, "
    + "\(differ) differ)")
print("peak memory of the scan (inventory, table, \(urlCount) URLs streamed): \(String(format: "%.0f", peakMiB)) MiB")
