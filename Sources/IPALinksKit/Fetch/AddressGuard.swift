import Foundation

/// The SSRF guard. The domains come from a third-party app, so a hostile one could point at `127.0.0.1`, a router on
/// `192.168.0.1` or a cloud metadata service on `169.254.169.254`; the fetcher refuses such addresses unless the user
/// allows them, and then connects to exactly the address it checked.
public enum AddressGuard {
  /// Why connecting to `address` is refused, such as "loopback (127.0.0.0/8)", or nil for a public unicast address.
  /// A string that is not an IPv4 or IPv6 address is refused too.
  public static func refusalReason(for address: String) -> String? {
    guard let ip = IPAddress(address) else { return "not an IP address" }
    return refusalReason(ip)
  }

  static func refusalReason(_ ip: IPAddress) -> String? {
    ip.isIPv6 ? refusalReason(v6: ip.bytes) : refusalReason(v4: ip.bytes)
  }

  private static let v4Ranges: [(prefix: [UInt8], bits: Int, reason: String)] = [
    ([0, 0, 0, 0], 8, "\"this network\" (0.0.0.0/8)"),
    ([10, 0, 0, 0], 8, "private (10.0.0.0/8)"),
    ([100, 64, 0, 0], 10, "shared address space, CGNAT (100.64.0.0/10)"),
    ([127, 0, 0, 0], 8, "loopback (127.0.0.0/8)"),
    ([169, 254, 0, 0], 16, "link-local (169.254.0.0/16)"),
    ([172, 16, 0, 0], 12, "private (172.16.0.0/12)"),
    ([192, 0, 0, 0], 24, "IETF protocol assignments (192.0.0.0/24)"),
    ([192, 0, 2, 0], 24, "documentation (192.0.2.0/24)"),
    ([192, 88, 99, 0], 24, "6to4 relay anycast (192.88.99.0/24)"),
    ([192, 168, 0, 0], 16, "private (192.168.0.0/16)"),
    ([198, 18, 0, 0], 15, "benchmarking (198.18.0.0/15)"),
    ([198, 51, 100, 0], 24, "documentation (198.51.100.0/24)"),
    ([203, 0, 113, 0], 24, "documentation (203.0.113.0/24)"),
    ([224, 0, 0, 0], 4, "multicast (224.0.0.0/4)"),
    ([255, 255, 255, 255], 32, "broadcast (255.255.255.255)"),
    ([240, 0, 0, 0], 4, "reserved (240.0.0.0/4)"),
  ]

  private static func refusalReason(v4 b: [UInt8]) -> String? {
    v4Ranges.first { matches(b, $0.prefix, $0.bits) }?.reason
  }

  private static func refusalReason(v6 b: [UInt8]) -> String? {
    let embeddedV4 = Array(b[12..<16])
    if b == [UInt8](repeating: 0, count: 16) { return "unspecified (::)" }
    if b == [UInt8](repeating: 0, count: 15) + [1] { return "loopback (::1)" }
    if matches(b, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], 96) {
      return refusalReason(v4: embeddedV4).map { "IPv4-mapped \($0)" }
    }
    // NAT64 (RFC 6052): IPv6-only networks reach IPv4 hosts through it, so judge the IPv4 address inside.
    if matches(b, [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0], 96) {
      return refusalReason(v4: embeddedV4).map { "NAT64 of \($0)" }
    }
    if matches(b, [0xfc], 7) { return "unique local (fc00::/7)" }
    if matches(b, [0xfe, 0x80], 10) { return "link-local (fe80::/10)" }
    if matches(b, [0xfe, 0xc0], 10) { return "site-local (fec0::/10)" }
    if matches(b, [0xff], 8) { return "multicast (ff00::/8)" }
    // Only 2000::/3 is allocated for global unicast; everything else is reserved or special-purpose.
    if !matches(b, [0x20], 3) { return "reserved (outside 2000::/3)" }
    if matches(b, [0x20, 0x01, 0x0d, 0xb8], 32) { return "documentation (2001:db8::/32)" }
    if matches(b, [0x3f, 0xff], 20) { return "documentation (3fff::/20)" }
    if matches(b, [0x20, 0x01, 0x00, 0x02, 0x00, 0x00], 48) { return "benchmarking (2001:2::/48)" }
    if matches(b, [0x20, 0x01, 0x00, 0x10], 28) || matches(b, [0x20, 0x01, 0x00, 0x20], 28) {
      return "ORCHID (2001:10::/28, 2001:20::/28)"
    }
    if matches(b, [0x20, 0x02], 16) {  // 6to4 carries the IPv4 address in bits 16 to 47
      return refusalReason(v4: Array(b[2..<6])).map { "6to4 of \($0)" }
    }
    return nil
  }

  private static func matches(_ address: [UInt8], _ prefix: [UInt8], _ bits: Int) -> Bool {
    for i in 0..<(bits + 7) / 8 {
      let mask: UInt8 = bits - i * 8 >= 8 ? 0xff : ~(0xff >> UInt8(bits - i * 8))
      if address[i] & mask != (i < prefix.count ? prefix[i] : 0) & mask { return false }
    }
    return true
  }
}

