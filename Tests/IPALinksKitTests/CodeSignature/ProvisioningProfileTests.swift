import Testing

@testable import IPALinksKit

struct ProvisioningProfileTests {
  @Test(arguments: [
    ("profiles/definite.mobileprovision", ProvisioningProfile.Kind.development),
    ("profiles/indefinite.mobileprovision", .enterprise),
    ("profiles/adhoc.mobileprovision", .adHoc),
    ("profiles/appstore.mobileprovision", .appStore),
  ])
  func unwrapsDERAndBERAndInfersTheKind(file: String, kind: ProvisioningProfile.Kind) throws {
    let profile = try ProvisioningProfile.parse(try Fixtures.bytes(file), file: file)
    #expect(profile.kind == kind)
    #expect(profile.teamIdentifiers.count == 1)
    #expect(profile.uuid?.isEmpty == false)
    #expect(profile.expirationDate != nil)
    #expect(!profile.entitlements.isEmpty)
  }

  @Test func plainPlistProfileNeedsNoEnvelope() throws {
    let profile = try ProvisioningProfile.parse(try Fixtures.bytes("profiles/plain-xml.mobileprovision"), file: "p")
    #expect(profile.name?.isEmpty == false)
  }

  @Test func garbageEnvelopeIsAClearError() {
    #expect(throws: ProvisioningProfileError.self) {
      try ProvisioningProfile.parse([0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xFF, 0x06], file: "p")
    }
  }
}
