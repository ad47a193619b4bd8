import Foundation
import IPALinksKit
import UniversalLinks

/// SplitMix64: a tiny deterministic generator, so a seed always gives the same files and URLs. Its helpers do not
/// go through the standard library's `random(in:using:)`, whose algorithm may change between Swift versions.
struct SplitMix64 {
  private(set) var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A number in `0..<n` (the modulo bias is far below anything a test could notice).
  mutating func below(_ n: Int) -> Int {
    precondition(n > 0)
    return Int(next() % UInt64(n))
  }

  /// True `percent` times in a hundred.
  mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

  mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }

  /// `items` in a random order.
  mutating func shuffled<T>(_ items: [T]) -> [T] {
    var out = items
    for i in stride(from: out.count - 1, to: 0, by: -1) { out.swapAt(i, below(i + 1)) }
    return out
  }
}

/// Random `apple-app-site-association` files, and URLs aimed at their patterns, for checking a generated matcher
/// (the JavaScript guard, and any later one) against the runtime core on far more cases than hand-made tables hold.
///
/// Files: a *world* is a few apps sharing one to three domains (`wN.example`, `shop.wN.example`,
/// `deep.shop.wN.example`); each domain serves one file and each app claims some of the domains, exactly or as
/// `*.` wildcards. A file has details in the array form (`appIDs`, or a legacy `appID`) or the old dictionary form,
/// listing some of the world's apps and decoys; `components` or legacy `paths` (with `NOT `); patterns for `/`, `?`
/// (a string or item dictionary) and `#` built from words, `*`, `?`, percent escapes, non-ASCII text and
/// `$(…)` variables (built-ins such as `$(digit)`, `$(alpha)`, `$(lang)`, `$(region)`, custom ones, one shadowing a
/// built-in, an empty one and undefined ones); `exclude`, `caseSensitive` and `percentEncoded` on components and
/// as defaults at `applinks.defaults` and detail level.
///
/// URLs: most are one of the blocklist's own rules instantiated (each `*`, `?` and `$(…)` replaced by text it
/// matches, or text that almost does), on a host the rule's entry covers, then varied: letter case, percent
/// escapes, `//` and trailing slashes, extra, repeated and missing query items, fragments, ports, user info,
/// scheme. The rest are near misses (look-alike hosts) and noise. URLs are made from any ``Blocklist``'s rules,
/// so hand-made tables can be fed too.
struct RandomAASA {
  /// The seed the generator started from, for failure messages.
  let seed: UInt64
  var random: SplitMix64

  init(seed: UInt64) {
    self.seed = seed
    random = SplitMix64(seed: seed)
  }

  // MARK: - Files

  /// `worlds` worlds of apps and files as one blocklist (worlds use different hosts, so they never interact),
  /// with each domain's file as JSON text.
  mutating func blocklist(worlds: Int) -> (blocklist: Blocklist, files: [String: String]) {
    var apps: [LinkingApp] = []
    var files: [String: String] = [:]
    for index in 0..<worlds {
      let world = world(index)
      apps += world.apps
      files.merge(world.files) { $1 }
    }
    return (Blocklist(apps: apps), files)
  }

  /// One world: its apps, and the file of each of its domains.
  mutating func world(_ index: Int) -> (apps: [LinkingApp], files: [String: String]) {
    let base = "w\(index).example"
    let hosts = Array(random.shuffled([base, "shop." + base, "deep.shop." + base]).prefix(1 + random.below(3)))
    let appIDs = (0..<(2 + random.below(3))).map { k in
      "T\(String(index + 10_000).suffix(4))TEAM\(k).com.example.app\(k)"
    }
    var files: [String: String] = [:]
    var parsed: [String: AASAFile] = [:]
    for host in hosts {
      let json = file(appIDs: appIDs)
      files[host] = json
      parsed[host] = try! AASAFile(json: json)
    }
    let apps = appIDs.enumerated().map { k, appID in
      let entries = random.shuffled(hosts).prefix(1 + random.below(hosts.count))
      let scopes = entries.map { host in
        RuleScope(
          host: host, wildcard: random.chance(35), rules: AppLinkRules(file: parsed[host]!, appID: appID))
      }
      return LinkingApp(appID: appID, name: "App \(index).\(k)", input: "world\(index).ipa", scopes: scopes)
    }
    return (apps, files)
  }

