import Crypto
import Foundation

/// `blocklist --sign KEY`: an Ed25519 private key read from a file, which signs the rules document so that an app's
/// `UpdatingLinkGuard(…, publicKey:)` takes only lists this key made.
public struct BlocklistSigningKey {
  let key: Curve25519.Signing.PrivateKey

  /// Why a key file cannot be used, in one line that names it.
  public struct Failure: Error, CustomStringConvertible {
    /// The line.
    public var description: String
  }

  /// The DER of a PKCS#8 Ed25519 private key (RFC 8410) before its 32-byte seed, as `openssl genpkey -algorithm
  /// ed25519` writes it.
  static let pkcs8Prefix: [UInt8] = [
    0x30, 0x2E, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
  ]

  /// A key already in hand.
  public init(_ key: Curve25519.Signing.PrivateKey) { self.key = key }

  /// Reads `path`: a PEM `PRIVATE KEY` (PKCS#8 Ed25519), or the 32-byte seed in base64.
  public init(path: String) throws(Failure) {
    let shown = TerminalText.escape(path)
    let data: Data
    do throws(WholeFile.Failure) { data = try WholeFile.read(path, limit: 65_536) } catch {
      let why = if case .unreadable(let reason) = error { reason } else { "larger than a key (64 KiB)" }
      throw Failure(description: "--sign: cannot read \(shown): \(why)")
    }
    let text = String(decoding: data, as: UTF8.self)
    var seed: [UInt8]? = nil
    if let begin = text.range(of: "-----BEGIN PRIVATE KEY-----"),
      let end = text.range(of: "-----END PRIVATE KEY-----", range: begin.upperBound..<text.endIndex)
    {
      let body = text[begin.upperBound..<end.lowerBound].filter { !$0.isWhitespace }
      if let der = Data(base64Encoded: String(body)).map(Array.init), der.count == 48,
        Array(der.prefix(16)) == Self.pkcs8Prefix
      {
        seed = Array(der.suffix(32))
      }
    } else if let raw = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)), raw.count == 32 {
      seed = Array(raw)
    }
    if text.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----") {
      // Signing runs unattended (CI): a passphrase would have to be typed, so the key is taken in the clear.
      throw Failure(
        description: "--sign: \(shown) is encrypted with a passphrase; give the key unencrypted, as written by: "
          + "openssl pkey -in \(shown) -out KEY")
    }
    guard let seed, let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: seed) else {
      throw Failure(
        description:
          "--sign: \(shown) is not an Ed25519 private key; make one with: openssl genpkey -algorithm ed25519 -out KEY")
    }
    self.key = key
  }

  /// The signer the rules document is stamped with.
  public var signer: BlocklistRenderer.Signer {
    // The seed, not the key, goes into the closure: the key type is not Sendable everywhere.
    let seed = key.rawRepresentation
    return { bytes in
      (try? Curve25519.Signing.PrivateKey(rawRepresentation: seed).signature(for: Data(bytes))).map(Array.init) ?? []
    }
  }

  /// Checks a signature made with this key (`--if-changed` keeps a signed list made earlier when its signature,
  /// which covers its time, still verifies).
  public var verifier: BlocklistRenderer.Verifier {
    let publicKey = key.publicKey.rawRepresentation
    return { bytes, signature in
      (try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey))?.isValidSignature(
        Data(signature), for: Data(bytes)) ?? false
    }
  }

  /// The public key, 32 raw bytes in base64: what the app gives `UpdatingLinkGuard(…, publicKey:)`.
  public var publicKey: String { key.publicKey.rawRepresentation.base64EncodedString() }

  /// What `blocklist --sign` says on stderr: the public key to give the app, so a key is never used unseen.
  public var note: String { "signed with the Ed25519 key whose public key (raw, base64) is \(publicKey)" }
}
