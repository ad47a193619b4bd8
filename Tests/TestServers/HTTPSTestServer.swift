import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// A real HTTPS server on 127.0.0.1 (random port) whose answers are scripted per host and path, with a certificate
/// from a ``TestCertificateAuthority``. It records every request, so tests can assert what the fetcher sent and that
/// it did not follow a redirect.
///
/// Tests reach it through `--connect-to` rules with fake `*.test` names: nothing touches the real network.
public final class HTTPSTestServer: Sendable {
  /// Names the default certificate covers.
  public static let defaultDNSNames = [
    "*.test", "example.test", "*.example.test", "*.bench.test", "app-site-association.cdn-apple.com", "localhost",
  ]

  public let port: Int
  public let authority: TestCertificateAuthority
  private let channel: any Channel
  private let state: ServerState

  /// The root to trust, PEM.
  public var caPEM: String { authority.caPEM }

  /// A `--connect-to` rule sending `host`'s HTTPS connections here.
  public func connectTo(_ host: String) -> String { "\(host):443:127.0.0.1:\(port)" }

  /// A `--connect-to` rule sending every host's connections here.
  public var connectToEverything: String { "::127.0.0.1:\(port)" }

  /// Starts a server. Unscripted paths answer `unscripted` (404 by default).
  public static func start(
    authority: TestCertificateAuthority? = nil, dnsNames: [String] = defaultDNSNames,
    unscripted: TestResponse = .status(404)
  ) async throws -> HTTPSTestServer {
    let authority = try authority ?? TestCertificateAuthority()
    let leaf = try authority.issueLeaf(dnsNames: dnsNames)
    let tls = TLSConfiguration.makeServerConfiguration(
      certificateChain: [.certificate(try NIOSSLCertificate(bytes: Array(leaf.certificatePEM.utf8), format: .pem))],
      privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(leaf.privateKeyPEM.utf8), format: .pem)))
    let sslContext = try NIOSSLContext(configuration: tls)
    let state = ServerState(unscripted: unscripted)
    let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      .serverChannelOption(.backlog, value: 512)
      .childChannelInitializer { child in
        state.track(child)
        return child.eventLoop.makeCompletedFuture {
          let sync = child.pipeline.syncOperations
          try sync.addHandler(NIOSSLServerHandler(context: sslContext))
          try sync.configureHTTPServerPipeline(withErrorHandling: true)
          try sync.addHandler(ScriptedHTTPHandler(state: state))
        }
      }
      .bind(host: "127.0.0.1", port: 0).get()
    guard let port = channel.localAddress?.port else { throw ChannelError.unknownLocalAddress }
    return HTTPSTestServer(port: port, authority: authority, channel: channel, state: state)
  }

  private init(port: Int, authority: TestCertificateAuthority, channel: any Channel, state: ServerState) {
    self.port = port
    self.authority = authority
    self.channel = channel
    self.state = state
  }

  /// Answers `path` on `host` (nil: any host) with `response`.
  public func respond(host: String? = nil, path: String, with response: TestResponse) {
    state.setRoute(host: host, path: path) { _ in response }
  }

  /// Answers `path` on `host` (nil: any host) with whatever `responder` makes of the request (e.g. 304 when the
  /// `If-None-Match` matches).
  public func respond(
    host: String? = nil, path: String, _ responder: @escaping @Sendable (RecordedRequest) -> TestResponse
  ) {
    state.setRoute(host: host, path: path, responder)
  }

  /// Every request so far, in arrival order.
  public var requests: [RecordedRequest] { state.requests }

  /// The requests for `host` and/or `path`.
  public func requests(host: String? = nil, path: String? = nil) -> [RecordedRequest] {
    state.requests.filter { (host == nil || $0.hostName == host) && (path == nil || $0.path == path) }
  }

  /// The first request for `host` and/or `path` once its connection has closed, waiting up to `limit` for that
  /// (the close reaches the server a moment after the client gave up); nil if there is no such request or it stays open.
  public func firstRequestAfterClose(
    host: String? = nil, path: String? = nil, waitingUpTo limit: Duration = .seconds(10)
  ) async -> RecordedRequest? {
    let end = ContinuousClock.now + limit
    while true {
      if let first = requests(host: host, path: path).first, first.connectionClosedAt != nil { return first }
      if ContinuousClock.now >= end { return nil }
      try? await Task.sleep(for: .milliseconds(20))
    }
  }

  /// Body bytes written so far to requests for `host` and `path`, to show a client stopped reading early.
  public func bodyBytesSent(host: String? = nil, path: String? = nil) -> Int {
    state.bodyBytesSent { (host == nil || $0.hostName == host) && (path == nil || $0.path == path) }
  }

  /// Closes the listener and every open connection, stalled ones included.
  public func stop() async {
    try? await channel.close()
    for child in state.openChannels() { try? await child.close() }
  }
}

/// Routes, the request log and open connections, shared between the event loops and the test.
final class ServerState: @unchecked Sendable {
  private struct RouteKey: Hashable {
    var host: String?
    var path: String
  }

  private let lock = NSLock()
  private let unscripted: TestResponse
  private var routes: [RouteKey: @Sendable (RecordedRequest) -> TestResponse] = [:]
  private var log: [(request: RecordedRequest, bytes: Int, channel: ObjectIdentifier)] = []
  private var channels: [ObjectIdentifier: any Channel] = [:]
  /// Each open channel's requests in `log`, so closing one touches its own entries, not the whole log (a scan per
  /// close made a benchmark of 20,000 connections quadratic).
  private var requestsOf: [ObjectIdentifier: [Int]] = [:]

  init(unscripted: TestResponse) { self.unscripted = unscripted }

