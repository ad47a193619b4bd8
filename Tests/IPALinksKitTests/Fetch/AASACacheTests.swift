import Foundation
import TestServers
import Testing

@testable import IPALinksKit

/// The on-disk cache against a real server: freshness, revalidation, outages and offline use.
struct AASACacheTests {
  typealias H = FetchHarness

  @Test func freshCopyIsServedWithoutARequest() async throws {
    try await H.run { h in
      h.server.respond(
        host: "example.test", path: H.wellKnown, with: .json(H.sampleJSON, headers: [("Cache-Control", "max-age=3600")])
      )
      let first = try await h.fetch("example.test", h.options(cache: true))
      #expect(first.status == .ok)
      #expect(first.source == .directWellKnown)
      let second = try await h.fetch("example.test", h.options(cache: true))
      #expect(second.status == .ok)
      #expect(second.source == .cache)
      #expect(second.cachedFrom == .directWellKnown)
      #expect(second.body == Array(H.sampleJSON.utf8))
      #expect(second.message.contains("fresh"))
      #expect(h.server.requests.count == 1)
    }
  }

  @Test func staleCopyIsRevalidatedWithIfNoneMatch() async throws {
    try await H.run { h in
      h.server.respond(host: "example.test", path: H.wellKnown) { request in
        request.header("If-None-Match") == "\"v1\""
          ? .status(304, headers: [("ETag", "\"v1\""), ("Cache-Control", "max-age=0")])
          : .json(H.sampleJSON, headers: [("ETag", "\"v1\""), ("Cache-Control", "no-cache")])
      }
      let first = try await h.fetch("example.test", h.options(cache: true))
      #expect(first.source == .directWellKnown)
      #expect(h.server.requests.first?.header("If-None-Match") == nil)
      let second = try await h.fetch("example.test", h.options(cache: true))
      #expect(h.server.requests.count == 2)
      #expect(h.server.requests.last?.header("If-None-Match") == "\"v1\"")
      #expect(second.status == .ok)
      #expect(second.source == .cache)
      #expect(second.httpStatus == 200)
      #expect(second.body == Array(H.sampleJSON.utf8))
      #expect(second.message.contains("304"))
    }
  }

  @Test func changedFileReplacesTheCachedOne() async throws {
    try await H.run { h in
      h.server.respond(
        host: "example.test", path: H.wellKnown,
        with: .json("{\"applinks\":{\"old\":1}}", headers: [("ETag", "\"v1\"")]))
      _ = try await h.fetch("example.test", h.options(cache: true))
      h.server.respond(
        host: "example.test", path: H.wellKnown,
        with: .json("{\"applinks\":{\"new\":2}}", headers: [("ETag", "\"v2\"")]))
      let second = try await h.fetch("example.test", h.options(cache: true))
      #expect(second.source == .directWellKnown)
      #expect(second.body == Array("{\"applinks\":{\"new\":2}}".utf8))
      let offline = try await h.fetch("example.test", h.options(cache: true, offline: true))
      #expect(offline.body == Array("{\"applinks\":{\"new\":2}}".utf8))
    }
  }

  @Test func cachedCopyIsServedWhenTheServerIsDown() async throws {
    var options: AASAFetchOptions?
    var cacheDirectory: URL?
    try await H.run { h in
      h.server.respond(host: "example.test", path: H.root, with: .json(H.sampleJSON))
      let first = try await h.fetch("example.test", h.options(cache: true))
      #expect(first.source == .directRoot)
      options = h.options(cache: true)
      cacheDirectory = h.cacheDirectory
      try FileManager.default.copyItem(at: h.cacheDirectory, to: h.cacheDirectory.appendingPathExtension("kept"))
    }
    // The server is stopped now; its port refuses connections.
    var down = try #require(options)
    let kept = try #require(cacheDirectory).appendingPathExtension("kept")
    defer { try? FileManager.default.removeItem(at: kept) }
    down.cacheDirectory = kept
    let fetcher = try AASAFetcher(options: down)
    let result = try #require(await fetcher.fetch([AASARequest(host: "example.test")]).values.first)
    #expect(result.status == .ok)
    #expect(result.source == .cache)
    #expect(result.cachedFrom == .directRoot)
    #expect(result.fallbackUsed)
    #expect(result.body == Array(H.sampleJSON.utf8))
    #expect(result.message.contains("served the cached copy"))
  }

