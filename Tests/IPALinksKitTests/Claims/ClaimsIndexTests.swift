import Foundation
import Testing
import UniversalLinks

@testable import IPALinksKit

/// The claims model: one join of apps, entries, hosts and files, read by every audit output.
@Suite struct ClaimsIndexTests {
  /// A bundle whose entries are `entries`, inspected from nothing but them.
  static func bundle(_ appID: String, _ entries: [String], developmentSigned: Bool = false) -> BundleReport {
    var bundle = BundleReport(path: "Payload/\(appID).app", kind: .app)
    bundle.appId = appID
    var entitlements: [String: PlistValue] = [
      "com.apple.developer.associated-domains": .array(entries.map(PlistValue.string))
    ]
    if developmentSigned { entitlements["get-task-allow"] = .bool(true) }
    let parsed = DomainEntries(entitlements, path: bundle.path)
    bundle.associatedDomains = parsed.domains
    return bundle
  }

  static func index(_ bundles: [BundleReport]) -> ClaimsIndex {
    ClaimsIndex(
      reports: bundles.enumerated().map {
        InspectionReport(input: "\($0.offset).ipa", inputKind: .ipa, bundles: [$0.element])
      })
  }

  @Test func iOSUsesTheExactEntryElseTheLongestWildcard() throws {
    let index = Self.index([
      Self.bundle(
        "T.one", ["applinks:*.example.com", "applinks:*.shop.example.com", "webcredentials:a.shop.example.com"]),
      Self.bundle("T.two", ["applinks:*.example.com", "applinks:a.shop.example.com"]),
    ])
    let claims = index.claims(on: "a.shop.example.com")
    #expect(claims.map(\.app) == [0, 1])
    // App one: both wildcards and the webcredentials entry cover the host; the longer wildcard governs.
    #expect(claims[0].entries == [0, 1, 2])
    #expect(claims[0].governing == 1 && claims[0].direct)
    // App two: the exact entry beats its wildcard.
    #expect(claims[1].governing == 1 && claims[1].direct)
    // The apex is not covered by a wildcard over it.
    #expect(index.claims(on: "example.com").isEmpty)
    #expect(index.claims(on: "b.example.com").map(\.governing) == [0, 0])
    #expect(index.claims(on: "b.example.com").allSatisfy { !$0.direct })
  }

  @Test func anInactiveEntryCoversButNeverGoverns() {
    let index = Self.index([Self.bundle("T.dev", ["applinks:dev.example.com?mode=developer"])])
    let claim = index.claims(on: "dev.example.com")
    #expect(claim.count == 1 && claim[0].entries == [0] && claim[0].governing == nil)
    let entry = index.apps[0].bundle.associatedDomains[0]
    #expect(entry.inactiveReason == .developerModeUnavailable)
    // Its file is still fetched, straight from the domain.
    #expect(entry.request == AASARequest(host: "dev.example.com", developerMode: true))
    let signed = Self.index([Self.bundle("T.dev", ["applinks:dev.example.com?mode=developer"], developmentSigned: true)]
    )
    #expect(signed.claims(on: "dev.example.com")[0].governing == 0)
  }

  @Test func hostsAreEveryNamedPatternWithItsClaimers() throws {
    let index = Self.index([
      Self.bundle("T.one", ["applinks:*.example.com"]),
      Self.bundle("T.two", ["applinks:shop.example.com", "webcredentials:shop.example.com"]),
    ])
    #expect(index.hosts.map(\.pattern.description) == ["*.example.com", "shop.example.com"])
    let shop = try #require(index.hosts.last)
    // The wildcard's app claims the named host below it too, not directly.
    #expect(shop.claims.map(\.app) == [0, 1])
    #expect(shop.claims.map(\.direct) == [false, true])
    #expect(shop.claims[1].entries == [0, 1] && shop.claims[1].governing == 0)
    #expect(index.hosts[0].claims.map(\.app) == [0])
  }

