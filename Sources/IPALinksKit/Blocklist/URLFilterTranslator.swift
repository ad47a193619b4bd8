import UniversalLinks

/// Translates AASA rules into WebKit `url-filter` regular expressions.
///
/// WebKit accepts only a regex subset (no `|`, no `{n}`, no look-around) and matches the whole URL as it
/// serializes it, without the fragment. Alternatives are therefore expressed as several filters for one rule.
/// Paths take care: the matcher compares the *normalized* path (rule 5: `//` collapsed, trailing `/` added), while
/// WebKit sees the raw one, so each `/` of a pattern becomes `/+`, a final `/` becomes `/*`, and a `*` between two
/// slashes must not let them touch. When a rule cannot be expressed exactly the translation errs the way the
/// caller asks (wider for blocking rules, narrower for exceptions) and says so.
struct URLFilterTranslator {
  /// Which way an inexact translation may err: a blocking rule may block more, an exception may except less.
  enum Direction {
    case wider
    case narrower
  }

  struct Translation {
    /// Filters whose union is the rule; empty when the rule is dropped.
    var filters: [String] = []
    /// For an exception: URLs to block again after it, which its filters spare though iOS does not (a query item
    /// the exception names, repeated: iOS excepts only when every occurrence matches, a filter sees one).
    var reblock: [String] = []
    var notes: [(kind: BlocklistNote.Kind, message: String)] = []
  }

  /// Most filters one rule may expand to (variables × orders × `?` readings) before it is approximated.
  static let maxFiltersPerRule = 256
  /// Most filters a rule's path may expand to while its app's ``extraFiltersPerApp`` last: enough for `$(lang)`
  /// (over 1,000 values) or `$(region)` (about 500) with room for a `?` reading.
  static let maxPathFiltersPerRule = 4_096
  /// Filters an app's rules may take beyond ``maxFiltersPerRule`` each (from the last rule up, as lists are
  /// written) before the rest widen their variables to `*` again: exact where the list can afford it, never a
  /// list too big to compile.
  static let extraFiltersPerApp = 4_096

  /// The regex for the scheme, user info, host and port of a URL an entry covers.
  ///
  /// WebKit refuses a whole list over one non-ASCII pattern, and the URLs it matches carry hosts in printable ASCII
  /// (punycode), so a host character outside printable ASCII is written as its `%XX` escapes: the list compiles,
  /// and the entry matches no URL, as no host holds a `%`. A trailing dot (`alpha.example.`), which WebKit keeps and
  /// iOS reads as the same host, is covered too.
  static func hostPrefix(_ scope: RuleScope) -> String {
    var host = ""
    for c in scope.host.unicodeScalars {
      host +=
        isHostASCII(c)
        ? escape(String(c))
        : UTF8.encode(c)!.map { "%" + String($0, radix: 16, uppercase: true).leftPadded(2) }.joined()
    }
    return "^https?://([^/@]*@)?" + (scope.wildcard ? "[^/:@]+\\." : "") + host + "\\.?(:[0-9]+)?"
  }

