import Foundation

/// What retrieving one host's apple-app-site-association file gave: a status, where it came from, and the body when
/// there is one. Failures are values, never thrown, so one host's problem never hides another's result.
public struct AASAFetchResult: Sendable, Equatable, Codable {
  /// The outcome. The raw values are the stable strings of the JSON report.
  public enum Status: String, Sendable, Codable, CaseIterable {
    /// A 2xx with a body within the cap. Whether it parses is the caller's call (it may be a PKCS#7 envelope).
    case ok
    /// 404 (on both direct paths, or from the CDN), or no file in the AASA directory.
    case notFound = "not-found"
    /// Any other non-2xx, non-3xx status.
    case httpError = "http-error"
    /// A 3xx; iOS does not follow redirects for AASA files, so neither does the fetcher.
    case redirect
    /// Over the size cap; devices abort past 128 KB.
    case tooLarge = "too-large"
    /// No complete answer (resolution, connection, headers and body) within ``AASAFetchOptions/timeout``.
    case timeout
    /// The TLS handshake failed, e.g. an untrusted or expired certificate; devices refuse such a server too.
    case tlsError = "tls-error"
    /// The host does not resolve, or is not a valid host name at all.
    case dnsError = "dns-error"
    /// Connecting failed or the connection broke mid-answer (refused, reset, unreachable).
    case connectionError = "connection-error"
    /// Set by callers that parse the body; the fetcher itself never returns it.
    case invalidJSON = "invalid-json"
    /// The host resolves to a loopback, private or other non-public address, so no connection was made
    /// (``AASAFetchOptions/allowPrivate`` lifts this).
    case refusedPrivateAddress = "refused-private-address"
    /// Offline and not in the cache, so nothing was asked.
    case skippedOffline = "skipped-offline"
    /// Set by callers that parse the body: past a limit of ours (patterns, `$(…)` expansion) that iOS may not
    /// share, so what opens stays unknown and blocklists say so instead of dropping the domain.
    case overLimit = "over-limit"
    /// The AASA directory has an entry for the host that cannot be read: a folder, a device, a pipe, or a file
    /// whose read fails. Not the same as no file: what the site serves is not known from it.
    case unreadable

    /// An answer iOS would get too, so it says what opens (nothing, unless `ok`); the others leave the file unknown.
    public var isDefinite: Bool {
      switch self {
      case .ok, .notFound, .redirect, .tooLarge, .invalidJSON, .refusedPrivateAddress: true
      case .timeout, .tlsError, .dnsError, .connectionError, .httpError, .skippedOffline, .overLimit, .unreadable: false
      }
    }

    /// Whether the answer may settle what a host's file is: a definite one, except those a captive portal, a proxy,
    /// a rebinding DNS or an error page gives as readily as the site (a redirect, a body over the limit, a private
    /// address, a 2xx whose body is no AASA file: a login page, a firewall's challenge, a file cut short). iOS,
    /// asking from elsewhere, may have the file: such an answer never replaces a good file (the cache's, the
    /// store's), and a blocklist counts its domain as uncovered rather than as opening nothing.
    public var settles: Bool {
      isDefinite && ![.redirect, .tooLarge, .refusedPrivateAddress, .invalidJSON].contains(self)
    }
  }

  /// Where the result came from.
  public enum Source: String, Sendable, Codable, CaseIterable {
    /// Apple's CDN (``AASAFetcher/cdnHost``), which devices ask since iOS 14.
    case cdn
    /// The domain's own `/.well-known/apple-app-site-association`, tried first when fetching direct.
    case directWellKnown = "direct-well-known"
    /// `/apple-app-site-association` at the root, tried after a 404 at `/.well-known/`.
    case directRoot = "direct-root"
    /// The on-disk cache; ``AASAFetchResult/cachedFrom`` says which source filled it.
    case cache
    /// A file from ``AASAFetchOptions/aasaDirectories``; no network was used.
    case aasaDir = "aasa-dir"
  }

  /// Whether this is the cached copy served in place of an answer that could not be used (the server down, or an
  /// answer a captive portal gives as readily as the site): the lookup failed, though the file is known.
  public var servedInstead: Bool { source == .cache && message.contains(" bytes, \(AASAFetcher.standIn) ") }

  /// The domain the file was wanted for, even when the CDN answered.
  public var host: String
  /// The outcome; ``Status/isDefinite`` says whether it settles what opens.
  public var status: Status
  /// Which origin answered; with `--source both` this is the CDN, and ``comparison`` holds the direct result.
  public var source: Source
  /// The URL requested last (the root URL after a fallback), or the file read from the AASA directory.
  public var url: String?
  /// The HTTP status code when a server answered (kept through the cache); nil for failures before any answer.
  public var httpStatus: Int?
  /// The `Content-Type` header as sent; reported for the audit, not enforced.
  public var contentType: String?
  /// The body's size; for `too-large`, the bytes announced or received when reading stopped.
  public var bytes: Int?
  /// `Location` of a 3xx.
  public var location: String?
  /// Apple's CDN explains its failures in these headers, e.g. `SWCERR00101 Bad HTTP Response: 404 Not Found`.
  public var appleFailureReason: String?
  /// The CDN's `Apple-Failure-Details` header, saying more than ``appleFailureReason``.
  public var appleFailureDetails: String?
  /// The CDN's `Apple-From` header: the URL on the domain that the CDN itself fetched the file from.
  public var appleFrom: String?
  /// True when `/.well-known/` gave 404 and the root path was tried.
  public var fallbackUsed: Bool
  /// For `source == .cache`: the source that filled the cache.
  public var cachedFrom: Source?
  /// For `source == .cache`: when the copy was retrieved from that source (or last revalidated), which is when the
  /// site gave this answer. The store records the answer at that time, so that an old copy never stands for now.
  public var cachedAt: Date?
  /// The IP address connected to, after the address guard approved it.
  public var remoteAddress: String?
  /// One line naming the host and what happened.
  public var message: String
  /// The raw body of an `ok` result: JSON or a PKCS#7 envelope. Not part of the JSON report.
  public var body: [UInt8]?
  /// With `--source both`: the direct result next to this CDN result. Empty otherwise.
  public var comparison: [AASAFetchResult]

