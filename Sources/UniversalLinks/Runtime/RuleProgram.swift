extension LinkRuntime {
  /// One app's rules on one domain, compiled: finds the first rule that matches a URL, as iOS tries them (rule 1:
  /// in order, the first match decides). Compiled once, then fast and allocation-light per URL.
  public struct RuleProgram: Sendable {
    /// The rules, in the order they are tried.
    public let rules: [Rule]
    let compiled: [CompiledRule]
    /// Cheap necessary conditions per rule, in a plain array the loop scans before touching a rule.
    let filters: [RuleFilter]
    /// The programs of path-only glob rules, back to back, so scanning thousands of rules reads memory in order.
    let arena: [UInt32]

    /// Compiles `rules`.
    public init(rules: [Rule]) {
      var builder = PatternBuilder()
      self.init(rules: rules, builder: &builder)
    }

    /// Compiles `rules`, sharing `builder`'s compiled patterns with other programs.
    init(rules: [Rule], builder: inout PatternBuilder) {
      self.rules = rules
      let compiled = rules.map { CompiledRule($0, builder: &builder) }
      self.compiled = compiled
      var filters: [RuleFilter] = []
      var arena: [UInt32] = []
      for rule in compiled {
        var filter = RuleFilter(rule)
        if let path = rule.path, rule.query == nil, rule.fragment == nil, path.isSelfContainedProgram {
          filter.arenaStart = arena.count
          filter.arenaCount = path.program.count
          arena += path.program
        }
        filters.append(filter)
      }
      self.filters = filters
      self.arena = arena
    }

    /// The index in ``rules`` of the first rule that matches `url`, or nil. Reads only the path, query and
    /// fragment: the scheme, the host and whether the app is listed are the caller's to check.
    public func firstMatch(_ url: UniversalLinkURL) -> Int? {
      guard !filters.isEmpty else { return nil }
      var subject = Subject(url)
      var slot = -1
      var reading = subject.reading(0)
      var masks = RuleFilter.Masks(reading)
      return arena.withUnsafeBufferPointer { arena in
        filters.withUnsafeBufferPointer { filters -> Int? in
          var path = reading.path
          for i in 0..<filters.count {
            let filter = filters[i]
            if filter.slot != slot {
              slot = filter.slot
              reading = subject.reading(slot)
              masks = RuleFilter.Masks(reading)
              path = reading.path
            }
            guard filter.admits(masks) else { continue }
            if filter.arenaCount > 0 {
              let program = UnsafeBufferPointer(
                rebasing: arena[filter.arenaStart..<(filter.arenaStart + filter.arenaCount)])
              if GlobProgram.matches(program, path, others: []) { return i }
            } else if compiled[i].matches(reading) {
              return i
            }
          }
          return nil
        }
      }
    }
  }

  /// One rule, compiled with its effective settings; a class so the hot loop copies no fields.
  final class CompiledRule: Sendable {
    enum Query: Sendable {
      case whole(CompiledPattern)
      case items([(name: String, pattern: CompiledPattern, matchesEmpty: Bool)])
    }

    let path: CompiledPattern?
    let query: Query?
    let fragment: CompiledPattern?
    /// Which of the four readings of a URL this rule compares against.
    let readingSlot: Int

    init(_ rule: Rule, builder: inout PatternBuilder) {
      path = rule.path.map { builder.compile($0) }
      fragment = rule.fragment.map { builder.compile($0) }
      if let items = rule.items {
        query = .items(
          items.map { item in
            let pattern = builder.compile(item.value)
            return (item.name, pattern, pattern.matches(.empty))
          })
      } else {
        query = rule.query.map { .whole(builder.compile($0)) }
      }
      readingSlot = Subject.slot(percentEncoded: rule.percentEncoded, caseSensitive: rule.caseSensitive)
    }

    func matches(_ reading: Subject.Reading) -> Bool {
      if let path, !path.matches(reading.path) { return false }
      if let fragment, !fragment.matches(reading.fragment) { return false }
      switch query {
      case nil: return true
      case .whole(let pattern)?: return pattern.matches(reading.query)
      case .items(let items)?:
        for item in items {
          var seen = false
          for pair in reading.items where pair.name == item.name {
            seen = true
            if !item.pattern.matches(pair.value) { return false }
          }
          if !seen && !item.matchesEmpty { return false }
        }
        return true
      }
    }

    var neverMatches: Bool {
      if path?.kind == .never || fragment?.kind == .never { return true }
      switch query {
      case .whole(let p)?: return p.kind == .never
      case .items(let items)?: return items.contains { $0.pattern.kind == .never }
      case nil: return false
      }
    }
  }

  /// What a rule needs of a URL before it is worth trying: plain values, so thousands are skipped in a few
  /// nanoseconds each.
  struct RuleFilter: Sendable {
    /// The URL's side: the ASCII characters and the length of each part in one reading.
    struct Masks {
      var path: ASCIIMask
      var pathPairs: UInt64
      var pathLength: Int
      var query: ASCIIMask
      var queryPairs: UInt64
      var fragment: ASCIIMask
      var fragmentPairs: UInt64

      init(_ reading: Subject.Reading) {
        path = reading.path.mask
        pathPairs = reading.path.pairs
        pathLength = reading.path.scalars.count
        query = reading.query.mask
        queryPairs = reading.query.pairs
        fragment = reading.fragment.mask
        fragmentPairs = reading.fragment.pairs
      }
    }

    var slot: Int
    var path = ASCIIMask()
    var pathPairs: UInt64 = 0
    var pathLength = 0
    var query = ASCIIMask()
    var queryPairs: UInt64 = 0
    var fragment = ASCIIMask()
    var fragmentPairs: UInt64 = 0
    var never = false
    /// When the rule constrains only the path with a glob: where its ``GlobProgram`` sits in the program's arena.
    var arenaStart = 0
    var arenaCount = 0

    init(_ rule: CompiledRule) {
      slot = rule.readingSlot
      never = rule.neverMatches
      if let p = rule.path {
        path = p.required
        pathPairs = p.requiredPairs
        pathLength = p.minLength
      }
      if case .whole(let p)? = rule.query {
        query = p.required
        queryPairs = p.requiredPairs
      }
      if let f = rule.fragment {
        fragment = f.required
        fragmentPairs = f.requiredPairs
      }
    }

    @inline(__always)
    func admits(_ m: Masks) -> Bool {
      !never && m.pathLength >= pathLength && path.isSubset(of: m.path) && pathPairs & ~m.pathPairs == 0
        && query.isSubset(of: m.query) && queryPairs & ~m.queryPairs == 0 && fragment.isSubset(of: m.fragment)
        && fragmentPairs & ~m.fragmentPairs == 0
    }
  }
}
