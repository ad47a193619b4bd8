/// The stable codes of ``Diagnostic``, `area.problem`, as scripts match on them. Raw values never change once
/// published.
public enum DiagnosticCode: String, Sendable, Codable, CaseIterable {
  // MARK: The input as a whole

  /// A finding of a saved inventory whose code this ipalinks does not know (a newer one wrote it): its message
  /// starts with the code, and its severity is kept, so the report's status stays what it was.
  case inventoryUnknownCode = "inventory.unknown-code"
  /// The path names no file or folder.
  case inputNotFound = "input.not-found"
  /// The input cannot be read, or is none of the kinds `inspect` takes.
  case inputUnreadable = "input.unreadable"

  // MARK: The archive

  /// The file is not a ZIP archive.
  case archiveNotZip = "archive.not-zip"
  /// The ZIP structure is damaged.
  case archiveCorrupt = "archive.corrupt"
  /// More entries than the reader accepts.
  case archiveTooManyEntries = "archive.too-many-entries"
  /// An entry the central directory names cannot be found.
  case archiveEntryMissing = "archive.entry-missing"
  /// An entry is larger than the reader accepts for its kind.
  case archiveEntryTooLarge = "archive.entry-too-large"
  /// An entry is encrypted, so it cannot be read.
  case archiveEntryEncrypted = "archive.entry-encrypted"
  /// Reading an entry failed part-way.
  case archiveReadFailed = "archive.read-failed"
  /// A read past the end of an entry or file.
  case archiveOutOfBounds = "archive.out-of-bounds"
  /// An entry name is absolute or climbs out with `..`; it is skipped.
  case archiveUnsafeEntryName = "archive.unsafe-entry-name"
  /// Two entries have one name: the first is read, and an extracting tool may take the other.
  case archiveDuplicateEntry = "archive.duplicate-entry"
  /// The archive inflated past the bytes one archive may (its entries may share their compressed data).
  case archiveInflatesTooMuch = "archive.inflates-too-much"
  /// More bundles than the inspector reads; the rest are left out.
  case archiveTooManyBundles = "archive.too-many-bundles"
  /// No `Payload/<Name>.app/` at the archive root.
  case archiveNoPayload = "archive.no-payload"
  /// More than one `Payload/<Name>.app/`; each is inspected.
  case archiveMultipleApps = "archive.multiple-apps"

  // MARK: Property lists

  /// The bytes are not a property list.
  case plistMalformed = "plist.malformed"
  /// The property list nests deeper than the reader accepts.
  case plistTooDeep = "plist.too-deep"
  /// The property list is larger than the reader accepts.
  case plistTooLarge = "plist.too-large"
  /// The top level is not a dictionary.
  case plistNotADictionary = "plist.not-a-dictionary"
  /// A string holds a NUL character.
  case plistNulCharacter = "plist.nul-character"
  /// The bundle's `Info.plist` cannot be read.
  case infoPlistUnreadable = "info-plist.unreadable"
  /// A key of `Info.plist` the report reads has a value of another type than Apple documents (a number among the
  /// URL schemes, a string where a list belongs): what can be read of it is kept, and the rest named.
  case infoPlistWrongType = "info-plist.wrong-type"

  // MARK: The executable and its signature

  /// The executable named by `CFBundleExecutable` (or the folder name) is not in the bundle.
  case executableMissing = "executable.missing"
  /// The executable cannot be read.
  case executableUnreadable = "executable.unreadable"
  /// The executable is not a Mach-O file.
  case machONotMachO = "macho.not-macho"
  /// The Mach-O file ends before its headers or load commands do.
  case machOTruncated = "macho.truncated"
  /// A Mach-O header or load command is inconsistent.
  case machOMalformed = "macho.malformed"
  /// The Mach-O file cannot be read at all.
  case machOUnreadable = "macho.unreadable"
  /// A simulator build's `__TEXT,__entitlements` section lies outside its slice, is too large, or is not a plist;
  /// or a device build has one, which is left out (only the simulator reads it).
  case machOEntitlementsSection = "macho.entitlements-section"
  /// A code signature points outside its slice.
  case signatureOutOfRange = "signature.out-of-range"
  /// A code signature blob has the wrong magic number.
  case signatureBadMagic = "signature.bad-magic"
  /// A code signature's structure is inconsistent.
  case signatureMalformed = "signature.malformed"
  /// A code signature is larger than the reader accepts.
  case signatureTooLarge = "signature.too-large"
  /// A slice's code signature cannot be read.
  case signatureUnreadable = "signature.unreadable"
  /// A slice has no code signature.
  case signatureUnsigned = "signature.unsigned"
  /// A slice signed by a team with no entitlements blob: iOS grants the app none, whatever the `.xcent` says.
  case signatureNoEntitlements = "signature.no-entitlements"
  /// A code signature holds the same blob twice; the first one counts.
  case signatureDuplicateBlob = "signature.duplicate-blob"
  /// The DER entitlements blob does not decode.
  case signatureDERMalformed = "signature.der-malformed"
  /// The XML entitlements blob does not decode.
  case signatureXMLMalformed = "signature.xml-malformed"
  /// The slices are signed with different identifiers or teams.
  case signatureSliceDisagreement = "signature.slice-disagreement"

  // MARK: Other entitlement sources

