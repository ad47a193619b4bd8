/// One entry of `com.apple.developer.associated-domains`, parsed and checked.
public struct AssociatedDomain: Sendable, Equatable, Codable {
  /// The entry exactly as the entitlement has it.
  public var raw: String
  /// `applinks`, `webcredentials`, `appclips`, `activitycontinuation`, or any other service kept as written.
  public var service: String
  /// Lowercased host without the `*.` wildcard prefix; its AASA is fetched from here.
  public var host: String
  /// `*.host`: matches subdomains, not the apex.
  public var wildcard: Bool
  /// `?mode=` values: `developer`, `managed`.
  public var modes: [String]
  /// False when iOS will not honour the entry (invalid, or developer mode in a build that cannot use it).
  public var active: Bool
  /// Why iOS ignores the entry (the first problem found), for reports; nil while it is active. A developer-mode entry
  /// inactive only for that reason still has its AASA file fetched.
  public var inactiveReason: String?
  /// The domain's AASA file as fetched for this app; nil until the inventory is joined with the web.
  public var aasa: DomainAASA?

  /// The services Apple documents; others are kept but flagged.
  public static let knownServices: Set<String> = ["applinks", "webcredentials", "appclips", "activitycontinuation"]
  static let knownModes: Set<String> = ["developer", "managed"]

  /// Parses `raw`; problems go to `diagnostics`, and an entry iOS would reject comes back inactive.
  public static func parse(_ raw: String, diagnostics: inout [Diagnostic]) -> AssociatedDomain {
    var d = AssociatedDomain(raw: raw, service: "", host: "", wildcard: false, modes: [], active: true)
    func reject(_ code: DiagnosticCode, _ why: String) {
      diagnostics.append(Diagnostic(.error, code, "associated domain \"\(raw)\": \(why)"))
      d.active = false
      if d.inactiveReason == nil { d.inactiveReason = why }
    }
    guard let colon = raw.firstIndex(of: ":") else {
      reject(.domainNoService, "no service prefix such as applinks:")
      d.host = raw.lowercased()
      return d
    }
    d.service = String(raw[..<colon])
    var rest = String(raw[raw.index(after: colon)...])
    if !knownServices.contains(d.service) {
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
    var host = rest.lowercased()
    if host.hasPrefix("*.") {
      d.wildcard = true
      host.removeFirst(2)
    }
    d.host = host
    if host.isEmpty {
      reject(.domainEmptyHost, "no host")
    } else if host.hasPrefix("[") || isIPv4(host) {
      reject(.domainIPAddress, "an IP address cannot be an associated domain")
    } else if host.contains(":") {
      reject(.domainPort, "ports are not supported")
    } else if host.contains("/") || host.contains("*") {
      reject(.domainInvalidHost, "host contains \"/\" or a misplaced \"*\"")
    } else if !host.contains(".") {
      reject(
        d.wildcard ? .domainBareTLD : .domainNoDot,
        d.wildcard ? "a wildcard over a bare top-level domain" : "host has no dot")
    } else if host.hasPrefix(".") || host.hasSuffix(".") || host.contains("..") {
      reject(.domainInvalidHost, "host has an empty label")
    }
    if d.wildcard && d.service == "appclips" {
      reject(.domainAppclipsWildcard, "appclips does not allow wildcards")
    }
    if !host.allSatisfy(\.isASCII) {
      diagnostics.append(
        Diagnostic(
          .warning, .domainNotPunycode,
          "associated domain \"\(raw)\": internationalized hosts must be written in punycode"))
    }
    return d
  }

  private static func isIPv4(_ host: String) -> Bool {
    let parts = host.split(separator: ".", omittingEmptySubsequences: false)
    return parts.count == 4 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
  }
}
