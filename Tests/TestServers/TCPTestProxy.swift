import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A TCP proxy on a loopback port that forwards each connection to a target port, and can be told to hold
/// everything: a network partition, in which connections stay open and no byte goes through in either direction.
/// What is held is delivered when ``resume()`` is called, as a partition that heals delivers what TCP retransmits.
///
/// A connection whose other side closes is closed too, as the network would tell it.
public final class TCPTestProxy: Sendable {
  /// The port the proxy takes connections on, on 127.0.0.1.
  public let port: Int
  private let channel: any Channel
  private let state: NIOLockedValueBox<State>

  private struct State {
    var held = false
    /// While set, how many more bytes clients may send before the proxy holds (``hold(afterSending:)``).
    var budget: Int?
    /// While held, the bytes each link has not passed on, in order, with where they go.
    var waiting: [(to: any Channel, bytes: ByteBuffer)] = []
    /// While set, what a client sends that closes its link instead of going through (``sever(whenClientSends:)``).
    var severing: [UInt8]?
    /// While set, what a client sends that makes the proxy hold, that read first (``hold(whenClientSends:)``).
    var holding: [UInt8]?
    /// How many links were closed so.
    var severed = 0
  }

  /// Starts a proxy to 127.0.0.1:`target`.
  public static func start(to target: Int) async throws -> TCPTestProxy {
    let state = NIOLockedValueBox(State())
    let group = MultiThreadedEventLoopGroup.singleton
    let channel = try await ServerBootstrap(group: group)
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      .childChannelInitializer { inbound in
        // The inbound side reads nothing until the outbound side is connected.
        inbound.setOption(.autoRead, value: false).flatMap {
          ClientBootstrap(group: inbound.eventLoop)
            .channelInitializer { outbound in
              outbound.pipeline.addHandler(Forward(to: inbound, state: state, upstream: false))
            }
            .connect(host: "127.0.0.1", port: target)
        }.flatMap { outbound in
          inbound.pipeline.addHandler(Forward(to: outbound, state: state, upstream: true)).flatMap {
            inbound.setOption(.autoRead, value: true)
          }
        }.flatMapError { _ in inbound.close() }
      }
      .bind(host: "127.0.0.1", port: 0).get()
    return TCPTestProxy(channel: channel, port: channel.localAddress?.port ?? 0, state: state)
  }

  private init(channel: any Channel, port: Int, state: NIOLockedValueBox<State>) {
    self.channel = channel
    self.port = port
    self.state = state
  }

  /// From now on, nothing goes through, and nothing is closed.
  public func hold() {
    state.withLockedValue { state in (state.held, state.budget) = (true, nil) }
  }

  /// Holds (``hold()``) once clients have sent `bytes` more to the server, in the middle of what crosses the count:
  /// a partition that comes at a point of a client's work, however fast or slowly the client and the test run.
  public func hold(afterSending bytes: Int) { state.withLockedValue { $0.budget = bytes } }

  /// The next time a client sends `text` (within one read: a PostgreSQL statement is one message, written at once),
  /// that read is dropped and its link closed both ways, as a server that died as the statement came would leave
  /// it: a fault at one statement of a client's work, whatever else it sends before.
  public func sever(whenClientSends text: String) { state.withLockedValue { $0.severing = Array(text.utf8) } }

  /// The next time a client sends `text` (within one read), the proxy holds (``hold()``), that read with the rest: a
  /// partition that comes at one statement of a client's work, whatever it sent before.
  public func hold(whenClientSends text: String) { state.withLockedValue { $0.holding = Array(text.utf8) } }

  /// How many links ``sever(whenClientSends:)`` closed.
  public var severed: Int { state.withLockedValue { $0.severed } }

  /// What was held goes through, and the proxy forwards again.
  public func resume() {
    // Under the lock, so that bytes read meanwhile are written after those held.
    state.withLockedValue { state in
      for (to, bytes) in state.waiting { to.writeAndFlush(bytes, promise: nil) }
      (state.held, state.waiting) = (false, [])
    }
  }

  /// Stops taking connections (those open stay).
  public func stop() async { try? await channel.close() }

  /// One direction of a link: what arrives goes to `peer`, unless the proxy holds it.
  private final class Forward: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let peer: any Channel
    let state: NIOLockedValueBox<State>
    /// Whether this direction goes from the client to the server.
    let upstream: Bool

    init(to peer: any Channel, state: NIOLockedValueBox<State>, upstream: Bool) {
      self.peer = peer
      self.state = state
      self.upstream = upstream
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      var bytes = unwrapInboundIn(data)
      let sever = state.withLockedValue { state -> Bool in
        guard upstream, let pattern = state.severing,
          bytes.readableBytesView.firstRange(of: pattern) != nil
        else { return false }
        (state.severing, state.severed) = (nil, state.severed + 1)
        return true
      }
      if sever {
        peer.close(promise: nil)
        context.close(promise: nil)
        return
      }
      state.withLockedValue { state in
        if !state.held, upstream, let pattern = state.holding, bytes.readableBytesView.firstRange(of: pattern) != nil {
          (state.held, state.holding) = (true, nil)
        }
        if !state.held, upstream, let budget = state.budget {
          guard bytes.readableBytes > budget else {
            state.budget = budget - bytes.readableBytes
            peer.writeAndFlush(bytes, promise: nil)
            return
          }
          if let head = bytes.readSlice(length: budget), head.readableBytes > 0 {
            peer.writeAndFlush(head, promise: nil)
          }
          (state.held, state.budget) = (true, nil)
        }
        if state.held { state.waiting.append((peer, bytes)) } else { peer.writeAndFlush(bytes, promise: nil) }
      }
    }

    func channelInactive(context: ChannelHandlerContext) {
      // A partition hides a close too; the peer learns of it when the proxy forwards again.
      if state.withLockedValue({ $0.held }) {
        let peer = peer
        Self.closeLater(peer, state: state)
      } else {
        peer.close(promise: nil)
      }
      context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }

    /// Closes `peer` once the proxy is no longer held.
    private static func closeLater(_ peer: any Channel, state: NIOLockedValueBox<State>) {
      peer.eventLoop.scheduleTask(in: .milliseconds(50)) {
        if state.withLockedValue({ $0.held }) { closeLater(peer, state: state) } else { peer.close(promise: nil) }
      }
    }
  }
}
