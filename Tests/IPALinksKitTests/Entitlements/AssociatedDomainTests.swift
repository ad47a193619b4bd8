import Testing

@testable import IPALinksKit

struct AssociatedDomainTests {
  struct Case: Sendable, CustomStringConvertible {
    var raw: String
    var service: String
    var host: String
    var wildcard = false
    var modes: [String] = []
    var active = true
    var code: DiagnosticCode? = nil
    var description: String { raw }
  }

  static let cases: [Case] = [
    Case(raw: "applinks:example.com", service: "applinks", host: "example.com"),
    Case(
      raw: "applinks:*.Example.COM", service: "applinks", host: "example.com", wildcard: true, code: .domainUppercase),
    Case(
      raw: "applinks:dev.example.com?mode=developer", service: "applinks", host: "dev.example.com", modes: ["developer"]
    ),
    Case(
      raw: "applinks:x.example.com?mode=developer+managed", service: "applinks", host: "x.example.com",
      modes: ["developer", "managed"]),
    Case(raw: "webcredentials:example.com", service: "webcredentials", host: "example.com"),
    Case(raw: "activitycontinuation:example.com", service: "activitycontinuation", host: "example.com"),
    Case(raw: "appclips:clip.example.com", service: "appclips", host: "clip.example.com"),
    Case(
      raw: "appclips:*.example.com", service: "appclips", host: "example.com", wildcard: true, active: false,
      code: .domainAppclipsWildcard),
    Case(
      raw: "applinks:example.com:8443", service: "applinks", host: "example.com:8443", active: false,
      code: .domainPort),
    Case(
      raw: "applinks:192.168.1.10", service: "applinks", host: "192.168.1.10", active: false, code: .domainIPAddress),
    Case(raw: "applinks:[::1]", service: "applinks", host: "[::1]", active: false, code: .domainIPAddress),
    Case(raw: "applinks:localhost", service: "applinks", host: "localhost", active: false, code: .domainNoDot),
    Case(
      raw: "applinks:*.com", service: "applinks", host: "com", wildcard: true, active: false, code: .domainBareTLD),
    Case(raw: "applinks:", service: "applinks", host: "", active: false, code: .domainEmptyHost),
    Case(raw: "example.com", service: "", host: "example.com", active: false, code: .domainNoService),
    Case(
      raw: "applinks:example.com?mode=bogus", service: "applinks", host: "example.com", modes: ["bogus"],
      code: .domainUnknownMode),
    Case(raw: "newservice:example.com", service: "newservice", host: "example.com", code: .domainUnknownService),
    // Inactive, as the docs say: it was looked up, and the input was partial or not by where files came from.
    Case(
      raw: "applinks:bücher.example", service: "applinks", host: "bücher.example", active: false,
      code: .domainNotPunycode),
    // Characters no host name holds: these were active, fetched, and a DNS error made the input partial.
    Case(
      raw: "applinks:ex ample.com", service: "applinks", host: "ex ample.com", active: false, code: .domainInvalidHost),
    Case(
      raw: "applinks:user@example.com", service: "applinks", host: "user@example.com", active: false,
      code: .domainInvalidHost),
    Case(
      raw: "applinks:example.com#frag", service: "applinks", host: "example.com#frag", active: false,
      code: .domainInvalidHost),
    Case(
      raw: "applinks:ex\u{1b}[31mample.com", service: "applinks", host: "ex\u{1b}[31mample.com", active: false,
      code: .domainInvalidHost),
    Case(
      raw: "applinks:example.com\nwebcredentials:evil.com", service: "applinks",
      host: "example.com\nwebcredentials:evil.com", active: false, code: .domainInvalidHost),
    Case(raw: "applinks:under_score.example.com", service: "applinks", host: "under_score.example.com"),
    // DNS carries labels of up to 63 characters and names of up to 253: these failed at the lookup, partial.
    Case(
      raw: "applinks:\(String(repeating: "a", count: 63)).example.com", service: "applinks",
      host: "\(String(repeating: "a", count: 63)).example.com"),
    Case(
      raw: "applinks:\(String(repeating: "a", count: 64)).example.com", service: "applinks",
      host: "\(String(repeating: "a", count: 64)).example.com", active: false, code: .domainInvalidHost),
    Case(
      raw: "applinks:" + Array(repeating: String(repeating: "b", count: 49), count: 5).joined(separator: "."),
      service: "applinks", host: Array(repeating: String(repeating: "b", count: 49), count: 5).joined(separator: ".")),
    Case(
      raw: "applinks:" + Array(repeating: String(repeating: "b", count: 50), count: 5).joined(separator: "."),
      service: "applinks", host: Array(repeating: String(repeating: "b", count: 50), count: 5).joined(separator: "."),
      active: false, code: .domainInvalidHost),
  ]

