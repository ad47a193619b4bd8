/// The service an associated-domain entry is for: the part before the colon in `applinks:example.com`.
///
/// The four Apple documents each have a section of the domain's AASA file; any other service is kept as written, so
/// reports show what the entitlement says, and is flagged. In JSON a service is its name, a string.
public enum Service: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
  /// Universal links: the only service whose AASA rules decide which URLs open the app.
  case applinks
  /// Shared web credentials (passwords, passkeys).
  case webcredentials
  /// Handoff between the app and its website.
  case activitycontinuation
  /// App Clips invoked from the domain's URLs.
  case appclips
  /// A service Apple does not document, kept as written.
  case other(String)

  /// The documented services, in the order reports list them.
  public static let documented: [Service] = [.applinks, .webcredentials, .appclips, .activitycontinuation]

  /// The service named `name`, as the entitlement writes it.
  public init(_ name: String) {
    self = Self.documented.first { $0.name == name } ?? .other(name)
  }

  /// The name as the entitlement writes it.
  public var name: String {
    switch self {
    case .applinks: "applinks"
    case .webcredentials: "webcredentials"
    case .activitycontinuation: "activitycontinuation"
    case .appclips: "appclips"
    case .other(let name): name
    }
  }

  /// The name, as reports print it.
  public var description: String { name }

  /// Whether Apple documents the service; only those have a section in the AASA file, so only their files are
  /// fetched.
  public var isDocumented: Bool {
    if case .other = self { return false }
    return true
  }

  /// Ordered by name, so lists of services read the same on every run.
  public static func < (a: Service, b: Service) -> Bool { a.name < b.name }

  /// Reads a service from its name.
  public init(from decoder: any Decoder) throws {
    self.init(try decoder.singleValueContainer().decode(String.self))
  }

  /// Writes the service as its name.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.singleValueContainer()
    try c.encode(name)
  }
}
