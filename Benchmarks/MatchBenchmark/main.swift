// Measures the compiled matcher against a naive baseline that translates each AASA pattern to an
// NSRegularExpression and tries them in order, on the same 1,000-pattern file and the same URLs.
// Then runs the rule 12 stress: 10,000 star-heavy patterns against 10,000 hostile URLs.
//
//   swift run -c release --scratch-path .build-matcher MatchBenchmark [--count]
import BenchmarkSupport
import Foundation
import UniversalLinks

let appID = "ABCDE12345.com.example.app"
let host = "example.com"
var rng = SplitMix(state: 2024)

// MARK: - The 1,000-pattern file

/// One component as JSON plus a URL that it matches (nil when none is generated for it).
func template(_ i: Int) -> (json: String, url: String) {
  switch i % 8 {
  case 0: return (##"{"/": "/s\##(i)/private/*", "exclude": true}"##, "/s\(i)/private/x")
  case 1: return (##"{"/": "/s\##(i)/*"}"##, "/s\(i)/a/b")
  case 2: return (##"{"/": "/p\##(i)/*/item-?*", "?": {"ref": "?*"}}"##, "/p\(i)/cat/item-9?ref=home")
  case 3: return (##"{"/": "/$(lang)/c\##(i)/*"}"##, "/fr/c\(i)/page")
  case 4: return (##"{"/": "/x\##(i)/*", "#": "no-app", "exclude": true}"##, "/x\(i)/y#no-app")
  case 5: return (##"{"/": "/A\##(i)", "caseSensitive": false}"##, "/a\(i)")
  case 6: return (##"{"/": "*/t\##(i)/*.html"}"##, "/en/t\(i)/doc.html")
  default: return (##"{"/": "/q", "?": "id=\##(i)&*"}"##, "/q?id=\(i)&v=2")
  }
}

let templates = (0..<1000).map(template)
let fileJSON =
  #"{"applinks": {"details": [{"appIDs": ["\#(appID)"], "components": ["#
  + templates.map(\.json).joined(separator: ",\n") + "]}]}}"
let file = try AASAFile(json: fileJSON)
precondition(!file.exceedsDeviceSizeLimit, "benchmark file must stay under 128 KB")

/// URLs: 80% built to match a random component (so on average half the file is scanned), 20% matching nothing.
func makeURLs(_ count: Int, _ rng: inout SplitMix) -> [String] {
  (0..<count).map { _ in
    if Int.random(in: 0..<5, using: &rng) == 0 {
      return "https://\(host)/nothing/\(Int.random(in: 0..<100_000, using: &rng))/here?q=1"
    }
    return "https://\(host)" + templates[Int.random(in: 0..<templates.count, using: &rng)].url
  }
}

// MARK: - Naive baseline: one NSRegularExpression per pattern, tried in order

struct RegexRule {
  var path: NSRegularExpression?
  var query: NSRegularExpression?
  var items: [(String, NSRegularExpression)] = []
  var fragment: NSRegularExpression?
  var exclude: Bool
}

func regex(_ pattern: String, caseInsensitive: Bool, isPath: Bool) -> NSRegularExpression {
  var source = pattern
  if isPath {
    while source.contains("**") { source = source.replacingOccurrences(of: "**", with: "*") }
    while source.contains("//") { source = source.replacingOccurrences(of: "//", with: "/") }
    if !source.hasPrefix("*") && !source.hasPrefix("/") { source = "/" + source }
    if !source.hasSuffix("*") && !source.hasSuffix("/") { source += "/" }
  }
  var out = "^"
  var rest = Substring(source)
  while let c = rest.first {
    if rest.hasPrefix("$("), let close = rest.firstIndex(of: ")") {
      let name = String(rest[rest.index(rest.startIndex, offsetBy: 2)..<close])
      let values = BuiltinVariables.values(of: name) ?? []
      out += "(?:" + values.map { NSRegularExpression.escapedPattern(for: $0) }.joined(separator: "|") + ")"
      rest = rest[rest.index(after: close)...]
      continue
    }
    switch c {
    case "*": out += ".*"
    case "?": out += "."
    default: out += NSRegularExpression.escapedPattern(for: String(c))
    }
    rest = rest.dropFirst()
  }
  out += "$"
  let options: NSRegularExpression.Options =
    caseInsensitive ? [.caseInsensitive, .dotMatchesLineSeparators] : [.dotMatchesLineSeparators]
  return try! NSRegularExpression(pattern: out, options: options)
}

func baselineRules(_ json: String) -> [RegexRule] {
  let root = try! JSONSerialization.jsonObject(with: Data(json.utf8)) as! [String: Any]
  let details = (root["applinks"] as! [String: Any])["details"] as! [[String: Any]]
  return (details[0]["components"] as! [[String: Any]]).map { c in
    let ci = (c["caseSensitive"] as? Bool) == false
    var rule = RegexRule(exclude: (c["exclude"] as? Bool) ?? false)
    rule.path = (c["/"] as? String).map { regex($0, caseInsensitive: ci, isPath: true) }
    rule.fragment = (c["#"] as? String).map { regex($0, caseInsensitive: ci, isPath: false) }
    if let q = c["?"] as? String { rule.query = regex(q, caseInsensitive: ci, isPath: false) }
    if let q = c["?"] as? [String: String] {
      rule.items = q.map { ($0.key, regex($0.value, caseInsensitive: ci, isPath: false)) }
    }
    return rule
  }
}

func whole(_ r: NSRegularExpression, _ s: String) -> Bool {
  r.firstMatch(in: s, range: NSRange(location: 0, length: (s as NSString).length)) != nil
}

func baselineVerdict(_ rules: [RegexRule], _ url: String) -> MatchResult.Verdict {
  guard let c = URLComponents(string: url) else { return .noMatch }
  var path = c.percentEncodedPath
  while path.contains("//") { path = path.replacingOccurrences(of: "//", with: "/") }
  if !path.hasPrefix("/") { path = "/" + path }
  if !path.hasSuffix("/") { path += "/" }
  let query = c.percentEncodedQuery ?? ""
  let fragment = c.percentEncodedFragment ?? ""
  let items: [(String, String)] =
    query.isEmpty
    ? []
    : query.split(separator: "&", omittingEmptySubsequences: false).map { item in
      let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
    }
  for rule in rules {
    if let r = rule.path, !whole(r, path) { continue }
    if let r = rule.fragment, !whole(r, fragment) { continue }
    if let r = rule.query, !whole(r, query) { continue }
    let itemsOK = rule.items.allSatisfy { name, r in
      let values = items.filter { $0.0 == name }.map(\.1)
      return values.isEmpty ? whole(r, "") : values.allSatisfy { whole(r, $0) }
    }
    if !itemsOK { continue }
    return rule.exclude ? .exclude : .match
  }
  return .noMatch
}

// MARK: - Measurement

let clock = ContinuousClock()

/// Runs `body` over `urls` repeatedly until at least `minimum` has passed; returns URLs per second.
func throughput(_ urls: [String], minimum: Double, _ body: (String) -> MatchResult.Verdict) -> (Double, Int) {
  var done = 0
  var sink = 0
  let start = clock.now
  repeat {
    for url in urls where body(url) == .match { sink += 1 }
    done += urls.count
  } while seconds(clock.now - start) < minimum
  return (Double(done) / seconds(clock.now - start), sink)
}

let compileStart = clock.now
let matcher = file.matcher(appID: appID)
let compileTime = seconds(clock.now - compileStart)
let regexRules = baselineRules(fileJSON)
let urls = makeURLs(20_000, &rng)
let baselineURLs = Array(urls.prefix(600))

// With `--count`, only two untimed passes over the URLs, in a function of its own for callgrind to count alone:
// `valgrind --tool=callgrind --toggle-collect='*matchEach*' MatchBenchmark --count` gives the instructions the
// matcher takes, which a shared machine's speed does not move.
if CommandLine.arguments.contains("--count") {
  @inline(never) func matchEach(_ urls: [String]) -> Int {
    urls.reduce(0) { $0 + (matcher.verdict(for: $1, domain: host).verdict == .match ? 1 : 0) }
  }
  print("count: \(urls.count) URLs twice, \(matchEach(urls) + matchEach(urls)) matches")
  exit(0)
}
var mismatches = 0
for url in baselineURLs where matcher.verdict(for: url, domain: host).verdict != baselineVerdict(regexRules, url) {
  mismatches += 1
}

print(
  "AASA file: \(templates.count) patterns, \(file.byteCount) bytes; compiled in \(String(format: "%.1f", compileTime * 1000)) ms"
)
// Passes over the same URLs for at least 3 s: the median pass is the figure, and the best shows what an idle
// machine gives (on a shared machine, one slow pass says more about the neighbours than about the matcher).
var rates: [Double] = []
var matchedSink = 0
let passesStart = clock.now
repeat {
  let start = clock.now
  for url in urls where matcher.verdict(for: url, domain: host).verdict == .match { matchedSink += 1 }
  rates.append(Double(urls.count) / seconds(clock.now - start))
} while seconds(clock.now - passesStart) < 3
rates.sort()
let compiled = rates[rates.count / 2]
print(String(format: "compiled matcher:            %12.0f URLs/s", compiled))
print(String(format: "  (the median of %d passes over %d URLs; the best: %.0f)", rates.count, urls.count, rates.last!))
let (baseline, _) = throughput(baselineURLs, minimum: 5) { baselineVerdict(regexRules, $0) }
print(String(format: "NSRegularExpression baseline: %11.0f URLs/s", baseline))
print(
  String(
    format: "ratio: %.1fx faster (verdicts compared on %d URLs, %d differ)", compiled / baseline, baselineURLs.count,
    mismatches))

// MARK: - Rule 12 stress

var stressPatterns: [AASAComponent] = []
for i in 0..<10_000 {
  let body = (0..<8).map { _ in String("ab/".randomElement(using: &rng)!) }.joined(separator: "*")
  stressPatterns.append(AASAComponent(index: i, path: "*\(body)*\(i % 2 == 0 ? "$(digit)" : "?")*zz*"))
}
// Built in code: 10,000 patterns are over 128 KB as JSON, and devices refuse such a file.
let stressFile = AASAFile(
  applinks: AppLinks(details: [AppLinksDetail(index: 0, appIDs: [appID], rules: .components(stressPatterns))]))
let stress = stressFile.matcher(appID: appID)

func run(_ label: String, _ urls: [String]) {
  var matched = 0
  let elapsed = clock.measure {
    for url in urls where stress.verdict(for: url).verdict != .noMatch { matched += 1 }
  }
  print(
    String(
      format: "rule 12 stress, %@: 10,000 patterns x %d URLs in %.2f s (%d matched)", label, urls.count,
      seconds(elapsed), matched))
}

// Classic backtracking killers: long runs of the pattern letters, without the final "zz".
let hostile = (0..<10_000).map { i in
  "https://\(host)/" + String(repeating: i % 2 == 0 ? "a" : "ab/", count: 60 + i % 40) + "z\(i)"
}
run("long runs", hostile)
// Adversarial: "zz" and digits are present but before the letters, so no pre-check can reject and every
// pattern runs its ordered search (linear in the URL, never exponential).
let adversarial = (0..<10_000).map { i in
  "https://\(host)/zz\(i)/" + String((0..<40).map { _ in "ab/".randomElement(using: &rng)! })
}
run("right characters, wrong order", adversarial)
