import Foundation
import TestServers
import Testing

@testable import IPALinksKit

/// The retrieval rules against a real HTTPS server on loopback, reached through `--connect-to` with fake `.test` names.
struct AASAFetcherTests {
  typealias H = FetchHarness

  @Test func wellKnownIsFetchedWithTheOriginalHostHeader() async throws {
    try await H.run { h in
      h.server.respond(host: "example.test", path: H.wellKnown, with: .json(H.sampleJSON))
      let result = try await h.fetch("example.test", h.options())
      #expect(result.status == .ok)
      #expect(result.source == .directWellKnown)
      #expect(result.url == "https://example.test/.well-known/apple-app-site-association")
      #expect(result.httpStatus == 200)
      #expect(result.contentType == "application/json")
      #expect(result.bytes == H.sampleJSON.utf8.count)
      #expect(result.body == Array(H.sampleJSON.utf8))
      #expect(result.fallbackUsed == false)
      #expect(result.remoteAddress == "127.0.0.1")
      let seen = h.server.requests
      #expect(seen.count == 1)
      // The connection went to 127.0.0.1:<port>, yet the server saw the original host without a port.
      #expect(seen.first?.host == "example.test")
      #expect(seen.first?.method == "GET")
    }
  }

  @Test func extraRootsAreAddedToTheSystemRoots() async throws {
    try await H.run { h in
      h.server.respond(host: "example.test", path: H.wellKnown, with: .json(H.sampleJSON))
      let result = try await h.fetch("example.test", h.options(systemRoots: true))
      #expect(result.status == .ok)
    }
  }

  @Test func rootIsTriedAfterA404AtWellKnown() async throws {
    try await H.run { h in
      h.server.respond(host: "example.test", path: H.root, with: .json(H.sampleJSON))
      let result = try await h.fetch("example.test", h.options())
      #expect(result.status == .ok)
      #expect(result.source == .directRoot)
      #expect(result.fallbackUsed)
      #expect(result.url == "https://example.test/apple-app-site-association")
      #expect(result.body == Array(H.sampleJSON.utf8))
      #expect(h.server.requests.map(\.path) == [H.wellKnown, H.root])
    }
  }

  @Test func notFoundOnBothPaths() async throws {
    try await H.run { h in
      let result = try await h.fetch("example.test", h.options())
      #expect(result.status == .notFound)
      #expect(result.httpStatus == 404)
      #expect(result.fallbackUsed)
      #expect(result.body == nil)
      #expect(result.message.contains("example.test"))
      #expect(result.message.contains(H.wellKnown) && result.message.contains(H.root))
      #expect(h.server.requests.count == 2)
    }
  }

  /// A server that closes its kept-alive connection as the next request goes out loses that request unanswered: the
  /// GET is sent once more on a new connection. It was a `connection-error` (partial) for a host that answers 404 and
  /// then its file.
  @Test func aRequestLostWithAKeptAliveConnectionIsSentAgain() async throws {
    try await H.run { h in
      var notFound = TestResponse.status(404)
      notFound.closesOnNextRequest = true
      h.server.respond(host: "example.test", path: H.wellKnown, with: notFound)
      h.server.respond(host: "example.test", path: H.root, with: .json(H.sampleJSON))
      let result = try await h.fetch("example.test", h.options())
      #expect(result.status == .ok && result.source == .directRoot, "\(result.message)")
      #expect(h.server.requests.map(\.path) == [H.wellKnown, H.root, H.root])
      // An answer cut short after its head is not asked again: the server did answer.
      h.server.respond(host: "cut.test", path: H.wellKnown, with: notFound)
      h.server.respond(
        host: "cut.test", path: H.root, with: TestResponse(body: .reset(prefix: Array("{".utf8), declaredLength: 64)))
      let cut = try await h.fetch("cut.test", h.options())
      #expect(cut.status == .connectionError, "\(cut.message)")
      #expect(h.server.requests(host: "cut.test").map(\.path) == [H.wellKnown, H.root, H.root])
    }
  }

