import Testing

@testable import IPALinksKit

/// The SSRF guard's address table, and the host-name check that runs before any lookup.
struct AddressGuardTests {
  @Test(arguments: [
    // IPv4
    ("127.0.0.1", "loopback"), ("127.255.255.254", "loopback"), ("10.1.2.3", "private"), ("172.16.0.1", "private"),
    ("172.31.255.255", "private"), ("192.168.1.1", "private"), ("169.254.169.254", "link-local"),
    ("100.64.0.1", "CGNAT"), ("100.127.255.255", "CGNAT"), ("0.0.0.0", "this network"), ("0.1.2.3", "this network"),
    ("224.0.0.1", "multicast"), ("239.255.255.250", "multicast"), ("240.0.0.1", "reserved"),
    ("255.255.255.255", "broadcast"), ("192.0.2.1", "documentation"), ("198.51.100.7", "documentation"),
    ("203.0.113.9", "documentation"), ("198.18.0.1", "benchmarking"), ("192.0.0.8", "IETF"),
    // IPv6
    ("::", "unspecified"), ("::1", "loopback"), ("fe80::1", "link-local"), ("febf::1", "link-local"),
    ("fc00::1", "unique local"), ("fd12:3456::1", "unique local"), ("ff02::1", "multicast"),
    ("::ffff:127.0.0.1", "IPv4-mapped loopback"), ("::ffff:10.0.0.1", "IPv4-mapped private"),
    ("::ffff:169.254.169.254", "IPv4-mapped link-local"), ("64:ff9b::7f00:1", "NAT64 of loopback"),
    ("2002:c0a8:0101::1", "6to4 of private"), ("2001:db8::1", "documentation"), ("fec0::1", "site-local"),
    ("::127.0.0.1", "reserved"), ("100::1", "reserved"),
  ])
  func nonPublicAddressesAreRefused(address: String, reason: String) {
    let refusal = AddressGuard.refusalReason(for: address)
    #expect(refusal?.contains(reason) == true, "\(address): \(refusal ?? "allowed")")
  }

  @Test(arguments: [
    "1.1.1.1", "8.8.8.8", "17.253.144.10", "100.63.255.255", "100.128.0.0", "172.15.255.255", "172.32.0.0",
    "169.253.0.1", "192.167.1.1", "223.255.255.255", "2606:4700:4700::1111", "2a00:1450:4001:80b::200e",
    "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:0808:0808::1",
  ])
  func publicAddressesAreAllowed(address: String) {
    #expect(AddressGuard.refusalReason(for: address) == nil, "\(address)")
  }

  @Test(arguments: ["localhost.", "1.2.3.4.5.6", "example", "::1x", "", "12345"])
  func onlyIPAddressesAreJudged(text: String) {
    if IPAddress(text) == nil {
      #expect(AddressGuard.refusalReason(for: text) == "not an IP address")
    }
  }

  @Test func addressesPrintCanonically() {
    #expect(IPAddress("::ffff:127.0.0.1")?.description == "::ffff:127.0.0.1")
    #expect(IPAddress("2001:0db8:0000::0001")?.description == "2001:db8::1")
    #expect(IPAddress("10.0.0.1")?.bytes == [10, 0, 0, 1])
  }

  @Test(arguments: [
    ("example.com", "example.com"), ("Sub.Example.COM", "sub.example.com"), ("a-b_c.test", "a-b_c.test"),
    ("127.0.0.1", "127.0.0.1"), ("xn--bcher-kva.example", "xn--bcher-kva.example"),
  ])
  func plainHostNamesPass(host: String, expected: String) {
    #expect(HostName.validated(host) == expected)
  }

  @Test(arguments: [
    "", ".", "..", "../etc", "a..b", ".example.com", "example.com.", "a/b", "a\\b", "a:443", "[::1]", "user@host",
    "exa mple.com", "bücher.example", "a%2fb", String(repeating: "a", count: 64) + ".com",
    String(repeating: "a.", count: 127) + "com",
  ])
  func anythingElseIsRefused(host: String) {
    #expect(HostName.validated(host) == nil, "\(host)")
  }
}
