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
    /// Per reading the rules compare against (see ``Subject/slot(percentEncoded:caseSensitive:)``), the rules by
    /// the literal start of their path; rules that can never match are in none.
    let indexes: [(slot: Int, index: PrefixIndex)]
    /// The indexes' rule lists, back to back.
    let lists: [Int32]
    /// The path part of each listed rule's filter, beside ``lists``, so rejecting a candidate reads memory in order.
    let listFilters: [PathFilter]

    /// Compiles `rules`.
    public init(rules: [Rule]) {
      var builder = PatternBuilder()
      self.init(rules: rules, builder: &builder)
    }

    /// Compiles `rules`, sharing `builder`'s compiled patterns with other programs: for many apps' rules, one
    /// builder keeps each distinct pattern and variable once.
    public init(rules: [Rule], builder: inout PatternBuilder) {
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
      var lists: [Int32] = []
      indexes = (0..<4).compactMap { slot in
        let members = filters.indices.filter { filters[$0].slot == slot && !filters[$0].never }
        guard !members.isEmpty else { return nil }
        return (slot, PrefixIndex(rules: members, paths: members.map { rules[$0].path }, lists: &lists))
      }
      self.lists = lists
      listFilters = lists.map { PathFilter(filters[Int($0)]) }
    }

    /// The index in ``rules`` of the first rule that matches `url`, or nil. Reads only the path, query and
    /// fragment: the scheme, the host and whether the app is listed are the caller's to check.
    public func firstMatch(_ url: UniversalLinkURL) -> Int? {
      var subject = Subject(url)
      return firstMatch(&subject)
    }

    /// The same for a URL already prepared, so several programs (the apps claiming one host) share its readings.
    ///
    /// Only the rules whose path's literal start begins the URL's path, and those without one, are candidates;
    /// they are tried in rule order, merged from the index's lists, so the first rule that matches still decides.
    func firstMatch(_ subject: inout Subject) -> Int? {
      guard !indexes.isEmpty else { return nil }
      // Each list is reported at most once per path, so the candidates fit in a buffer as long as all the lists;
      // and each rule's starts being prefix-free, no rule is a candidate twice.
      return withUnsafeTemporaryAllocation(of: Int32.self, capacity: lists.count) { survivors -> Int? in
        var count = 0
        lists.withUnsafeBufferPointer { lists in
          listFilters.withUnsafeBufferPointer { listFilters in
            for entry in indexes {
              let path = subject.path(entry.slot)
              let masks = PathFilter(path)
              entry.index.candidates(path.scalars) { range in
                for position in range where listFilters[position].admits(masks) {
                  survivors[count] = lists[position]
                  count += 1
                }
              }
            }
          }
        }
        guard count > 0 else { return nil }
        // Usually a handful survive; tried in rule order, the first match decides.
        if count > 1 {
          var sorted = UnsafeMutableBufferPointer(rebasing: survivors[0..<count])
          sorted.sort()
        }
        return arena.withUnsafeBufferPointer { arena -> Int? in
          for k in 0..<count {
            let rule = Int(survivors[k])
            let filter = filters[rule]
            let reading = subject.reading(filter.slot)
            guard filter.admits(RuleFilter.Masks(reading)) else { continue }
            if filter.arenaCount > 0 {
              let program = UnsafeBufferPointer(
                rebasing: arena[filter.arenaStart..<(filter.arenaStart + filter.arenaCount)])
              if GlobProgram.matches(program, reading.path, others: []) { return rule }
            } else if compiled[rule].matches(reading) {
              return rule
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

  /// Path conditions as four words: a rule's (what a matching path must hold) or a path's (what it holds), so
  /// testing a candidate reads 32 bytes.
  struct PathFilter: Sendable {
    var low: UInt64
    var high: UInt64
    var pairs: UInt64
    var length: Int

    /// The path part of a rule's filter.
    init(_ filter: RuleFilter) {
      (low, high, pairs, length) = (filter.path.low, filter.path.high, filter.pathPairs, filter.pathLength)
    }

    /// What a path holds.
    init(_ path: SubjectText) {
      (low, high, pairs, length) = (path.mask.low, path.mask.high, path.pairs, path.scalars.count)
    }

    /// Whether a path described by `path` meets this rule's conditions.
    @inline(__always)
    func admits(_ path: PathFilter) -> Bool {
      (low & ~path.low) | (high & ~path.high) | (pairs & ~path.pairs) == 0 && path.length >= length
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