  /// Memberwise; everything but the outcome and the message is optional, as most failures know little.
  public init(
    host: String, status: Status, source: Source, url: String? = nil, httpStatus: Int? = nil,
    contentType: String? = nil, bytes: Int? = nil, location: String? = nil, appleFailureReason: String? = nil,
    appleFailureDetails: String? = nil, appleFrom: String? = nil, fallbackUsed: Bool = false,
    cachedFrom: Source? = nil, cachedAt: Date? = nil, remoteAddress: String? = nil, message: String,
    body: [UInt8]? = nil, comparison: [AASAFetchResult] = []
  ) {
    self.host = host
    self.status = status
    self.source = source
    self.url = url
    self.httpStatus = httpStatus
    self.contentType = contentType
    self.bytes = bytes
    self.location = location
    self.appleFailureReason = appleFailureReason
    self.appleFailureDetails = appleFailureDetails
    self.appleFrom = appleFrom
    self.fallbackUsed = fallbackUsed
    self.cachedFrom = cachedFrom
    self.cachedAt = cachedAt
    self.remoteAddress = remoteAddress
    self.message = message
    self.body = body
    self.comparison = comparison
  }

  private enum CodingKeys: String, CodingKey {
    case host, status, source, url, httpStatus, contentType, bytes, location, appleFailureReason, appleFailureDetails
    case appleFrom, fallbackUsed, cachedFrom, cachedAt, remoteAddress, message, comparison
  }

  /// Reads a saved result (without its body, which reports never carry).
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    host = try c.decode(String.self, forKey: .host)
    // A status this version does not know (one a newer version added) leaves the file unknown, as `unreadable`
    // does, and is said in the message: the whole report was refused, and the app with it.
    let rawStatus = try c.decode(String.self, forKey: .status)
    status = Status(rawValue: rawStatus) ?? .unreadable
    source = try c.decodeIfPresent(Source.self, forKey: .source) ?? .cdn
    url = try c.decodeIfPresent(String.self, forKey: .url)
    httpStatus = try c.decodeIfPresent(Int.self, forKey: .httpStatus)
    contentType = try c.decodeIfPresent(String.self, forKey: .contentType)
    bytes = try c.decodeIfPresent(Int.self, forKey: .bytes)
    location = try c.decodeIfPresent(String.self, forKey: .location)
    appleFailureReason = try c.decodeIfPresent(String.self, forKey: .appleFailureReason)
    appleFailureDetails = try c.decodeIfPresent(String.self, forKey: .appleFailureDetails)
    appleFrom = try c.decodeIfPresent(String.self, forKey: .appleFrom)
    fallbackUsed = try c.decodeIfPresent(Bool.self, forKey: .fallbackUsed) ?? false
    cachedFrom = try c.decodeIfPresent(Source.self, forKey: .cachedFrom)
    // An unreadable time reads as none: the answer is then taken as given when the report was made, as before.
    cachedAt = (try? c.decodeIfPresent(String.self, forKey: .cachedAt)).flatMap { $0 }.flatMap(Self.time)
    remoteAddress = try c.decodeIfPresent(String.self, forKey: .remoteAddress)
    message = try c.decodeIfPresent(String.self, forKey: .message) ?? rawStatus
    if Status(rawValue: rawStatus) == nil {
      message = "status \(rawStatus), which this ipalinks does not know: the file is unknown (\(message))"
    }
    body = nil
    comparison = try c.decodeIfPresent([AASAFetchResult].self, forKey: .comparison) ?? []
  }

  /// Absent fields are left out, and so is the body: reports describe files, they do not carry them.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(host, forKey: .host)
    try c.encode(status, forKey: .status)
    try c.encode(source, forKey: .source)
    try c.encodeIfPresent(url, forKey: .url)
    try c.encodeIfPresent(httpStatus, forKey: .httpStatus)
    try c.encodeIfPresent(contentType, forKey: .contentType)
    try c.encodeIfPresent(bytes, forKey: .bytes)
    try c.encodeIfPresent(location, forKey: .location)
    try c.encodeIfPresent(appleFailureReason, forKey: .appleFailureReason)
    try c.encodeIfPresent(appleFailureDetails, forKey: .appleFailureDetails)
    try c.encodeIfPresent(appleFrom, forKey: .appleFrom)
    try c.encode(fallbackUsed, forKey: .fallbackUsed)
    try c.encodeIfPresent(cachedFrom, forKey: .cachedFrom)
    try c.encodeIfPresent(cachedAt.map(Self.stamp), forKey: .cachedAt)
    try c.encodeIfPresent(remoteAddress, forKey: .remoteAddress)
    try c.encode(message, forKey: .message)
    if !comparison.isEmpty { try c.encode(comparison, forKey: .comparison) }
  }

  /// A time as reports write it: RFC 3339, UTC, with milliseconds.
  static func stamp(_ date: Date) -> String { Clock.rfc3339(date, milliseconds: true) }

  /// A time reports wrote, with or without fractions of a second.
  static func time(_ text: String) -> Date? {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    if let date = formatter.date(from: text) { return date }
    formatter.formatOptions = [.withInternetDateTime]
    return formatter.date(from: text)
  }
}
