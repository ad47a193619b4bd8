/// What the test server answers to one request: a script of status, headers, body and timing.
public struct TestResponse: Sendable {
  /// How the body goes out.
  public enum Body: Sendable {
    /// All at once, with `Content-Length`.
    case full([UInt8])
    /// `Transfer-Encoding: chunked`, `chunkSize` bytes every `interval`: a slow or endless stream.
    case chunked([UInt8], chunkSize: Int, interval: Duration)
    /// Announces `declaredLength` bytes, sends `prefix`, then goes silent with the connection open.
    case stall(prefix: [UInt8], declaredLength: Int)
    /// Announces `declaredLength` bytes, sends `prefix`, then resets the TCP connection (RST, no TLS close_notify).
    case reset(prefix: [UInt8], declaredLength: Int)
  }

  public var status: Int
  public var headers: [(name: String, value: String)]
  public var body: Body
  /// Keeps the connection open after this answer, without `Connection: close`, and closes it when the next request
  /// arrives on it, unanswered: a server that closes an idle kept-alive connection as the client reuses it.
  public var closesOnNextRequest = false
  /// Latency before the response head goes out.
  public var delay: Duration

  public init(
    status: Int = 200, headers: [(name: String, value: String)] = [], body: Body = .full([]), delay: Duration = .zero
  ) {
    self.status = status
    self.headers = headers
    self.body = body
    self.delay = delay
  }

  /// A 200 with a JSON content type.
  public static func json(
    _ text: String, headers: [(name: String, value: String)] = [], delay: Duration = .zero
  ) -> TestResponse {
    TestResponse(
      status: 200, headers: [("Content-Type", "application/json")] + headers, body: .full(Array(text.utf8)),
      delay: delay)
  }

  /// A bodiless answer such as 404 or 301.
  public static func status(_ code: Int, headers: [(name: String, value: String)] = []) -> TestResponse {
    TestResponse(status: code, headers: headers)
  }
}

/// A request as the server saw it, for assertions on `Host`, `If-None-Match` and what was (not) requested.
public struct RecordedRequest: Sendable {
  /// The `Host` header exactly as sent.
  public var host: String?
  public var method: String
  public var path: String
  public var headers: [(name: String, value: String)]
  /// When the request was complete at the server.
  public var receivedAt: ContinuousClock.Instant
  /// When the connection that carried it closed (nil while open). Measured on the server's event loop, so it shows
  /// when a client gave up even when the test process is too busy to notice at once.
  public var connectionClosedAt: ContinuousClock.Instant?

  /// The first value of a header, case-insensitively.
  public func header(_ name: String) -> String? {
    headers.first { $0.name.lowercased() == name.lowercased() }?.value
  }

  /// The host the request was for, without a port.
  public var hostName: String {
    guard var host = host?.lowercased() else { return "" }
    if let colon = host.lastIndex(of: ":"), !host.hasSuffix("]") { host = String(host[..<colon]) }
    return host
  }
}
