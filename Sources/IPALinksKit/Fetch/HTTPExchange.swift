internal import AsyncHTTPClient
import Atomics
import Foundation
internal import NIOConcurrencyHelpers
internal import NIOCore
internal import NIOHTTP1
internal import NIOPosix
internal import NIOSSL

/// One GET's answer: the head, and the body when it was a 2xx within the cap.
struct HTTPExchange: Sendable {
  var status: Int
  var headers: [(name: String, value: String)]
  var body: [UInt8]

  func header(_ name: String) -> String? {
    headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
  }
}

/// Reading stopped because a 2xx body passed the cap, announced or streamed.
struct BodyTooLarge: Error {
  var exchange: HTTPExchange
  var bytes: Int
  var announced: Bool
}

/// A non-2xx body passed the cap; its status still stands, the body was never wanted.
struct UnwantedBodyTooLarge: Error {
  var exchange: HTTPExchange
}

/// Streams the body and fails the request the moment it passes the cap, so a hostile server can make the fetcher hold
/// at most `cap` bytes, never more, and the connection is closed rather than drained.
///
/// AsyncHTTPClient calls every method on the task's event loop, one body part at a time (the next part waits for the
/// returned future), so the state lives in a loop-bound box.
final class CappedBodyDelegate: HTTPClientResponseDelegate {
  typealias Response = HTTPExchange

  private struct State {
    var head: HTTPResponseHead?
    var body: [UInt8] = []
    var received = 0
  }

  private let state: NIOLoopBoundBox<State>
  /// Whether a response head arrived; read off the loop, after the request failed, to tell a request lost with its
  /// connection from an answer cut short.
  let answered = ManagedAtomic(false)
  /// A non-2xx answer's head, read off the loop after the request failed: its status stands even when its body, never
  /// wanted, was cut short or stalled.
  let unwantedAnswer = NIOLockedValueBox<HTTPExchange?>(nil)
  private let cap: Int
  private let onRequestSent: (@Sendable () -> Void)?

  init(cap: Int, eventLoop: any EventLoop, onRequestSent: (@Sendable () -> Void)? = nil) {
    self.cap = cap
    self.onRequestSent = onRequestSent
    self.state = .makeBoxSendingValue(State(), eventLoop: eventLoop)
  }

  func didSendRequestHead(task: HTTPClient.Task<HTTPExchange>, _ head: HTTPRequestHead) {
    onRequestSent?()
  }

  private func exchange(body: [UInt8] = []) -> HTTPExchange {
    let head = state.value.head
    return HTTPExchange(
      status: Int(head?.status.code ?? 0), headers: head?.headers.map { ($0.name, $0.value) } ?? [], body: body)
  }

  private var isSuccess: Bool { (200..<300).contains(state.value.head?.status.code ?? 0) }

  func didReceiveHead(task: HTTPClient.Task<HTTPExchange>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
    state.value.head = head
    answered.store(true, ordering: .relaxed)
    if !isSuccess { unwantedAnswer.withLockedValue { $0 = exchange() } }
    if isSuccess, let announced = head.headers.first(name: "content-length").flatMap({ Int($0) }), announced > cap {
      return task.eventLoop.makeFailedFuture(BodyTooLarge(exchange: exchange(), bytes: announced, announced: true))
    }
    return task.eventLoop.makeSucceededVoidFuture()
  }

  func didReceiveBodyPart(task: HTTPClient.Task<HTTPExchange>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
    state.value.received += buffer.readableBytes
    let received = state.value.received
    if received > cap {
      let error: any Error =
        isSuccess
        ? BodyTooLarge(exchange: exchange(), bytes: received, announced: false)
        : UnwantedBodyTooLarge(exchange: exchange())
      return task.eventLoop.makeFailedFuture(error)
    }
    if isSuccess { state.value.body.append(contentsOf: buffer.readableBytesView) }
    return task.eventLoop.makeSucceededVoidFuture()
  }

  func didReceiveError(task: HTTPClient.Task<HTTPExchange>, _ error: any Error) {}

  func didFinishRequest(task: HTTPClient.Task<HTTPExchange>) throws -> HTTPExchange {
    exchange(body: state.value.body)
  }
}

