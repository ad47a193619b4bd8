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
    help: ArgumentHelp("Read <dir>/<host> or <dir>/<host>.json instead of the network.", valueName: "dir"))
  var aasaDirectory: String?

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
    var problems: [String] = []
    var options = AASAFetchOptions(source: source, offline: offline)

    if timeout.isFinite && timeout > 0 && timeout <= 3600 {
      options.timeout = .milliseconds(Int64((timeout * 1000).rounded(.up)))
    } else {
      problems.append("--timeout must be a number of seconds above 0 and at most 3600")
    }
    if (1...256).contains(concurrency) {
      options.concurrency = concurrency
    } else {
      problems.append("--concurrency must be from 1 to 256")
    }
    for rule in connectTo {
      do throws(AASAFetchError) {
        options.connectTo.append(try ConnectToRule.parse(rule))
      } catch {
        if case .invalidConnectTo(_, let reason) = error {
          problems.append("--connect-to \"\(rule)\": \(reason)")
        } else {
          problems.append("--connect-to: \(error)")
        }
      }
    }
    options.allowPrivate = allowPrivate

    if noCache && cacheDirectory != nil { problems.append("--no-cache and --cache-dir contradict each other") }
    if noCache && offline {
      problems.append("--offline reads only the cache, so it cannot be combined with --no-cache")
    }
    if !noCache {
      options.cacheDirectory = cacheDirectory.map(Self.url) ?? AASAFetchOptions.defaultCacheDirectory(environment)
    }

    if let aasaDirectory {
      var isDirectory: ObjCBool = false
      if FileManager.default.fileExists(atPath: aasaDirectory, isDirectory: &isDirectory), isDirectory.boolValue {
        options.aasaDirectory = Self.url(aasaDirectory)
      } else {
        problems.append("--aasa-dir \(aasaDirectory): no such folder")
      }
    }
    if let caFile {
      if let data = FileManager.default.contents(atPath: caFile), data.count <= 1 << 20,
        let pem = String(data: data, encoding: .utf8), pem.contains("-----BEGIN CERTIFICATE-----")
      {
        options.extraRootsPEM = [pem]
      } else {
        problems.append("--ca-file \(caFile): not a readable PEM file of certificates")
      }
    }
    guard problems.isEmpty else { throw ValidationError(problems.joined(separator: "\n")) }
    do {
      _ = try AASAFetcher(options: options)  // parses the CA file's certificates
    } catch {
      throw ValidationError("\(caFile.map { "--ca-file \($0): " } ?? "")\(error)")
    }
    return options
  }

  /// A fetcher with these options; a bad option is a usage error.
  func makeFetcher() throws -> AASAFetcher {
    do {
      return try AASAFetcher(options: try makeFetchOptions())
    } catch let error as AASAFetchError {
      throw ValidationError("\(error)")
    }
  }

  private static func url(_ path: String) -> URL {
    URL(fileURLWithPath: (path as NSString).expandingTildeInPath, isDirectory: true)
  }
}
