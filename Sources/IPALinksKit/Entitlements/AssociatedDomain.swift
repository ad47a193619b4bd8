import UniversalLinks

/// Why iOS ignores an associated-domain entry: the entry is malformed, or it asks for a mode the build cannot use.
/// Reports print ``message``; code decides from the case.
public enum InactiveReason: Sendable, Hashable, CaseIterable {
  /// No `service:` prefix.
  case noService
  /// Nothing after the service.
  case noHost
  /// An IP address, which cannot be an associated domain.
  case ipAddress
  /// A port, which entries cannot carry.
  case port
  /// A character no host name holds (`/`, a space, `@`, `#`, `%`, a control), or a `*` anywhere but a leading `*.`.
  case invalidCharacter
  /// An empty label: a leading or trailing dot, or two dots in a row.
  case emptyLabel
  /// A label over 63 characters or a name over 253, which DNS cannot carry.
  case tooLong
  /// A wildcard over a bare top-level domain (`*.com`).
  case wildcardOverTopLevelDomain
  /// A host without a dot.
  case noDot
  /// `appclips:` with a wildcard.
  case appclipsWildcard
  /// `?mode=developer` in a build that is not development-signed (no `get-task-allow`): iOS ignores it, but the
  /// file is still fetched, for the team that will use it.
  case developerModeUnavailable
  /// A host that is not ASCII: iOS compares hosts as a URL carries them, in punycode, so such an entry matches none.
  case notPunycode

  /// The reason in words, as reports print it.
  public var message: String {
    switch self {
    case .noService: "no service prefix such as applinks:"
    case .noHost: "no host"
    case .ipAddress: "an IP address cannot be an associated domain"
    case .port: "ports are not supported"
    case .invalidCharacter:
      "host contains a character no host name holds (such as \"/\", a space or \"@\"), or a misplaced \"*\""
    case .emptyLabel: "host has an empty label"
    case .tooLong: "host has a label over 63 characters or is over 253 characters, which DNS cannot carry"
    case .wildcardOverTopLevelDomain: "a wildcard over a bare top-level domain"
    case .noDot: "host has no dot"
    case .appclipsWildcard: "appclips does not allow wildcards"
    case .developerModeUnavailable: "developer mode works only in development-signed builds (get-task-allow)"
    case .notPunycode: "internationalized hosts must be written in punycode"
    }
  }
}

/// One entry of `com.apple.developer.associated-domains`, parsed and checked: the one type that knows what an entry
/// covers, which entry iOS uses for a host, and which host's AASA file governs it.
public struct AssociatedDomain: Sendable, Equatable, Codable {
  /// The entry exactly as the entitlement has it.
  public var raw: String
  /// `applinks`, `webcredentials`, `appclips`, `activitycontinuation`, or any other service kept as written.
  public var service: Service
  /// Lowercased host without the `*.` wildcard prefix; its AASA is fetched from here.
  public var host: String
  /// `*.host`: matches subdomains, not the apex.
  public var wildcard: Bool
  /// `?mode=` values: `developer`, `managed`.
  public var modes: [String]
  /// Why iOS will not honour the entry (the first problem found); nil while it is active.
  public var inactiveReason: InactiveReason?
  /// The domain's AASA file as fetched for this app; nil until the inventory is joined with the web.
  public var aasa: DomainAASA?

  /// Creates an entry; ``parse(_:diagnostics:)`` makes them from what entitlements say.
  public init(
    raw: String, service: Service, host: String, wildcard: Bool, modes: [String] = [],
    inactiveReason: InactiveReason? = nil
  ) {
    self.raw = raw
    self.service = service
    self.host = host
    self.wildcard = wildcard
    self.modes = modes
    self.inactiveReason = inactiveReason
  }

  /// Whether the entry names something a URL's host can be: not a name with a character no host name holds, an
  /// empty label, or too long. Such an entry is the app's alone (iOS ignores it), never a host apps share.
  public var namesAHost: Bool {
    switch inactiveReason {
    case .invalidCharacter?, .emptyLabel?, .tooLong?: false
    default: true
    }
  }

