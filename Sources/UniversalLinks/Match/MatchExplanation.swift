/// Why a URL gets its verdict for one app: every rule of the deciding `details` entry that was tried, in order,
/// with each key's pattern, the URL's value as compared and whether it matched. What `match --explain` prints.
public struct MatchExplanation: Sendable, Equatable, Codable {
  /// One key of one rule.
  public struct Key: Sendable, Equatable, Codable {
    /// `/`, `?` or `#`, as in the AASA file.
    public var key: String
    /// For `?` given item by item, the item's name.
    public var item: String?
    /// The pattern as the file writes it (for legacy `paths`, without `NOT `).
    public var pattern: String
    /// The URL's value as compared (after percent decoding and case folding when the rule asks for them; the
    /// path normalized with a leading and a trailing `/`); nil for a query item the URL does not have.
    public var value: String?
    /// Whether the pattern matched the value.
    public var matched: Bool
    /// Why the value could not match whatever its content, when that is so: "needs exactly 4 characters, has 3".
    public var shortfall: String?
    /// Why the value does not match, for every key that does not: ``shortfall`` when a length rules it out, else
    /// where the value goes wrong (`after "/p/", the pattern needs one of "0", "1", …, not "x/"`).
    public var reason: String?
    /// The URL's part as written, when the rule compares another form of it (``value``).
    public var written: String?
    /// How ``written`` became ``value``, in words: "a trailing / is implied", "lower-cased (caseSensitive is false)".
    public var adjustments: [String]?

    /// Creates a key's outcome.
    public init(
      key: String, item: String? = nil, pattern: String, value: String?, matched: Bool, shortfall: String? = nil,
      reason: String? = nil, written: String? = nil, adjustments: [String]? = nil
    ) {
      self.key = key
      self.item = item
      self.pattern = pattern
      self.value = value
      self.matched = matched
      self.shortfall = shortfall
      self.reason = reason
      self.written = written
      self.adjustments = adjustments
    }
  }

  /// One rule that was tried.
  public struct Step: Sendable, Equatable, Codable {
    /// JSON pointer to the rule in the file.
    public var pointer: String
    /// The rule with defaults merged, as match reports show it.
    public var pattern: String
    /// Whether the rule excludes.
    public var exclude: Bool
    /// The keys among `/`, `?`, `#` that did not match; empty for the deciding rule.
    public var failed: [String]
    /// Every key the rule sets.
    public var keys: [Key]
  }

  /// The verdict, as ``AASAMatcher/verdict(for:domain:)-(UniversalLinkURL,_)`` gives it.
  public var result: MatchResult
  /// The rules tried, in order: up to the deciding one, or all of them when none matched. Empty when the verdict
  /// comes from outside the rules (see ``result``'s reason).
  public var steps: [Step]
  /// When nothing matched: the index in ``steps`` of the closest rule: the one whose path the URL's path follows
  /// furthest (a path that matches goes all the way), then the fewest keys failed, then the most keys matched,
  /// then the earliest.
  public var closest: Int?
  /// Later `details` entries that also list the app: iOS never uses them for it, whatever their rules say.
  public var ignored: [IgnoredEntry] = []
  /// Later rules that match the URL too, but that the deciding rule shadows: it decides every URL they match, so
  /// they never decide (`shadowed-rule`).
  public var shadowed: [MatchedRule] = []

  /// A later `details` entry that lists the app too.
  public struct IgnoredEntry: Sendable, Equatable, Codable {
    /// The entry's JSON pointer.
    public var pointer: String
    /// The rule of the entry that would decide the URL if iOS used the entry; nil when none would.
    public var wouldDecide: MatchedRule?
  }
}

