import UniversalLinks

// Measures `who-claims --urls`'s core: one URL decided against many apps at once through the host index and each
// file's prefix index, against the per-app matcher (every app's compiled matcher asked in turn), on a generated
// inventory of 1,000 apps (a few shared hosts, wildcard claims, 5-50 rules each) and 1,000,000 URLs made on the
// fly, so memory holds the rules and nothing per URL. Reports URLs per second, the ratio, and peak memory.
//
//   swift run -c release ScanBenchmark [APPS] [URLS]
#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Deterministic randomness, so every run measures the same work.
struct SplitMix: RandomNumberGenerator {
  var state: UInt64
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let appCount = arguments.first ?? 1_000
let urlCount = arguments.dropFirst().first ?? 1_000_000
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
let setupSeconds =
  Double((setupClock.now - setupStart).components.attoseconds) / 1e18
  + Double((setupClock.now - setupStart).components.seconds)

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

let clock = ContinuousClock()
/// `x` with `digits` decimals, without Foundation.
func fixed(_ x: Double, _ digits: Int) -> String {
  var scale = 1.0
  for _ in 0..<digits { scale *= 10 }
  let n = Int((x * scale).rounded())
  guard digits > 0 else { return String(n) }
  let fraction = String(n % Int(scale))
  return String(n / Int(scale)) + "." + String(repeating: "0", count: digits - fraction.count) + fraction
}
func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }

var counts: [LinkRuntime.Verdict: Int] = [:]
var scanRNG = SplitMix(state: 42)
let scanTime = clock.measure {
  for _ in 0..<urlCount { counts[table.decide(url(&scanRNG)).verdict, default: 0] += 1 }
}
let scanRate = Double(urlCount) / seconds(scanTime)

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

// The per-app matcher: every app's own compiled matcher for the entry covering the host, asked in turn, as a
// scan without the host and prefix indexes would.
let perApp: [(appID: String, scopes: [(host: String, wildcard: Bool, matcher: AASAMatcher)])] = generated.map { app in
  (app.appID, app.scopes.map { ($0.host, $0.wildcard, AASAMatcher(rules: $0.rules)) })
}

func perAppDecide(_ text: String) -> LinkRuntime.Verdict {
  guard let parsed = UniversalLinkURL(string: text) else { return .noMatch }
  var excluded = false
  for app in perApp {
    var best: (host: String, wildcard: Bool, matcher: AASAMatcher)? = app.scopes.first {
      !$0.wildcard && $0.host == parsed.host
    }
    if best == nil {
      for scope in app.scopes where scope.wildcard && parsed.host.hasSuffix("." + scope.host) {
        if scope.host.count > best?.host.count ?? -1 { best = scope }
      }
    }
    guard let scope = best else { continue }
    switch scope.matcher.verdict(for: parsed).verdict {
    case .match: return .match
    case .exclude: excluded = true
    case .noMatch: break
    }
  }
  return excluded ? .exclude : .noMatch
}

// The baseline on a prefix of the same URLs (it is far slower), with every verdict compared.
let baselineCount = min(urlCount, 20_000)
var baselineRNG = SplitMix(state: 42)
var differ = 0
var sink = 0
let baselineTime = clock.measure {
  for _ in 0..<baselineCount where perAppDecide(url(&baselineRNG)) == .match { sink += 1 }
}
var checkRNG = SplitMix(state: 42)
for _ in 0..<baselineCount {
  let text = url(&checkRNG)
  if perAppDecide(text) != table.decide(text).verdict { differ += 1 }
}
let baselineRate = Double(baselineCount) / seconds(baselineTime)

let ruleCount = generated.reduce(0) { $0 + $1.paths.count }
print("inventory: \(appCount) apps, \(ruleCount) rules, built and compiled in \(Int(setupSeconds * 1000)) ms")
print(
  "scan: \(urlCount) URLs in \(fixed(seconds(scanTime), 2)) s: \(Int(scanRate)) URLs/s "
    + "(match \(counts[.match, default: 0]), exclude \(counts[.exclude, default: 0]), "
    + "no-match \(counts[.noMatch, default: 0]))")
print("per-app matcher: \(Int(baselineRate)) URLs/s on the first \(baselineCount) URLs")
print(
  "ratio: \(fixed(scanRate / baselineRate, 1))x faster (verdicts compared on \(baselineCount) URLs, "
    + "\(differ) differ)")
print("peak memory of the scan (inventory, table, \(urlCount) URLs streamed): \(fixed(peakMiB, 0)) MiB")
