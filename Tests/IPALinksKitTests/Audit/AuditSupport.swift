import Foundation

@testable import IPALinksKit

/// The committed samples, inspected and joined with `samples/aasa` the way `inspect --aasa-dir` does.
enum InspectedSamples {
  static func report(_ name: String) async throws -> InspectionReport {
    try await reports([name])[0]
  }

  static func reports(_ names: [String]) async throws -> [InspectionReport] {
    var options = AASAFetchOptions()
    options.aasaDirectories = [Fixtures.samples.appendingPathComponent("aasa")]
    let fetches = SharedAASAFetches(fetcher: try AASAFetcher(options: options))
    var out: [InspectionReport] = []
    for name in names {
      out.append(await BatchInspector.inspect(Fixtures.samples.appendingPathComponent(name).path, fetches: fetches))
    }
    return out
  }
}