  /// The `.xcent` file cannot be read.
  case xcentUnreadable = "xcent.unreadable"
  /// The provisioning profile's PKCS#7 envelope cannot be unwrapped.
  case profileBadEnvelope = "profile.bad-envelope"
  /// The provisioning profile cannot be read.
  case profileUnreadable = "profile.unreadable"
  /// Two code-signature sources give an entitlement different values.
  case entitlementsSignatureDisagreement = "entitlements.signature-disagreement"
  /// The `.xcent` gives an entitlement a different value than the code signature.
  case entitlementsXcentDisagreement = "entitlements.xcent-disagreement"
  /// The app id does not end with the bundle id.
  case identityAppIDMismatch = "identity.app-id-mismatch"

  // MARK: Associated domains

  /// The associated-domains entitlement is not a list of strings.
  case domainNotAList = "domain.not-a-list"
  /// More entries than the inspector reads; the rest are left out.
  case domainTooMany = "domain.too-many"
  /// The same entry is listed twice.
  case domainDuplicate = "domain.duplicate"
  /// The entry has no `service:` prefix.
  case domainNoService = "domain.no-service"
  /// The service is not one Apple documents.
  case domainUnknownService = "domain.unknown-service"
  /// A `?` parameter other than `mode` is ignored.
  case domainUnknownParameter = "domain.unknown-parameter"
  /// A `mode` other than `developer` or `managed`.
  case domainUnknownMode = "domain.unknown-mode"
  /// The host has upper-case letters; hosts are matched case-insensitively.
  case domainUppercase = "domain.uppercase"
  /// The entry has no host.
  case domainEmptyHost = "domain.empty-host"
  /// The host is an IP address.
  case domainIPAddress = "domain.ip-address"
  /// The host has a port.
  case domainPort = "domain.port"
  /// The host has a `/`, a misplaced `*` or an empty label.
  case domainInvalidHost = "domain.invalid-host"
  /// A wildcard over a bare top-level domain (`*.com`).
  case domainBareTLD = "domain.bare-tld"
  /// A host without a dot.
  case domainNoDot = "domain.no-dot"
  /// `appclips` does not allow wildcards.
  case domainAppclipsWildcard = "domain.appclips-wildcard"
  /// A non-ASCII host not written in punycode.
  case domainNotPunycode = "domain.not-punycode"

  // MARK: The domains' AASA files

  /// The domain's AASA file does not list the app.
  case aasaAppNotListed = "aasa.app-not-listed"
  /// A host given as an input (`--host`): its AASA file lists no app in any service.
  case aasaListsNoApp = "aasa.lists-no-app"
  /// A host the audit store watches (`refresh --host`) that no refresh has retrieved yet: its file is unknown.
  case aasaNeverRetrieved = "aasa.never-retrieved"
  /// The AASA file was not found.
  case aasaNotFound = "aasa.not-found"
  /// The server answered with an error status.
  case aasaHTTPError = "aasa.http-error"
  /// The server redirected; iOS does not follow redirects for AASA files.
  case aasaRedirect = "aasa.redirect"
  /// The file is over the size cap.
  case aasaTooLarge = "aasa.too-large"
  /// The request timed out.
  case aasaTimeout = "aasa.timeout"
  /// The TLS handshake failed.
  case aasaTLSError = "aasa.tls-error"
  /// The host name does not resolve.
  case aasaDNSError = "aasa.dns-error"
  /// The connection failed.
  case aasaConnectionError = "aasa.connection-error"
  /// The body is not an AASA file.
  case aasaInvalidJSON = "aasa.invalid-json"
  /// The host resolves to a private address, which the fetcher refuses unless allowed.
  case aasaRefusedPrivateAddress = "aasa.refused-private-address"
  /// Offline, and nothing in the cache.
  case aasaSkippedOffline = "aasa.skipped-offline"
  /// The file is past a limit of ours (patterns, `$(…)` expansion).
  case aasaOverLimit = "aasa.over-limit"
  /// The AASA directory's entry for the host cannot be read.
  case aasaUnreadable = "aasa.unreadable"

  // MARK: Fetcher set-up

  /// A `--connect-to` rule does not parse.
  case fetchInvalidConnectTo = "fetch.invalid-connect-to"
  /// The extra trust roots are not PEM certificates.
  case fetchInvalidCA = "fetch.invalid-ca"
  /// A fetch option is out of range.
  case fetchInvalidOption = "fetch.invalid-option"

  /// Whether the finding is about a domain's AASA file rather than the app: reports tell those under the domain,
  /// and batches once per host.
  public var isAboutAASAFile: Bool {
    switch self {
    case .aasaAppNotListed, .aasaListsNoApp, .aasaNotFound, .aasaHTTPError, .aasaRedirect, .aasaTooLarge, .aasaTimeout,
      .aasaTLSError,
      .aasaDNSError, .aasaConnectionError, .aasaInvalidJSON, .aasaRefusedPrivateAddress, .aasaSkippedOffline,
      .aasaNeverRetrieved,
      .aasaOverLimit, .aasaUnreadable:
      true
    default: false
    }
  }

  /// The code of a fetch that did not give a usable file: `aasa.<status>`; nil for `ok`, which has none.
  public static func aasa(_ status: AASAFetchResult.Status) -> DiagnosticCode? {
    switch status {
    case .ok: nil
    case .notFound: .aasaNotFound
    case .httpError: .aasaHTTPError
    case .redirect: .aasaRedirect
    case .tooLarge: .aasaTooLarge
    case .timeout: .aasaTimeout
    case .tlsError: .aasaTLSError
    case .dnsError: .aasaDNSError
    case .connectionError: .aasaConnectionError
    case .invalidJSON: .aasaInvalidJSON
    case .refusedPrivateAddress: .aasaRefusedPrivateAddress
    case .skippedOffline: .aasaSkippedOffline
    case .overLimit: .aasaOverLimit
    case .unreadable: .aasaUnreadable
    }
  }
}
