import Testing

@testable import UniversalLinks

/// WebKit's reading of URLs (WHATWG) and the navigation rule built on it.
struct NavigationTests {
  /// A URL, and the host and URL WebKit gives it (nil when WebKit refuses it, or it is not http(s)): the expected
  /// values are what Node's WHATWG `URL` printed for these strings (`hostname`, and `href` without user info).
  static let readings: [(String, String?, String?)] = [
    ("https://bsky.app/profile/x", "bsky.app", "https://bsky.app/profile/x"),
    ("HTTPS://BSKY.APP:443/a", "bsky.app", "https://bsky.app/a"),
    ("https://bsky.app:8443/p", "bsky.app", "https://bsky.app:8443/p"),
    ("https://user:pw@evil.example/x", "evil.example", "https://evil.example/x"),
    ("https://bsky.app@evil.example/profile/x", "evil.example", "https://evil.example/profile/x"),
    ("https://evil.example\\@bsky.app/profile/x", "evil.example", "https://evil.example/@bsky.app/profile/x"),
    ("https://bsky.app\\@evil.example/profile/x", "bsky.app", "https://bsky.app/@evil.example/profile/x"),
    ("https:\\\\bsky.app\\profile\\x", "bsky.app", "https://bsky.app/profile/x"),
    ("https:bsky.app/x", "bsky.app", "https://bsky.app/x"),
    ("https://bsky%2Eapp/profile/x", "bsky.app", "https://bsky.app/profile/x"),
    ("https://%62sky.app/x", "bsky.app", "https://bsky.app/x"),
    ("https://bsky.app./x", "bsky.app.", "https://bsky.app./x"),
    ("https://xn--bsky-6na.app/", "xn--bsky-6na.app", "https://xn--bsky-6na.app/"),
    ("https://bsky.аpp/x", "bsky.xn--pp-6kc", "https://bsky.xn--pp-6kc/x"),
    ("https://ｂｓｋｙ.app/profile/x", "bsky.app", "https://bsky.app/profile/x"),
    ("https://bsky。app/x", "bsky.app", "https://bsky.app/x"),
    ("https://BÜCHER.de/a", "xn--bcher-kva.de", "https://xn--bcher-kva.de/a"),
    ("https://0x7f.1/x", "127.0.0.1", "https://127.0.0.1/x"),
    ("https://127.0.0.1./x", "127.0.0.1", "https://127.0.0.1/x"),
    ("https://017700000001/", "127.0.0.1", "https://127.0.0.1/"),
    ("https://[::1]/x", "[::1]", "https://[::1]/x"),
    ("https://[0:0:0:0:0:0:0:1]:8080/x", "[::1]", "https://[::1]:8080/x"),
    ("https://[::ffff:192.168.0.1]/", "[::ffff:c0a8:1]", "https://[::ffff:c0a8:1]/"),
    ("https://a.b/c/../d/./e", "a.b", "https://a.b/d/e"),
    ("https://a.b/c/%2e%2E/d", "a.b", "https://a.b/d"),
    ("https://a.b/ä b?q=ä b'#f ä`", "a.b", "https://a.b/%C3%A4%20b?q=%C3%A4%20b%27#f%20%C3%A4%60"),
    (" https://a.b/x\t\n ", "a.b", "https://a.b/x"),
    ("https://a.b?x", "a.b", "https://a.b/?x"),
    ("https://a.b#f", "a.b", "https://a.b/#f"),
    ("https://a.b/x/..", "a.b", "https://a.b/"),
    ("https://[1:2::]/", "[1:2::]", "https://[1:2::]/"),
    ("https://[1::2:3]/", "[1::2:3]", "https://[1::2:3]/"),
    ("http://a.b:80/", "a.b", "http://a.b/"),
    ("http://a.b:0080/", "a.b", "http://a.b/"),
    ("https://a.b:99999/", nil, nil),
    ("https://a b/", nil, nil),
    ("https://a%zz.b/", nil, nil),
    ("https://@a.b/", "a.b", "https://a.b/"),
    ("https://a.b:/x", "a.b", "https://a.b/x"),
    ("ftp://a.b/", nil, nil),
    ("about:blank", nil, nil),
    ("javascript:alert(1)", nil, nil),
    ("https://1.2.3.bad/", "1.2.3.bad", "https://1.2.3.bad/"),
    ("https://bad.1/", nil, nil),
    ("https://a.b/p?q#f#g", "a.b", "https://a.b/p?q#f#g"),
    ("https://münchen.de/", "xn--mnchen-3ya.de", "https://xn--mnchen-3ya.de/"),
    ("https://faß.de/", "xn--fa-hia.de", "https://xn--fa-hia.de/"),
    ("https://a.b/%7e/x", "a.b", "https://a.b/%7e/x"),
    ("https://a.b/{}|^", "a.b", "https://a.b/%7B%7D|^"),
    ("https://a.b/x?%zz&a='", "a.b", "https://a.b/x?%zz&a=%27"),
  ]

