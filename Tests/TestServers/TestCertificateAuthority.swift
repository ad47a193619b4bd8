import Crypto
import Foundation
import X509

/// A certificate authority made at run time, so tests need no committed keys and nothing expires in the repository.
/// Its root goes to the fetcher as an extra trust anchor, exactly as a user's `--ca-file` would.
public struct TestCertificateAuthority: Sendable {
  /// The root certificate, PEM.
  public let caPEM: String
  private let certificate: Certificate
  private let key: Certificate.PrivateKey

  public init(name: String = "ipalinks test CA") throws {
    let key = P256.Signing.PrivateKey()
    let subject = try DistinguishedName { CommonName(name) }
    let now = Date()
    certificate = try Certificate(
      version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
      notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(2 * 86_400),
      issuer: subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
      extensions: try Certificate.Extensions {
        Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
        Critical(KeyUsage(keyCertSign: true, cRLSign: true))
        SubjectKeyIdentifier(hash: .init(key.publicKey))
      },
      issuerPrivateKey: .init(key))
    self.key = Certificate.PrivateKey(key)
    caPEM = try certificate.serializeAsPEM().pemString
  }

  /// A server certificate for `dnsNames` (wildcards such as `*.test` allowed), signed by this authority.
  public func issueLeaf(dnsNames: [String]) throws -> (certificatePEM: String, privateKeyPEM: String) {
    let leafKey = P256.Signing.PrivateKey()
    let now = Date()
    let leaf = try Certificate(
      version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(leafKey.publicKey),
      notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(86_400),
      issuer: certificate.subject, subject: try DistinguishedName { CommonName(dnsNames.first ?? "test") },
      signatureAlgorithm: .ecdsaWithSHA256,
      extensions: try Certificate.Extensions {
        Critical(BasicConstraints.notCertificateAuthority)
        Critical(KeyUsage(digitalSignature: true))
        try ExtendedKeyUsage([.serverAuth])
        SubjectAlternativeNames(dnsNames.map { .dnsName($0) })
        AuthorityKeyIdentifier(keyIdentifier: try certificate.extensions.subjectKeyIdentifier?.keyIdentifier)
      },
      issuerPrivateKey: key)
    return (try leaf.serializeAsPEM().pemString, leafKey.pemRepresentation)
  }
}
