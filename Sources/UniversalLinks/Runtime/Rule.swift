extension LinkRuntime {
  /// One element of a prepared pattern: what an AASA pattern becomes once its path is normalized (rule 5), its
  /// variables are expanded (rule 10) and, for a case-insensitive rule, it is lower-cased (rule 7).
  public indirect enum Piece: Sendable, Equatable, Hashable {
    /// Text that must appear as is.
    case literal(String)
    /// `?`: exactly one Unicode scalar.
    case any
    /// `*`: zero or more scalars.
    case star
    /// A multi-valued substitution variable: any one alternative; alternatives hold no choices. With no
    /// alternatives (an undefined or empty variable) it matches nothing.
    case choice([[Piece]])

    /// Hashes a choice by its size and its first and last alternatives, not all of them: compiled patterns are
    /// cached by their pieces, and hashing `$(lang)`'s 1,188 alternatives for every rule that uses it was a third of
    /// the time it took to build a thousand apps' table. Equal pieces still hash equally, and comparing two uses of
    /// one variable is quick, as they share one array.
    public func hash(into hasher: inout Hasher) {
      switch self {
      case .literal(let text):
        hasher.combine(0)
        hasher.combine(text)
      case .any: hasher.combine(1)
      case .star: hasher.combine(2)
      case .choice(let alternatives):
        hasher.combine(3)
        hasher.combine(alternatives.count)
        hasher.combine(alternatives.first)
        hasher.combine(alternatives.last)
      }
    }
  }

  /// One rule as the runtime evaluates it: an AASA component (or legacy path) with its defaults merged in, its
  /// flags explicit and its patterns prepared.
  public struct Rule: Sendable, Hashable {
    /// A `?` key given item by item: every occurrence of `name` must match `value`; a missing item reads as "".
    public struct QueryItem: Sendable, Hashable {
      /// The item's name, lower-cased when the rule is case-insensitive.
      public var name: String
      /// The prepared pattern its value must match.
      public var value: [Piece]

      /// Creates an item pattern.
      public init(name: String, value: [Piece]) {
        self.name = name
        self.value = value
      }
    }

    /// JSON pointer to the rule in its AASA file, such as `/applinks/details/0/components/1`.
    public var pointer: String
    /// Whether a match means "do not open the app".
    public var exclude: Bool
    /// Effective `caseSensitive`: when false the URL is lower-cased before comparing (patterns already are).
    public var caseSensitive: Bool
    /// Effective `percentEncoded`: when false the URL's escapes are decoded before comparing.
    public var percentEncoded: Bool
    /// The `/` pattern; nil constrains nothing.
    public var path: [Piece]?
    /// The `?` pattern as one string; nil constrains nothing.
    public var query: [Piece]?
    /// The `?` pattern item by item; nil constrains nothing.
    public var items: [QueryItem]?
    /// The `#` pattern; nil constrains nothing.
    public var fragment: [Piece]?

    /// Creates a prepared rule.
    public init(
      pointer: String, exclude: Bool = false, caseSensitive: Bool = true, percentEncoded: Bool = true,
      path: [Piece]? = nil, query: [Piece]? = nil, items: [QueryItem]? = nil, fragment: [Piece]? = nil
    ) {
      self.pointer = pointer
      self.exclude = exclude
      self.caseSensitive = caseSensitive
      self.percentEncoded = percentEncoded
      self.path = path
      self.query = query
      self.items = items
      self.fragment = fragment
    }
  }
}

// MARK: - Reading the rules document

// The rules document that generated guards embed is JSON: `{"apps": [...], "choices": [...]}`. A pattern is an
// array of pieces, each a string (literal text), 0 (`?`), 1 (`*`), or a multi-valued variable: `{"choice": n}`,
// the document's `choices[n]`, or an inline array of alternatives. Anything else matches nothing, as an undefined
// variable does. Decoding needs no Foundation: only the standard library's `Decodable`.

extension LinkRuntime {
  /// The `userInfo` key under which a decoder carries the document's `choices`, which `{"choice": n}` refers to.
  public static let choicesKey = CodingUserInfoKey(rawValue: "LinkRuntime.choices")!

  /// The `choices` table of a rules document; decode it first and hand it to the decoder of the rest under
  /// ``LinkRuntime/choicesKey``, so each variable's values are held once however many rules use them.
  public struct ChoiceTable: Decodable, Sendable {
    /// `choices[n]` is what `{"choice": n}` stands for.
    public let choices: [[[Piece]]]

    /// Reads the `choices` key of a rules document (absent means none).
    public init(from decoder: any Decoder) throws {
      let c = try decoder.container(keyedBy: CodingKeys.self)
      choices = try c.decodeIfPresent([[[Piece]]].self, forKey: .choices) ?? []
    }

    private enum CodingKeys: String, CodingKey { case choices }
  }

  fileprivate struct ChoiceReference: Decodable {
    let choice: Int
  }
}

extension LinkRuntime.Piece: Decodable {
  /// Reads one piece of the rules document.
  public init(from decoder: any Decoder) throws {
    // A piece this code does not know (from a newer ipalinks) refuses the document rather than matching nothing:
    // read as nothing, a match rule would silently stop blocking, and an updater keeps the rules in use instead.
    let c = try decoder.singleValueContainer()
    func unknown(_ what: String) -> DecodingError {
      .dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown pattern piece: \(what)"))
    }
    if let text = try? c.decode(String.self) {
      self = .literal(text)
    } else if let code = try? c.decode(Int.self) {
      guard code == 0 || code == 1 else { throw unknown("the number \(code)") }
      self = code == 0 ? .any : .star
    } else if let alternatives = try? c.decode([[LinkRuntime.Piece]].self) {
      self = .choice(alternatives)
    } else if let reference = try? c.decode(LinkRuntime.ChoiceReference.self) {
      let table = decoder.userInfo[LinkRuntime.choicesKey] as? [[[LinkRuntime.Piece]]] ?? []
      guard table.indices.contains(reference.choice) else { throw unknown("choice \(reference.choice) is not listed") }
      self = .choice(table[reference.choice])
    } else {
      throw unknown("neither text, 0, 1, a list of alternatives nor a choice")
    }
  }
}

extension LinkRuntime.Rule: Decodable {
  private enum CodingKeys: String, CodingKey {
    case pointer, exclude, caseSensitive, percentEncoded, path, query, items, fragment
  }

  /// Reads one rule of the rules document; absent flags take the AASA defaults.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    pointer = try c.decodeIfPresent(String.self, forKey: .pointer) ?? ""
    exclude = try c.decodeIfPresent(Bool.self, forKey: .exclude) ?? false
    caseSensitive = try c.decodeIfPresent(Bool.self, forKey: .caseSensitive) ?? true
    percentEncoded = try c.decodeIfPresent(Bool.self, forKey: .percentEncoded) ?? true
    path = try c.decodeIfPresent([LinkRuntime.Piece].self, forKey: .path)
    query = try c.decodeIfPresent([LinkRuntime.Piece].self, forKey: .query)
    items = try c.decodeIfPresent([QueryItem].self, forKey: .items)
    fragment = try c.decodeIfPresent([LinkRuntime.Piece].self, forKey: .fragment)
  }
}

extension LinkRuntime.Rule.QueryItem: Decodable {
  private enum CodingKeys: String, CodingKey { case name, value }

  /// Reads `{"name": …, "value": pattern}`.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    name = try c.decode(String.self, forKey: .name)
    value = try c.decode([LinkRuntime.Piece].self, forKey: .value)
  }
}