  /// `pathLimit`: most filters the rule's path may expand to; the renderer raises it while the app's
  /// ``extraFiltersPerApp`` last.
  func translate(
    _ rule: EffectiveRule, in scope: RuleScope, direction: Direction, pathLimit: Int = maxFiltersPerRule
  ) -> Translation {
    var out = Translation()
    let folded = !rule.caseSensitive
    let rules = scope.rules
    func note(_ kind: BlocklistNote.Kind, _ message: String) { out.notes.append((kind, message)) }

    if !scope.host.unicodeScalars.allSatisfy(Self.isHostASCII) {
      note(
        direction == .wider ? .narrower : .wider,
        "the host is not printable ASCII (internationalized hosts must be punycode); WebKit matches no URL to it")
    }

    // Fragments never reach content rules: WebKit strips them before matching.
    if let fragment = rule.fragment, rules.prepare(fragment, folded: folded, isPath: false) != [.star] {
      if direction == .narrower {
        note(
          .dropped,
          "the # pattern cannot be seen by WebKit (it strips fragments); exception left out, so more is blocked")
        return out
      }
      note(.wider, "the # pattern cannot be seen by WebKit (it strips fragments); blocked for every fragment")
    }
    // percentEncoded: false compares decoded text, and WebKit sees a URL as written, where any character may be
    // escaped (`/%73/x` is `/s/x`). Each character taken either way (`[s%]([0-9A-F][0-9A-F])?`) made WebKit's
    // compiler run for minutes on a list of a few such rules, so a blocking rule also blocks every URL of its host
    // that carries an escape; an exception stays as spelt, which spares less.
    if !rule.percentEncoded {
      note(
        .wider,
        direction == .wider
          ? "percentEncoded: false compares decoded text; every URL of the host with a percent escape is blocked too"
          : "percentEncoded: false compares decoded text; URLs that percent-escape characters the pattern spells plainly are not excepted"
      )
    }

    // Path alternatives.
    var paths: [String] = ["(/[^?#]*)?"]
    if let source = rule.path {
      guard let pieces = rules.prepare(source, folded: folded, isPath: true) else { return out }  // never matches
      switch pathFilters(pieces, decoded: !rule.percentEncoded, limit: pathLimit) {
      case .some(let list):
        if list.isEmpty { return out }  // no URL can match: nothing to express
        paths = list
      case .none:
        if direction == .narrower {
          note(.dropped, "the / pattern expands to more than \(pathLimit) filters; exception left out")
          return out
        }
        note(.wider, "the / pattern expands to more than \(pathLimit) filters; variables widened to *")
        paths = pathFilters(widen(pieces), decoded: !rule.percentEncoded, limit: pathLimit) ?? ["(/[^?#]*)?"]
      }
    }

    // Query alternatives.
    var queries: [String] = ["(\\?[^#]*)?"]
    var repeated: [String] = []  // for an exception: queries that repeat one of its items
    switch rule.query {
    case .string(let source)?:
      guard let pieces = rules.prepare(source, folded: folded, isPath: false) else { return out }
      if pieces != [.star] {
        guard let list = expand(pieces, limit: Self.maxFiltersPerRule) else {
          if direction == .narrower {
            note(.dropped, "the ? pattern expands to too many filters; exception left out")
            return out
          }
          note(.wider, "the ? pattern expands to too many filters; query not checked")
          break
        }
        queries = list.compactMap { tokens in
          guard let body = plain(tokens, stop: "#", decoded: !rule.percentEncoded) else { return nil }
          return tokens.allSatisfy({ $0 == .star }) ? "(\\?" + body + ")?" : "\\?" + body
        }
        if queries.isEmpty { return out }
      }
    case .items(let items)?:
      var constraints: [[String]] = []  // per item: alternatives of `name=value`
      var names: [(regex: String, name: String)] = []  // the items that constrain, by name
      for item in items {
        guard let pieces = rules.prepare(item.pattern, folded: folded, isPath: false) else { return out }
        if pieces == [.star] { continue }  // every value matches, absent included
        let name = folded ? item.name.lowercased() : item.name
        guard
          let nameRegex = plain(name.unicodeScalars.map { .literal($0) }, stop: "&#", decoded: !rule.percentEncoded)
        else {
          // A name no URL can carry (a space, `|`, as the matcher encodes a URL): the item is always absent, which
          // the matcher reads as an empty value. The rule then holds for every URL or for none, as the pattern
          // takes "" or not. It was left out of the list either way, and a match rule's URLs went unblocked.
          if Self.takesEmpty(pieces) { continue }
          return out
        }
        var values: [[Token]]
        if let all = expand(pieces, limit: Self.maxFiltersPerRule) {
          values = all
        } else if direction == .narrower {
          note(.dropped, "query item \"\(item.name)\" expands to too many values; exception left out")
          return out
        } else {
          // `"hl": "$(lang)"` has over a thousand values: left out, the rule blocked nothing, without a word.
          values = expand(widen(pieces), limit: Self.maxFiltersPerRule) ?? [[.star]]
          if values.contains(where: { $0.allSatisfy { $0 == .star } }) {
            note(.wider, "query item \"\(item.name)\" expands to too many values; its value is not checked")
            continue
          }
          note(.wider, "query item \"\(item.name)\" expands to too many values; variables widened to *")
        }
        if values.contains(where: { $0.allSatisfy { $0 == .star } }) {
          // The item may be absent, which no regex without negation can say. For an exception, one that spares
          // only URLs with the item blocks the others: more than iOS opens, a `wider` list.
          if direction == .narrower {
            note(.wider, "query item \"\(item.name)\" may also be absent; the exception applies only when present")
          } else {
            note(.wider, "query item \"\(item.name)\" may be absent or empty; its value is not checked")
            continue
          }
        }
        let alternatives = values.compactMap { plain($0, stop: "&#", decoded: !rule.percentEncoded) }
          .map { nameRegex + "=" + $0 }
        if alternatives.isEmpty { return out }
        constraints.append(alternatives)
        names.append((nameRegex, item.name))
      }
      if !constraints.isEmpty {
        // Checking one occurrence takes more URLs than iOS does: a match rule blocks more. An exception would spare
        // more, so every URL of its path that repeats one of its items is blocked again after it: more than iOS
        // opens when every occurrence matches, never less.
        if direction == .wider {
          note(
            .wider, "a query item repeated in a URL must match in every occurrence; the filter checks one occurrence")
        } else {
          note(
            .wider,
            "a query item repeated in a URL must match in every occurrence; a URL that repeats "
              + names.map { "\"\($0.name)\"" }.joined(separator: " or ") + " is not excepted")
          // An occurrence is the name alone or with `=` and a value (`?no&no=1` repeats "no" too).
          repeated = names.map { "\\?([^#]*&)?\($0.regex)(=[^&#]*)?&([^#]*&)?\($0.regex)(=[^&#]*)?(&[^#]*)?" }
        }
        let orders = permutations(constraints.count)
        var list: [String] = []
        for order in orders {
          var partial = [""]
          for (position, index) in order.enumerated() {
            let joint = position == 0 ? "\\?([^#]*&)?" : "&([^#]*&)?"
            partial = partial.flatMap { head in constraints[index].map { head + joint + $0 } }
            if partial.count * orders.count > Self.maxFiltersPerRule { break }
          }
          list += partial.map { $0 + "(&[^#]*)?" }
        }
        if list.count > Self.maxFiltersPerRule {
          if direction == .narrower {
            note(.dropped, "query items in every order exceed \(Self.maxFiltersPerRule) filters; exception left out")
            return out
          }
          note(.wider, "query items in every order exceed \(Self.maxFiltersPerRule) filters; query not checked")
        } else {
          queries = list
        }
      }
    case nil:
      break
    }

    let prefix = Self.hostPrefix(scope)
    for path in paths {
      for query in queries {
        let filter = prefix + path + query + "(#.*)?$"
        // A block takes both spellings of what WebKit may leave plain; an exception only the escape, erring to block.
        out.filters.append(direction == .wider ? Self.eitherSpelling(filter) : filter)
      }
      out.reblock += repeated.map { Self.eitherSpelling(prefix + path + $0 + "(#.*)?$") }
    }
    if !rule.percentEncoded && direction == .wider && !out.filters.isEmpty {
      out.filters.append(prefix + "/[^#]*%")
    }
    // The matcher reads a `|` in a path as `%7C`, three characters, which WebKit leaves as the one: `/p/???` opens
    // the app for `/p/|` and `/t/*C` for `/t/x|`, and a link with `|` got past the list. A `?`, or a `*` with more
    // of the pattern after it, may stand for part of the escape; such a rule also blocks every path of its host
    // with `|`, as `percentEncoded: false` blocks every escape. (A trailing `*` takes `|` as it takes `%7C`.)
    if direction == .wider && !out.filters.isEmpty, rule.percentEncoded,
      let pieces = rule.path.flatMap({ rules.prepare($0, folded: folded, isPath: true) }),
      Self.mayCountAnEscape(pieces)
    {
      note(
        .wider,
        "a ? or * of the path may stand for part of the %7C iOS reads for a |, which WebKit leaves plain; "
          + "every path of the host with | is blocked too")
      out.filters.append(prefix + "/[^?#]*[|]")
    }
    if out.filters.count > max(Self.maxFiltersPerRule * 4, pathLimit) {
      (out.filters, out.reblock) = ([], [])
      if direction == .wider {
        note(.wider, "path and query together expand to too many filters; the whole host is blocked")
        out.filters = [prefix + "(/[^?#]*)?(\\?[^#]*)?(#.*)?$"]
      } else {
        note(.dropped, "path and query together expand to too many filters; exception left out")
      }
    }
    return out
  }