  /// What a captive portal, a firewall or a split DNS answers (a login page with 200, a redirect, a private
  /// address) neither replaces the cached copy nor goes into the cache: the page went into the cache as the file,
  /// and the next run, even offline, read it as "no file", which unblocked the site's links.
  @Test func aPortalsAnswerLeavesTheCachedCopy() async throws {
    try await H.run { h in
      let options = h.options(cache: true)
      h.server.respond(host: "example.test", path: H.wellKnown, with: .json(H.sampleJSON))
      #expect(try await h.fetch("example.test", options).source == .directWellKnown)
      let page = TestResponse(
        status: 200, headers: [("Content-Type", "text/html")], body: .full(Array("<html>Log in</html>".utf8)))
      for (answer, said) in [
        (page, "because the answer is no AASA file"),
        (.status(302, headers: [("Location", "https://portal.test/login")]), "redirect"),
      ] {
        h.server.respond(host: "example.test", path: H.wellKnown, with: answer)
        h.server.respond(host: "example.test", path: H.root, with: answer)
        let served = try await h.fetch("example.test", options)
        #expect(served.status == .ok && served.source == .cache, "\(served.message)")
        #expect(served.body == Array(H.sampleJSON.utf8))
        #expect(served.message.contains("served the cached copy") && served.message.contains(said), "\(served.message)")
        // Told among the lookups that failed, as an outage's stand-in is.
        #expect(served.servedInstead)
        var domain = AssociatedDomain(
          raw: "applinks:example.test", service: .applinks, host: "example.test", wildcard: false)
        domain.aasa = DomainAASA(fetch: served)
        var bundle = BundleReport(path: "Payload/T.app", kind: .app)
        bundle.associatedDomains = [domain]
        var failures = HostFailures()
        failures.add(InspectionReport(input: "t.ipa", inputKind: .ipa, bundles: [bundle]))
        #expect(failures.lookups.map(\.host) == ["example.test"])
      }
      // `refresh` asks for what the site answered: its store keeps the last good file itself.
      var own = options
      own.cachedCopyStandsIn = false
      h.server.respond(host: "example.test", path: H.wellKnown, with: page)
      let answered = try await h.fetch("example.test", own)
      #expect(answered.source == .directWellKnown && ParsedAASA(answered).answer.status == .invalidJSON)
      var guarded = options
      guarded.allowPrivate = false
      let refused = try await h.fetch("example.test", guarded)
      #expect(refused.source == .cache && refused.message.contains("refused to connect"), "\(refused.message)")
      var offline = options
      offline.offline = true
      #expect(try await h.fetch("example.test", offline).body == Array(H.sampleJSON.utf8))
    }
    // Without a cached copy the page is what the fetch got, and no copy of it is kept.
    try await H.run { h in
      let options = h.options(cache: true)
      h.server.respond(
        host: "example.test", path: H.wellKnown,
        with: TestResponse(status: 200, body: .full(Array("<html>Log in</html>".utf8))))
      let page = try await h.fetch("example.test", options)
      #expect(page.status == .ok && page.source == .directWellKnown)
      #expect(ParsedAASA(page).answer.status == .invalidJSON)
      var offline = options
      offline.offline = true
      #expect(try await h.fetch("example.test", offline).status == .skippedOffline)
    }
  }

  @Test func offlineUsesTheCacheAndTouchesNoNetwork() async throws {
    try await H.run { h in
      h.server.respond(host: "example.test", path: H.wellKnown, with: .json(H.sampleJSON))
      _ = try await h.fetch("example.test", h.options(cache: true))
      let cached = try await h.fetch("example.test", h.options(cache: true, offline: true))
      #expect(cached.status == .ok)
      #expect(cached.source == .cache)
      #expect(cached.body == Array(H.sampleJSON.utf8))
      let missing = try await h.fetch("other.test", h.options(cache: true, offline: true))
      #expect(missing.status == .skippedOffline)
      #expect(missing.message.contains("other.test"))
      #expect(h.server.requests.count == 1)
    }
  }

