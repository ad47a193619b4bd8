/// A parsed `apple-app-site-association` file, normalized so that matching never looks at raw JSON again.
///
/// Values of the wrong type are dropped while parsing, exactly as if the key were absent (validation reports
/// them); all three `details` shapes end up as the same ``AppLinksDetail`` list.
public struct AASAFile: Sendable, Equatable, Codable {
  /// The most patterns (`/`, `?`, `#`, query items, legacy paths) one file may hold. A file within the 128 KB
  /// devices accept holds at most about 43,000, so only an oversized local file or a hostile one reaches this.
  public static let maximumPatterns = 100_000
  /// The most alternatives `$(…)` references may add up to in one file: each reference counts its variable's
  /// values (`$(lang)` alone has about a thousand). Matching and the generated guards grow with this number.
  public static let maximumExpansion = 1_000_000
  /// The largest body a device accepts; iOS aborts the download past 128 KB.
  public static let deviceSizeLimit = 131_072

  /// The universal links service, if the file has one.
  public var applinks: AppLinks?
  /// Shared web credentials (`webcredentials.apps`).
  public var webcredentials: AppList?
  /// App Clips (`appclips.apps`).
  public var appclips: AppList?
  /// Handoff (`activitycontinuation.apps`).
  public var activitycontinuation: AppList?
  /// Size of the body as served (the envelope, when signed); devices refuse more than ``deviceSizeLimit``.
  public var byteCount: Int
  /// Whether the JSON came wrapped in a PKCS#7 / CMS signature, as old servers sent it.
  public var isSigned: Bool

  /// Creates a file from already normalized parts, mostly for tests and tools that build rules in code.
  public init(
    applinks: AppLinks? = nil, webcredentials: AppList? = nil, appclips: AppList? = nil,
    activitycontinuation: AppList? = nil, byteCount: Int = 0, isSigned: Bool = false
  ) {
    self.applinks = applinks
    self.webcredentials = webcredentials
    self.appclips = appclips
    self.activitycontinuation = activitycontinuation
    self.byteCount = byteCount
    self.isSigned = isSigned
  }

  /// Parses the bytes as served, unwrapping a CMS signature first when the bytes are a signed envelope.
  ///
  /// Only unreadable input throws (bad envelope, invalid JSON, a top level that is not an object); every other
  /// problem is tolerated the way iOS tolerates it. Use ``AASAValidator`` to list those problems.
  public init(bytes: [UInt8]) throws(AASAError) {
    var normalizer = Normalizer()
    self = try normalizer.parse(bytes)
  }

  /// Parses a JSON text (never signed).
  public init(json: String) throws(AASAError) {
    try self.init(bytes: Array(json.utf8))
  }

  /// Whether a device would refuse to download the file at all.
  public var exceedsDeviceSizeLimit: Bool { byteCount > Self.deviceSizeLimit }

  /// Every app ID that `applinks` lists, in file order without duplicates.
  public var appLinksAppIDs: [String] {
    var seen = Set<String>()
    return (applinks?.details ?? []).flatMap(\.appIDs).filter { seen.insert($0).inserted }
  }
}

/// A service section that only lists apps: `webcredentials`, `appclips`, `activitycontinuation`.
public struct AppList: Sendable, Equatable, Codable {
  /// App IDs in the `TEAMID.bundle.id` form.
  public var apps: [String]

  /// Creates a list.
  public init(apps: [String]) { self.apps = apps }
}

/// The `applinks` section.
public struct AppLinks: Sendable, Equatable, Codable {
  /// The legacy `apps` array, which iOS ignores (it had to be empty).
  public var apps: [String]?
  /// Domain-wide defaults (`applinks.defaults`), merged under every component key by key.
  public var defaults: AASAComponent?
  /// Custom `$(name)` variables, in file order; they shadow built-ins of the same name.
  public var substitutionVariables: [SubstitutionVariable]
  /// The `details` entries, in file order; for the dictionary form, one entry per key.
  public var details: [AppLinksDetail]

  /// Creates an `applinks` section.
  public init(
    apps: [String]? = nil, defaults: AASAComponent? = nil, substitutionVariables: [SubstitutionVariable] = [],
    details: [AppLinksDetail] = []
  ) {
    self.apps = apps
    self.defaults = defaults
    self.substitutionVariables = substitutionVariables
    self.details = details
  }

  /// The first detail that lists `appID`: the only one iOS uses for that app.
  public func detail(for appID: String) -> AppLinksDetail? {
    details.first { $0.appIDs.contains(appID) }
  }
}

