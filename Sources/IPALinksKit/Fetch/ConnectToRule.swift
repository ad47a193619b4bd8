/// A curl `--connect-to HOST1:PORT1:HOST2:PORT2` rule: connections meant for HOST1:PORT1 go to HOST2:PORT2, while
/// SNI, the certificate name and `Host` stay those of the original URL. Tests and air-gapped mirrors rely on it.
///
/// As in curl, an empty HOST1 or PORT1 matches any host or port, an empty HOST2 or PORT2 keeps the original one, and
/// IPv6 addresses are written in brackets: `example.com:443:[::1]:8443`.
public struct ConnectToRule: Sendable, Hashable, CustomStringConvertible {
  /// nil matches any host.
  public var fromHost: String?
  /// nil matches any port.
  public var fromPort: Int?
  /// nil keeps the original host.
  public var toHost: String?
  /// nil keeps the original port.
  public var toPort: Int?

  /// Lowercases the hosts so they compare equal to URL hosts; unlike ``parse(_:)`` it validates nothing.
  public init(fromHost: String? = nil, fromPort: Int? = nil, toHost: String? = nil, toPort: Int? = nil) {
    self.fromHost = fromHost?.lowercased()
    self.fromPort = fromPort
    self.toHost = toHost?.lowercased()
    self.toPort = toPort
  }

  /// Parses `HOST1:PORT1:HOST2:PORT2` with curl's rules.
  public static func parse(_ text: String) throws(AASAFetchError) -> ConnectToRule {
    func fail(_ reason: String) -> AASAFetchError { .invalidConnectTo(rule: text, reason: reason) }
    var rest = Substring(text)
    var fields: [(value: String, bracketed: Bool)] = []
    while true {
      var value: Substring
      var bracketed = false
      if rest.first == "[" {
        guard let close = rest.firstIndex(of: "]") else { throw fail("unclosed \"[\"") }
        value = rest[rest.index(after: rest.startIndex)..<close]
        rest = rest[rest.index(after: close)...]
        bracketed = true
        guard rest.isEmpty || rest.first == ":" else { throw fail("expected \":\" after \"]\"") }
      } else {
        let end = rest.firstIndex(of: ":") ?? rest.endIndex
        value = rest[..<end]
        rest = rest[end...]
      }
      fields.append((String(value), bracketed))
      guard !rest.isEmpty else { break }
      rest = rest.dropFirst()  // the ":"
    }
    guard fields.count == 4 else { throw fail("expected HOST1:PORT1:HOST2:PORT2, found \(fields.count) fields") }

    func host(_ field: (value: String, bracketed: Bool), _ name: String) throws(AASAFetchError) -> String? {
      if field.value.isEmpty {
        if field.bracketed { throw fail("\(name) is an empty \"[]\"") }
        return nil
      }
      if field.bracketed {
        guard IPAddress(field.value)?.isIPv6 == true else {
          throw fail("\(name) \"[\(field.value)]\" is not an IPv6 address")
        }
        return field.value.lowercased()
      }
      // A fully qualified name's final dot is taken as `fetch` takes it: `example.com.` is `example.com`.
      guard let host = HostName.validated(HostArgument.normalized(field.value)) else {
        throw fail("\(name) \"\(field.value)\" is not a host name")
      }
      return host
    }
    func port(_ field: (value: String, bracketed: Bool), _ name: String) throws(AASAFetchError) -> Int? {
      if field.value.isEmpty && !field.bracketed { return nil }
      guard !field.bracketed, field.value.count <= 5, field.value.allSatisfy(\.isASCIIDigit),
        let port = Int(field.value), (1...65_535).contains(port)
      else { throw fail("\(name) \"\(field.value)\" is not a port from 1 to 65535") }
      return port
    }
    return ConnectToRule(
      fromHost: try host(fields[0], "HOST1"), fromPort: try port(fields[1], "PORT1"),
      toHost: try host(fields[2], "HOST2"), toPort: try port(fields[3], "PORT2"))
  }

  /// Whether this rule applies to a connection meant for `host:port`.
  public func matches(host: String, port: Int) -> Bool {
    (fromHost == nil || fromHost == host.lowercased()) && (fromPort == nil || fromPort == port)
  }

  /// The rule in the form it parses from.
  public var description: String {
    func host(_ h: String?) -> String { h.map { $0.contains(":") ? "[\($0)]" : $0 } ?? "" }
    return "\(host(fromHost)):\(fromPort.map(String.init) ?? ""):\(host(toHost)):\(toPort.map(String.init) ?? "")"
  }
}

extension Character {
  var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