  /// A damaged entry is said to be one, with its path: it was "not in the cache".
  @Test func offlineNamesACachedCopyThatCannotBeUsed() async throws {
    try await H.run { h in
      h.server.respond(host: "example.test", path: H.wellKnown, with: .json(H.sampleJSON))
      _ = try await h.fetch("example.test", h.options(cache: true))
      let entry = AASACache(directory: h.cacheDirectory, maximumBodyBytes: 10).fileURL(
        kind: .direct, host: "example.test")
      try Data("{\"trunc".utf8).write(to: entry)
      let damaged = try await h.fetch("example.test", h.options(cache: true, offline: true))
      #expect(damaged.status == .skippedOffline)
      #expect(
        damaged.message
          == "example.test: skipped (offline), and its cached copy cannot be used: \(entry.path) is damaged (not an "
          + "ipalinks cache entry)")
      try FileManager.default.removeItem(at: entry)
      try FileManager.default.createDirectory(at: entry, withIntermediateDirectories: false)
      let folder = try await h.fetch("example.test", h.options(cache: true, offline: true))
      #expect(folder.message.hasSuffix(": \(entry.path) is not a regular file"), "\(folder.message)")
    }
  }

  @Test func offlineWithoutACacheSkipsEverything() async throws {
    try await H.run { h in
      let result = try await h.fetch("example.test", h.options(offline: true))
      #expect(result.status == .skippedOffline)
      #expect(h.server.requests.isEmpty)
    }
  }

  @Test func noCacheNeitherReadsNorWrites() async throws {
    try await H.run { h in
      h.server.respond(
        host: "example.test", path: H.wellKnown, with: .json(H.sampleJSON, headers: [("Cache-Control", "max-age=3600")])
      )
      _ = try await h.fetch("example.test", h.options(cache: false))
      let second = try await h.fetch("example.test", h.options(cache: false))
      #expect(second.source == .directWellKnown)
      #expect(h.server.requests.count == 2)
      #expect(!FileManager.default.fileExists(atPath: h.cacheDirectory.path))
    }
  }

  @Test func noStoreIsNotCached() async throws {
    try await H.run { h in
      h.server.respond(
        host: "example.test", path: H.wellKnown, with: .json(H.sampleJSON, headers: [("Cache-Control", "no-store")]))
      _ = try await h.fetch("example.test", h.options(cache: true))
      let offline = try await h.fetch("example.test", h.options(cache: true, offline: true))
      #expect(offline.status == .skippedOffline)
    }
  }

  @Test func cacheFilesStayInsideTheCacheFolder() throws {
    let cache = AASACache(directory: URL(fileURLWithPath: "/tmp/c"), maximumBodyBytes: 10)
    #expect(cache.fileURL(kind: .cdn, host: "example.com").path == "/tmp/c/cdn_example.com.json")
    #expect(
      cache.fileURL(kind: .direct, host: "../../etc/passwd").path == "/tmp/c/direct_%2E.%2F..%2Fetc%2Fpasswd.json")
    for hostile in ["../x", "a/b", "..", "/etc/passwd", "a\u{0}b"] {
      let url = cache.fileURL(kind: .direct, host: hostile)
      #expect(url.deletingLastPathComponent().path == "/tmp/c", "\(hostile)")
      #expect(!url.lastPathComponent.contains("/"))
    }
  }

  @Test(
    arguments: [
      ("max-age=60", 60, false, false), ("public, max-age=\"120\"", 120, false, false), ("no-store", nil, true, false),
      ("no-cache, max-age=60", 60, false, true), (nil, nil, false, false), ("max-age=abc", nil, false, false),
    ] as [(String?, Int?, Bool, Bool)])
  func cacheControlParsing(header: String?, maxAge: Int?, noStore: Bool, noCache: Bool) {
    let control = CacheControl(header)
    #expect(control.maxAge == maxAge)
    #expect(control.noStore == noStore)
    #expect(control.noCache == noCache)
    let now = Date()
    #expect((control.expiry(from: now) != nil) == (maxAge != nil && !noCache))
  }
}