extension AASAMatcher {
  /// The verdict for `url` with the trace that leads to it.
  public func explain(_ url: UniversalLinkURL, domain: String? = nil) -> MatchExplanation {
    let result = verdict(for: url, domain: domain)
    let ignored = ignoredEntries.map { entry in
      MatchExplanation.IgnoredEntry(
        pointer: entry.pointer, wouldDecide: AASAMatcher(rules: entry.rules).verdict(for: url, domain: domain).rule)
    }
    guard result.reason == nil || result.reason == .noPatternMatched else {
      return MatchExplanation(result: result, steps: [], closest: nil, ignored: ignored)
    }
    // How far the URL's path gets through each rule's path pattern, for the closest rule.
    var progress: [Int] = []
    let steps = program.trace(url).map { trace -> MatchExplanation.Step in
      let rule = effectiveRules[trace.index]
      let prepared = program.rules[trace.index]
      var pathProgress = Int.max
      let keys = trace.keys.map { key -> MatchExplanation.Key in
        var out: MatchExplanation.Key
        var pieces: [LinkRuntime.Piece]?
        switch key.key {
        case .path:
          out = .init(key: "/", pattern: rule.path ?? "", value: key.value, matched: key.matched)
          pieces = prepared.path
          out.written = url.percentEncodedPath
          if let value = key.value, !key.matched, let path = prepared.path {
            pathProgress = PatternDivergence.progress(path, value).prefix
          }
        case .query:
          let pattern = if case .string(let s)? = rule.query { s } else { "" }
          out = .init(key: "?", pattern: pattern, value: key.value, matched: key.matched)
          pieces = prepared.query
          out.written = url.percentEncodedQuery ?? ""
        case .queryItem(let name):
          var pattern = ""
          if case .items(let items)? = rule.query {
            // Names were folded for case-insensitive rules; find the item the same way.
            pattern =
              items.first { ($0.name == name) || (!rule.caseSensitive && $0.name.lowercased() == name) }?
              .pattern ?? ""
          }
          out = .init(key: "?", item: name, pattern: pattern, value: key.value, matched: key.matched)
          pieces = prepared.items?.first { $0.name == name }?.value
        case .fragment:
          out = .init(key: "#", pattern: rule.fragment ?? "", value: key.value, matched: key.matched)
          pieces = prepared.fragment
          out.written = url.percentEncodedFragment ?? ""
        }
        out.shortfall = key.shortfall
        if !key.matched {
          out.reason = key.shortfall ?? pieces.flatMap { PatternDivergence.reason($0, key.value ?? "") }
        }
        if let written = out.written, let value = key.value, written != value {
          out.adjustments = Self.adjustments(written, key: key.key, rule: prepared)
        } else {
          out.written = nil
        }
        return out
      }
      progress.append(pathProgress)
      var failed: [String] = []
      for key in keys where !key.matched && !failed.contains(key.key) { failed.append(key.key) }
      let reference = ruleReferences[trace.index]
      return .init(
        pointer: reference.pointer, pattern: reference.pattern, exclude: reference.exclude, failed: failed,
        keys: keys)
    }
    var closest: Int? = nil
    if result.verdict == .noMatch, !steps.isEmpty {
      // Furthest along the path, then fewest keys failed, then most keys matched, then the earliest.
      func rank(_ i: Int) -> (Int, Int, Int, Int) {
        (-progress[i], steps[i].keys.filter { !$0.matched }.count, -steps[i].keys.filter(\.matched).count, i)
      }
      closest = steps.indices.min { rank($0) < rank($1) }
    }
    var explanation = MatchExplanation(result: result, steps: steps, closest: closest, ignored: ignored)
    if result.rule != nil, let decider = steps.indices.last {
      var checker = RuleShadowing(program.rules)
      explanation.shadowed = program.rules.indices.dropFirst(decider + 1).filter { later in
        LinkRuntime.RuleProgram(rules: [program.rules[later]]).firstMatch(url) != nil
          && checker.shadows(decider, later)
      }.map { ruleReferences[$0] }
    }
    return explanation
  }

  /// How the URL's part as written became the value the rule compares, one phrase per change, in the order they
  /// are made (rules 5, 6 and 7 of docs/MATCHING.md).
  static func adjustments(_ written: String, key: LinkRuntime.RuleTrace.KeyTrace.Key, rule: LinkRuntime.Rule)
    -> [String]
  {
    var out: [String] = []
    var text = written
    if !rule.percentEncoded, let decoded = text.removingPercentEncodingStrictly, decoded != text {
      out.append("percent-decoded (percentEncoded is false)")
      text = decoded
    }
    if !rule.caseSensitive, text.lowercased() != text {
      out.append("lower-cased (caseSensitive is false)")
      text = text.lowercased()
    }
    guard key == .path else { return out }
    if text.isEmpty {
      out.append("an empty path reads as /")
      return out
    }
    if text.contains("//") { out.append("// reads as /") }
    if !text.hasPrefix("/") { out.append("a leading / is implied") }
    if !text.hasSuffix("/") { out.append("a trailing / is implied") }
    return out
  }
}

extension String {
  /// `%XX` escapes decoded as UTF-8; nil when an escape is malformed or the bytes are not UTF-8.
  fileprivate var removingPercentEncodingStrictly: String? {
    var bytes: [UInt8] = []
    var iterator = utf8.makeIterator()
    while let byte = iterator.next() {
      guard byte == UInt8(ascii: "%") else {
        bytes.append(byte)
        continue
      }
      guard let high = iterator.next().flatMap(LinkRuntime.hexValue),
        let low = iterator.next().flatMap(LinkRuntime.hexValue)
      else { return nil }
      bytes.append(high << 4 | low)
    }
    return LinkRuntime.decodeUTF8(bytes)
  }
}

extension AASAMatcher {
  /// The verdict for the URL `string` with its trace; a string that is not a URL gets no steps.
  public func explain(_ string: String, domain: String? = nil) -> MatchExplanation {
    guard let url = UniversalLinkURL(string: string) else {
      return MatchExplanation(result: .noMatch(.invalidURL), steps: [], closest: nil)
    }
    return explain(url, domain: domain)
  }
}