  @Test func movedPermanentlyIsReportedNotFollowed() async throws {
    try await H.run { h in
      h.server.respond(
        host: "example.test", path: H.wellKnown,
        with: .status(301, headers: [("Location", "https://example.test/moved.json")]))
      h.server.respond(host: "example.test", path: "/moved.json", with: .json(H.sampleJSON))
      let result = try await h.fetch("example.test", h.options())
      #expect(result.status == .redirect)
      #expect(result.httpStatus == 301)
      #expect(result.location == "https://example.test/moved.json")
      #expect(result.body == nil)
      // Neither the target nor the root fallback was requested.
      #expect(h.server.requests.map(\.path) == [H.wellKnown])
    }
  }

  @Test func redirectToAnotherHTTPSHostIsNotFollowed() async throws {
    try await H.run { h in
      h.server.respond(
        host: "example.test", path: H.wellKnown,
        with: .status(302, headers: [("Location", "https://other.test/.well-known/apple-app-site-association")]))
      h.server.respond(host: "other.test", path: H.wellKnown, with: .json(H.sampleJSON))
      let result = try await h.fetch("example.test", h.options())
      #expect(result.status == .redirect)
      #expect(result.httpStatus == 302)
      #expect(result.location == "https://other.test/.well-known/apple-app-site-association")
      #expect(h.server.requests(host: "other.test").isEmpty)
      #expect(h.server.requests.count == 1)
    }
  }

  @Test func serverErrorIsAnHTTPError() async throws {
    try await H.run { h in
      h.server.respond(host: "example.test", path: H.wellKnown, with: .status(503))
      let result = try await h.fetch("example.test", h.options())
      #expect(result.status == .httpError)
      #expect(result.httpStatus == 503)
      #expect(result.message.contains("503"))
      #expect(!result.message.contains("retry"))
      // A rate limit's Retry-After is said, for whoever schedules the next refresh.
      h.server.respond(host: "rate.test", path: H.wellKnown, with: .status(429, headers: [("Retry-After", "120")]))
      let limited = try await h.fetch("rate.test", h.options())
      #expect(limited.status == .httpError)
      #expect(limited.message.hasSuffix("HTTP 429 from \(limited.url ?? ""); the server asks to retry after 120 s"))
    }
  }

  /// A non-2xx answer stands by its status when its body, never wanted, is cut short or stalls: an HTTP/1.0 503 read
  /// to a close without TLS's close_notify was "the connection was cut mid-response", and a 404 so cut was no 404,
  /// so the root path was not asked.
  @Test func anErrorAnswerWhoseBodyIsCutStandsByItsStatus() async throws {
    try await H.run { h in
      let cut = TestResponse(status: 503, body: .reset(prefix: Array("Service down".utf8), declaredLength: 400))
      h.server.respond(host: "down.test", path: H.wellKnown, with: cut)
      let down = try await h.fetch("down.test", h.options())
      #expect(down.status == .httpError && down.httpStatus == 503, "\(down.message)")
      #expect(down.message.contains("HTTP 503") && !down.message.contains("cut"), "\(down.message)")
      // A stalled body: the status, at the deadline.
      let stall = TestResponse(status: 503, body: .stall(prefix: Array("Serv".utf8), declaredLength: 400))
      h.server.respond(host: "stall.test", path: H.wellKnown, with: stall)
      let stalled = try await h.fetch("stall.test", h.options(timeout: TestTiming.seconds(1)))
      #expect(stalled.status == .httpError && stalled.httpStatus == 503, "\(stalled.message)")
      // A 404 so cut is a 404: the file is looked for at the root, as after any 404.
      let gone = TestResponse(status: 404, body: .reset(prefix: Array("<html>".utf8), declaredLength: 400))
      h.server.respond(host: "moved.test", path: H.wellKnown, with: gone)
      h.server.respond(host: "moved.test", path: H.root, with: .json(H.sampleJSON))
      let moved = try await h.fetch("moved.test", h.options())
      #expect(moved.status == .ok && moved.source == .directRoot, "\(moved.message)")
    }
  }

  @Test func announced200KBBodyIsTooLargeWithoutReadingIt() async throws {
    try await H.run { h in
      let big = [UInt8](repeating: UInt8(ascii: " "), count: 200 * 1024)
      h.server.respond(host: "example.test", path: H.wellKnown, with: TestResponse(body: .full(big)))
      let result = try await h.fetch("example.test", h.options())
      #expect(result.status == .tooLarge)
      #expect(result.httpStatus == 200)
      #expect(result.bytes == 200 * 1024)
      #expect(result.body == nil)
    }
  }