/// An IPv4 (4 bytes) or IPv6 (16 bytes) address, written the way `inet_ntop` writes it.
struct IPAddress: Hashable, Sendable, CustomStringConvertible {
  let bytes: [UInt8]

  var isIPv6: Bool { bytes.count == 16 }

  init(bytes: [UInt8]) {
    precondition(bytes.count == 4 || bytes.count == 16)
    self.bytes = bytes
  }

  init?(_ text: String) {
    var v4 = in_addr()
    var v6 = in6_addr()
    if inet_pton(AF_INET, text, &v4) == 1 {
      bytes = withUnsafeBytes(of: &v4) { Array($0) }
    } else if inet_pton(AF_INET6, text, &v6) == 1 {
      bytes = withUnsafeBytes(of: &v6) { Array($0) }
    } else {
      return nil
    }
  }

  var description: String {
    var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
    let ok = bytes.withUnsafeBytes { raw in
      inet_ntop(isIPv6 ? AF_INET6 : AF_INET, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil
    }
    guard ok else { return bytes.map(String.init).joined(separator: ".") }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}

/// Name resolution with the system resolver, so `/etc/hosts`, search domains and DNS64 behave as for any other tool.
enum HostResolver {
  enum Failure: Error, Equatable {
    case noSuchHost
    case failed(String)
  }

  /// Blocking: call it off the event loops and the cooperative pool.
  static func resolve(_ host: String) throws(Failure) -> [IPAddress] {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    #if canImport(Darwin)
      hints.ai_socktype = SOCK_STREAM
    #else
      hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    #endif
    var list: UnsafeMutablePointer<addrinfo>?
    let rc = getaddrinfo(host, nil, &hints, &list)
    guard rc == 0 else {
      if rc == EAI_NONAME { throw .noSuchHost }
      throw .failed(String(cString: gai_strerror(rc)))
    }
    defer { freeaddrinfo(list) }
    var addresses: [IPAddress] = []
    var cursor = list
    while let info = cursor {
      if let sa = info.pointee.ai_addr {
        switch Int32(sa.pointee.sa_family) {
        case AF_INET:
          let sin = UnsafeRawPointer(sa).loadUnaligned(as: sockaddr_in.self)
          addresses.append(IPAddress(bytes: withUnsafeBytes(of: sin.sin_addr) { Array($0) }))
        case AF_INET6:
          let sin6 = UnsafeRawPointer(sa).loadUnaligned(as: sockaddr_in6.self)
          addresses.append(IPAddress(bytes: withUnsafeBytes(of: sin6.sin6_addr) { Array($0) }))
        default: break
        }
      }
      cursor = info.pointee.ai_next
    }
    var seen = Set<IPAddress>()
    let unique = addresses.filter { seen.insert($0).inserted }
    guard !unique.isEmpty else { throw .noSuchHost }
    return unique
  }
}