  /// Words patterns and URLs share, so instantiated wildcards and noise keep landing near other rules.
  static let words = [
    "buy", "Buy", "help", "p", "item", "docs", "v1", "2024", "search", "gift", "Case", "a", "b", "x", "caf%C3%A9",
    "a%20b", "%7Euser", "café", "Straße", "ÜBER", "Ωmega", "ΣΑΣ", "İd", "cafe\u{301}",
  ]

  /// Custom substitution variables a file may define; `lang` shadows the built-in, `empty` has no value.
  static let customVariables: [(name: String, values: [String])] = [
    ("food", ["pizza", "sushi", "Bánh"]), ("sku", ["A?", "B*", "c-1"]), ("color", ["red", "Blue"]),
    ("lang", ["en", "xx"]), ("empty", []),
  ]

  /// References a pattern may use: built-ins, and custom ones (which a file may or may not define).
  static let variableReferences = [
    "$(digit)", "$(alpha)", "$(upper)", "$(lower)", "$(alnum)", "$(xdigit)", "$(lang)", "$(region)",
    "$(lang)_$(region)", "$(food)", "$(sku)", "$(color)",
  ]

  /// One AASA file as JSON text; some details list `appIDs`' apps, others only decoys.
  mutating func file(appIDs: [String]) -> String {
    var applinks: [String] = []
    if random.chance(20) { applinks.append(#""apps": []"#) }
    if random.chance(30), let defaults = flags(percent: 60) { applinks.append(#""defaults": \#(defaults)"#) }
    if random.chance(70) {
      let variables = random.shuffled(Self.customVariables).prefix(2 + random.below(4)).map {
        Self.quote($0.name) + ": [" + $0.values.map(Self.quote).joined(separator: ", ") + "]"
      }
      applinks.append(#""substitutionVariables": {\#(variables.joined(separator: ", "))}"#)
    }
    let decoy = "ZZZZZZZZZZ.com.example.decoy"
    let listed = random.shuffled(appIDs + [decoy])
    if random.chance(15) {
      // The old dictionary form: one legacy detail per app ID.
      let details = listed.prefix(1 + random.below(listed.count)).map { appID in
        Self.quote(appID) + #": {"paths": "# + legacyPaths() + "}"
      }
      applinks.append(#""details": {\#(details.joined(separator: ", "))}"#)
    } else {
      var details: [String] = []
      for _ in 0..<(1 + random.below(3)) {
        var detail: [String] = []
        let ids = Array(random.shuffled(listed).prefix(1 + random.below(3)))
        if random.chance(15) {
          detail.append(#""appID": \#(Self.quote(ids[0]))"#)
        } else {
          detail.append(#""appIDs": [\#(ids.map(Self.quote).joined(separator: ", "))]"#)
        }
        if random.chance(30), let defaults = flags(percent: 60) { detail.append(#""defaults": \#(defaults)"#) }
        if random.chance(20) {
          detail.append(#""paths": "# + legacyPaths())
        } else {
          let components = (0..<(1 + random.below(6))).map { _ in component() }
          detail.append(#""components": [\#(components.joined(separator: ", "))]"#)
        }
        details.append("{" + detail.joined(separator: ", ") + "}")
      }
      applinks.append(#""details": [\#(details.joined(separator: ", "))]"#)
    }
    return #"{"applinks": {\#(applinks.joined(separator: ", "))}}"#
  }

  /// `caseSensitive` and `percentEncoded`, each present `percent` times in a hundred, as a JSON object; nil when
  /// neither is.
  private mutating func flags(percent: Int) -> String? {
    var keys: [String] = []
    if random.chance(percent) { keys.append(#""caseSensitive": \#(random.chance(30))"#) }
    if random.chance(percent / 2) { keys.append(#""percentEncoded": \#(random.chance(40))"#) }
    return keys.isEmpty ? nil : "{" + keys.joined(separator: ", ") + "}"
  }

  private mutating func component() -> String {
    var keys: [String] = []
    if random.chance(85) { keys.append(#""/": \#(Self.quote(pathPattern()))"#) }
    if random.chance(35) {
      if random.chance(50) {
        keys.append(#""?": \#(Self.quote(queryPattern()))"#)
      } else {
        let names = random.shuffled([
          "id", "ref", "q", "lang", "Utm", "page", "café", "cafe\u{301}", "caf%C3%A9", "ΣΑΣ",
        ])
        let items = names.prefix(1 + random.below(3)).map { Self.quote($0) + ": " + Self.quote(valuePattern()) }
        keys.append(#""?": {\#(items.joined(separator: ", "))}"#)
      }
    }
    if random.chance(20) || keys.isEmpty { keys.append(##""#": \##(Self.quote(fragmentPattern()))"##) }
    if random.chance(25) { keys.append(#""exclude": true"#) }
    if random.chance(25) { keys.append(#""caseSensitive": \#(random.chance(40))"#) }
    if random.chance(20) { keys.append(#""percentEncoded": \#(random.chance(40))"#) }
    if random.chance(10) { keys.append(#""comment": "generated""#) }
    return "{" + random.shuffled(keys).joined(separator: ", ") + "}"
  }

  private mutating func legacyPaths() -> String {
    let entries = (0..<(1 + random.below(4))).map { _ in
      let path = random.chance(15) ? random.pick(["*", "/*", "/"]) : pathPattern()
      return Self.quote(random.chance(30) ? "NOT " + path : path)
    }
    return "[" + entries.joined(separator: ", ") + "]"
  }

  /// One path segment of a pattern.
  private mutating func segment() -> String {
    switch random.below(12) {
    case 0: return "*"
    case 1: return random.pick(["?", "??", "v?", "20??"])
    case 2: return random.chance(10) ? random.pick(["$(empty)", "$(nope)"]) : random.pick(Self.variableReferences)
    case 3, 4: return random.pick(Self.words) + random.pick(["-*", "*", ".pdf", "$(digit)"])
    case 5: return random.pick(["*.pdf", "item$(digit)$(digit)", "$(alpha)*", "**"])
    default: return random.pick(Self.words)
    }
  }

  private mutating func pathPattern() -> String {
    var pattern = (0..<(1 + random.below(4))).map { _ in segment() }.joined(separator: random.chance(8) ? "//" : "/")
    switch random.below(10) {
    case 0: pattern = "*" + pattern
    case 1: break  // no leading `/`: implied
    default: pattern = "/" + pattern
    }
    switch random.below(10) {
    case 0, 1, 2: pattern += "/*"
    case 3: pattern += "*"
    case 4: pattern += "/"
    default: break
    }
    return pattern
  }

  private mutating func queryPattern() -> String {
    random.pick([
      "id=*", "*", "a=?&b=*", "*ref=$(digit)*", "", "q=caf%C3%A9", "lang=$(lang)", "id=$(digit)$(digit)",
      "page=?", "q=*&id=*",
    ])
  }

  private mutating func valuePattern() -> String {
    random.pick(["?*", "????", "$(digit)", "", "*", "$(lang)", "x%20y", "1", "yes", "$(alpha)$(alpha)", "?", "$(food)"])
  }

  private mutating func fragmentPattern() -> String {
    random.pick(["app", "no_universal_links", "*", "t=?*", "$(alpha)*", "", "Section-?", "caf%C3%A9", "$(color)"])
  }

  /// `s` as a JSON string literal.
  static func quote(_ s: String) -> String { JSONReporter.quote(s) }

  // MARK: - URLs

  /// `count` URLs for `blocklist`: most built from its own rules, the rest near misses and noise. URLs never
  /// hold a line break, so a list can be written one per line.
  mutating func urls(for blocklist: Blocklist, count: Int) -> [String] {
    let scopes = blocklist.apps.flatMap(\.scopes)
    // Mostly entries with rules: an entry whose file does not list its app only ever gives noise.
    let withRules = scopes.filter { !$0.rules.rules.isEmpty }
    guard !scopes.isEmpty else { return [] }
    return (0..<count).map { _ in
      url(in: random.pick(withRules.isEmpty || random.chance(10) ? scopes : withRules), among: scopes)
    }
  }

  private mutating func url(in scope: RuleScope, among scopes: [RuleScope]) -> String {
    let variables = Dictionary(
      scope.rules.substitutionVariables.map { ($0.name, $0.values) }, uniquingKeysWith: { first, _ in first })
    var path: String
    var query: String? = nil
    var fragment: String? = nil
    let rules = scope.rules.rules
    if !rules.isEmpty && !random.chance(12) {
      let rule = random.pick(rules)
      // A rule that reads the URL decoded compares its `%` with a decoded `%`: `%25` in the URL.
      let decoded = !rule.percentEncoded && random.chance(70)
      path = rule.path.map { instantiate($0, variables, part: .path, decoded: decoded) } ?? noisePath()
      switch rule.query {
      case .string(let pattern)?: query = instantiate(pattern, variables, part: .query, decoded: decoded)
      case .items(let items)?: query = itemsQuery(items, variables, decoded: decoded)
      case nil: query = random.chance(25) ? noiseQuery() : nil
      }
      if let pattern = rule.fragment {
        fragment = instantiate(pattern, variables, part: .fragment, decoded: decoded)
      } else if random.chance(15) {
        fragment = random.pick(["app", "top", "", "x#y"])
      }
      if !rule.caseSensitive || random.chance(10) {
        path = varyCase(path)
        if let q = query { query = varyCase(q) }
        if let f = fragment { fragment = varyCase(f) }
      }
    } else {
      path = noisePath()
      query = random.chance(30) ? noiseQuery() : nil
      fragment = random.chance(15) ? "app" : nil
    }
    if !path.hasPrefix("/") { path = "/" + path }
    if random.chance(10), let slash = path.lastIndex(of: "/") { path.replaceSubrange(slash...slash, with: "//") }
    if random.chance(8) { path = path.hasSuffix("/") ? String(path.dropLast()) : path + "/" }
    if random.chance(12) { path = escapeOne(path) }
    if random.chance(8), let q = query { query = escapeOne(q) }
    if random.chance(8), let f = fragment { fragment = escapeOne(f) }
    var url = random.chance(92) ? "https" : random.pick(["http", "HTTPS", "ftp"])
    url += "://"
    if random.chance(3) { url += "user@" }
    url += host(for: random.chance(95) ? scope : random.pick(scopes))
    if random.chance(4) { url += ":8443" }
    url += path
    if let query { url += "?" + query }
    if let fragment { url += "#" + fragment }
    return url
  }

  /// A host the entry covers, mostly; else the apex of a wildcard or a look-alike.
  private mutating func host(for scope: RuleScope) -> String {
    var host: String
    switch random.below(40) {
    case 0: host = "x" + scope.host
    case 1: host = scope.host + ".evil.example"
    case 2, 3: host = scope.host
    default: host = scope.wildcard ? random.pick(["www.", "m.", "a.b.", "shop."]) + scope.host : scope.host
    }
    if random.chance(8) { host = varyCase(host) }
    if random.chance(4) { host += "." }
    return host
  }

  /// Where an instantiated pattern goes, which decides the characters that must be escaped to stay there.
  enum Part { case path, query, fragment }

  /// Text `pattern` matches, mostly: each `*`, `?` and `$(…)` replaced by text it stands for (a variable's value
  /// instantiated in turn), now and then by a near miss.
  /// With `variables` nil, as inside a variable's value, `$(…)` is literal text; with `decoded`, a literal `%` is
  /// written `%25`.
  mutating func instantiate(
    _ pattern: String, _ variables: [String: [String]]?, part: Part, decoded: Bool = false
  ) -> String {
    let scalars = Array(pattern.unicodeScalars)
    var out = ""
    var i = 0
    while i < scalars.count {
      let c = scalars[i]
      if c == "*" {
        out += random.pick(["", "", "x", "abc", "a/b", "Z9", "-", "é", "%41", "1.2", "buy", "a b"])
      } else if c == "?" {
        out += random.chance(90) ? random.pick(["a", "Z", "7", "-", "_", "x"]) : random.pick(["é", "/", ".", "%"])
      } else if let variables, c == "$", i + 1 < scalars.count, scalars[i + 1] == "(",
        let close = scalars[(i + 2)...].firstIndex(where: { $0 == ")" || $0 == "$" || $0 == "(" }),
        scalars[close] == ")"
      {
        let name = String(String.UnicodeScalarView(scalars[(i + 2)..<close]))
        let values = variables[name] ?? BuiltinVariables.values(of: name) ?? []
        if values.isEmpty || random.chance(5) {
          out += random.pick(["zz", "", "q1"])
        } else {
          out += instantiate(random.pick(values), nil, part: part, decoded: decoded)
        }
        i = close + 1
        continue
      } else if c == "%" && decoded {
        out += "%25"
      } else {
        out.unicodeScalars.append(c)
      }
      i += 1
    }
    if random.chance(4) { out += random.pick(["x", "/", "0"]) }
    // Keep the text in its part: `?` and `#` would end a path, `#` a query.
    switch part {
    case .path: return out.replacingOccurrences(of: "?", with: "%3F").replacingOccurrences(of: "#", with: "%23")
    case .query: return out.replacingOccurrences(of: "#", with: "%23")
    case .fragment: return out
    }
  }

  /// A query for an item dictionary: its items instantiated (a few left out or repeated), plus other items.
  private mutating func itemsQuery(
    _ items: [QueryItemPattern], _ variables: [String: [String]], decoded: Bool
  ) -> String {
    var pairs: [String] = []
    for item in items where !random.chance(8) {
      let value = instantiate(item.pattern, variables, part: .query, decoded: decoded)
      let name = decoded ? item.name.replacingOccurrences(of: "%", with: "%25") : item.name
      pairs.append(name + (value.isEmpty && random.chance(30) ? "" : "=" + value))
      if random.chance(8) { pairs.append(name + "=" + random.pick(["1", "", "no", "abcd"])) }
    }
    if random.chance(35) { pairs.append(random.pick(["utm=x", "a=1", "ref=", "flag", "id=7"])) }
    return random.shuffled(pairs).joined(separator: "&")
  }

  private mutating func noisePath() -> String {
    "/" + (0..<random.below(4)).map { _ in random.pick(Self.words) }.joined(separator: "/")
  }

  private mutating func noiseQuery() -> String {
    random.pick(["id=1", "ref=x", "q=caf%C3%A9&page=2", "", "lang=en", "a=1&a=2"])
  }

  /// Each letter's case flipped now and then.
  private mutating func varyCase(_ text: String) -> String {
    var out = ""
    for c in text {
      if c.isLetter && random.chance(30) {
        out += c.isUppercase ? c.lowercased() : c.uppercased()
      } else {
        out.append(c)
      }
    }
    return out
  }

  /// One ASCII letter or digit written as a `%XX` escape (upper- or lower-case hex).
  private mutating func escapeOne(_ text: String) -> String {
    let candidates = text.unicodeScalars.indices.filter {
      let c = text.unicodeScalars[$0]
      return c.isASCII && (c.properties.isAlphabetic || ("0"..."9").contains(c))
    }
    guard !candidates.isEmpty else { return text }
    let index = random.pick(candidates)
    let hex = String(text.unicodeScalars[index].value, radix: 16, uppercase: random.chance(70))
    var scalars = text.unicodeScalars
    scalars.replaceSubrange(index...index, with: "%\(hex)".unicodeScalars)
    return String(scalars)
  }
}
