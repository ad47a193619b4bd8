extension LinkRuntime {
  /// One app's rules on one domain, compiled: finds the first rule that matches a URL, as iOS tries them (rule 1:
  /// in order, the first match decides). Compiled once, then fast and allocation-light per URL.
  public struct RuleProgram: Sendable {
    /// The rules, in the order they are tried.
    public let rules: [Rule]
    /// Everything compiled, behind one reference: a program is copied per app on a host, and copying it should
    /// cost one retain, not one per array.
    let core: Core

    final class Core: Sendable {
      let compiled: [CompiledRule]
      /// Cheap necessary conditions per rule, in a plain array the loop scans before touching a rule.
      let filters: [RuleFilter]
      /// The programs of path-only glob rules, back to back, so scanning thousands of rules reads memory in order.
      let arena: [UInt32]
      /// The rules by the literal start of their path, per reading; rules that can never match are in none.
      let index: CandidateIndex

      init(compiled: [CompiledRule], filters: [RuleFilter], arena: [UInt32], index: CandidateIndex) {
        self.compiled = compiled
        self.filters = filters
        self.arena = arena
        self.index = index
      }

      func firstMatch(_ subject: inout Subject) -> Int? {
        guard !index.isEmpty else { return nil }
        return index.withCandidates(&subject) { candidates, listed, subject in
          for candidate in candidates where matches(listed[CandidateIndex.position(candidate)], &subject) {
            return CandidateIndex.rule(candidate)
          }
          return nil
        }
      }

      /// Whether `candidate`, a rule the index gave for this URL (numbered `rule` in this program's rules), matches
      /// it: a path-only glob straight from its record, whose path conditions the index has checked; a rule whose
      /// cheap conditions are all on the path straight from its compiled form; another by its filter first.
      @inline(__always)
      func matches(_ candidate: CandidateIndex.Listed, number rule: Int, _ subject: inout Subject) -> Bool {
        let slot = Int(candidate.slot)
        if candidate.globCount > 0 {
          let start = Int(candidate.globStart)
          return glob(start..<(start + Int(candidate.globCount)), matches: &subject, slot: slot)
        }
        // The index has checked every cheap condition: the rule's filter would be one more cache miss for nothing.
        guard candidate.pathConditionsOnly else { return matches(rule: rule, &subject) }
        return compiled(rule, matches: subject.reading(slot))
      }

      @inline(__always)
      func matches(_ candidate: CandidateIndex.Listed, _ subject: inout Subject) -> Bool {
        matches(candidate, number: Int(candidate.rule), &subject)
      }

      /// Whether `rule` matches the URL: its cheap conditions first, then its patterns.
      @inline(__always)
      func matches(rule: Int, _ subject: inout Subject) -> Bool {
        let filter = filters[rule]
        // A path-only glob too long for its index record.
        if filter.arenaCount > 0 {
          return glob(filter.arenaStart..<(filter.arenaStart + filter.arenaCount), matches: &subject, slot: filter.slot)
        }
        let reading = subject.reading(filter.slot)
        return filter.admits(RuleFilter.Masks(reading)) && compiled(rule, matches: reading)
      }

      /// Whether compiled rule `rule` matches `reading`. Borrowed, not retained: the program holds its rules while
      /// it runs, and a retain and a release per candidate cost about 3% of the matcher's time.
      @inline(__always)
      private func compiled(_ rule: Int, matches reading: Subject.Reading) -> Bool {
        compiled.withUnsafeBufferPointer { rules in
          Unmanaged.passUnretained(rules[rule])._withUnsafeGuaranteedRef { $0.matches(reading) }
        }
      }

      /// Whether the path-only glob at `program` in the arena matches the URL's path as reading `slot` reads it;
      /// the query and fragment are never read, so they are never prepared.
      @inline(__always)
      private func glob(_ program: Range<Int>, matches subject: inout Subject, slot: Int) -> Bool {
        let path = subject.path(slot)
        return arena.withUnsafeBufferPointer { arena in
          GlobProgram.matches(UnsafeBufferPointer(rebasing: arena[program]), path)
        }
      }
    }

    var compiled: [CompiledRule] { core.compiled }
    var filters: [RuleFilter] { core.filters }
    var index: CandidateIndex { core.index }

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
      core = Core(
        compiled: compiled, filters: filters, arena: arena,
        index: CandidateIndex(filters: filters, paths: rules.map(\.path)))
    }

    /// The index in ``rules`` of the first rule that matches `url`, or nil. Reads only the path, query and
    /// fragment: the scheme, the host and whether the app is listed are the caller's to check.
    public func firstMatch(_ url: UniversalLinkURL) -> Int? {
      var subject = Subject(url)
      return core.firstMatch(&subject)
    }

    /// The same for a URL already prepared, so several programs (the apps claiming one host) share its readings.
    ///
    /// Only the rules whose path's literal start begins the URL's path, and those without one, are candidates;
    /// they are tried in rule order, so the first rule that matches still decides.
    func firstMatch(_ subject: inout Subject) -> Int? { core.firstMatch(&subject) }
  }

  /// One rule, compiled with its effective settings; a class so the hot loop copies no fields.
  final class CompiledRule: Sendable {
    enum Query: Sendable {
      case whole(CompiledPattern)
      /// Each item's name, also as scalar values (what a URL's item names are compared as), and its pattern.
      case items([(name: String, scalars: [UInt32], pattern: CompiledPattern, matchesEmpty: Bool)])
    }

    let path: CompiledPattern?
    let query: Query?
    let fragment: CompiledPattern?
    /// Which of the four readings of a URL this rule compares against.
    let readingSlot: Int
    /// The path, fragment and whole-query patterns again, unretained, for ``matches(_:)``: loading a pattern from
    /// the rule retained and released it on every call. The strong references above keep them alive.
    private let unretained:
      (
        path: Unmanaged<CompiledPattern>?, fragment: Unmanaged<CompiledPattern>?,
        query: Unmanaged<CompiledPattern>?
      )

    init(_ rule: Rule, builder: inout PatternBuilder) {
      path = rule.path.map { builder.compile($0) }
      fragment = rule.fragment.map { builder.compile($0) }
      if let items = rule.items {
        query = .items(
          items.map { item in
            let pattern = builder.compile(item.value)
            return (item.name, item.name.unicodeScalars.map(\.value), pattern, pattern.matches(.empty))
          })
      } else {
        query = rule.query.map { .whole(builder.compile($0)) }
      }
      readingSlot = Subject.slot(percentEncoded: rule.percentEncoded, caseSensitive: rule.caseSensitive)
      var whole: Unmanaged<CompiledPattern>? = nil
      if case .whole(let pattern)? = query { whole = .passUnretained(pattern) }
      unretained = (path.map(Unmanaged.passUnretained), fragment.map(Unmanaged.passUnretained), whole)
    }

    func matches(_ reading: Subject.Reading) -> Bool {
      if let path = unretained.path, !path._withUnsafeGuaranteedRef({ $0.matches(reading.path) }) { return false }
      if let fragment = unretained.fragment, !fragment._withUnsafeGuaranteedRef({ $0.matches(reading.fragment) }) {
        return false
      }
      if let whole = unretained.query { return whole._withUnsafeGuaranteedRef { $0.matches(reading.query) } }
      switch query {
      case nil, .whole?: return true
      case .items(let items)?:
        for item in items {
          var seen = false
          for pair in reading.items where Self.isItem(pair.name, named: item.name, item.scalars) {
            seen = true
            if !item.pattern.matches(pair.value) { return false }
          }
          if !seen && !item.matchesEmpty { return false }
        }
        return true
      }
    }

    /// Whether a URL's query item name, as scalar values, is `name` (also given as `scalars`). Names compare as
    /// Swift strings do, so canonically equivalent spellings (`é`, and `e` then U+0301) are one name; for ASCII
    /// that is equal scalars, which is the common case and costs no string.
    @inline(__always)
    static func isItem(_ candidate: SubjectText, named name: String, _ scalars: [UInt32]) -> Bool {
      if candidate.withScalars({ $0.elementsEqual(scalars) }) { return true }
      guard !candidate.ascii || scalars.contains(where: { $0 >= 0x80 }) else { return false }
      return candidate.string == name
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

  /// Path conditions in 28 bytes: a rule's (what a matching path must hold) or a path's (what it holds), so
  /// testing a candidate reads one record.
  struct PathFilter: Sendable {
    var low: UInt64
    var high: UInt64
    var pairs: UInt64
    /// 32 bits, so that a ``CandidateIndex/Listed`` record fits in 40 bytes; longer lengths are cut, which keeps the
    /// rule's as a necessary condition and the path's at least as long.
    var length: Int32

    /// The path part of a rule's filter.
    init(_ filter: RuleFilter) {
      (low, high, pairs) = (filter.path.low, filter.path.high, filter.pathPairs)
      length = Int32(clamping: filter.pathLength)
    }

    /// What a path holds.
    init(_ path: SubjectText) {
      (low, high, pairs, length) = (path.mask.low, path.mask.high, path.pairs, Int32(clamping: path.count))
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
        pathLength = reading.path.count
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
    /// Whether the rule matches only a URL with a query, or with a fragment: a pattern for it, or a query item it
    /// requires, does not match the empty text that a missing or empty one reads as.
    var needsQuery = false
    var needsFragment = false
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
      switch rule.query {
      case .whole(let p)?:
        query = p.required
        queryPairs = p.requiredPairs
        needsQuery = !p.matches(.empty)
      case .items(let items)?: needsQuery = items.contains { !$0.matchesEmpty }
      case nil: break
      }
      if let f = rule.fragment {
        fragment = f.required
        fragmentPairs = f.requiredPairs
        needsFragment = !f.matches(.empty)
      }
    }

    /// Whether every condition but the path's is empty, so a ``PathFilter`` of this filter says all it says.
    var conditionsAreOnThePath: Bool {
      !never && query == ASCIIMask() && queryPairs == 0 && fragment == ASCIIMask() && fragmentPairs == 0
    }

    @inline(__always)
    func admits(_ m: Masks) -> Bool {
      !never && m.pathLength >= pathLength && path.isSubset(of: m.path) && pathPairs & ~m.pathPairs == 0
        && query.isSubset(of: m.query) && queryPairs & ~m.queryPairs == 0 && fragment.isSubset(of: m.fragment)
        && fragmentPairs & ~m.fragmentPairs == 0
    }
  }
}
