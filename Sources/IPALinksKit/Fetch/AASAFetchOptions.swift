import Foundation

/// How ``AASAFetcher`` retrieves apple-app-site-association files. Each retrieval flag of the CLI maps onto one field.
public struct AASAFetchOptions: Sendable {
  /// Where files come from.
  public enum Source: String, Sendable, Codable, CaseIterable {
    /// Apple's CDN, `app-site-association.cdn-apple.com`: what devices use since iOS 14.
    case cdn
    /// The domain itself, `/.well-known/` then the root, as pre-iOS 14 devices did.
    case direct
    /// The CDN as the main result, with the direct fetch beside it in ``AASAFetchResult/comparison``.
    case both
  }

  /// Which origin to ask; `developerMode` requests go direct whatever this says, as devices do.
  public var source: Source
  /// The deadline of one HTTP exchange: name resolution, connect, TLS, headers and the whole body.
  /// A server that stalls is abandoned at this point, whatever it sends.
  public var timeout: Duration
  /// How many domains are in flight at once; fetches overlap, so 50 domains do not take 50 round trips.
  public var concurrency: Int
  /// Extra trust anchors (PEM text, one or more certificates each), added to the system roots, never replacing them.
  public var extraRootsPEM: [String]
  /// Allows connecting to loopback, private, link-local, CGNAT and reserved addresses, which are refused by default
  /// because the domains come from an untrusted app.
  public var allowPrivate: Bool
  /// curl-style `--connect-to` rules, applied in order; the first match wins.
  public var connectTo: [ConnectToRule]
  /// Where cached files live; nil disables the cache entirely (no reads, no writes).
  public var cacheDirectory: URL?
  /// Whether the cache's folder was named (`--cache-dir`) rather than the default: offline, one that is not there is
  /// then said with every host it has no copy of, as the name was likely mistyped.
  public var cacheDirectoryNamed = false
  /// Whether a cached copy is served in place of the site's answer: while it is fresh, offline, and for an answer
  /// that cannot be used (the server down, an answer a captive portal gives as readily as the site). `refresh`
  /// turns it off: its store keeps the last good file itself, and must record what the site answers now, not a copy
  /// of what it answered then (a fresh copy hid a change; an old one, offline, rolled the store back).
  public var cachedCopyStandsIn = true
  /// Use only the cache; nothing touches the network.
  public var offline: Bool
  /// Read `<dir>/<host>` or `<dir>/<host>.json` from the first of these folders that has it, instead of the
  /// network (air-gapped audits, demos).
  public var aasaDirectories: [URL]
  /// Devices abort past 128 KB, so a larger file is reported as `too-large` and never read further.
  public var maximumBytes: Int
  /// The retrieval flags that changed anything, by name, when the options came from a command line: what a saved
  /// inventory, whose AASA files were fetched when it was saved, cannot apply.
  public var flagsGiven: [String] = []
  /// Tests turn this off: loading the system's roots dominates a debug build's CPU time, and the tests' servers are
  /// signed by their own CA. One test keeps it on to show the two sets combine.
  var trustsSystemRoots = true

  /// Defaults mirror a device (the CDN, the 128 KB cap), connect to public addresses only and use no cache.
  public init(
    source: Source = .cdn,
    timeout: Duration = .seconds(10),
    concurrency: Int = 8,
    extraRootsPEM: [String] = [],
    allowPrivate: Bool = false,
    connectTo: [ConnectToRule] = [],
    cacheDirectory: URL? = nil,
    offline: Bool = false,
    aasaDirectories: [URL] = [],
    maximumBytes: Int = 131_072
  ) {
    self.source = source
    self.timeout = timeout
    self.concurrency = concurrency
    self.extraRootsPEM = extraRootsPEM
    self.allowPrivate = allowPrivate
    self.connectTo = connectTo
    self.cacheDirectory = cacheDirectory
    self.offline = offline
    self.aasaDirectories = aasaDirectories
    self.maximumBytes = maximumBytes
  }

