import IPALinksKit
import UniversalLinks

/// The bodies of the libFuzzer harnesses, one per parser that reads untrusted bytes.
///
/// They live in the main package, not beside the fuzz executables, so the regression tests replay committed
/// crash inputs through exactly the code the fuzzer ran, in the normal and the sanitizer test runs. A harness
/// returns normally on any input: errors are the expected outcome of garbage; only a trap, a sanitizer report,
/// a hang or runaway memory is a finding.
public enum FuzzHarness: String, CaseIterable, Sendable {
  /// libzip over an in-memory archive, then every entry read whole and by range.
  case zip
  /// The whole offline pipeline on an in-memory IPA: bundles, Info.plist, Mach-O, signature, entitlements, domains.
  case inspect
  /// Info.plist and `.xcent` bytes through libplist (XML and binary).
  case plist
  /// Thin and fat Mach-O headers and load commands, then each slice's code signature.
  case macho
  /// A SuperBlob with its CodeDirectories and entitlement blobs, the blobs decoded as a real signature's are.
  case codesignature
  /// DER entitlements (`[APPLICATION 16]` and bare `SET` forms).
  case der
  /// The CMS SignedData unwrap used by provisioning profiles and signed AASA files, then the profile's plist.
  case cms
  /// AASA JSON: parse, lint, each listed app's rules compiled and matched, and the blocklist translations.
  case aasa
  /// One pattern and one URL, split at the first newline: pattern compilation and matching in every mode.
  case match
  /// `--connect-to` rules and `com.apple.developer.associated-domains` entries.
  case entitlementstrings

  /// Runs the harness on one input.
  public func run(_ bytes: [UInt8]) {
    switch self {
    case .zip: Self.zip(bytes)
    case .inspect: _ = Inspector().inspect(ipaBytes: bytes, name: "fuzz.ipa")
    case .plist: Self.attempt { try PropertyList.decode(bytes, file: "fuzz.plist") }
    case .macho: Self.machO(bytes)
    case .codesignature: Self.codeSignature(bytes)
    case .der: Self.attempt { try DEREntitlements.decode(bytes) }
    case .cms: Self.cms(bytes)
    case .aasa: Self.aasa(bytes)
    case .match: Self.match(bytes)
    case .entitlementstrings: Self.entitlementStrings(bytes)
    }
  }

  /// Runs `body` and renders any error as the CLI would: messages interpolate hostile values too.
  @discardableResult
  static func attempt<T>(_ body: () throws -> T) -> T? {
    do { return try body() } catch { _ = String(describing: error) }
    return nil
  }

  /// Reading at most this many entries keeps one execution short; the listing itself covers every entry.
  static let entriesRead = 32

  static func zip(_ bytes: [UInt8]) {
    guard let archive = attempt({ try ZipArchive(bytes: bytes, name: "fuzz.ipa") }) else { return }
    for path in archive.paths.prefix(entriesRead) {
      Self.attempt { try archive.contents(of: path, limit: 1 << 16) }
      guard let source = attempt({ try archive.byteSource(for: path) }), source.size > 0 else { continue }
      // Forward, then backward, then past the end: the three ways parsers use a streamed entry.
      Self.attempt { try source.checkedRead(at: source.size / 2, count: Int(min(source.size / 2, 64))) }
      Self.attempt { try source.checkedRead(at: 0, count: Int(min(source.size, 16))) }
      Self.attempt { try source.checkedRead(at: source.size - 1, count: 2) }
    }
  }

  static func machO(_ bytes: [UInt8]) {
    _ = MachOFile.looksLikeMachO(Array(bytes.prefix(64)))
    let source = MemoryByteSource(bytes, name: "fuzz-macho")
    guard let slices = attempt({ try MachOFile.slices(of: source) }) else { return }
    for slice in slices {
      _ = slice.architecture
      Self.attempt { try CodeSignatureReader.read(source, slice: slice) }
    }
  }