  func setRoute(host: String?, path: String, _ responder: @escaping @Sendable (RecordedRequest) -> TestResponse) {
    lock.withLock { routes[RouteKey(host: host?.lowercased(), path: path)] = responder }
  }

  /// Logs the request and picks its response; returns the log index for byte counting.
  func record(_ request: RecordedRequest, channel: ObjectIdentifier) -> (index: Int, response: TestResponse) {
    let responder = lock.withLock {
      log.append((request, 0, channel))
      requestsOf[channel, default: []].append(log.count - 1)
      return (
        log.count - 1,
        routes[RouteKey(host: request.hostName, path: request.path)]
          ?? routes[RouteKey(host: nil, path: request.path)]
      )
    }
    return (responder.0, responder.1?(request) ?? unscripted)
  }

  func addBytes(_ count: Int, at index: Int) { lock.withLock { log[index].bytes += count } }

  var requests: [RecordedRequest] { lock.withLock { log.map(\.request) } }

  func bodyBytesSent(where matches: (RecordedRequest) -> Bool) -> Int {
    lock.withLock { log.filter { matches($0.request) }.reduce(0) { $0 + $1.bytes } }
  }

  func track(_ channel: any Channel) {
    let id = ObjectIdentifier(channel)
    lock.withLock { channels[id] = channel }
    channel.closeFuture.whenComplete { _ in
      let now = ContinuousClock.now
      self.lock.withLock {
        self.channels.removeValue(forKey: id)
        for i in self.requestsOf.removeValue(forKey: id) ?? [] where self.log[i].request.connectionClosedAt == nil {
          self.log[i].request.connectionClosedAt = now
        }
      }
    }
  }

  func openChannels() -> [any Channel] { lock.withLock { Array(channels.values) } }
}

/// Plays a ``TestResponse`` on one connection. Runs on the connection's event loop only.
final class ScriptedHTTPHandler: ChannelInboundHandler {
  typealias InboundIn = HTTPServerRequestPart
  typealias OutboundOut = HTTPServerResponsePart

  private let state: ServerState
  private var head: HTTPRequestHead?
  /// The last answer asked for the connection to close on the next request (``TestResponse/closesOnNextRequest``).
  private var closing = false

  init(state: ServerState) { self.state = state }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch unwrapInboundIn(data) {
    case .head(let head): self.head = head
    case .body: break
    case .end:
      guard let head else { return }
      let request = RecordedRequest(
        host: head.headers.first(name: "host"), method: head.method.rawValue, path: head.uri,
        headers: head.headers.map { ($0.name, $0.value) }, receivedAt: .now)
      let (index, response) = state.record(request, channel: ObjectIdentifier(context.channel))
      if closing {
        // Recorded, so a test sees it was sent, but lost with the connection, as a server's idle close loses it.
        context.close(promise: nil)
        return
      }
      closing = response.closesOnNextRequest
      if response.delay > .zero {
        context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(response.delay)) {
          self.send(response, index: index, context: context)
        }
      } else {
        send(response, index: index, context: context)
      }
    }
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    context.close(promise: nil)
  }

  private func send(_ response: TestResponse, index: Int, context: ChannelHandlerContext) {
    guard context.channel.isActive else { return }
    var headers = HTTPHeaders(response.headers.map { ($0.name, $0.value) })
    let bodiless = response.status == 204 || response.status == 304 || response.status < 200
    switch response.body {
    case .full(let bytes) where !bodiless: headers.replaceOrAdd(name: "Content-Length", value: "\(bytes.count)")
    case .stall(_, let declared), .reset(_, let declared):
      headers.replaceOrAdd(name: "Content-Length", value: "\(declared)")
    case .full, .chunked: break
    }
    let status = HTTPResponseStatus(statusCode: response.status)
    context.write(
      wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)

    switch response.body {
    case .full(let bytes):
      if !bytes.isEmpty && !bodiless { writeBody(bytes[...], index: index, context: context) }
      context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    case .chunked(let bytes, let size, let interval):
      stream(bytes[...], chunkSize: max(1, size), interval: interval, index: index, context: context)
    case .stall(let prefix, _):
      writeBody(prefix[...], index: index, context: context)
      context.flush()
    case .reset(let prefix, _):
      writeBody(prefix[...], index: index, context: context)
      context.flush()
      // Let the head and prefix reach the client first, so the cut is mid-body.
      context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(100)) { self.reset(context: context) }
    }
  }

  private func writeBody(_ bytes: ArraySlice<UInt8>, index: Int, context: ChannelHandlerContext) {
    context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: bytes)))), promise: nil)
    state.addBytes(bytes.count, at: index)
  }

  private func stream(
    _ rest: ArraySlice<UInt8>, chunkSize: Int, interval: Duration, index: Int, context: ChannelHandlerContext
  ) {
    guard context.channel.isActive else { return }
    writeBody(rest.prefix(chunkSize), index: index, context: context)
    let remaining = rest.dropFirst(chunkSize)
    guard !remaining.isEmpty else {
      context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
      return
    }
    context.flush()
    context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(interval)) {
      self.stream(remaining, chunkSize: chunkSize, interval: interval, index: index, context: context)
    }
  }

  /// SO_LINGER 0 turns the close into a TCP RST; closing below the TLS handler skips close_notify, so the client sees
  /// a connection cut mid-body, not an orderly end.
  private func reset(context: ChannelHandlerContext) {
    let below = try? context.pipeline.syncOperations.context(handlerType: NIOSSLServerHandler.self)
    let channel = context.channel
    if let provider = channel as? any SocketOptionProvider {
      provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).hop(to: context.eventLoop).assumeIsolated()
        .whenComplete { _ in
          (below ?? context).close(promise: nil)
        }
    } else {
      (below ?? context).close(promise: nil)
    }
  }
}
