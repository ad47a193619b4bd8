import ArgumentParser
import Foundation
import IPALinksKit

extension AASAFetchOptions.Source: ExpressibleByArgument {}

/// The AASA retrieval flags shared by `inspect`, `fetch` and `blocklist`; turns them into ``AASAFetchOptions``.
struct FetchOptions: ParsableArguments {
  @Option(
    help: """
      Where AASA files come from: cdn (Apple's CDN, what devices use since iOS 14), direct (the domain itself), \
      or both (compared).
      """)
  var source: AASAFetchOptions.Source = .cdn

  @Flag(help: "Use only the on-disk cache; never touch the network.")
  var offline = false

  @Option(
    name: .customLong("aasa-dir"),
    help: ArgumentHelp(
      "Read <dir>/<host> or <dir>/<host>.json instead of the network. Repeatable: the folders are searched in order.",
      valueName: "dir"))
  var aasaDirectories: [String] = []

  @Option(help: ArgumentHelp("Seconds allowed for each request: connect, TLS, headers and body.", valueName: "seconds"))
  var timeout: Double = 10

  @Option(help: "How many domains to fetch at once.")
  var concurrency: Int = 8

  @Option(
    name: .customLong("ca-file"),
    help: ArgumentHelp("Extra trusted root certificates (PEM), added to the system roots.", valueName: "pem"))
  var caFile: String?

  @Flag(help: "Allow connecting to loopback, private, link-local and other non-public addresses.")
  var allowPrivate = false

  @Option(
    name: .customLong("connect-to"),
    help: ArgumentHelp(
      "Connect to HOST2:PORT2 instead of HOST1:PORT1, keeping SNI, certificate name and Host (curl's syntax). Repeatable.",
      valueName: "HOST1:PORT1:HOST2:PORT2"))
  var connectTo: [String] = []

  @Flag(name: .customLong("no-cache"), help: "Neither read nor write the on-disk cache.")
  var noCache = false

  @Option(
    name: .customLong("cache-dir"),
    help: ArgumentHelp("Cache folder (default: $XDG_CACHE_HOME/ipalinks, else ~/.cache/ipalinks).", valueName: "dir"))
  var cacheDirectory: String?

  /// ArgumentParser calls this before `run()`, so a bad flag is a usage error (exit 64) before any work starts.
  func validate() throws {
    _ = try makeFetchOptions()
  }

  /// The library options, or a `ValidationError` (exit 64) naming every bad flag.
  func makeFetchOptions(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> AASAFetchOptions
  {
    try usageError {
      try AASAFetchOptions(
        source: source, offline: offline, aasaDirectories: aasaDirectories, timeout: timeout,
        concurrency: concurrency, caFile: caFile, allowPrivate: allowPrivate, connectTo: connectTo, noCache: noCache,
        cacheDirectory: cacheDirectory, environment: environment)
    }
  }

  /// A fetcher with these options; a bad option is a usage error. Without `cachedCopyStandsIn`, a cached copy never
  /// stands in for an answer (``AASAFetchOptions/cachedCopyStandsIn``).
  func makeFetcher(cachedCopyStandsIn: Bool = true) throws -> AASAFetcher {
    var options = try makeFetchOptions()
    options.cachedCopyStandsIn = cachedCopyStandsIn
    return try usageError { try AASAFetcher(options: options) }
  }
}