  @Test(arguments: cases) func parses(_ c: Case) {
    var diagnostics: [Diagnostic] = []
    let d = AssociatedDomain.parse(c.raw, diagnostics: &diagnostics)
    #expect(d.service.name == c.service)
    #expect(d.host == c.host)
    #expect(d.wildcard == c.wildcard)
    #expect(d.modes == c.modes)
    #expect(d.active == c.active)
    if let code = c.code {
      #expect(diagnostics.contains { $0.code == code }, "expected \(code), got \(diagnostics.map(\.code))")
    } else {
      #expect(diagnostics.isEmpty, "unexpected \(diagnostics.map(\.code))")
    }
  }
}

struct EntitlementResolverTests {
  @Test func derOfArm64WinsAndDisagreementsNameBothValues() {
    let (sources, diagnostics) = EntitlementResolver.resolve([
      EntitlementSource(architecture: "armv7", form: .xml, entitlements: ["k": .string("old")]),
      EntitlementSource(architecture: "arm64", form: .xml, entitlements: ["k": .string("xml")]),
      EntitlementSource(architecture: "arm64", form: .derApplication16, entitlements: ["k": .string("der")]),
      EntitlementSource(kind: .xcent, detail: "x.xcent", entitlements: ["k": .string("der")]),
      EntitlementSource(kind: .provisioningProfile, detail: "p", entitlements: ["k": .string("*")]),
    ])
    let chosen = sources.filter { $0.effective }.map { $0.detail }
    #expect(chosen == ["arm64 der-application16"])
    #expect(diagnostics.count == 2)
    #expect(diagnostics.allSatisfy { $0.code == .entitlementsSignatureDisagreement })
    #expect(diagnostics.contains { $0.message.contains("\"der\"") && $0.message.contains("\"old\"") })
  }

  /// The choice comes from the typed slice and form; the display detail may say anything.
  @Test func theDetailTextDecidesNothing() {
    var misleading = EntitlementSource(
      kind: .codeSignature, detail: "arm64e der-application16", entitlements: ["k": .string("a")])
    misleading.architecture = "armv7"
    misleading.form = .xml
    let (sources, _) = EntitlementResolver.resolve([
      misleading, EntitlementSource(architecture: "arm64", form: .derSet, entitlements: ["k": .string("b")]),
    ])
    #expect(sources.filter(\.effective).map(\.detail) == ["arm64 der-set"])
  }

  @Test func xcentIsTheFallbackAndTheProfileNeverWins() {
    let (sources, _) = EntitlementResolver.resolve([
      EntitlementSource(kind: .provisioningProfile, detail: "p", entitlements: ["a": .bool(true)]),
      EntitlementSource(kind: .xcent, detail: "x", entitlements: ["a": .bool(false)]),
    ])
    let effective = sources.first { $0.effective }
    #expect(effective?.kind == .xcent)
    let (onlyProfile, _) = EntitlementResolver.resolve([
      EntitlementSource(kind: .provisioningProfile, detail: "p", entitlements: ["a": .bool(true)])
    ])
    let anyEffective = onlyProfile.contains { $0.effective }
    #expect(!anyEffective)
  }

  @Test func keysTheXcentLacksAreNotNoiseButMissingDomainsAre() {
    let domains = PlistValue.array([.string("applinks:a.example.com")])
    let (_, diagnostics) = EntitlementResolver.resolve([
      EntitlementSource(
        architecture: "arm64", form: .xml,
        entitlements: ["application-identifier": .string("T.x"), "com.apple.developer.associated-domains": domains]),
      EntitlementSource(kind: .xcent, detail: "x", entitlements: [:]),
    ])
    #expect(diagnostics.map(\.code) == [.entitlementsXcentDisagreement])
    #expect(diagnostics[0].message.hasPrefix("com.apple.developer.associated-domains"))
  }
}
