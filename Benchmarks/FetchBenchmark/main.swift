// Fetches 200 fake domains from one loopback HTTPS server that waits 200 ms before every answer, sequentially and
// with bounded concurrency, and checks each concurrent run against the ideal `latency × ceil(domains / concurrency)`.
// Exits 1 when a concurrent run takes more than twice the ideal.
import Foundation
import IPALinksKit
import TestServers

let latency = Duration.milliseconds(200)
let domains = 200
let sequentialSample = 20  // 200 sequential fetches would take 40 s; 20 are timed and the total extrapolated.

let server = try await HTTPSTestServer.start()
server.respond(
  path: "/.well-known/apple-app-site-association",
  with: .json(
    #"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.app"],"components":[{"/":"/*"}]}]}}"#, delay: latency))

func seconds(_ d: Duration) -> Double {
  Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
}

/// Fetches `count` distinct hosts with `concurrency`; returns the wall time in seconds.
func run(concurrency: Int, count: Int, tag: String) async throws -> Double {
  let options = AASAFetchOptions(
    source: .direct, timeout: .seconds(30), concurrency: concurrency, extraRootsPEM: [server.caPEM],
    allowPrivate: true, connectTo: [try ConnectToRule.parse(server.connectToEverything)])
  let fetcher = try AASAFetcher(options: options)
  let requests = (0..<count).map { AASARequest(host: "\(tag)-\($0).bench.test") }
  let start = ContinuousClock.now
  let results = await fetcher.fetch(requests)
  let elapsed = seconds(ContinuousClock.now - start)
  let failed = results.values.filter { $0.status != .ok }
  guard failed.isEmpty, results.count == count else {
    print(
      "FetchBenchmark: \(failed.count) of \(count) fetches failed, e.g. \(failed.first?.message ?? "missing results")")
    exit(1)
  }
  return elapsed
}

let latencySeconds = seconds(latency)
print(
  "FetchBenchmark: \(domains) domains, \(Int(latencySeconds * 1000)) ms server latency each, one loopback HTTPS server")
print("concurrency  domains timed   wall (s)   ideal (s)   ratio")

let sample = try await run(concurrency: 1, count: sequentialSample, tag: "seq")
let sequentialTotal = sample * Double(domains) / Double(sequentialSample)
let sequentialIdeal = latencySeconds * Double(domains)
print(
  String(
    format: "%11d  %13d  %9.2f  %10.2f  %6.2f   (sequential: %d timed in %.2f s, extrapolated to %d)", 1,
    sequentialSample, sequentialTotal, sequentialIdeal, sequentialTotal / sequentialIdeal, sequentialSample, sample,
    domains))

var failures: [String] = []
for concurrency in [8, 32] {
  let wall = try await run(concurrency: concurrency, count: domains, tag: "c\(concurrency)")
  let ideal = latencySeconds * Double((domains + concurrency - 1) / concurrency)
  let ratio = wall / ideal
  print(String(format: "%11d  %13d  %9.2f  %10.2f  %6.2f", concurrency, domains, wall, ideal, ratio))
  if ratio > 2 { failures.append("concurrency \(concurrency) took \(String(format: "%.2f", ratio))× the ideal") }
  print(String(format: "             speed-up over sequential: %.1f×", sequentialTotal / wall))
}

await server.stop()
if failures.isEmpty {
  print("FetchBenchmark: OK, every concurrent run within 2× the ideal")
} else {
  print("FetchBenchmark: FAILED: " + failures.joined(separator: "; "))
  exit(1)
}