  // MARK: - Pieces to token lists

  enum Token: Equatable {
    case literal(Unicode.Scalar)
    case any
    case star
    /// A single-character variable (`$(digit)`, `$(alpha)`, a custom one of single characters): one character
    /// class, so the variable costs no expansion and blocks nothing it does not match.
    case set([Unicode.Scalar])
  }

  /// Every choice resolved, or nil when there would be more than `limit` lists.
  func expand(_ pieces: [PatternPiece], limit: Int) -> [[Token]]? {
    var lists: [[Token]] = [[]]
    func flat(_ piece: PatternPiece) -> [Token] {
      switch piece {
      case .literal(let text): return text.unicodeScalars.map { .literal($0) }
      case .any: return [.any]
      case .star: return [.star]
      case .choice: return []
      }
    }
    for piece in pieces {
      if case .choice(let alternatives) = piece, let members = Self.singleCharacters(alternatives) {
        lists = lists.map { $0 + [.set(members)] }
      } else if case .choice(let alternatives) = piece {
        guard lists.count * alternatives.count <= limit else { return nil }
        lists = lists.flatMap { head in alternatives.map { head + $0.flatMap(flat) } }
      } else {
        let tail = flat(piece)
        lists = lists.map { $0 + tail }
      }
    }
    return lists
  }

