import Foundation
import Testing

/// `inspect --format json` on every committed sample reports the facts the generator put there.
struct SampleInventoryTests {
  struct Expected: Sendable, CustomStringConvertible {
    var file: String
    var bundles: [[String: AnyHashableSendable]]
    var description: String { file }
  }

  /// EXPECTED.json is written by scripts/make-samples.py from the same data that built the samples.
  static let expected: [Expected] = {
    let url = CLI.samples.appendingPathComponent("EXPECTED.json")
    guard let data = try? Data(contentsOf: url),
      let list = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]]
    else { return [] }
    return list.map { entry in
      Expected(
        file: entry["file"] as! String,
        bundles: (entry["bundles"] as! [[String: Any]]).map { $0.mapValues(AnyHashableSendable.init) })
    }
  }()

  @Test func everySampleIsCovered() {
    #expect(Self.expected.count >= 6)
  }

  @Test(arguments: expected) func reportsTheExpectedFacts(_ sample: Expected) throws {
    let result = try CLI.run(["inspect", "--no-fetch", CLI.sample(sample.file), "--format", "json"])
    #expect(result.exited)
    #expect(result.status == 0, "stderr: \(result.stderr)")
    let json = try #require(result.json)
    let bundles = try #require(json["bundles"] as? [[String: Any]])
    #expect(bundles.count == sample.bundles.count)
    for want in sample.bundles {
      let path = want["path"]!.string!
      let got = try #require(bundles.first { $0["path"] as? String == path }, "bundle \(path) missing")
      for key in ["kind", "bundleId", "teamId", "appId", "executable"] {
        #expect(got[key] as? String == want[key]?.string, "\(path) \(key)")
      }
      #expect(got["encrypted"] as? Bool == want["encrypted"]?.bool, "\(path) encrypted")
      // Both sides must carry each list: a key missing on both would otherwise compare [] with [] and pass.
      let schemes = try #require(want["urlSchemes"]?.strings, "EXPECTED.json: \(path) has no urlSchemes")
      #expect(got["urlSchemes"] as? [String] == schemes, "\(path) urlSchemes")
      let sources = try #require(want["entitlementSources"]?.strings, "EXPECTED.json: \(path) has no sources")
      #expect((got["entitlementSources"] as? [String]).map(Set.init) == Set(sources), "\(path) sources")
      let domains = try #require(want["associatedDomains"]?.strings, "EXPECTED.json: \(path) has no domains")
      let raws = (got["associatedDomains"] as? [[String: Any]])?.compactMap { $0["raw"] as? String }
      #expect(raws == domains, "\(path) domains")
      if let kind = want["profileKind"]?.string {
        #expect((got["provisioningProfile"] as? [String: Any])?["kind"] as? String == kind, "\(path) profile kind")
      }
    }
  }

  @Test func jsonHasTheDocumentedShape() throws {
    let result = try CLI.run(["inspect", "--no-fetch", CLI.sample("Store.ipa"), "--format", "json"])
    let json = try #require(result.json)
    #expect(json["input"] as? String == CLI.sample("Store.ipa"))
    #expect(json["diagnostics"] is [Any])
    let bundle = try #require((json["bundles"] as? [[String: Any]])?.first)
    for key in [
      "path", "kind", "bundleId", "name", "version", "build", "executable", "teamId", "appId", "encrypted",
      "entitlementSources", "entitlements", "associatedDomains", "urlSchemes", "diagnostics",
    ] {
      #expect(bundle[key] != nil, "missing \(key)")
    }
    let domains = try #require(bundle["associatedDomains"] as? [[String: Any]])
    let wildcard = try #require(domains.first { $0["raw"] as? String == "applinks:*.example.com" })
    #expect(wildcard["service"] as? String == "applinks")
    #expect(wildcard["host"] as? String == "example.com")
    #expect(wildcard["wildcard"] as? Bool == true)
    #expect(wildcard["modes"] as? [String] == [])
    let developer = try #require(domains.first { ($0["modes"] as? [String]) == ["developer"] })
    #expect(developer["active"] as? Bool == false, "developer mode is inactive in an App Store build")
    #expect(bundle["queriedURLSchemes"] as? [String] == ["twitter", "instagram"])
  }
}

/// JSON values from EXPECTED.json in a Sendable wrapper, so test arguments can carry them.
struct AnyHashableSendable: Sendable, Hashable {
  var string: String?
  var bool: Bool?
  var strings: [String]?

  init(_ any: Any) {
    string = any as? String
    bool = any as? Bool
    strings = any as? [String]
  }
}