  /// False when iOS will not honour the entry (invalid, or developer mode in a build that cannot use it).
  public var active: Bool { inactiveReason == nil }

  /// The host with or without the wildcard.
  public var pattern: LinkRuntime.HostPattern { LinkRuntime.HostPattern(host: host, wildcard: wildcard) }

  /// `host` or `*.host`, with `?mode=…` when the entry has modes: the entry without its service.
  public var label: String { pattern.description + (modes.isEmpty ? "" : "?mode=" + modes.joined(separator: "+")) }

  /// `service:label`, such as `applinks:*.example.com`: how findings name the entry.
  public var name: String { "\(service):\(label)" }

  /// Whether the entry covers a URL's host (lower-cased): see ``LinkRuntime/HostPattern/covers(_:)``.
  public func covers(_ urlHost: String) -> Bool { pattern.covers(urlHost) }

  /// Whether the entry can open URLs: an active `applinks` entry.
  public var opensLinks: Bool { service == .applinks && active }

  /// The AASA request that gets the entry's file: the host's (the apex for a wildcard), straight from the domain
  /// for a developer-mode entry. Nil when no file is fetched for it: an undocumented service, no host, or an entry
  /// iOS ignores for any reason but developer mode, whose file is still worth knowing.
  public var request: AASARequest? {
    guard service.isDocumented, !host.isEmpty, active || inactiveReason == .developerModeUnavailable else {
      return nil
    }
    return AASARequest(host: host, developerMode: modes.contains("developer"))
  }

  /// Which of `entries` iOS uses for `host`'s universal links: among the active `applinks` entries, an exact entry
  /// beats a wildcard and a longer wildcard a shorter one. An index into `entries`; nil when none covers the host.
  public static func governing(_ entries: [AssociatedDomain], for host: String) -> Int? {
    let candidates = entries.indices.filter { entries[$0].opensLinks }
    return LinkRuntime.HostPattern.governing(candidates.map { entries[$0].pattern }, for: host).map { candidates[$0] }
  }

  private enum CodingKeys: String, CodingKey { case raw, service, host, wildcard, modes, active, inactiveReason, aasa }