/// A custom substitution variable: `$(name)` stands for any of `values`.
public struct SubstitutionVariable: Sendable, Equatable, Codable {
  /// The name used inside `$(…)`; case-sensitive.
  public var name: String
  /// Alternatives; each may contain `*` and `?` but no other variable.
  public var values: [String]

  /// Creates a variable.
  public init(name: String, values: [String]) {
    self.name = name
    self.values = values
  }
}

/// One `details` entry: the apps it lists and the rules they share.
public struct AppLinksDetail: Sendable, Equatable, Codable {
  /// Position in `details` (the array index, or the member position for the dictionary form).
  public var index: Int
  /// The app ID key when `details` is the old dictionary form; nil for the array form.
  public var key: String?
  /// Apps this entry lists: `appIDs` when it is an array (even empty), otherwise `appID`.
  public var appIDs: [String]
  /// Entry-level defaults (`details[].defaults`).
  public var defaults: AASAComponent?
  /// The rules: `components` when present (even empty), otherwise legacy `paths`.
  public var rules: AppLinksRules

  /// Creates a detail.
  public init(
    index: Int, key: String? = nil, appIDs: [String], defaults: AASAComponent? = nil, rules: AppLinksRules
  ) {
    self.index = index
    self.key = key
    self.appIDs = appIDs
    self.defaults = defaults
    self.rules = rules
  }

  /// The JSON pointer of this entry, used in diagnostics and match reports.
  public var pointer: String {
    "/applinks/details/" + (key.map(JSONPointer.escape) ?? String(index))
  }
}

/// The rules of a detail: modern components, legacy paths, or nothing at all.
public enum AppLinksRules: Sendable, Equatable, Codable {
  /// `components` (iOS 13 and later); an empty list matches nothing.
  case components([AASAComponent])
  /// Legacy `paths` (iOS 9 to 12 syntax, still honoured).
  case paths([LegacyPath])
  /// Neither key: the detail matches nothing.
  case none

  private enum CodingKeys: String, CodingKey { case components, paths }

  /// Reads the model's own JSON (`components` or `paths` under the detail's `rules`), not an AASA file; neither key
  /// gives ``none``.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    if let components = try container.decodeIfPresent([AASAComponent].self, forKey: .components) {
      self = .components(components)
    } else if let paths = try container.decodeIfPresent([LegacyPath].self, forKey: .paths) {
      self = .paths(paths)
    } else {
      self = .none
    }
  }

  /// Writes `{"components": …}` or `{"paths": …}`, and an empty object for ``none``, so the case survives a round trip.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    switch self {
    case .components(let list): try container.encode(list, forKey: .components)
    case .paths(let list): try container.encode(list, forKey: .paths)
    case .none: break
    }
  }
}

/// One legacy `paths` entry, with its `NOT ` prefix parsed.
public struct LegacyPath: Sendable, Equatable, Codable {
  /// Position in the `paths` array.
  public var index: Int
  /// The path pattern without the `NOT ` prefix.
  public var pattern: String
  /// Whether the entry started with `NOT `.
  public var exclude: Bool

  /// Creates a legacy path entry.
  public init(index: Int, pattern: String, exclude: Bool) {
    self.index = index
    self.pattern = pattern
    self.exclude = exclude
  }

  /// The entry as written in the file.
  public var source: String { exclude ? "NOT " + pattern : pattern }
}

/// A `components` entry, or a `defaults` object (which may hold any component key).
///
/// Every key is optional: a key left out constrains nothing, after defaults are merged key by key.
public struct AASAComponent: Sendable, Equatable, Codable {
  /// Position in the `components` array; 0 for a `defaults` object.
  public var index: Int
  /// The `/` pattern, matched against the URL path.
  public var path: String?
  /// The `?` pattern: one string for the whole query, or per-item patterns.
  public var query: QueryPattern?
  /// The `#` pattern, matched against the fragment.
  public var fragment: String?
  /// `exclude`: a match means "do not open the app".
  public var exclude: Bool?
  /// `caseSensitive` (built-in default true).
  public var caseSensitive: Bool?
  /// `percentEncoded` (built-in default true): compare against the URL as encoded.
  public var percentEncoded: Bool?
  /// `comment`, ignored by iOS; kept for display.
  public var comment: String?