  @Test func readsURLsAsWebKitDoes() {
    for (input, host, href) in Self.readings {
      let url = LinkRuntime.WebURL(input)
      #expect(url?.host == host, "\(input)")
      #expect(url?.href == href, "\(input)")
    }
  }

  @Test func hostsOutsideASCIIAreNotExact() {
    for input in ["https://bsky.\u{430}pp/x", "https://BÜCHER.de/a", "https://münchen.de/", "https://faß.de/"] {
      #expect(LinkRuntime.WebURL(input)?.hostIsExact == false, "\(input)")
    }
    // Fullwidth letters and ideographic full stops map to ASCII exactly, as UTS #46 maps them.
    for input in ["https://ｂｓｋｙ.app/profile/x", "https://bsky。app/x", "https://bsky%2Eapp/x"] {
      #expect(LinkRuntime.WebURL(input)?.hostIsExact == true, "\(input)")
    }
  }

  /// bsky.app opens `/profile/*` in app B and excludes `/profile/private/*`; evil.example is claimed whole by app E.
  static let table = LinkRuntime.Table(apps: [
    .init(
      appID: "B",
      scopes: [
        .init(
          host: "bsky.app", wildcard: false,
          program: LinkRuntime.RuleProgram(rules: [
            LinkRuntime.Rule(pointer: "/x", exclude: true, path: [.literal("/profile/private/"), .star]),
            LinkRuntime.Rule(pointer: "/p", path: [.literal("/profile/"), .star]),
          ]))
      ]),
    .init(
      appID: "E",
      scopes: [
        .init(
          host: "evil.example", wildcard: false,
          program: LinkRuntime.RuleProgram(rules: [LinkRuntime.Rule(pointer: "/all", path: [.star])]))
      ]),
  ])

  static func decide(
    _ destination: String, from page: String? = "https://news.example/", frame: LinkRuntime.Navigation.Frame = .main,
    kind: LinkRuntime.Navigation.Kind = .linkActivated, userInitiated: Bool? = true
  ) -> LinkRuntime.NavigationDecision {
    table.decide(
      LinkRuntime.Navigation(
        destination: destination, page: page, frame: frame, kind: kind, userInitiated: userInitiated))
  }