  /// An entry whose name no host can have (a space, a quote, a label of 100 letters) is its app's alone: under a
  /// wildcard it counted as a host the wildcard's apps share with it, in the report's "hosts shared by apps" and in
  /// `who-claims '*.example.com'`. An inactive entry whose name is a host (developer mode) is still one.
  @Test func aNameNoHostCanHaveIsNoHostAppsShare() throws {
    let index = Self.index([
      Self.bundle("T.one", ["applinks:*.example.com"]),
      Self.bundle(
        "T.two",
        [
          "applinks:a b.example.com", "applinks:\"onmouseover=x.example.com",
          "applinks:" + String(repeating: "x", count: 100) + ".example.com", "applinks:dev.example.com?mode=developer",
        ]),
    ])
    #expect(index.apps[1].bundle.associatedDomains.prefix(3).allSatisfy { !$0.namesAHost && !$0.opensLinks })
    #expect(index.hosts.map(\.pattern.description) == ["*.example.com", "dev.example.com"])
    #expect(index.hosts(below: LinkRuntime.HostPattern("*.example.com")).map(\.description) == ["dev.example.com"])
    #expect(index.hosts.filter { $0.claims.count > 1 }.map(\.pattern.description) == ["dev.example.com"])
  }

  @Test func theModelSavesWithItsVersionAndLoadsBack() async throws {
    let reports = try await InspectedSamples.reports(["Store.ipa", "Nested.ipa"])
    let index = ClaimsIndex(reports: reports)
    let data = try JSONEncoder().encode(index)
    let json = try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
    #expect(json["version"] as? Int == ClaimsIndex.currentVersion)
    #expect(Set(json.keys) == ["version", "inputs", "apps", "hosts"])
    let read = try JSONDecoder().decode(ClaimsIndex.self, from: data)
    #expect(read.apps.count == index.apps.count && read.hosts.count == index.hosts.count)
    // The lookups are rebuilt, so the loaded model answers as the built one.
    #expect(read.claims(on: "shop.example.com") == index.claims(on: "shop.example.com"))
    #expect(!read.claims(on: "shop.example.com").isEmpty)
    var newer = json
    newer["version"] = ClaimsIndex.currentVersion + 1
    let error = #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(ClaimsIndex.self, from: JSONSerialization.data(withJSONObject: newer))
    }
    #expect("\(String(describing: error))".contains("newer than this ipalinks reads"))
  }

  @Test func savedEntriesGetTheirTypedReasonBack() throws {
    var ignored: [Diagnostic] = []
    var developer = AssociatedDomain.parse("applinks:dev.example.com?mode=developer", diagnostics: &ignored)
    developer.inactiveReason = .developerModeUnavailable
    let cases = [
      developer, AssociatedDomain.parse("applinks:10.0.0.1", diagnostics: &ignored),
      AssociatedDomain.parse("appclips:*.example.com", diagnostics: &ignored),
      AssociatedDomain.parse("applinks:example.com", diagnostics: &ignored),
    ]
    for entry in cases {
      let json = JSONReporter.render(entry)
      // JSON keeps the reason in words, as reports always had it.
      if let reason = entry.inactiveReason { #expect(json.contains(reason.message)) }
      let read = try JSONDecoder().decode(AssociatedDomain.self, from: Data(json.utf8))
      #expect(read == entry, "\(json)")
    }
    #expect(cases.map(\.inactiveReason) == [.developerModeUnavailable, .ipAddress, .appclipsWildcard, nil])
  }

  @Test func servicesAreTypedAndWrittenAsNames() throws {
    #expect(Service("applinks") == .applinks && Service("custom") == .other("custom"))
    #expect(!Service("custom").isDocumented && Service("appclips").isDocumented)
    let data = try JSONEncoder().encode([Service.webcredentials, .other("x")])
    #expect(String(decoding: data, as: UTF8.self) == #"["webcredentials","x"]"#)
    #expect(try JSONDecoder().decode([Service].self, from: data) == [.webcredentials, .other("x")])
  }
}
