extension LinkRuntime {
  /// How one rule fared against a URL: every key the rule sets, the URL's value as the rule compares it, and
  /// whether it matched. What `match --explain` shows.
  public struct RuleTrace: Sendable, Equatable {
    /// One key of a rule against the URL.
    public struct KeyTrace: Sendable, Equatable {
      /// Which part of the URL a key reads.
      public enum Key: Sendable, Equatable, Hashable {
        /// `/`: the path, normalized per rule 5.
        case path
        /// `?` as one string: the whole query.
        case query
        /// `?` given item by item: the value of the item with this name.
        case queryItem(String)
        /// `#`: the fragment.
        case fragment
      }

      /// The key.
      public var key: Key
      /// The URL's value as compared (after percent decoding and case folding when the rule asks for them); nil
      /// for a query item the URL does not have, which reads as "".
      public var value: String?
      /// Whether the key's pattern matched the value.
      public var matched: Bool
      /// Why the value could not match whatever its content, when that is the reason: "needs exactly 4
      /// characters, has 3", or that the pattern uses an undefined variable.
      public var shortfall: String?
    }

    /// The rule's index in ``RuleProgram/rules``.
    public var index: Int
    /// The keys the rule sets, in the order `/`, `?`, `#`; a rule that sets none matches every URL.
    public var keys: [KeyTrace]

    /// Whether every key matched, so the rule decides.
    public var matched: Bool { keys.allSatisfy(\.matched) }
  }
}

extension LinkRuntime.RuleProgram {
  /// The rules tried for `url`, in order, each with every key's outcome: all of them when none matches, else up to
  /// and including the deciding one. The verdict is the same as ``firstMatch(_:)``'s; this is slower, as every key
  /// of every rule is evaluated.
  public func trace(_ url: UniversalLinkURL) -> [LinkRuntime.RuleTrace] {
    var subject = LinkRuntime.Subject(url)
    var out: [LinkRuntime.RuleTrace] = []
    for (index, rule) in compiled.enumerated() {
      let reading = subject.reading(rule.readingSlot)
      var keys: [LinkRuntime.RuleTrace.KeyTrace] = []
      func check(
        _ key: LinkRuntime.RuleTrace.KeyTrace.Key, _ pattern: LinkRuntime.CompiledPattern,
        _ text: LinkRuntime.SubjectText?, matchesMissing: Bool = false
      ) {
        guard let text else {
          keys.append(.init(key: key, value: nil, matched: matchesMissing, shortfall: nil))
          return
        }
        let matched = pattern.matches(text)
        keys.append(
          .init(
            key: key, value: text.string, matched: matched, shortfall: matched ? nil : pattern.shortfall(text)))
      }
      if let path = rule.path { check(.path, path, reading.path) }
      switch rule.query {
      case .whole(let pattern)?: check(.query, pattern, reading.query)
      case .items(let items)?:
        for item in items {
          var values: [LinkRuntime.SubjectText] = []
          for pair in reading.items where LinkRuntime.CompiledRule.isItem(pair.name, named: item.name, item.scalars) {
            values.append(pair.value)
          }
          if values.isEmpty { check(.queryItem(item.name), item.pattern, nil, matchesMissing: item.matchesEmpty) }
          for value in values { check(.queryItem(item.name), item.pattern, value) }
        }
      case nil: break
      }
      if let fragment = rule.fragment { check(.fragment, fragment, reading.fragment) }
      let trace = LinkRuntime.RuleTrace(index: index, keys: keys)
      out.append(trace)
      if trace.matched { break }
    }
    // The readings' texts live in the subject's arena: it must outlast the last key checked.
    withExtendedLifetime(subject) {}
    return out
  }
}

extension LinkRuntime.SubjectText {
  /// The text, back as a string.
  var string: String {
    withScalars { scalars in
      var out = String.UnicodeScalarView()
      for value in scalars { if let scalar = Unicode.Scalar(value) { out.append(scalar) } }
      return String(out)
    }
  }
}

extension LinkRuntime.CompiledPattern {
  /// Why no text of this length can match, if that is so.
  func shortfall(_ text: LinkRuntime.SubjectText) -> String? {
    let count = text.count
    func characters(_ n: Int) -> String { n == 1 ? "1 character" : "\(n) characters" }
    switch kind {
    case .never: return "uses an undefined or empty variable, so it never matches"
    case .exact where count != units.count: return "needs exactly \(characters(units.count)), has \(count)"
    case .glob where count < minLength: return "needs at least \(characters(minLength)), has \(count)"
    case .general where count < minLength: return "needs at least \(characters(minLength)), has \(count)"
    default: return nil
    }
  }
}
