// `make bench-refresh`: `refresh` of a store whose apps claim 10,000 hosts, from one loopback HTTPS server that waits
// 200 ms before every answer, against the ideal `latency × ceil(hosts / concurrency)` and against fetching the same
// hosts without a store, in the same run. 1% of the hosts serve a changed file, so the comparison path runs too.
// Exits 1 when the refresh takes more than 1.1× the ideal, or finds other than the changes it was given.
import Foundation
import IPALinksKit
import IPALinksStore
import TestServers

let arguments = CommandLine.arguments
func option(_ name: String, _ fallback: Int) -> Int {
  arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? Int(arguments[$0 + 1]) : nil }
    ?? fallback
}
let hostCount = option("--hosts", 10_000)
let concurrency = option("--concurrency", 64)
let hostsPerApp = 10
let latency = Duration.milliseconds(200)
let path = "/.well-known/apple-app-site-association"

func file(_ pattern: String) -> String {
  #"{"applinks":{"details":[{"appIDs":["BENCH12345.com.example.app"],"components":[{"/":"\#(pattern)"}]}]}}"#
}
func host(_ i: Int) -> String { "h\(i).bench.test" }
func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
func peakMiB() -> Double {
  var usage = rusage()
  #if os(Linux)
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_maxrss) / 1024  // KiB on Linux
  #else
    getrusage(RUSAGE_SELF, &usage)
    return Double(usage.ru_maxrss) / 1_048_576  // bytes on macOS
  #endif
}

let server = try await HTTPSTestServer.start()
server.respond(path: path, with: .json(file("/*"), delay: latency))
let changed = Set(stride(from: 0, to: hostCount, by: 100))
for i in changed { server.respond(host: host(i), path: path, with: .json(file("/new/*"), delay: latency)) }

// A store whose latest apps claim every host, each host's file already retrieved once.
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ipalinks-bench-refresh-\(UUID())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let store = try await AuditStore.open(try StoreLocation(folder.appendingPathComponent("audit.db").path))
let week = Date() - 7 * 86_400
let seed = try await RunRecorder.begin(store, command: "inspect", arguments: [], label: "seed", shard: nil, at: week)
var ignored: [Diagnostic] = []
for app in 0..<((hostCount + hostsPerApp - 1) / hostsPerApp) {
  var bundle = BundleReport(path: "Payload/App\(app).app", kind: .app)
  (bundle.bundleId, bundle.appId) = ("com.example.app\(app)", "BENCH12345.com.example.app\(app)")
  let hosts = (app * hostsPerApp..<min(hostCount, (app + 1) * hostsPerApp)).map(host)
  bundle.associatedDomains = hosts.map { AssociatedDomain.parse("applinks:" + $0, diagnostics: &ignored) }
  let retrievals = Dictionary(
    uniqueKeysWithValues: hosts.map { name in
      (
        AASARequest(host: name),
        AASARetrieval(
          AASAFetchResult(
            host: name, status: .ok, source: .directWellKnown, message: "ok", body: Array(file("/*").utf8)))
      )
    })
  try await seed.record(
    InspectionReport(input: "app\(app).ipa", inputKind: .ipa, bundles: [bundle]), retrievals: retrievals, at: week)
}
try await seed.finish(at: week)

let options = AASAFetchOptions(
  source: .direct, timeout: .seconds(30), concurrency: concurrency, extraRootsPEM: [server.caPEM],
  allowPrivate: true, connectTo: [try ConnectToRule.parse(server.connectToEverything)])
let ideal = seconds(latency) * Double((hostCount + concurrency - 1) / concurrency)
print(
  "RefreshBenchmark: \(hostCount) hosts claimed by \(hostCount / hostsPerApp) apps, \(Int(seconds(latency) * 1000)) ms "
    + "server latency each, concurrency \(concurrency), one loopback HTTPS server; ideal \(String(format: "%.1f", ideal)) s"
)
print("run                          wall (s)   ÷ ideal   ÷ fetch alone   peak RSS (MiB)")

// The refresh first, so that the peak it leaves is its own (and the seed's), then the baseline: the same hosts
// fetched without a store, with the results kept, as `fetch` keeps them.
var start = ContinuousClock.now
let refresh = try await store.refresh(with: try AASAFetcher(options: options), label: "bench", arguments: [])
let wall = seconds(ContinuousClock.now - start)
let refreshPeak = peakMiB()

start = ContinuousClock.now
let fetched = await (try AASAFetcher(options: options)).fetch((0..<hostCount).map { AASARequest(host: host($0)) })
let fetchWall = seconds(ContinuousClock.now - start)
print(
  String(
    format: "fetch alone (no store)      %9.2f  %8.2f  %14.2f  %15.0f", fetchWall, fetchWall / ideal, 1.0, peakMiB()))
print(
  String(
    format: "refresh --store (SQLite)    %9.2f  %8.2f  %14.2f  %15.0f", wall, wall / ideal, wall / fetchWall,
    refreshPeak))
try await store.close()
await server.stop()

let counts = Refresh.Outcome.allCases.map { "\(refresh.count($0)) \($0.rawValue)" }.joined(separator: ", ")
print("outcomes: \(counts)")
var failures: [String] = []
if fetched.values.contains(where: { $0.status != .ok }) { failures.append("some fetches failed") }
if refresh.count(.changed) != changed.count || refresh.count(.unchanged) != hostCount - changed.count {
  failures.append("expected \(changed.count) changed and \(hostCount - changed.count) unchanged")
}
if wall / ideal > 1.1 { failures.append(String(format: "the refresh took %.2f× the ideal", wall / ideal)) }
if failures.isEmpty {
  print("RefreshBenchmark: OK, within 1.1× the ideal")
} else {
  print("RefreshBenchmark: FAILED: " + failures.joined(separator: "; "))
  exit(1)
}
