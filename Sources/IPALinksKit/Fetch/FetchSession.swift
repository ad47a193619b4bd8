internal import AsyncHTTPClient
import Foundation
internal import NIOCore
internal import NIOPosix
internal import NIOSSL

/// State shared by the requests of one ``AASAFetcher/fetch(_:onResult:)`` call.
///
/// Before any request, every host that needs the network is resolved and checked at once, and one HTTP client is
/// made whose `dnsOverride` pins each host to its checked address. One client means one TLS context: building a
/// context loads the system's root certificates, which costs far more than a fetch on a fast link, so doing it per host
/// made 200 domains CPU-bound. A host first met later (or whose lookup timed out up front) gets its own plan and client.
actor FetchSession {
  /// Why no connection plan could be made for a host.
  enum PlanFailure: Error {
    case dns(host: String, detail: String)
    case timeout(host: String)
    case refused(host: String, detail: String)

    func result(host: String, source: AASAFetchResult.Source, url: String) -> AASAFetchResult {
      switch self {
      case .dns(let target, let detail):
        AASAFetchResult(
          host: host, status: .dnsError, source: source, url: url,
          message: "\(host): cannot resolve \(target): \(detail)")
      case .timeout(let target):
        AASAFetchResult(
          host: host, status: .timeout, source: source, url: url,
          message: "\(host): resolving \(target) did not finish within the timeout")
      case .refused(let target, let detail):
        AASAFetchResult(
          host: host, status: .refusedPrivateAddress, source: source, url: url,
          message: "\(host): refused to connect to \(target): \(detail); non-public addresses need --allow-private")
      }
    }
  }

  typealias PlanResult = Result<ConnectionPlan, PlanFailure>

  private let options: AASAFetchOptions
  private let tls: TLSConfiguration
  private var plans: [String: Task<PlanResult, Never>] = [:]
  /// The client made up front, and the plans it is pinned to.
  private var shared: (client: HTTPClient, plans: Set<ConnectionPlan>)?
  private var ownClients: [ConnectionPlan: HTTPClient] = [:]
  private var gate = Gate.closed

  /// The shared client's first connection goes alone (see ``get(_:path:headers:deadline:cap:)``).
  private enum Gate {
    case closed
    case warming([CheckedContinuation<Void, Never>])
    case open
  }

  init(options: AASAFetchOptions, tls: TLSConfiguration) {
    self.options = options
    self.tls = tls
  }

  /// Resolves and checks `hosts` in parallel, then makes the shared client for those that passed. Lookups here get
  /// at most 5 s, so one slow resolver cannot hold up the batch; a host that times out is tried again on its own.
  func prepare(hosts: Set<String>) async {
    guard !hosts.isEmpty else { return }
    let options = self.options
    let deadline = NIODeadline.now() + min(TimeAmount(options.timeout), .seconds(5))
    let width = max(options.concurrency, 32)
    var prepared: [String: PlanResult] = [:]
    await withTaskGroup(of: (String, PlanResult).self) { group in
      var pending = hosts.sorted().makeIterator()
      for _ in 0..<width {
        guard let host = pending.next() else { break }
        group.addTask { (host, await Self.makePlan(urlHost: host, options: options, deadline: deadline)) }
      }
      while let (host, result) = await group.next() {
        prepared[host] = result
        if let host = pending.next() {
          group.addTask { (host, await Self.makePlan(urlHost: host, options: options, deadline: deadline)) }
        }
      }
    }
    var pinned = Set<ConnectionPlan>()
    for (host, result) in prepared {
      if case .failure(.timeout) = result { continue }
      plans[host] = Task { result }
      if case .success(let plan) = result { pinned.insert(plan) }
    }
    if !pinned.isEmpty {
      shared = (HTTPClients.make(plans: pinned, tls: tls, options: options), pinned)
    }
  }

  /// Where connections for `urlHost` go: `--connect-to` applied, the target resolved once, and an address the guard
  /// accepts picked (IPv4 first, as IPv6 is often configured but unroutable in containers and CI).
  func plan(for urlHost: String, deadline: NIODeadline) async -> PlanResult {
    if let pending = plans[urlHost] { return await pending.value }
    let options = self.options
    let task = Task { await Self.makePlan(urlHost: urlHost, options: options, deadline: deadline) }
    plans[urlHost] = task
    return await task.value
  }

  /// One GET on the client pinned to `plan`.
  ///
  /// AsyncHTTPClient builds its TLS context when a connection starts and caches it only once built, and building one
  /// loads the system roots; a burst of first connections would each build their own. So the shared client's first
  /// request goes alone until its request is on the wire (the context is cached by then), it ends, or 500 ms pass.
  nonisolated func get(
    _ plan: ConnectionPlan, path: String, headers: [(String, String)], deadline: NIODeadline, cap: Int
  ) async throws -> HTTPExchange {
    let (client, warming) = await client(for: plan)
    guard warming else {
      return try await HTTPClients.get(
        client: client, plan: plan, path: path, extraHeaders: headers, deadline: deadline, cap: cap)
    }
    let timer = MultiThreadedEventLoopGroup.singleton.next().scheduleTask(in: .milliseconds(500)) {
      Task { await self.openGate() }
    }
    defer { timer.cancel() }
    do {
      let exchange = try await HTTPClients.get(
        client: client, plan: plan, path: path, extraHeaders: headers, deadline: deadline, cap: cap,
        onRequestSent: { Task { await self.openGate() } })
      openGateSoon()
      return exchange
    } catch {
      openGateSoon()
      throw error
    }
  }

  private nonisolated func openGateSoon() { Task { await self.openGate() } }

  private func openGate() {
    if case .warming(let waiters) = gate { waiters.forEach { $0.resume() } }
    gate = .open
  }

  /// The client pinned to `plan`: the shared one when it covers the plan, else one of its own. `warming` is true for
  /// the one caller that opens the shared client's gate; others wait for it.
  private func client(for plan: ConnectionPlan) async -> (client: HTTPClient, warming: Bool) {
    if let shared, shared.plans.contains(plan) {
      switch gate {
      case .closed:
        gate = .warming([])
        return (shared.client, true)
      case .warming:
        await withCheckedContinuation { continuation in
          if case .warming(let waiters) = gate {
            gate = .warming(waiters + [continuation])
          } else {
            continuation.resume()
          }
        }
        return (shared.client, false)
      case .open:
        return (shared.client, false)
      }
    }
    if let client = ownClients[plan] { return (client, false) }
    let client = HTTPClients.make(plans: [plan], tls: tls, options: options)
    ownClients[plan] = client
    return (client, false)
  }

  func close() async {
    openGate()
    if let shared { try? await shared.client.shutdown() }
    for client in ownClients.values { try? await client.shutdown() }
    shared = nil
    ownClients = [:]
  }

  static func makePlan(urlHost: String, options: AASAFetchOptions, deadline: NIODeadline) async -> PlanResult {
    let rule = options.connectTo.first { $0.matches(host: urlHost, port: 443) }
    let target = rule?.toHost ?? urlHost
    let port = rule?.toPort ?? 443
    let addresses: [IPAddress]
    if let literal = IPAddress(target) {
      addresses = [literal]
    } else {
      switch await lookup(target, deadline: deadline) {
      case .success(let found): addresses = found
      case .failure(let failure): return .failure(failure)
      }
    }
    let allowed = options.allowPrivate ? addresses : addresses.filter { AddressGuard.refusalReason($0) == nil }
    guard let address = allowed.first(where: { !$0.isIPv6 }) ?? allowed.first else {
      let reasons = addresses.map { "\($0) is \(AddressGuard.refusalReason($0) ?? "allowed")" }
      return .failure(.refused(host: target, detail: reasons.joined(separator: ", ")))
    }
    return .success(ConnectionPlan(urlHost: urlHost, address: address, port: port))
  }

  /// getaddrinfo blocks, so it runs on a Dispatch thread; the deadline is enforced here, so a stuck resolver costs
  /// a thread for a while but never holds the fetch past the timeout.
  private static func lookup(_ host: String, deadline: NIODeadline) async -> Result<[IPAddress], PlanFailure> {
    let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
    let promise = eventLoop.makePromise(of: Result<[IPAddress], PlanFailure>.self)
    DispatchQueue.global().async {
      do throws(HostResolver.Failure) {
        promise.succeed(.success(try HostResolver.resolve(host)))
      } catch {
        switch error {
        case .noSuchHost: promise.succeed(.failure(.dns(host: host, detail: "no such host")))
        case .failed(let detail): promise.succeed(.failure(.dns(host: host, detail: detail)))
        }
      }
    }
    // Whichever comes first wins; NIO ignores the later completion.
    let timer = eventLoop.scheduleTask(deadline: deadline) { promise.succeed(.failure(.timeout(host: host))) }
    let result = (try? await promise.futureResult.get()) ?? .failure(.timeout(host: host))
    timer.cancel()
    return result
  }
}