  static func codeSignature(_ bytes: [UInt8]) {
    let source = MemoryByteSource(bytes, name: "fuzz-signature")
    let slice = MachOSlice(
      offset: 0, size: UInt64(bytes.count), cpuType: 12, cpuSubtype: 0, is64Bit: true,
      codeSignature: (0, UInt32(truncatingIfNeeded: bytes.count)), cryptID: nil)
    guard let signature = attempt({ try CodeSignatureReader.read(source, slice: slice) }) ?? nil else { return }
    _ = signature.bestCodeDirectory
    if let xml = signature.xmlEntitlements { Self.attempt { try PropertyList.decode(xml, file: "fuzz-signature") } }
    if let der = signature.derEntitlements { Self.attempt { try DEREntitlements.decode(der) } }
  }

  static func cms(_ bytes: [UInt8]) {
    _ = CMSEnvelope.looksLikeEnvelope(bytes)
    Self.attempt { try CMSEnvelope.content(of: bytes) }
    Self.attempt { try ProvisioningProfile.parse(bytes, file: "fuzz.mobileprovision") }
  }

  /// URLs every AASA input is matched against: plain, with query and fragment, encoded, and odd.
  static let probeURLs = [
    "https://example.com/", "https://example.com/a/b?c=d&e=f#g", "https://example.com/%41%2f?q=%E2%80%A8",
    "https://EXAMPLE.com//x//y/?&=&#", "http://example.com/path/with/many/segments/0123456789",
  ]

  static func aasa(_ bytes: [UInt8]) {
    let (file, _) = AASAValidator.check(bytes)
    guard let file, let links = file.applinks else { return }
    var apps: [LinkingApp] = []
    for appID in links.details.flatMap(\.appIDs).prefix(4) {
      _ = AASAValidator.appFindings(file, appID: appID)
      let rules = AppLinkRules(file: file, appID: appID)
      let matcher = AASAMatcher(rules: rules)
      for url in probeURLs { _ = matcher.verdict(for: url, domain: "example.com") }
      apps.append(
        LinkingApp(
          appID: appID, name: appID, input: "fuzz",
          scopes: [RuleScope(host: "example.com", wildcard: false, rules: rules)]
        ))
    }
    guard !apps.isEmpty else { return }
    // The blocklist translations expand variables and readings; they must stay bounded too.
    let renderer = BlocklistRenderer(Blocklist(apps: apps))
    _ = renderer.contentRules(maxRules: 1_000)
    _ = renderer.regexes(maxRules: 1_000)
  }

  static func match(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    let parts = text.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false)
    let pattern = String(parts[0])
    let url = parts.count > 1 ? String(parts[1]) : "https://example.com/"
    // An optional third line defines `$(v)`, one value per `|`, so variables are fuzzed as well.
    let variables =
      parts.count > 2 ? [SubstitutionVariable(name: "v", values: parts[2].split(separator: "|").map(String.init))] : []
    _ = UniversalLinkURL(string: url)?.absoluteString
    var rules: [EffectiveRule] = []
    for (i, flags) in [(true, true), (false, true), (true, false), (false, false)].enumerated() {
      let reference = MatchedRule(
        detailIndex: 0, componentIndex: i, kind: .component, pattern: pattern, exclude: i == 3, pointer: "/\(i)")
      rules.append(
        EffectiveRule(
          reference: reference, path: i == 2 ? nil : pattern, query: i >= 2 ? .string(pattern) : nil,
          fragment: i == 1 ? pattern : nil, caseSensitive: flags.0, percentEncoded: flags.1))
    }
    let matcher = AASAMatcher(
      rules: AppLinkRules(appID: "ABCDE12345.fuzz", detailIndex: 0, substitutionVariables: variables, rules: rules))
    _ = matcher.verdict(for: url)
  }

  static func entitlementStrings(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    Self.attempt { try ConnectToRule.parse(text) }
    var diagnostics: [Diagnostic] = []
    for line in text.split(separator: "\n", omittingEmptySubsequences: false).prefix(64) {
      _ = AssociatedDomain.parse(String(line), diagnostics: &diagnostics)
    }
  }
}