  /// Each condition of the rule keeps the app closed on its own; with all of them met the app opens.
  @Test func eachConditionOfTheRule() {
    let url = "https://bsky.app/profile/x"
    #expect(
      Self.decide(url)
        == .init(opensApp: true, reason: .claimed, decision: .init(verdict: .match, appID: "B", pointer: "/p")))
    #expect(Self.decide(url, frame: .newWindow).opensApp)
    #expect(Self.decide(url, frame: .subframe).reason == .subframe)
    #expect(Self.decide(url, kind: .backForward).reason == .backForward)
    #expect(Self.decide(url, userInitiated: false).reason == .notUserInitiated)
    // Unknown counts as the user's: a guard fails closed.
    #expect(Self.decide(url, userInitiated: nil).opensApp)
    #expect(Self.decide(url, from: "https://bsky.app/").reason == .sameHost)
    #expect(Self.decide(url, from: "https://bsky.app/feed", kind: .reload).reason == .sameHost)
    #expect(Self.decide(url, kind: .formSubmitted).opensApp)
    #expect(Self.decide(url, kind: .other).opensApp)
    // No page yet (a first load), or a page without a host: the hosts differ.
    #expect(Self.decide(url, from: nil).opensApp)
    #expect(Self.decide(url, from: "about:blank").opensApp)
    #expect(Self.decide("https://bsky.app/profile/private/1").reason == .unclaimed)
    #expect(Self.decide("https://bsky.app/about").reason == .unclaimed)
    #expect(Self.decide("mailto:a@bsky.app").reason == .notWeb)
    #expect(Self.decide("https://bsky.app:99999/profile/x").reason == .notWeb)
  }

  /// WebKit compares hosts exactly, not by site: a subdomain or a trailing dot is another host.
  @Test func hostsCompareExactly() {
    let url = "https://bsky.app/profile/x"
    #expect(Self.decide(url, from: "https://www.bsky.app/").opensApp)
    #expect(Self.decide(url, from: "https://bsky.app./").opensApp)
    #expect(Self.decide("https://bsky.app./profile/x", from: "https://bsky.app/").opensApp)
    // The port and user info are not part of the host; case is not either.
    #expect(Self.decide(url, from: "https://bsky.app:8443/").reason == .sameHost)
    #expect(Self.decide(url, from: "https://someone@BSKY.APP/").reason == .sameHost)
    #expect(Self.decide("https://BSKY.app:443/profile/x", from: "https://bsky.app/").reason == .sameHost)
  }

  /// A hostile page cannot make the guard read another host than WebKit loads.
  @Test func hostileURLsAreReadAsWebKitReadsThem() {
    // User info: the host is what follows the last `@`.
    #expect(Self.decide("https://bsky.app@evil.example/x", from: "https://bsky.app/").opensApp)
    #expect(Self.decide("https://evil.example@bsky.app/profile/x", from: "https://bsky.app/").reason == .sameHost)
    // A backslash ends the host for WebKit, not for RFC 3986: here WebKit loads bsky.app's /@evil.example/…
    let backslash = Self.decide("https://bsky.app\\@evil.example/profile/x", from: "https://news.example/")
    #expect(backslash.decision?.appID != "E", "read as evil.example: \(backslash)")
    #expect(Self.decide("https://bsky.app\\@evil.example/profile/x", from: "https://bsky.app/").reason == .sameHost)
    #expect(Self.decide("https://evil.example\\@bsky.app/profile/x", from: "https://bsky.app/").opensApp)
    #expect(Self.decide("https:\\\\bsky.app\\profile\\x") == Self.decide("https://bsky.app/profile/x"))
    // Percent-encoded host bytes are decoded before the comparison and the verdict.
    #expect(Self.decide("https://bsky%2Eapp/profile/x").opensApp)
    #expect(Self.decide("https://bsky%2Eapp/profile/x", from: "https://bsky.app/").reason == .sameHost)
    #expect(Self.decide("https://%62sky.app/profile/x", from: "https://b%73ky.app/").reason == .sameHost)
    // Fullwidth letters read as ASCII, as WebKit maps them: the same host as bsky.app, and claimed.
    #expect(Self.decide("https://ｂｓｋｙ.app/profile/x", from: "https://bsky.app/").reason == .sameHost)
    #expect(Self.decide("https://ｂｓｋｙ.app/profile/x").opensApp)
    // A host outside ASCII that the guard cannot map exactly is another host, and counts as opening an app.
    #expect(Self.decide("https://bsky.\u{430}pp/profile/x", from: "https://bsky.\u{430}pp/").reason == .unreadableHost)
    #expect(Self.decide("https://bücher.example/", from: "https://news.example/").opensApp)
    // Dot segments resolve before the rules see the path: /profile/private/../x is /profile/x.
    #expect(Self.decide("https://bsky.app/profile/private/../x").opensApp)
    #expect(Self.decide("https://bsky.app/profile/./private/1").reason == .unclaimed)
  }
}