  /// The alternatives as one character class, when each is one character that URLs carry as is, as the same
  /// character in every reading (no `/`, which path normalization treats apart, and no `%`); nil otherwise.
  static func singleCharacters(_ alternatives: [[PatternPiece]]) -> [Unicode.Scalar]? {
    var members: [Unicode.Scalar] = []
    for alternative in alternatives {
      guard alternative.count == 1, case .literal(let text) = alternative[0], text.unicodeScalars.count == 1,
        let c = text.unicodeScalars.first, c.value > 0x20, c.value < 0x7F, !alwaysEncoded.contains(c), c != "/",
        c != "%"
      else { return nil }
      if !members.contains(c) { members.append(c) }
    }
    return members.isEmpty ? nil : members
  }

  /// A character class holding `members`, written as ranges where they run on (`[0-9A-Za-z]`).
  static func characterClass(_ members: [Unicode.Scalar]) -> String {
    let values = members.map(\.value).sorted()
    var out = "["
    var i = 0
    while i < values.count {
      var j = i
      while j + 1 < values.count, values[j + 1] == values[j] + 1 { j += 1 }
      let first = escapeClass(String(Unicode.Scalar(values[i])!))
      let last = escapeClass(String(Unicode.Scalar(values[j])!))
      out += j - i >= 2 ? first + "-" + last : (i...j).map { escapeClass(String(Unicode.Scalar(values[$0])!)) }.joined()
      i = j + 1
    }
    return out + "]"
  }

  /// Whether a path pattern has a `?` that counts characters (`/p/???`), or a `*` followed by what may continue an
  /// escape (a hex digit, `%`, a variable): a wildcard that may match part of an escape, which WebKit may see as
  /// one plain character (``leftPlainByWebKit``). `/*/x` and `/order/?*` need no more: they take `a|` as they take
  /// `a%7C`.
  static func mayCountAnEscape(_ pieces: [PatternPiece]) -> Bool {
    var afterStar = false
    for (index, piece) in pieces.enumerated() {
      switch piece {
      case .any:
        // One `?` before a `*` asks for one character or more, which `|` is to WebKit too.
        guard index + 1 < pieces.count, pieces[index + 1] == .star, index == 0 || pieces[index - 1] != .any else {
          return true
        }
      case .star: afterStar = true
      case .choice: if afterStar { return true }
      case .literal(let text):
        guard let first = text.unicodeScalars.first else { continue }
        if afterStar && (first == "%" || first.properties.isASCIIHexDigit) { return true }
        afterStar = false
      }
    }
    return false
  }

