internal import AsyncHTTPClient
import Foundation
internal import NIOCore
internal import NIOPosix
internal import NIOSSL

/// Retrieves apple-app-site-association files the way iOS does, treating every host and server as hostile.
///
/// - Redirects are never followed; a 3xx is reported with its `Location`, as iOS refuses it.
/// - Bodies are capped while streaming (``AASAFetchOptions/maximumBytes``), and each exchange has one deadline
///   covering resolution, connect, TLS, head and body, so no server can make it allocate more or wait longer.
/// - Every host is resolved here and the address is checked by ``AddressGuard`` before the connection is made to that
///   very address, with no second lookup, while TLS still verifies the host name.
/// - Fetches overlap, `concurrency` domains at a time.
///
/// With ``AASAFetchOptions/Source/both``, each result is the CDN's and carries the direct one in
/// ``AASAFetchResult/comparison``. Developer-mode requests are always fetched direct from `/.well-known/` only.
public final class AASAFetcher: Sendable {
  /// Apple's AASA CDN; devices ask it, not the domain, since iOS 14.
  public static let cdnHost = "app-site-association.cdn-apple.com"
  static let wellKnownPath = "/.well-known/apple-app-site-association"
  static let rootPath = "/apple-app-site-association"

  let options: AASAFetchOptions
  let tls: TLSConfiguration
  let cache: AASACache?