  @Test func streamedBodyIsCutAtTheCapLongBeforeTheServerFinishes() async throws {
    try await H.run { h in
      // 1 MiB in 16 KiB chunks every 200 ms would take 12.8 s; the cap is passed after 9 chunks, about 1.6 s in.
      let endless = [UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20)
      h.server.respond(
        host: "example.test", path: H.wellKnown,
        with: TestResponse(body: .chunked(endless, chunkSize: 16 * 1024, interval: .milliseconds(200))))
      let start = ContinuousClock.now
      let result = try await h.fetch("example.test", h.options())
      let elapsed = (ContinuousClock.now - start).inSeconds
      #expect(result.status == .tooLarge)
      #expect(result.httpStatus == 200)
      let bytes = try #require(result.bytes)
      #expect(bytes > 131_072 && bytes <= 131_072 + 16 * 1024)
      #expect(result.body == nil)
      // Timed by the server: the client hung up soon after the cap, long before the stream's end.
      let request = try #require(await h.server.firstRequestAfterClose())
      let lifetime = (try #require(request.connectionClosedAt) - request.receivedAt).inSeconds
      #expect(lifetime < 4 * TestTiming.scale, "connection lived \(lifetime) s; the stream lasts 12.8 s")
      #expect(h.server.bodyBytesSent(host: "example.test") < 300 * 1024)
      // Loose: other suites can starve this process's threads for seconds on a 2-core machine.
      #expect(elapsed < 10 * TestTiming.scale, "took \(elapsed) s")
    }
  }

  @Test func bodyThatStallsHitsTheTimeout() async throws {
    try await H.run { h in
      h.server.respond(
        host: "example.test", path: H.wellKnown,
        with: TestResponse(body: .stall(prefix: Array("{\"applinks\":".utf8), declaredLength: 1000)))
      let start = ContinuousClock.now
      let result = try await h.fetch("example.test", h.options(timeout: TestTiming.seconds(1)))
      let elapsed = (ContinuousClock.now - start).inSeconds
      #expect(result.status == .timeout)
      #expect(result.message.contains("example.test"))
      let request = try #require(await h.server.firstRequestAfterClose())
      let lifetime = (try #require(request.connectionClosedAt) - request.receivedAt).inSeconds
      #expect(
        lifetime < 3 * TestTiming.scale, "the client held the stalled connection \(lifetime) s with a 1 s timeout")
      // Alone this takes about 1 s; the loose bound allows for other suites starving this process's threads.
      #expect(elapsed < 10 * TestTiming.scale, "took \(elapsed) s with a 1 s timeout")
    }
  }

  @Test func headersThatNeverComeHitTheTimeout() async throws {
    try await H.run { h in
      h.server.respond(host: "example.test", path: H.wellKnown, with: .json(H.sampleJSON, delay: .seconds(30)))
      let start = ContinuousClock.now
      let result = try await h.fetch("example.test", h.options(timeout: TestTiming.seconds(1)))
      let elapsed = (ContinuousClock.now - start).inSeconds
      #expect(result.status == .timeout)
      let request = try #require(await h.server.firstRequestAfterClose())
      let lifetime = (try #require(request.connectionClosedAt) - request.receivedAt).inSeconds
      #expect(lifetime < 3 * TestTiming.scale, "the client waited \(lifetime) s for headers with a 1 s timeout")
      // Alone this takes about 1 s; the loose bound allows for other suites starving this process's threads.
      #expect(elapsed < 10 * TestTiming.scale, "took \(elapsed) s with a 1 s timeout")
    }
  }

  @Test func connectionResetMidBodyIsAConnectionError() async throws {
    try await H.run { h in
      h.server.respond(
        host: "example.test", path: H.wellKnown,
        with: TestResponse(body: .reset(prefix: Array(H.sampleJSON.utf8.prefix(20)), declaredLength: 5000)))
      let result = try await h.fetch("example.test", h.options())
      #expect(result.status == .connectionError)
      #expect(result.body == nil)
      #expect(result.message.contains("example.test"))
    }
  }

  @Test func nothingListeningIsAConnectionError() async throws {
    var port = 0
    try await H.run { h in port = h.server.port }  // the server is stopped: its port now refuses connections
    var options = AASAFetchOptions(
      source: .direct, timeout: .seconds(5), allowPrivate: true,
      connectTo: [try ConnectToRule.parse("example.test:443:127.0.0.1:\(port)")])
    options.trustsSystemRoots = false
    let fetcher = try AASAFetcher(options: options)
    let result = try #require(await fetcher.fetch([AASARequest(host: "example.test")]).values.first)
    #expect(result.status == .connectionError)
    #expect(result.message.contains("example.test"))
  }

  @Test func pkcs7EnvelopeIsReturnedIntact() async throws {
    try await H.run { h in
      let envelope = Self.signedDataEnvelope(wrapping: Array(H.sampleJSON.utf8))
      h.server.respond(
        host: "example.test", path: H.wellKnown,
        with: TestResponse(headers: [("Content-Type", "application/pkcs7-mime")], body: .full(envelope)))
      let result = try await h.fetch("example.test", h.options())
      #expect(result.status == .ok)
      #expect(result.contentType == "application/pkcs7-mime")
      #expect(result.body == envelope)
      #expect(result.bytes == envelope.count)
    }
  }

  static let signedCorpus = Fixtures.shared.appendingPathComponent("aasa-corpus/signed/pinterest.com.p7m")

  @Test(
    .enabled(
      if: FileManager.default.fileExists(atPath: signedCorpus.path),
      "skipped: ../shared/aasa-corpus/signed/pinterest.com.p7m is absent (only developer machines and CI have it)"))
  func realSignedFileIsReturnedIntact() async throws {
    let envelope = [UInt8](try Data(contentsOf: Self.signedCorpus))
    try await H.run { h in
      h.server.respond(host: "example.test", path: H.wellKnown, with: TestResponse(body: .full(envelope)))
      let result = try await h.fetch("example.test", h.options())
      #expect(result.status == .ok)
      #expect(result.body == envelope)
    }
  }

  @Test func cdnFailureHeadersAreSurfaced() async throws {
    try await H.run { h in
      h.server.respond(
        host: AASAFetcher.cdnHost, path: "/a/v1/example.test",
        with: .status(
          404,
          headers: [
            ("Apple-Failure-Reason", "SWCERR00101 Bad HTTP Response: 404 Not Found"),
            ("Apple-Failure-Details", "{\"cause\":\"404\"}"),
            ("Apple-From", "https://example.test/.well-known/apple-app-site-association"),
          ]))
      let result = try await h.fetch("example.test", h.options(source: .cdn))
      #expect(result.status == .notFound)
      #expect(result.source == .cdn)
      #expect(result.url == "https://app-site-association.cdn-apple.com/a/v1/example.test")
      #expect(result.appleFailureReason == "SWCERR00101 Bad HTTP Response: 404 Not Found")
      #expect(result.appleFailureDetails == "{\"cause\":\"404\"}")
      #expect(result.appleFrom == "https://example.test/.well-known/apple-app-site-association")
      #expect(result.message.contains("SWCERR00101"))
      #expect(h.server.requests.map(\.host) == [AASAFetcher.cdnHost])
    }
  }

  /// The CDN's headers are kept to a line: a server's 60 KB of them were repeated whole in the text, the JSON and
  /// the one stderr line.
  @Test func cdnFailureHeadersAreKeptToALine() async throws {
    try await H.run { h in
      h.server.respond(
        host: AASAFetcher.cdnHost, path: "/a/v1/example.test",
        with: .status(404, headers: [("Apple-Failure-Details", String(repeating: "x", count: 60_000))]))
      let result = try await h.fetch("example.test", h.options(source: .cdn))
      #expect(result.status == .notFound)
      #expect(result.appleFailureDetails == String(repeating: "x", count: 300) + "… (cut at 300 characters)")
      #expect(result.message.count < 1_000, "\(result.message.count)")
    }
  }

  @Test func cdnSuccessCarriesAppleFrom() async throws {
    try await H.run { h in
      h.server.respond(
        host: AASAFetcher.cdnHost, path: "/a/v1/example.test",
        with: .json(
          H.sampleJSON, headers: [("Apple-From", "https://example.test/.well-known/apple-app-site-association")]))
      let result = try await h.fetch("example.test", h.options(source: .cdn))
      #expect(result.status == .ok)
      #expect(result.source == .cdn)
      #expect(result.appleFrom == "https://example.test/.well-known/apple-app-site-association")
      #expect(result.body == Array(H.sampleJSON.utf8))
      #expect(h.server.requests(host: "example.test").isEmpty)
    }
  }

  @Test func bothSourcesAreComparedSideBySide() async throws {
    try await H.run { h in
      h.server.respond(host: AASAFetcher.cdnHost, path: "/a/v1/example.test", with: .json(H.sampleJSON))
      h.server.respond(host: "example.test", path: H.wellKnown, with: .json("{}"))
      let result = try await h.fetch("example.test", h.options(source: .both))
      #expect(result.source == .cdn)
      #expect(result.status == .ok)
      #expect(result.comparison.count == 1)
      #expect(result.comparison.first?.source == .directWellKnown)
      #expect(result.comparison.first?.body == Array("{}".utf8))
    }
  }

  @Test func wildcardDomainIsFetchedFromItsApex() async throws {
    try await H.run { h in
      var diagnostics: [Diagnostic] = []
      let domain = AssociatedDomain.parse("applinks:*.example.test", diagnostics: &diagnostics)
      #expect(domain.wildcard)
      h.server.respond(host: "example.test", path: H.wellKnown, with: .json(H.sampleJSON))
      let result = try await h.fetch(domain.host, h.options())
      #expect(result.status == .ok)
      #expect(result.host == "example.test")
      #expect(h.server.requests.map(\.host) == ["example.test"])
    }
  }

  @Test func developerModeGoesDirectEvenWhenTheSourceIsTheCDN() async throws {
    try await H.run { h in
      h.server.respond(host: "example.test", path: H.wellKnown, with: .json(H.sampleJSON))
      let result = try await h.fetch("example.test", developerMode: true, h.options(source: .cdn))
      #expect(result.status == .ok)
      #expect(result.source == .directWellKnown)
      #expect(h.server.requests(host: AASAFetcher.cdnHost).isEmpty)
    }
  }

  @Test func developerModeDoesNotFallBackToTheRoot() async throws {
    try await H.run { h in
      h.server.respond(host: "example.test", path: H.root, with: .json(H.sampleJSON))
      let result = try await h.fetch("example.test", developerMode: true, h.options(source: .cdn))
      #expect(result.status == .notFound)
      #expect(result.fallbackUsed == false)
      #expect(h.server.requests.map(\.path) == [H.wellKnown])
    }
  }

  @Test func loopbackTargetIsRefusedWithoutAllowPrivate() async throws {
    try await H.run { h in
      h.server.respond(host: "example.test", path: H.wellKnown, with: .json(H.sampleJSON))
      var options = h.options()
      options.allowPrivate = false
      let result = try await h.fetch("example.test", options)
      #expect(result.status == .refusedPrivateAddress)
      #expect(result.message.contains("127.0.0.1"))
      #expect(result.message.contains("loopback"))
      #expect(h.server.requests.isEmpty)
    }
  }

  @Test func hostThatResolvesToLoopbackIsRefused() async throws {
    // `localhost` resolves through the system resolver (no network) to 127.0.0.1 and/or ::1.
    let fetcher = try AASAFetcher(options: AASAFetchOptions(source: .direct, timeout: .seconds(5)))
    let result = try #require(await fetcher.fetch([AASARequest(host: "localhost")]).values.first)
    #expect(result.status == .refusedPrivateAddress)
    #expect(result.message.contains("loopback"))
  }

  @Test func certificateFromAnUntrustedAuthorityIsATLSError() async throws {
    let stranger = try TestCertificateAuthority(name: "someone else's CA")
    try await H.run(authority: stranger) { h in
      h.server.respond(host: "example.test", path: H.wellKnown, with: .json(H.sampleJSON))
      var options = h.options()
      options.extraRootsPEM = [try TestCertificateAuthority().caPEM]  // trusts a different CA
      let result = try await h.fetch("example.test", options)
      #expect(result.status == .tlsError)
      #expect(h.server.requests.isEmpty)
      // In words, without BoringSSL's numbers and the path of the source file it was raised at.
      #expect(
        result.message.hasSuffix(
          ": TLS failed: the server's certificate is not trusted: expired, not yet valid, or not signed by a trusted "
            + "authority"), "\(result.message)")
    }
  }

  @Test func certificateForAnotherNameIsATLSError() async throws {
    try await H.run(dnsNames: ["other.test"]) { h in
      h.server.respond(host: "example.test", path: H.wellKnown, with: .json(H.sampleJSON))
      let result = try await h.fetch("example.test", h.options())
      #expect(result.status == .tlsError)
      #expect(h.server.requests.isEmpty)
      #expect(
        result.message.hasSuffix(": TLS failed: the server's certificate is not valid for this host name"),
        "\(result.message)")
    }
  }