  /// Whether `pieces` match the empty text: what an absent query item's value is to the matcher.
  static func takesEmpty(_ pieces: [PatternPiece]) -> Bool {
    pieces.allSatisfy {
      switch $0 {
      case .literal(let text): text.isEmpty
      case .any: false
      case .star: true
      case .choice(let alternatives): alternatives.contains(where: takesEmpty)
      }
    }
  }

  /// Choices replaced by `*`: wider than any alternative.
  func widen(_ pieces: [PatternPiece]) -> [PatternPiece] {
    pieces.map {
      if case .choice = $0 { return .star }
      return $0
    }
  }

  // MARK: - Paths

  /// Filters for a normalized path pattern; nil when too many, empty when nothing can match.
  func pathFilters(_ pieces: [PatternPiece], decoded: Bool, limit: Int) -> [String]? {
    guard let lists = expand(pieces, limit: limit) else { return nil }
    var out: [String] = []
    for tokens in lists {
      // A `?` between two non-slashes may stand for a `/` of the normalized path, which is `/+` in the raw one.
      var readings: [[Token]] = [[]]
      for (i, token) in tokens.enumerated() {
        let before = i > 0 ? tokens[i - 1] : nil
        let after = i + 1 < tokens.count ? tokens[i + 1] : nil
        if token == .any, before != .literal("/"), after != .literal("/") {
          guard readings.count * 2 <= limit else { return nil }
          readings = readings.flatMap { [$0 + [.any], $0 + [.literal("/")]] }
        } else {
          readings = readings.map { $0 + [token] }
        }
      }
      for reading in readings.flatMap(Self.anchored) {
        if let regex = rawPath(reading, decoded: decoded) { out.append(regex) }
      }
      if out.count > limit { return nil }
    }
    return Array(Set(out)).sorted()
  }

  /// The readings of `tokens` that start with the `/` every path starts with. The regex follows the host and port
  /// directly, so without this a leading `*` could match anything there, and `example.com`'s rules blocked
  /// `example.community` and `example.com.evil.example`. A leading `*` either covers that `/` (and maybe more) or
  /// is empty; a leading `?` is the `/`; any other first character never matches.
  static func anchored(_ tokens: [Token]) -> [[Token]] {
    switch tokens.first {
    case .literal("/")?: return [tokens]
    case .star?: return [[.literal("/"), .star] + tokens.dropFirst()] + anchored(Array(tokens.dropFirst()))
    case .any?: return [[.literal("/")] + tokens.dropFirst()]
    default: return []
    }
  }

  /// The raw-path regex whose normalization matches `tokens`; nil when no normalized path can (`//`, or a
  /// character URLs never carry as is).
  func rawPath(_ tokens: [Token], decoded: Bool) -> String? {
    let slash = Token.literal("/")
    for i in tokens.indices.dropLast() where tokens[i] == slash && tokens[i + 1] == slash { return nil }
    var out = ""
    var i = 0
    while i < tokens.count {
      let token = tokens[i]
      let last = i == tokens.count - 1
      switch token {
      case slash:
        if last {
          out += i == 0 ? "/+" : "/*"
        } else if i == tokens.count - 2, tokens[i + 1] == .star {
          out += "(/[^?#]*)?"
          i += 1
        } else {
          out += "/+"
        }
      case .star:
        let between = i > 0 && tokens[i - 1] == slash && !last && tokens[i + 1] == slash
        // Between two slashes the star must not let them touch: it matches a non-empty, slash-free-edged run.
        out += between ? "[^/?#]([^?#]*[^/?#])?" : "[^?#]*"
      case .any:
        out += "[^/?#]"
      case .set(let members):
        out += Self.characterClass(members)
      case .literal(let c):
        guard let text = Self.literal(c, decoded: decoded) else { return nil }
        out += text
      }
      i += 1
    }
    return out
  }

  // MARK: - Query, items

