import Foundation
import TestServers

@testable import IPALinksKit

/// A test HTTPS server plus a scratch cache folder, torn down after the body even when it throws.
struct FetchHarness {
  let server: HTTPSTestServer
  let cacheDirectory: URL

  static let wellKnown = "/.well-known/apple-app-site-association"
  static let root = "/apple-app-site-association"
  static let sampleJSON =
    #"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.app"],"components":[{"/":"/x/*"}]}]}}"#

  static func run(
    authority: TestCertificateAuthority? = nil, dnsNames: [String] = HTTPSTestServer.defaultDNSNames,
    _ body: (FetchHarness) async throws -> Void
  ) async throws {
    let server = try await HTTPSTestServer.start(authority: authority, dnsNames: dnsNames)
    let cache = FileManager.default.temporaryDirectory.appendingPathComponent("ipalinks-fetch-\(UUID().uuidString)")
    let harness = FetchHarness(server: server, cacheDirectory: cache)
    do {
      try await body(harness)
    } catch {
      await server.stop()
      try? FileManager.default.removeItem(at: cache)
      throw error
    }
    await server.stop()
    try? FileManager.default.removeItem(at: cache)
  }

  /// Options that route every host to the test server and trust its CA; loopback is allowed because the test server
  /// lives there (the address guard has its own tests). The system roots are left out unless asked for: loading them
  /// is most of a debug build's CPU time, and the tests run in parallel.
  func options(
    source: AASAFetchOptions.Source = .direct, timeout: Duration = TestTiming.seconds(5), cache: Bool = false,
    offline: Bool = false, concurrency: Int = 8, systemRoots: Bool = false
  ) -> AASAFetchOptions {
    var options = AASAFetchOptions(
      source: source, timeout: timeout, concurrency: concurrency, extraRootsPEM: [server.caPEM], allowPrivate: true,
      connectTo: [try! ConnectToRule.parse(server.connectToEverything)],
      cacheDirectory: cache ? cacheDirectory : nil, offline: offline)
    options.trustsSystemRoots = systemRoots
    return options
  }

  func fetch(
    _ host: String, developerMode: Bool = false, _ options: AASAFetchOptions
  ) async throws -> AASAFetchResult {
    let fetcher = try AASAFetcher(options: options)
    let request = AASARequest(host: host, developerMode: developerMode)
    let results = await fetcher.fetch([request])
    guard let result = results[request] else { throw HarnessError.noResult(host) }
    return result
  }

  enum HarnessError: Error { case noResult(String) }
}

extension Duration {
  var inSeconds: Double {
    let (s, atto) = components
    return Double(s) + Double(atto) / 1e18
  }
}