  /// Checks the options and parses the extra trust roots; throws the first problem found.
  public init(options: AASAFetchOptions) throws(AASAFetchError) {
    if let first = options.validationErrors().first { throw first }
    var extraRoots: [NIOSSLCertificate] = []
    for (index, pem) in options.extraRootsPEM.enumerated() {
      let certificates: [NIOSSLCertificate]
      do {
        certificates = try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8))
      } catch {
        throw .invalidTrustRoots(detail: "PEM \(index + 1) does not parse (\(error))")
      }
      guard !certificates.isEmpty else { throw .invalidTrustRoots(detail: "PEM \(index + 1) holds no certificate") }
      extraRoots += certificates
    }
    var tls = TLSConfiguration.makeClientConfiguration()
    tls.minimumTLSVersion = .tlsv12
    tls.shutdownTimeout = .milliseconds(100)
    if options.trustsSystemRoots {
      tls.trustRoots = .default
      tls.additionalTrustRoots = extraRoots.isEmpty ? [] : [.certificates(extraRoots)]
    } else {
      tls.trustRoots = .certificates(extraRoots)
    }
    self.tls = tls
    self.options = options
    self.cache = options.cacheDirectory.map { AASACache(directory: $0, maximumBodyBytes: options.maximumBytes) }
  }

  /// Fetches every distinct request, `concurrency` at a time, and returns one result per distinct request.
  ///
  /// `onResult` is called as each result arrives (from any task), for progress output.
  public func fetch(
    _ requests: [AASARequest], onResult: (@Sendable (AASARequest, AASAFetchResult) -> Void)? = nil
  ) async -> [AASARequest: AASAFetchResult] {
    var results: [AASARequest: AASAFetchResult] = [:]
    await fetchEach(requests) { request, result in
      results[request] = result
      onResult?(request, result)
    }
    return results
  }

  /// Fetches every distinct request, `concurrency` at a time, handing each result to `handle` as it arrives and
  /// keeping none: memory stays that of the requests in flight however many there are (`refresh` of 10,000 hosts).
  /// `started` hears of each request as its fetch begins, for a progress bar that names what is under way.
  public func fetchEach(
    _ requests: [AASARequest], started: (AASARequest) -> Void = { _ in },
    _ handle: (AASARequest, AASAFetchResult) -> Void
  ) async {
    var seen = Set<AASARequest>()
    let unique = requests.filter { seen.insert($0).inserted }
    let session = FetchSession(options: options, tls: tls)
    await session.prepare(hosts: Set(unique.flatMap { networkHosts(for: $0) }))
    await withTaskGroup(of: (AASARequest, AASAFetchResult).self) { group in
      var pending = unique.makeIterator()
      for _ in 0..<options.concurrency {
        guard let request = pending.next() else { break }
        started(request)
        group.addTask { (request, await self.fetchOne(request, session: session)) }
      }
      while let (request, result) = await group.next() {
        handle(request, result)
        if let request = pending.next() {
          started(request)
          group.addTask { (request, await self.fetchOne(request, session: session)) }
        }
      }
    }
    await session.close()
  }

  // MARK: - One request

  func fetchOne(_ request: AASARequest, session: FetchSession) async -> AASAFetchResult {
    guard let host = HostName.validated(request.host) else {
      if !options.aasaDirectories.isEmpty {
        return AASAFetchResult(
          host: request.host, status: .notFound, source: .aasaDir,
          message: "\(request.host): not a valid host name; refused to look it up in the AASA directory")
      }
      return AASAFetchResult(
        host: request.host, status: .dnsError, source: request.developerMode ? .directWellKnown : .cdn,
        message: "\(request.host): not a valid host name")
    }
    if !options.aasaDirectories.isEmpty {
      return AASADirectory.read(host: host, directories: options.aasaDirectories, maximumBytes: options.maximumBytes)
    }
    if request.developerMode {
      return await retrieve(.direct, host: host, developerMode: true, session: session)
    }
    switch options.source {
    case .cdn:
      return await retrieve(.cdn, host: host, developerMode: false, session: session)
    case .direct:
      return await retrieve(.direct, host: host, developerMode: false, session: session)
    case .both:
      async let cdn = retrieve(.cdn, host: host, developerMode: false, session: session)
      async let direct = retrieve(.direct, host: host, developerMode: false, session: session)
      var result = await cdn
      result.comparison = [await direct]
      return result
    }
  }

  /// One source for one host, through the cache.
  func retrieve(
    _ kind: AASACache.Kind, host: String, developerMode: Bool, session: FetchSession
  ) async -> AASAFetchResult {
    let cached = cachedEntry(kind, host: host, developerMode: developerMode)
    // A copy, however fresh, is what the site answered when it was cached: where it may not stand in for an answer
    // (`refresh`, which records what the site answers now), the site is asked, conditionally when it can be.
    let standsIn = options.cachedCopyStandsIn
    if options.offline {
      if !standsIn {
        return AASAFetchResult(
          host: host, status: .skippedOffline, source: kind == .cdn ? .cdn : .directWellKnown,
          message: "\(host): skipped (offline), and a cached copy is not the site's answer now")
      }
      if let cached {
        return Self.result(from: cached, host: host, note: "offline; cached copy from \(Self.stamp(cached.fetchedAt))")
      }
      if case .unusable(let why) = cache?.lookUp(kind: kind, host: host) {
        return AASAFetchResult(
          host: host, status: .skippedOffline, source: kind == .cdn ? .cdn : .directWellKnown,
          message: "\(host): skipped (offline), and its cached copy cannot be used: \(why)")
      }
      return AASAFetchResult(
        host: host, status: .skippedOffline, source: kind == .cdn ? .cdn : .directWellKnown,
        message: "\(host): skipped (offline) and not in the cache"
          + (options.cacheDirectoryNamed ? cache?.missing.map { ": \($0)" } ?? "" : ""))
    }
    let now = Date()
    if standsIn, let cached, cached.isFresh(at: now) {
      return Self.result(
        from: cached, host: host, note: "fresh in the cache until \(Self.stamp(cached.expiresAt ?? now))")
    }
    let conditional = cached.flatMap { entry in entry.etag.map { (url: entry.url, etag: $0) } }
    let outcome = await network(kind, host: host, developerMode: developerMode, conditional: conditional, session)
    let control = CacheControl(outcome.cacheControl)

    if outcome.notModified, var entry = cached {
      entry.fetchedAt = now
      entry.expiresAt = control.expiry(from: now)
      entry.etag = outcome.etag ?? entry.etag
      let problem = control.noStore ? nil : cache?.write(entry, kind: kind)
      var result = Self.result(from: entry, host: host, note: "revalidated, 304 Not Modified")
      result.remoteAddress = outcome.result.remoteAddress
      if let problem { result.message += "; \(problem)" }
      return result
    }
    var result = outcome.result
    // A 2xx whose body is no AASA file (a login page, a firewall's challenge) is what a captive portal answers: it
    // never goes into the cache.
    let noFile = result.status == .ok && result.body != nil && ParsedAASA(result).answer.status == .invalidJSON
    if result.status == .ok, !noFile, let cache, !control.noStore, let body = result.body, let url = result.url {
      let entry = AASACache.Entry(
        host: host, url: url, source: result.source, fetchedAt: now, expiresAt: control.expiry(from: now),
        etag: outcome.etag, httpStatus: result.httpStatus ?? 200, contentType: result.contentType,
        appleFrom: result.appleFrom, body: Data(body))
      if let problem = cache.write(entry, kind: kind) { result.message += "; \(problem)" }
      return result
    }
    // Why the cached copy stands in for this answer, if it does.
    let portal = "which a captive portal or a proxy gives as readily as the site"
    let why: String? =
      if noFile {
        "the answer is no AASA file, \(portal)"
      } else if Self.serverUnavailable(result) {
        "the fetch failed"
      } else if result.status != .ok && !result.status.settles {
        "the answer is one \(portal)"
      } else {
        nil
      }
    if standsIn, let cached, let why {
      return Self.result(
        from: cached, host: host,
        note: "\(Self.standIn) \(Self.stamp(cached.fetchedAt)) because \(why) (\(result.message))")
    }
    return result
  }

  func cachedEntry(_ kind: AASACache.Kind, host: String, developerMode: Bool) -> AASACache.Entry? {
    // A developer-mode domain is only ever read from /.well-known/, so a copy from the root does not stand in for it.
    cache?.read(kind: kind, host: host).flatMap { developerMode && $0.source == .directRoot ? nil : $0 }
  }

  func kinds(for request: AASARequest) -> [AASACache.Kind] {
    if request.developerMode { return [.direct] }
    switch options.source {
    case .cdn: return [.cdn]
    case .direct: return [.direct]
    case .both: return [.cdn, .direct]
    }
  }

  /// The URL hosts `request` will connect to: none offline, from a folder, or when the cache is fresh.
  func networkHosts(for request: AASARequest) -> [String] {
    guard !options.offline, options.aasaDirectories.isEmpty, let host = HostName.validated(request.host) else {
      return []
    }
    let now = Date()
    return kinds(for: request).compactMap { kind in
      if cachedEntry(kind, host: host, developerMode: request.developerMode)?.isFresh(at: now) == true { return nil }
      return kind == .cdn ? Self.cdnHost : host
    }
  }

  /// Failures that say nothing about the file, only that the server could not be reached: a cached copy is better.
  static func serverUnavailable(_ result: AASAFetchResult) -> Bool {
    switch result.status {
    case .timeout, .connectionError, .dnsError: true
    case .httpError: (result.httpStatus ?? 0) >= 500
    default: false
    }
  }

  /// How the note of a cached copy standing in for an answer begins (``AASAFetchResult/servedInstead``).
  static let standIn = "served the cached copy from"

  static func result(from entry: AASACache.Entry, host: String, note: String) -> AASAFetchResult {
    AASAFetchResult(
      host: host, status: .ok, source: .cache, url: entry.url, httpStatus: entry.httpStatus,
      contentType: entry.contentType, bytes: entry.body.count, appleFrom: entry.appleFrom,
      fallbackUsed: entry.source == .directRoot, cachedFrom: entry.source, cachedAt: entry.fetchedAt,
      message: "\(host): \(entry.body.count) bytes, \(note)", body: [UInt8](entry.body))
  }

  static func stamp(_ date: Date) -> String { date.ISO8601Format() }

  // MARK: - Network

  struct NetworkOutcome {
    var result: AASAFetchResult
    var cacheControl: String?
    var etag: String?
    /// A 304 answering our `If-None-Match`.
    var notModified = false
  }

  func network(
    _ kind: AASACache.Kind, host: String, developerMode: Bool, conditional: (url: String, etag: String)?,
    _ session: FetchSession
  ) async -> NetworkOutcome {
    let deadline = NIODeadline.now() + TimeAmount(options.timeout)
    switch kind {
    case .cdn:
      let path = "/a/v1/\(host)"
      let plan: ConnectionPlan
      switch await session.plan(for: Self.cdnHost, deadline: deadline) {
      case .failure(let failure):
        return NetworkOutcome(result: failure.result(host: host, source: .cdn, url: "https://\(Self.cdnHost)\(path)"))
      case .success(let p): plan = p
      }
      return await exchange(
        session: session, plan: plan, path: path, host: host, source: .cdn, conditional: conditional, deadline: deadline
      )

    case .direct:
      let plan: ConnectionPlan
      switch await session.plan(for: host, deadline: deadline) {
      case .failure(let failure):
        return NetworkOutcome(
          result: failure.result(host: host, source: .directWellKnown, url: "https://\(host)\(Self.wellKnownPath)"))
      case .success(let p): plan = p
      }
      var outcome = await exchange(
        session: session, plan: plan, path: Self.wellKnownPath, host: host, source: .directWellKnown,
        conditional: conditional, deadline: deadline)
      if outcome.result.status == .notFound && !developerMode {
        outcome = await exchange(
          session: session, plan: plan, path: Self.rootPath, host: host, source: .directRoot, conditional: conditional,
          deadline: NIODeadline.now() + TimeAmount(options.timeout))
        outcome.result.fallbackUsed = true
        if outcome.result.status == .notFound {
          outcome.result.message = "\(host): no AASA file: 404 at \(Self.wellKnownPath) and at \(Self.rootPath)"
        } else {
          outcome.result.message += " (after 404 at \(Self.wellKnownPath))"
        }
      }
      return outcome
    }
  }

  func exchange(
    session: FetchSession, plan: ConnectionPlan, path: String, host: String, source: AASAFetchResult.Source,
    conditional: (url: String, etag: String)?, deadline: NIODeadline
  ) async -> NetworkOutcome {
    let url = "https://\(plan.urlHost)\(path)"
    var result = AASAFetchResult(
      host: host, status: .connectionError, source: source, url: url, remoteAddress: plan.address.description,
      message: "")
    var headers: [(String, String)] = []
    if let conditional, conditional.url == url { headers.append(("If-None-Match", conditional.etag)) }
    let exchange: HTTPExchange
    do {
      exchange = try await session.get(
        plan, path: path, headers: headers, deadline: deadline, cap: options.maximumBytes)
    } catch let tooLarge as BodyTooLarge {
      describeHead(tooLarge.exchange, source: source, into: &result)
      result.status = .tooLarge
      result.bytes = tooLarge.bytes
      let how =
        tooLarge.announced ? "announces \(tooLarge.bytes) bytes" : "sent more than \(options.maximumBytes) bytes"
      result.message =
        "\(host): \(url) \(how), over the \(options.maximumBytes.byteCount) cap devices allow; stopped reading"
      return NetworkOutcome(result: result)
    } catch let unwanted as UnwantedBodyTooLarge {
      exchange = unwanted.exchange
    } catch {
      let (status, detail) = TransportFailure.classify(error)
      result.status = status
      result.message =
        status == .timeout
        ? "\(host): \(url): no complete answer within \(Self.seconds(options.timeout))"
        : "\(host): \(url): \(detail)"
      return NetworkOutcome(result: result)
    }

    describeHead(exchange, source: source, into: &result)
    var outcome = NetworkOutcome(
      result: result, cacheControl: exchange.header("Cache-Control"), etag: exchange.header("ETag"))
    let code = exchange.status
    let cdnNote = [result.appleFailureReason, result.appleFailureDetails].compactMap { $0 }.joined(separator: "; ")
    switch code {
    case 200..<300:
      outcome.result.status = .ok
      outcome.result.body = exchange.body
      outcome.result.bytes = exchange.body.count
      outcome.result.message = "\(host): \(exchange.body.count) bytes from \(url)"
    case 304 where !headers.isEmpty:
      outcome.notModified = true
      outcome.result.message = "\(host): \(url): 304 Not Modified"
    case 300..<400 where code != 304:
      outcome.result.status = .redirect
      outcome.result.location = exchange.header("Location")
      outcome.result.message =
        "\(host): \(url) redirects (\(code)) to \(outcome.result.location ?? "no Location"); iOS does not follow AASA redirects"
    case 404:
      outcome.result.status = .notFound
      outcome.result.message =
        source == .cdn
        ? "\(host): Apple's CDN has no file" + (cdnNote.isEmpty ? " (404)" : " (\(cdnNote))")
        : "\(host): 404 Not Found at \(url)"
    default:
      outcome.result.status = .httpError
      outcome.result.message = "\(host): HTTP \(code) from \(url)" + (cdnNote.isEmpty ? "" : " (\(cdnNote))")
      // A rate limit or an outage may say when to come back: a scheduled refresh can be set by it.
      if [429, 503].contains(code), let after = exchange.header("Retry-After"), !after.isEmpty {
        let shown = after.count > 64 ? after.prefix(63) + "…" : after
        outcome.result.message += "; the server asks to retry after \(shown)\(after.allSatisfy(\.isNumber) ? " s" : "")"
      }
    }
    return outcome
  }

  private func describeHead(
    _ exchange: HTTPExchange, source: AASAFetchResult.Source, into result: inout AASAFetchResult
  ) {
    result.httpStatus = exchange.status
    result.contentType = exchange.header("Content-Type")
    if source == .cdn {
      // The CDN's words, at most a line: a server can send 60 KB of them, which every report would repeat.
      func line(_ name: String) -> String? {
        exchange.header(name).map { $0.count > 300 ? String($0.prefix(300)) + "… (cut at 300 characters)" : $0 }
      }
      result.appleFailureReason = line("Apple-Failure-Reason")
      result.appleFailureDetails = line("Apple-Failure-Details")
      result.appleFrom = line("Apple-From")
    }
  }

  static func seconds(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    let value = Double(seconds) + Double(attoseconds) / 1e18
    return value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
  }
}