  /// Creates a component.
  public init(
    index: Int = 0, path: String? = nil, query: QueryPattern? = nil, fragment: String? = nil,
    exclude: Bool? = nil, caseSensitive: Bool? = nil, percentEncoded: Bool? = nil, comment: String? = nil
  ) {
    self.index = index
    self.path = path
    self.query = query
    self.fragment = fragment
    self.exclude = exclude
    self.caseSensitive = caseSensitive
    self.percentEncoded = percentEncoded
    self.comment = comment
  }

  private enum CodingKeys: String, CodingKey {
    case index
    case path = "/"
    case query = "?"
    case fragment = "#"
    case exclude, caseSensitive, percentEncoded, comment
  }

  /// This component's keys, with the keys it leaves out taken from `fallback` (rule 3).
  public func merged(over fallback: AASAComponent?) -> AASAComponent {
    guard let fallback else { return self }
    var out = self
    out.path = path ?? fallback.path
    out.query = query ?? fallback.query
    out.fragment = fragment ?? fallback.fragment
    out.exclude = exclude ?? fallback.exclude
    out.caseSensitive = caseSensitive ?? fallback.caseSensitive
    out.percentEncoded = percentEncoded ?? fallback.percentEncoded
    return out
  }

  /// A compact one-line rendering of the constraints, such as `{"/": "/buy/*", "exclude": true}`.
  public var summary: String {
    var parts: [String] = []
    if let path { parts.append("\"/\": \(JSONPointer.quote(path))") }
    switch query {
    case .string(let s)?: parts.append("\"?\": \(JSONPointer.quote(s))")
    case .items(let items)?:
      let inner = items.map { "\(JSONPointer.quote($0.name)): \(JSONPointer.quote($0.pattern))" }
      parts.append("\"?\": {" + inner.joined(separator: ", ") + "}")
    case nil: break
    }
    if let fragment { parts.append("\"#\": \(JSONPointer.quote(fragment))") }
    if let exclude { parts.append("\"exclude\": \(exclude)") }
    if let caseSensitive { parts.append("\"caseSensitive\": \(caseSensitive)") }
    if let percentEncoded { parts.append("\"percentEncoded\": \(percentEncoded)") }
    return "{" + parts.joined(separator: ", ") + "}"
  }
}

/// The `?` key: a pattern for the whole query string, or patterns for named query items.
public enum QueryPattern: Sendable, Equatable, Codable {
  /// Matched against the whole query string.
  case string(String)
  /// Every listed item must match; items not listed are ignored; an absent item reads as `""`.
  case items([QueryItemPattern])

  /// A string becomes ``string(_:)``; anything else must be a list of ``QueryItemPattern`` objects (the model's form,
  /// not the dictionary an AASA file uses).
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if let string = try? container.decode(String.self) {
      self = .string(string)
    } else {
      self = .items(try container.decode([QueryItemPattern].self))
    }
  }

  /// Writes the string or the list of item patterns directly, without a wrapper naming the case.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .string(let s): try container.encode(s)
    case .items(let items): try container.encode(items)
    }
  }
}

/// One `name: pattern` pair of a dictionary `?`.
public struct QueryItemPattern: Sendable, Equatable, Codable {
  /// The query item name, compared exactly (no wildcards).
  public var name: String
  /// The pattern every value of that item must match.
  public var pattern: String

  /// Creates a pair.
  public init(name: String, pattern: String) {
    self.name = name
    self.pattern = pattern
  }
}

/// Helpers for RFC 6901 JSON pointers and JSON-style quoting in messages.
public enum JSONPointer {
  /// Escapes one reference token: `~` becomes `~0` and `/` becomes `~1`.
  public static func escape(_ token: String) -> String {
    var out = ""
    for c in token {
      switch c {
      case "~": out += "~0"
      case "/": out += "~1"
      default: out.append(c)
      }
    }
    return out
  }

  /// Appends a token to a pointer.
  static func join(_ pointer: String, _ token: String) -> String { pointer + "/" + escape(token) }
  static func join(_ pointer: String, _ index: Int) -> String { pointer + "/" + String(index) }

  /// `s` in double quotes, for messages and summaries: `"` and `\` escaped, controls written as the terminal's
  /// escaping writes them (`\n`, `\u{1b}`). Not for code or JSON.
  public static func quote(_ s: String) -> String {
    var out = "\""
    for scalar in s.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      default:
        // As the terminal's escaping writes it, so that one line does not show one byte two ways.
        if scalar.value < 0x20 {
          out += "\\u{" + String(scalar.value, radix: 16) + "}"
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    return out + "\""
  }
}
