import Foundation

/// A property-list value as plain Swift data, so no libplist type escapes the Plist layer.
///
/// Integers are kept apart from reals and booleans because entitlements such as `get-task-allow`
/// are compared across sources and must not silently change type.
public enum PlistValue: Sendable, Hashable {
  /// A `<string>`; also what dates and data turn into when read back from JSON.
  case string(String)
  /// An `<integer>`, kept apart from `real` so `1` and `1.0` stay different values.
  case integer(Int64)
  /// A `<real>`, never merged with `integer`.
  case real(Double)
  /// `<true/>` or `<false/>`, the type entitlement flags such as `get-task-allow` use.
  case bool(Bool)
  /// Seconds since 1970-01-01 (Unix time), so JSON output needs no Apple epoch arithmetic.
  case date(Double)
  /// The raw bytes of a `<data>` value; JSON output writes them as base64.
  case data([UInt8])
  /// An `<array>`, in document order.
  case array([PlistValue])
  /// A `<dict>`; key order is not kept, so ``summary`` sorts the keys.
  case dictionary([String: PlistValue])

  /// The dictionary's value for `key`, or nil when this is not a dictionary or lacks it.
  public subscript(key: String) -> PlistValue? {
    if case .dictionary(let d) = self { return d[key] }
    return nil
  }

  /// The type's name, as messages say it: `a string`, `an integer`, `an array`.
  public var typeName: String {
    switch self {
    case .string: "a string"
    case .integer: "an integer"
    case .real: "a real"
    case .bool: "a boolean"
    case .date: "a date"
    case .data: "data"
    case .array: "an array"
    case .dictionary: "a dictionary"
    }
  }

  /// The text of a string value; nil for any other type, as values are never converted.
  public var stringValue: String? {
    if case .string(let s) = self { return s }
    return nil
  }

  /// The flag of a boolean value; nil for other types, so an integer `1` is not taken for `true`.
  public var boolValue: Bool? {
    if case .bool(let b) = self { return b }
    return nil
  }

  /// The items of an array value; nil for any other type.
  public var arrayValue: [PlistValue]? {
    if case .array(let a) = self { return a }
    return nil
  }

  /// The entries of a dictionary value; nil for any other type.
  public var dictionaryValue: [String: PlistValue]? {
    if case .dictionary(let d) = self { return d }
    return nil
  }

  /// A date value as a `Date`; nil for other types, including dates read back from JSON as strings.
  public var dateValue: Date? {
    if case .date(let t) = self { return Date(timeIntervalSince1970: t) }
    return nil
  }

  /// The strings of an array value; nil when this is not an array of strings only.
  public var stringArray: [String]? {
    guard let items = arrayValue else { return nil }
    var out: [String] = []
    for item in items {
      guard let s = item.stringValue else { return nil }
      out.append(s)
    }
    return out
  }

  /// A short, single-line rendering for diagnostics ("both values" in disagreement warnings).
  public var summary: String {
    let text: String
    switch self {
    case .string(let s): text = "\"\(s)\""
    case .integer(let i): text = String(i)
    case .real(let r): text = String(r)
    case .bool(let b): text = b ? "true" : "false"
    case .date(let t): text = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: t))
    case .data(let d): text = "<\(d.count) bytes>"
    case .array(let a): text = "[" + a.map(\.summary).joined(separator: ", ") + "]"
    case .dictionary(let d):
      text = "{" + d.keys.sorted().map { "\($0): \(d[$0]!.summary)" }.joined(separator: ", ") + "}"
    }
    return text.count > 300 ? String(text.prefix(300)) + "…" : text
  }
}

extension PlistValue: Encodable {
  /// Encodes as natural JSON: dates as ISO 8601 strings, data as base64.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .string(let s): try container.encode(s)
    case .integer(let i): try container.encode(i)
    case .real(let r): try container.encode(r)
    case .bool(let b): try container.encode(b)
    case .date(let t): try container.encode(ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: t)))
    case .data(let d): try container.encode(Data(d).base64EncodedString())
    case .array(let a): try container.encode(a)
    case .dictionary(let d): try container.encode(d)
    }
  }
}

extension PlistValue: Decodable {
  /// Reads the JSON form back. JSON cannot tell a date or data from a string, so those come back as strings; that
  /// is enough to compare saved inventories, and encoding again gives the same JSON.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    // Each JSON type decodes as one of these alone (a number as an integer before a real), so the order changes no
    // value; the commonest in entitlements come first, as every miss costs a thrown error.
    if let s = try? container.decode(String.self) {
      self = .string(s)
    } else if let b = try? container.decode(Bool.self) {
      self = .bool(b)
    } else if let a = try? container.decode([PlistValue].self) {
      self = .array(a)
    } else if let i = try? container.decode(Int64.self) {
      self = .integer(i)
    } else if let r = try? container.decode(Double.self) {
      self = .real(r)
    } else {
      self = .dictionary(try container.decode([String: PlistValue].self))
    }
  }
}