  /// Where the cache lives unless told otherwise: `$XDG_CACHE_HOME/ipalinks` when that is an absolute path (as the
  /// XDG spec requires), else `~/.cache/ipalinks` (`$HOME`, else the user's home folder).
  public static func defaultCacheDirectory(_ environment: [String: String]) -> URL {
    if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
      return URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent("ipalinks", isDirectory: true)
    }
    let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
    return URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".cache/ipalinks", isDirectory: true)
  }

  /// The options the retrieval flags of the command line ask for, every flag checked: a bad timeout or concurrency,
  /// a `--connect-to` rule, a missing folder, an unreadable CA file, contradicting cache flags. Every problem is
  /// thrown at once, one line each, so a user fixes them in one go.
  public init(
    source: Source, offline: Bool, aasaDirectories: [String], timeout: Double, concurrency: Int, caFile: String?,
    allowPrivate: Bool, connectTo: [String], noCache: Bool, cacheDirectory: String?, environment: [String: String]
  ) throws(FlagProblems) {
    var problems: [String] = []
    self.init(source: source, allowPrivate: allowPrivate, offline: offline)
    let given: [(String, Bool)] = [
      ("--source", source != .cdn), ("--offline", offline), ("--aasa-dir", !aasaDirectories.isEmpty),
      ("--timeout", timeout != 10), ("--concurrency", concurrency != 8), ("--ca-file", caFile != nil),
      ("--allow-private", allowPrivate), ("--connect-to", !connectTo.isEmpty), ("--no-cache", noCache),
      ("--cache-dir", cacheDirectory != nil),
    ]
    flagsGiven = given.filter(\.1).map(\.0)
    if timeout.isFinite && timeout > 0 && timeout <= 3600 {
      self.timeout = .milliseconds(Int64((timeout * 1000).rounded(.up)))
    } else {
      problems.append("--timeout must be a number of seconds above 0 and at most 3600")
    }
    if (1...256).contains(concurrency) {
      self.concurrency = concurrency
    } else {
      problems.append("--concurrency must be from 1 to 256")
    }
    for rule in connectTo {
      do throws(AASAFetchError) {
        self.connectTo.append(try ConnectToRule.parse(rule))
      } catch {
        guard case .invalidConnectTo(_, let reason) = error else { problems.append("--connect-to: \(error)"); continue }
        problems.append("--connect-to \"\(rule)\": \(reason)")
      }
    }
    if noCache && cacheDirectory != nil { problems.append("--no-cache and --cache-dir contradict each other") }
    if noCache && offline {
      problems.append("--offline reads only the cache, so it cannot be combined with --no-cache")
    }
    if !noCache { self.cacheDirectory = cacheDirectory.map(Self.folder) ?? Self.defaultCacheDirectory(environment) }
    cacheDirectoryNamed = cacheDirectory != nil
    for directory in aasaDirectories {
      var isDirectory: ObjCBool = false
      if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue {
        self.aasaDirectories.append(Self.folder(directory))
      } else {
        // A file given where a folder belongs is told apart from a name that is not there.
        let why = FileManager.default.fileExists(atPath: directory) ? "not a folder" : "no such folder"
        problems.append("--aasa-dir \(TerminalText.escape(directory)): \(why)")
      }
    }
    if let caFile {
      if let data = FileManager.default.contents(atPath: caFile), data.count <= 1 << 20,
        let pem = String(data: data, encoding: .utf8), pem.contains("-----BEGIN CERTIFICATE-----")
      {
        extraRootsPEM = [pem]
      } else {
        problems.append("--ca-file \(caFile): not a readable PEM file of certificates")
      }
    }
    guard problems.isEmpty else { throw FlagProblems(lines: problems) }
    do {
      _ = try AASAFetcher(options: self)  // parses the CA file's certificates
    } catch {
      throw FlagProblems(lines: ["\(caFile.map { "--ca-file \($0): " } ?? "")\(error)"])
    }
  }

  /// What is wrong with the retrieval flags, one line per problem.
  public struct FlagProblems: Error, Sendable, CustomStringConvertible {
    /// Each problem, naming its flag.
    public var lines: [String]
    /// The lines, one a line.
    public var description: String { lines.joined(separator: "\n") }
  }

  /// A folder named on the command line, `~` expanded.
  private static func folder(_ path: String) -> URL {
    URL(fileURLWithPath: (path as NSString).expandingTildeInPath, isDirectory: true)
  }

  /// All problems at once, so a user fixes them in one go.
  func validationErrors() -> [AASAFetchError] {
    var errors: [AASAFetchError] = []
    if timeout <= .zero { errors.append(.invalidOption(name: "timeout", reason: "must be more than zero")) }
    if concurrency < 1 { errors.append(.invalidOption(name: "concurrency", reason: "must be at least 1")) }
    if maximumBytes < 1 { errors.append(.invalidOption(name: "maximumBytes", reason: "must be at least 1")) }
    return errors
  }
}

/// One unit of work for ``AASAFetcher``: a host whose AASA file is wanted.
public struct AASARequest: Sendable, Hashable, Codable {
  /// Lowercased, without a `*.` wildcard prefix: `*.example.com` takes its file from `example.com`.
  public var host: String
  /// `?mode=developer` domains are fetched direct from `/.well-known/` only, whatever the source option says.
  public var developerMode: Bool

  /// Stores `host` as given: callers lowercase it and strip `*.` first, as ``host`` requires.
  public init(host: String, developerMode: Bool = false) {
    self.host = host
    self.developerMode = developerMode
  }
}