/// Where one host's connections go, after `--connect-to` and the address guard.
struct ConnectionPlan: Sendable, Hashable {
  /// The host of the URL: SNI, certificate name and `Host` header.
  var urlHost: String
  /// The checked address the socket connects to.
  var address: IPAddress
  var port: Int
}

/// Makes the HTTP clients; they all share the process-wide event loops.
///
/// `dnsOverride` is what pins each host to its checked address (no second lookup) while TLS still verifies the host
/// name and sends it as SNI; it is fixed when the client is made.
enum HTTPClients {
  static func make(plans: Set<ConnectionPlan>, tls: TLSConfiguration, options: AASAFetchOptions) -> HTTPClient {
    let timeout = TimeAmount(options.timeout)
    var configuration = HTTPClient.Configuration(
      tlsConfiguration: tls,
      redirectConfiguration: .disallow,
      timeout: .init(connect: timeout, read: timeout),
      connectionPool: .init(),
      proxy: nil,
      decompression: .disabled)
    configuration.dnsOverride = Dictionary(
      plans.map { ($0.urlHost, $0.address.description) }, uniquingKeysWith: { first, _ in first })
    // Fail at once on a refused connection or a TLS error instead of retrying until the connect timeout.
    configuration.connectionPool.retryConnectionEstablishment = false
    // Every CDN request goes to one host, so its pool must allow as many connections as fetches in flight.
    configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(8, options.concurrency)
    configuration.connectionPool.idleTimeout = .seconds(5)
    return HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
  }

  /// GETs `path` on `plan` with a deadline covering connect, TLS, head and body.
  static func get(
    client: HTTPClient, plan: ConnectionPlan, path: String, extraHeaders: [(String, String)], deadline: NIODeadline,
    cap: Int, onRequestSent: (@Sendable () -> Void)? = nil
  ) async throws -> HTTPExchange {
    let port = plan.port == 443 ? "" : ":\(plan.port)"
    var request = try HTTPClient.Request(url: "https://\(plan.urlHost)\(port)\(path)", method: .GET)
    // AsyncHTTPClient would send `host:port` for a `--connect-to` port; the server must see the original host.
    request.headers.replaceOrAdd(name: "Host", value: plan.urlHost)
    request.headers.add(name: "User-Agent", value: "ipalinks (AASA retrieval)")
    request.headers.add(name: "Accept", value: "*/*")
    for (name, value) in extraHeaders { request.headers.add(name: name, value: value) }
    // A server may close a kept-alive connection as the next request goes out on it (RFC 9112 §9.3.1), and such a
    // request is lost before any answer; a GET is idempotent, so it is sent once more, on a new connection. Without
    // this, a server that closes after each answer without saying so turned a root path's 404 into a connection
    // error, one time in three.
    var retried = false
    while true {
      let eventLoop = client.eventLoopGroup.next()
      let delegate = CappedBodyDelegate(cap: cap, eventLoop: eventLoop, onRequestSent: onRequestSent)
      let task = client.execute(
        request: request, delegate: delegate, eventLoop: .delegate(on: eventLoop), deadline: deadline)
      do {
        return try await withTaskCancellationHandler {
          try await task.futureResult.get()
        } onCancel: {
          task.cancel()
        }
      } catch {
        // An HTTP/1.0 503 read to the connection's close, which a server ended without TLS's close_notify, was
        // "the connection was cut mid-response"; the server had answered 503.
        if !(error is UnwantedBodyTooLarge), let answer = delegate.unwantedAnswer.withLockedValue({ $0 }) {
          return answer
        }
        guard !retried, !delegate.answered.load(ordering: .relaxed), TransportFailure.isLostRequest(error),
          !Task.isCancelled, NIODeadline.now() < deadline
        else { throw error }
        retried = true
      }
    }
  }
}

/// TLS failures in words, for connections other than HTTP's (the store's, to PostgreSQL), as fetches word them.
public enum TLSFailureText {
  /// "TLS failed: …" for an error of the TLS layer, without BoringSSL's numbers and the source paths it names; nil
  /// for any other error.
  public static func describe(_ error: any Error) -> String? {
    let (status, detail) = TransportFailure.classify(error)
    return status == .tlsError ? detail : nil
  }
}