  /// Reads a saved entry. The reason it is inactive is read again from `raw`, as parsing gives it; an inactive
  /// entry that parses cleanly was ruled out by its build, for developer mode.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    raw = try c.decode(String.self, forKey: .raw)
    service = try c.decodeIfPresent(Service.self, forKey: .service) ?? Service("")
    host = try c.decodeIfPresent(String.self, forKey: .host) ?? ""
    wildcard = try c.decodeIfPresent(Bool.self, forKey: .wildcard) ?? false
    modes = try c.decodeIfPresent([String].self, forKey: .modes) ?? []
    aasa = try c.decodeIfPresent(DomainAASA.self, forKey: .aasa)
    if try c.decodeIfPresent(Bool.self, forKey: .active) == false {
      var ignored: [Diagnostic] = []
      inactiveReason = Self.parse(raw, diagnostics: &ignored).inactiveReason ?? .developerModeUnavailable
    }
  }

  /// Writes the entry as reports always have: `active`, and the reason in words.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(raw, forKey: .raw)
    try c.encode(service, forKey: .service)
    try c.encode(host, forKey: .host)
    try c.encode(wildcard, forKey: .wildcard)
    try c.encode(modes, forKey: .modes)
    try c.encode(active, forKey: .active)
    try c.encodeIfPresent(inactiveReason?.message, forKey: .inactiveReason)
    try c.encodeIfPresent(aasa, forKey: .aasa)
  }

  static let knownModes: Set<String> = ["developer", "managed"]

  /// Parses `raw`; problems go to `diagnostics`, and an entry iOS would reject comes back inactive.
  public static func parse(_ raw: String, diagnostics: inout [Diagnostic]) -> AssociatedDomain {
    var d = AssociatedDomain(raw: raw, service: .other(""), host: "", wildcard: false)
    // A warning: the entry was read whole, and iOS ignores it, as the report does (inactive). As an error it made an
    // app read whole "partial" (exit 1, a `*` row, "may miss what could not be read") for a sloppy entry.
    func reject(_ reason: InactiveReason, _ code: DiagnosticCode) {
      diagnostics.append(Diagnostic(.warning, code, "associated domain \"\(raw)\": \(reason.message)"))
      if d.inactiveReason == nil { d.inactiveReason = reason }
    }
    guard let colon = raw.firstIndex(of: ":") else {
      reject(.noService, .domainNoService)
      d.host = raw.lowercased()
      return d
    }
    d.service = Service(String(raw[..<colon]))
    var rest = String(raw[raw.index(after: colon)...])
    if !d.service.isDocumented {
      diagnostics.append(
        Diagnostic(
          .info, .domainUnknownService,
          "associated domain \"\(raw)\": service \"\(d.service)\" is not one Apple documents"))
    }
    if let q = rest.firstIndex(of: "?") {
      let query = rest[rest.index(after: q)...]
      rest = String(rest[..<q])
      for item in query.split(separator: "&") {
        let parts = item.split(separator: "=", maxSplits: 1)
        guard parts.count == 2, parts[0] == "mode" else {
          diagnostics.append(
            Diagnostic(.warning, .domainUnknownParameter, "associated domain \"\(raw)\": ignoring \"\(item)\""))
          continue
        }
        for mode in parts[1].split(separator: "+").map(String.init) {
          if !knownModes.contains(mode) {
            diagnostics.append(
              Diagnostic(.warning, .domainUnknownMode, "associated domain \"\(raw)\": unknown mode \"\(mode)\""))
          }
          if !d.modes.contains(mode) { d.modes.append(mode) }
        }
      }
    }
    if rest != rest.lowercased() {
      diagnostics.append(
        Diagnostic(.info, .domainUppercase, "associated domain \"\(raw)\": host is matched case-insensitively"))
    }
    let pattern = LinkRuntime.HostPattern(rest)
    (d.host, d.wildcard) = (pattern.host, pattern.wildcard)
    let host = pattern.host
    // Letters, digits, `-`, `_` and dots; a `:` is a port, said below; past ASCII, the punycode warning below.
    let foreign = host.unicodeScalars.contains { c in
      c.isASCII && !(("a"..."z").contains(c) || ("0"..."9").contains(c) || "-_.:*/[]".unicodeScalars.contains(c))
    }
    if host.isEmpty {
      reject(.noHost, .domainEmptyHost)
    } else if foreign {
      reject(.invalidCharacter, .domainInvalidHost)
    } else if host.hasPrefix("[") || isIPv4(host) {
      reject(.ipAddress, .domainIPAddress)
    } else if host.contains(":") {
      reject(.port, .domainPort)
    } else if host.contains("/") || host.contains("*") {
      reject(.invalidCharacter, .domainInvalidHost)
    } else if !host.contains(".") {
      d.wildcard ? reject(.wildcardOverTopLevelDomain, .domainBareTLD) : reject(.noDot, .domainNoDot)
    } else if host.hasPrefix(".") || host.hasSuffix(".") || host.contains("..") {
      reject(.emptyLabel, .domainInvalidHost)
    } else if host.allSatisfy(\.isASCII),
      host.utf8.count > 253 || host.split(separator: ".").contains(where: { $0.utf8.count > 63 })
    {
      // No lookup can succeed, so the entry is inactive rather than a DNS failure that made the input partial.
      // Past ASCII the length is the punycode form's, which the punycode warning below already asks for.
      reject(.tooLong, .domainInvalidHost)
    }
    if d.wildcard && d.service == .appclips {
      reject(.appclipsWildcard, .domainAppclipsWildcard)
    }
    if !host.allSatisfy(\.isASCII) {
      diagnostics.append(
        Diagnostic(
          .warning, .domainNotPunycode,
          "associated domain \"\(raw)\": internationalized hosts must be written in punycode"))
      // Inactive, as the docs say, and so never looked up: a lookup made the input partial (a DNS failure) or not
      // (no file in a folder) by where files come from.
      if d.inactiveReason == nil { d.inactiveReason = .notPunycode }
    }
    return d
  }

  private static func isIPv4(_ host: String) -> Bool {
    let parts = host.split(separator: ".", omittingEmptySubsequences: false)
    return parts.count == 4 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
  }
}