  /// A regex for text that is not a path: `stop` lists the characters that end the part.
  func plain(_ tokens: [Token], stop: String, decoded: Bool) -> String? {
    let excluded = "[^" + Self.escapeClass(stop) + "]"
    var out = ""
    for token in tokens {
      switch token {
      case .star: out += excluded + "*"
      case .any: out += excluded
      // A stop character ends the part it would be in (`&` ends a query item), so the part never holds it as
      // written: as a member of a class it let `?a=&` pass for an item whose value is one character, where the
      // matcher reads the value as empty. Compared decoded, the URL carries it escaped.
      case .set(let members):
        let kept = members.filter { !stop.unicodeScalars.contains($0) }
        guard !kept.isEmpty else { return nil }
        out += Self.characterClass(kept)
      case .literal(let c) where stop.unicodeScalars.contains(c):
        guard decoded else { return nil }
        out += Self.escaped(c)
      case .literal(let c):
        guard let text = Self.literal(c, decoded: decoded) else { return nil }
        out += text
      }
    }
    return out
  }

  func permutations(_ n: Int) -> [[Int]] {
    guard n > 1 else { return [Array(0..<n)] }
    return permutations(n - 1).flatMap { p in (0...p.count).map { at in Array(p[..<at]) + [n - 1] + p[at...] } }
  }

  // MARK: - Characters

  /// Characters the matcher's URL parser always percent-encodes; a pattern that spells one plainly never matches
  /// an encoded part.
  static let alwaysEncoded: Set<Unicode.Scalar> = Set("\"<>\\^`{|}# ".unicodeScalars)

  /// A pattern character as regex text; nil when an encoded URL can never contain it.
  static func literal(_ c: Unicode.Scalar, decoded: Bool) -> String? {
    if c == "%" && decoded { return "%25" }
    if c.value < 0x21 || c.value >= 0x7F || alwaysEncoded.contains(c) {
      guard decoded else { return nil }
      // Decoded comparison: the URL carries the character as UTF-8 escapes, as WebKit writes them.
      return escaped(c)
    }
    return escape(String(c))
  }

  /// `c` as the URL's UTF-8 escapes (`%26`), as WebKit writes them.
  static func escaped(_ c: Unicode.Scalar) -> String {
    UTF8.encode(c)!.map { "%" + String($0, radix: 16, uppercase: true).leftPadded(2) }.joined()
  }

  static func isHostASCII(_ c: Unicode.Scalar) -> Bool { c.value > 0x20 && c.value < 0x7F }

  /// Characters the matcher, as iOS, reads percent-encoded but WebKit's URL parser leaves as they are in a path
  /// (`|`, `^`), a query or a fragment (`` ` ``, `{`, `}`, `\`): WebKit matches `/a|b` where iOS decides `/a%7Cb`.
  static let leftPlainByWebKit: [String: Unicode.Scalar] = [
    "5C": "\\", "5E": "^", "60": "`", "7B": "{", "7C": "|", "7D": "}",
  ]

  /// `filter` with each escape of a ``leftPlainByWebKit`` character (outside a character class) also taking the
  /// character itself: `%7C` becomes `[%|](7C)?` (WebKit's regexes have no alternation). It also matches a lone `%`
  /// or `|7C` there, which errs towards blocking.
  static func eitherSpelling(_ filter: String) -> String {
    let s = Array(filter.unicodeScalars)
    var out = String.UnicodeScalarView()
    var (i, inClass) = (0, false)
    while i < s.count {
      let c = s[i]
      if c == "\\" && i + 1 < s.count {
        out.append(c)
        out.append(s[i + 1])
        i += 2
        continue
      }
      if c == "[" { inClass = true } else if c == "]" { inClass = false }
      if !inClass, c == "%", i + 2 < s.count,
        let plain = leftPlainByWebKit[String(String.UnicodeScalarView(s[(i + 1)...(i + 2)])).uppercased()]
      {
        let hex = String(String.UnicodeScalarView(s[(i + 1)...(i + 2)]))
        out.append(contentsOf: "[%\(escapeClass(String(plain)))](\(hex))?".unicodeScalars)
        i += 3
        continue
      }
      out.append(c)
      i += 1
    }
    return String(out)
  }

  static func escape(_ text: String) -> String {
    var out = ""
    for c in text.unicodeScalars {
      if ".*+?()[]{}^$|\\/".unicodeScalars.contains(c) { out += "\\" }
      out.unicodeScalars.append(c)
    }
    return out
  }

  static func escapeClass(_ text: String) -> String {
    text.unicodeScalars.map { "]\\^-".unicodeScalars.contains($0) ? "\\" + String($0) : String($0) }.joined()
  }
}

extension String {
  fileprivate func leftPadded(_ width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}