/// Maps what AsyncHTTPClient, NIO and NIOSSL throw onto the report's statuses.
enum TransportFailure {
  /// Whether `error` is a connection that closed under a request: what a kept-alive connection the server closed
  /// gives, and what a retry on a new connection may answer.
  static func isLostRequest(_ error: any Error) -> Bool {
    if let e = error as? HTTPClientError { return e == .remoteConnectionClosed }
    if let e = error as? ChannelError { return [.eof, .ioOnClosedChannel, .alreadyClosed, .outputClosed].contains(e) }
    if let e = error as? IOError { return e.errnoCode == ECONNRESET || e.errnoCode == EPIPE }
    if let e = error as? NIOSSLError { return e == .uncleanShutdown }
    return false
  }

  static func classify(_ error: any Error) -> (status: AASAFetchResult.Status, detail: String) {
    if let e = error as? HTTPClientError {
      switch e {
      case .deadlineExceeded, .connectTimeout, .readTimeout, .writeTimeout:
        return (.timeout, "no complete answer within the timeout")
      case .remoteConnectionClosed: return (.connectionError, "the server closed the connection")
      default: return (.connectionError, "\(e)")
      }
    }
    if let e = error as? NIOSSLError {
      if e == .uncleanShutdown { return (.connectionError, "the connection was cut mid-response") }
      if case .handshakeFailed(let inner) = e { return (.tlsError, "TLS failed: \(tlsReason(inner))") }
      return (.tlsError, "TLS failed: \(e)")
    }
    if let e = error as? NIOSSLExtraError {
      if e == .failedToValidateHostname {
        return (.tlsError, "TLS failed: the server's certificate is not valid for this host name")
      }
      return (.tlsError, "TLS failed: \(e)")
    }
    if let e = error as? BoringSSLError { return (.tlsError, "TLS failed: \(tlsReason(e))") }
    if error is HTTPParserError { return (.connectionError, "the answer is not valid HTTP (\(error))") }
    if let e = error as? IOError {
      return (.connectionError, describe(errno: e.errnoCode, fallback: "\(e)"))
    }
    if let e = error as? NIOConnectionError {
      if let first = e.connectionErrors.first { return classify(first.error) }
      if let dns = e.dnsAAAAError ?? e.dnsAError { return (.dnsError, "\(dns)") }
      return (.connectionError, "\(e)")
    }
    if let e = error as? ChannelError {
      switch e {
      case .connectTimeout: return (.timeout, "connecting timed out")
      case .eof, .ioOnClosedChannel, .alreadyClosed, .outputClosed:
        return (.connectionError, "the connection was closed mid-response")
      default: return (.connectionError, "\(e)")
      }
    }
    return (.connectionError, "\(error)")
  }

  /// BoringSSL's reason in words, without the error's numbers and the source path it was raised at (which named
  /// the build's folder): `CERTIFICATE_VERIFY_FAILED` says why, the others say what they are.
  static func tlsReason(_ error: BoringSSLError) -> String {
    let text = "\(error)"
    if text.contains("CERTIFICATE_VERIFY_FAILED") {
      return "the server's certificate is not trusted: expired, not yet valid, or not signed by a trusted authority"
    }
    // `error:1000007d:SSL routines:OPENSSL_internal:REASON at /path/file.cc:320`
    let reasons = text.split(separator: ":").compactMap { part -> String? in
      let token = part.prefix { $0.isUppercase || $0.isNumber || $0 == "_" }
      return token.count >= 4 && token.contains("_") ? token.lowercased().replacingOccurrences(of: "_", with: " ") : nil
    }
    return reasons.first ?? "the handshake failed"
  }

  private static func describe(errno code: Int32, fallback: String) -> String {
    switch code {
    case ECONNREFUSED: "connection refused"
    case ECONNRESET: "connection reset by the server"
    case EHOSTUNREACH, ENETUNREACH: "host unreachable"
    case ETIMEDOUT: "connection timed out"
    case EPIPE: "connection closed by the server"
    default: fallback
    }
  }
}
