extension LinkRuntime {
  /// The host part of an associated-domain entry: `example.com`, or `*.example.com`, which covers every subdomain
  /// of `example.com` but not `example.com` itself. The one place the wildcard rule and iOS's choice among entries
  /// live: the inventory's entries, the claims model and the runtime table all ask this type.
  public struct HostPattern: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The host, lower-cased, without the `*.`: the host whose AASA file governs the entry (the apex for a
    /// wildcard).
    public let host: String
    /// Whether the entry is `*.host`.
    public let wildcard: Bool

    /// A pattern for `host` (lower-cased), with or without the wildcard.
    public init(host: String, wildcard: Bool) {
      self.host = host.lowercased()
      self.wildcard = wildcard
    }

    /// A pattern as entries write it: `*.example.com` or `example.com`.
    public init(_ written: String) {
      let wildcard = written.hasPrefix("*.")
      self.init(host: wildcard ? String(written.dropFirst(2)) : written, wildcard: wildcard)
    }

    /// `host` or `*.host`, as entitlements write it.
    public var description: String { wildcard ? "*." + host : host }

    /// Reads the pattern as entries write it, one string.
    public init(from decoder: any Decoder) throws {
      self.init(try decoder.singleValueContainer().decode(String.self))
    }

    /// Writes the pattern as entries write it, one string: `*.example.com`.
    public func encode(to encoder: any Encoder) throws {
      var c = encoder.singleValueContainer()
      try c.encode(description)
    }

    /// Whether the entry covers a URL's host (lower-cased): the host itself, or for a wildcard any subdomain.
    public func covers(_ urlHost: String) -> Bool {
      wildcard ? urlHost.hasSuffix("." + host) : urlHost == host
    }

    /// Whether some URL host is covered by both patterns.
    public func overlaps(_ other: HostPattern) -> Bool {
      switch (wildcard, other.wildcard) {
      case (false, false): host == other.host
      case (true, false): covers(other.host)
      case (false, true): other.covers(host)
      case (true, true): host == other.host || host.hasSuffix("." + other.host) || other.host.hasSuffix("." + host)
      }
    }

    /// A host the pattern covers, for example URLs: the host itself, or `www.` below a wildcard's.
    public var exampleHost: String { wildcard ? "www." + host : host }

    /// Which of `patterns` iOS uses for `host` (lower-cased): an exact entry beats a wildcard, a longer wildcard
    /// beats a shorter one, and the first wins a tie. Nil when none covers the host.
    public static func governing<C: Collection>(_ patterns: C, for host: String) -> C.Index?
    where C.Element == HostPattern {
      if let exact = patterns.firstIndex(where: { !$0.wildcard && $0.host == host }) { return exact }
      return longestWildcard(patterns) { host.hasSuffix("." + $0) }
    }

    /// Which of `patterns` governs a subdomain of `host` that no entry names exactly: the longest wildcard for
    /// `host` itself or one of its parent domains.
    public static func governing<C: Collection>(_ patterns: C, below host: String) -> C.Index?
    where C.Element == HostPattern {
      longestWildcard(patterns) { $0 == host || host.hasSuffix("." + $0) }
    }

    /// The wildcard pattern with the longest host among those whose host `covers` accepts; the first on a tie.
    private static func longestWildcard<C: Collection>(_ patterns: C, _ covers: (String) -> Bool) -> C.Index?
    where C.Element == HostPattern {
      var best: C.Index? = nil
      var length = -1
      for index in patterns.indices where patterns[index].wildcard && covers(patterns[index].host) {
        if patterns[index].host.utf8.count > length {
          best = index
          length = patterns[index].host.utf8.count
        }
      }
      return best
    }
  }
}