  @Test func invalidHostNameIsRefusedBeforeAnyLookup() async throws {
    try await H.run { h in
      for host in ["../etc", "evil.test/x", "a@b.test", "", "exa mple.test"] {
        let result = try await h.fetch(host, h.options())
        #expect(result.status == .dnsError, "\(host)")
      }
      #expect(h.server.requests.isEmpty)
    }
  }

  @Test func fetchesOverlapAndDuplicatesAreFetchedOnce() async throws {
    try await H.run { h in
      let hosts = (0..<10).map { "d\($0).example.test" }
      for host in hosts {
        h.server.respond(host: host, path: H.wellKnown, with: .json(H.sampleJSON, delay: TestTiming.seconds(1)))
      }
      let fetcher = try AASAFetcher(options: h.options(concurrency: 10))
      let requests = (hosts + hosts).map { AASARequest(host: $0) }
      let start = ContinuousClock.now
      let results = await fetcher.fetch(requests)
      let elapsed = (ContinuousClock.now - start).inSeconds
      #expect(results.count == 10)
      #expect(results.values.allSatisfy { $0.status == .ok })
      #expect(h.server.requests.count == 10)
      // All ten were in flight together, by the server's clock; one at a time would space them 1 s apart.
      let arrivals = h.server.requests.map(\.receivedAt)
      let spread = (try #require(arrivals.max()) - (try #require(arrivals.min()))).inSeconds
      #expect(spread < 0.9 * TestTiming.scale, "arrivals spread over \(spread) s")
      #expect(elapsed < 10 * TestTiming.scale, "10 × 1 s in parallel took \(elapsed) s")
    }
  }

  @Test func jsonReportLeavesTheBodyOut() throws {
    let result = AASAFetchResult(
      host: "example.test", status: .ok, source: .directRoot, url: "https://example.test/apple-app-site-association",
      httpStatus: 200, bytes: 2, fallbackUsed: true, message: "example.test: 2 bytes", body: Array("{}".utf8))
    let json = String(decoding: try JSONEncoder().encode(result), as: UTF8.self)
    #expect(json.contains("\"status\":\"ok\""))
    #expect(json.contains("\"source\":\"direct-root\""))
    #expect(json.contains("\"fallbackUsed\":true"))
    #expect(!json.contains("body"))
    #expect(!json.contains("comparison"))
  }

  @Test func statusStringsAreTheDocumentedOnes() {
    #expect(
      AASAFetchResult.Status.allCases.map(\.rawValue) == [
        "ok", "not-found", "http-error", "redirect", "too-large", "timeout", "tls-error", "dns-error",
        "connection-error", "invalid-json", "refused-private-address", "skipped-offline", "over-limit", "unreadable",
      ])
    #expect(
      AASAFetchResult.Source.allCases.map(\.rawValue) == [
        "cdn", "direct-well-known", "direct-root", "cache", "aasa-dir",
      ])
  }

  /// A minimal CMS SignedData (RFC 5652) carrying `content`, as `openssl smime -sign -nodetach -outform DER` lays it
  /// out, minus certificates and signer infos: the fetcher must pass it through byte for byte.
  static func signedDataEnvelope(wrapping content: [UInt8]) -> [UInt8] {
    func tlv(_ tag: UInt8, _ value: [UInt8]) -> [UInt8] {
      let n = value.count
      let length: [UInt8] =
        n < 0x80 ? [UInt8(n)] : n < 0x100 ? [0x81, UInt8(n)] : [0x82, UInt8(n >> 8), UInt8(n & 0xff)]
      return [tag] + length + value
    }
    let signedDataOID: [UInt8] = [0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x02]
    let dataOID: [UInt8] = [0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x01]
    let digestAlgorithms = tlv(0x31, tlv(0x30, [0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01]))
    let encapsulated = tlv(0x30, dataOID + tlv(0xa0, tlv(0x04, content)))
    let signedData = tlv(0x30, [0x02, 0x01, 0x01] + digestAlgorithms + encapsulated + tlv(0x31, []))
    return tlv(0x30, signedDataOID + tlv(0xa0, signedData))
  }
}
