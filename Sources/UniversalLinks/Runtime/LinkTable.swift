extension LinkRuntime {
  /// Many apps' rules at once: which app, if any, iOS would open for a URL.
  ///
  /// This is what a web view guard asks. Each app is decided on its own entry for the URL's host (the exact host,
  /// else the longest wildcard covering it); the first app whose rules open the URL wins, and an exclusion only
  /// reports which app excluded it when no app opens it.
  public struct Table: Sendable {
    /// One app and the hosts it claims (its `applinks:` entries).
    public struct App: Sendable {
      /// The app's `TEAMID.bundle.id`.
      public let appID: String
      /// Its entries, in the order its entitlements list them.
      public let scopes: [Scope]

      /// Creates an app.
      public init(appID: String, scopes: [Scope]) {
        self.appID = appID
        self.scopes = scopes
      }

      /// The entry that governs `host` (lower-cased), as ``HostPattern/governing(_:for:)`` chooses.
      public func scope(for host: String) -> Scope? {
        HostPattern.governing(scopes.lazy.map(\.pattern), for: host).map { scopes[$0] }
      }

      /// The entry that governs a subdomain of `host` that the app does not claim exactly.
      func scope(below host: String) -> Scope? {
        HostPattern.governing(scopes.lazy.map(\.pattern), below: host).map { scopes[$0] }
      }
    }

    /// One entry: `example.com`, or `*.example.com` with ``wildcard`` set and ``host`` without the `*.`, with the
    /// rules of the domain's AASA file for the app.
    public struct Scope: Sendable {
      /// The entry's host, with or without the wildcard.
      public let pattern: HostPattern
      /// The compiled rules.
      public let program: RuleProgram

      /// The host, lower-cased, without `*.`.
      public var host: String { pattern.host }
      /// Whether the entry is `*.host`.
      public var wildcard: Bool { pattern.wildcard }

      /// Creates an entry.
      public init(pattern: HostPattern, program: RuleProgram) {
        self.pattern = pattern
        self.program = program
      }

      /// Creates an entry; `host` is lower-cased.
      public init(host: String, wildcard: Bool, program: RuleProgram) {
        self.init(pattern: HostPattern(host: host, wildcard: wildcard), program: program)
      }
    }

    /// What iOS would do with one URL, and because of which app and rule.
    public struct Decision: Sendable, Equatable {
      /// ``Verdict/match`` when an app opens; ``Verdict/exclude`` when an app excludes it and none opens it.
      public var verdict: Verdict
      /// The app that opens (or excludes) the URL.
      public var appID: String?
      /// The JSON pointer of the deciding rule in that app's AASA file.
      public var pointer: String?

      /// Creates a decision.
      public init(verdict: Verdict, appID: String? = nil, pointer: String? = nil) {
        self.verdict = verdict
        self.appID = appID
        self.pointer = pointer
      }
    }

    /// The apps, in the order they are tried.
    public let apps: [App]
    /// Per host, the apps that govern it: for each host some app claims exactly (their entry for it, or a wildcard
    /// over it), then for each wildcard claim (the apps that govern a subdomain of it no app claims exactly).
    private let groups: [Group]
    /// The groups by host, found from a URL's bytes.
    private let hosts: HostIndex
    /// The same by string, for a host that is not ASCII: each exact host's group, and each wildcard claim's (`*.`
    /// left off).
    private let exactGroups: [String: Int]
    private let wildcardGroups: [String: Int]

    /// Creates a table.
    public init(apps: [App]) { self.init(apps: apps, mergeBudget: nil) }

    /// Creates a table whose merged indexes hold at most `mergeBudget` rules in all (by default, four times the
    /// apps' rules): past it, the apps on a host are decided one by one.
    init(apps: [App], mergeBudget: Int?) {
      self.apps = apps
      var claimants: [String: [Int]] = [:]
      var exact: Set<String> = []
      var wildcards: Set<String> = []
      for (index, app) in apps.enumerated() {
        for scope in app.scopes {
          if scope.wildcard { wildcards.insert(scope.host) } else { exact.insert(scope.host) }
          if claimants[scope.host]?.last != index { claimants[scope.host, default: []].append(index) }
        }
      }
      // The apps claiming `host` or one of its parent domains, in table order: the only ones that may govern it.
      func claiming(_ host: String) -> [Int] {
        var found: [Int] = claimants[host] ?? []
        var rest = Substring(host)
        while let dot = rest.firstIndex(of: ".") {
          rest = rest[rest.index(after: dot)...]
          found += claimants[String(rest)] ?? []
        }
        return Set(found).sorted()
      }
      // Merged indexes repeat rules (an app under a wildcard is in every group below it), so they get a budget
      // linear in the rules; groups past it are decided app by app, with the same verdicts.
      var budget =
        mergeBudget ?? 4 * apps.reduce(0) { $0 + $1.scopes.reduce(0) { $0 + $1.program.rules.count } } + 4_096
      func group(_ members: [(app: Int, scope: Scope)]) -> Group? {
        guard !members.isEmpty else { return nil }
        let size = members.count > 1 ? members.reduce(0) { $0 + $1.scope.program.rules.count } : 0
        let merge = size <= budget
        if merge { budget -= size }
        return Group(members: members.map { (apps[$0.app].appID, $0.scope) }, merge: merge)
      }
      var groups: [Group] = []
      var exactGroups: [String: Int] = [:]
      for host in exact.sorted() {
        if let group = group(claiming(host).compactMap { i in apps[i].scope(for: host).map { (i, $0) } }) {
          exactGroups[host] = groups.count
          groups.append(group)
        }
      }
      var wildcardGroups: [String: Int] = [:]
      for host in wildcards.sorted() {
        // A host below `host` that no app claims exactly.
        if let group = group(claiming(host).compactMap { i in apps[i].scope(below: host).map { (i, $0) } }) {
          wildcardGroups[host] = groups.count
          groups.append(group)
        }
      }
      self.groups = groups
      self.exactGroups = exactGroups
      self.wildcardGroups = wildcardGroups
      hosts = HostIndex(
        exact: exactGroups.map { ($0.key, $0.value) }, wildcard: wildcardGroups.map { ($0.key, $0.value) })
    }

    /// The apps that govern `host` (lower-cased): those with an entry for it, else those whose wildcard covers it.
    func group(for host: String) -> Group? { groupNumber(for: host).map { groups[$0] } }

    private func groupNumber(for host: String) -> Int? {
      if host.utf8.allSatisfy({ $0 < 0x80 }) {
        var host = host
        return host.withUTF8 { hosts.group($0) }
      }
      if let number = exactGroups[host] { return number }
      var rest = Substring(host)
      while let dot = rest.firstIndex(of: ".") {
        rest = rest[rest.index(after: dot)...]
        if let number = wildcardGroups[String(rest)] { return number }
      }
      return nil
    }

    /// Calls `body` with group `number`, borrowed: a URL on a host dozens of apps claim would otherwise retain and
    /// release the same group on every thread deciding URLs.
    @inline(__always)
    private func withGroup<Result>(_ number: Int, _ body: (Group) -> Result) -> Result {
      groups.withUnsafeBufferPointer { Unmanaged.passUnretained($0[number])._withUnsafeGuaranteedRef(body) }
    }

    /// What iOS would do with `url`: only http and https URLs can open an app.
    public func decide(_ url: UniversalLinkURL) -> Decision {
      guard url.scheme == "https" || url.scheme == "http", let number = groupNumber(for: url.host) else {
        return Decision(verdict: .noMatch)
      }
      var subject = Subject(url)
      return withGroup(number) { decide($0, &subject) }
    }

    private func decide(_ group: Group, _ subject: inout Subject) -> Decision {
      var exclusion: Decision? = nil
      var opened: Decision? = nil
      group.decide(&subject) { member, rule in
        let decision = group.decision(member, rule)
        // Any app that opens the URL wins over an earlier app that excludes it.
        if decision.verdict == .match {
          opened = decision
          return false
        }
        if exclusion == nil { exclusion = decision }
        return true
      }
      return opened ?? exclusion ?? Decision(verdict: .noMatch)
    }

    /// Every app's own verdict on `url` that is not `no-match`, in table order: the apps whose rules open it and
    /// those whose rules exclude it. What `who-claims --urls` reports.
    public func decisions(_ url: UniversalLinkURL) -> [Decision] {
      guard url.scheme == "https" || url.scheme == "http", let number = groupNumber(for: url.host) else { return [] }
      var subject = Subject(url)
      return withGroup(number) { decisions($0, &subject) }
    }

    /// The same for the URL `string`; nil when it is not an absolute http or https URL with a host.
    public func decisions(_ string: String) -> [Decision]? {
      var scratch = Scratch()
      return decisions(string, reusing: &scratch)
    }

    /// The same, preparing the URL in `scratch`'s memory: a thread deciding URLs one after another passes the same
    /// scratch each time, and a URL then costs no allocation for its texts.
    public func decisions(_ string: String, reusing scratch: inout Scratch) -> [Decision]? {
      switch prepare(string) {
      case .prepared(let number, let text, let parts):
        var subject = Subject(text, parts, arena: scratch.arena(for: text))
        return withGroup(number) { decisions($0, &subject) }
      case .unclaimed: return []
      case .notWeb: return nil
      case .unparsed:
        guard let url = UniversalLinkURL(string: string), url.scheme == "https" || url.scheme == "http" else {
          return nil
        }
        return decisions(url)
      }
    }

    private func decisions(_ group: Group, _ subject: inout Subject) -> [Decision] {
      var out: [Decision] = []
      // One preparation of the URL serves every app claiming the host.
      group.decide(&subject) { member, rule in
        out.append(group.decision(member, rule))
        return true
      }
      return out
    }

    /// A URL string read in place when the plain parser takes it: its host's apps and where its parts are, else
    /// why no app can open it; `unparsed` when only the general parser takes it.
    private enum Prepared {
      /// The number of the host's group, the URL (as UTF-8) and its parts. The caller makes the ``Subject``: moved
      /// out of an enum, its few hundred bytes were copied twice per URL.
      case prepared(Int, String, UniversalLinkURL.PlainParts)
      /// An http or https URL whose host no app claims.
      case unclaimed
      case notWeb
      case unparsed
    }

    /// Memory that deciding URLs one after another reuses (see ``decide(_:reusing:)``); one per thread.
    public struct Scratch {
      private var arena: LinkRuntime.TextArena? = nil

      /// Creates an empty scratch.
      public init() {}

      /// An empty arena for the texts of `source`: the last URL's, when nothing holds it any more.
      mutating func arena(for source: String) -> LinkRuntime.TextArena {
        if isKnownUniquelyReferenced(&arena), let arena {
          arena.reset(source: source)
          return arena
        }
        let made = LinkRuntime.TextArena.make(source: source)
        arena = made
        return made
      }
    }

    private func prepare(_ string: String) -> Prepared {
      var text = string
      // The host is looked up from the URL's bytes: no string of it is made.
      let plain = text.withUTF8 { bytes -> (UniversalLinkURL.PlainParts, Int??)? in
        UniversalLinkURL.PlainParts(bytes).map { parts in
          (parts, parts.isWeb(in: bytes) ? .some(hosts.group(UnsafeBufferPointer(rebasing: bytes[parts.host]))) : nil)
        }
      }
      guard let plain else { return .unparsed }
      guard let host = plain.1 else { return .notWeb }
      guard let number = host else { return .unclaimed }
      return .prepared(number, text, plain.0)
    }

    /// What iOS would do with the URL `string`; a string that is not an absolute URL opens nothing.
    public func decide(_ string: String) -> Decision {
      var scratch = Scratch()
      return decide(string, reusing: &scratch)
    }

    /// The same, preparing the URL in `scratch`'s memory, as ``decisions(_:reusing:)`` does.
    public func decide(_ string: String, reusing scratch: inout Scratch) -> Decision {
      switch prepare(string) {
      case .prepared(let number, let text, let parts):
        var subject = Subject(text, parts, arena: scratch.arena(for: text))
        return withGroup(number) { decide($0, &subject) }
      case .unclaimed, .notWeb: return Decision(verdict: .noMatch)
      case .unparsed:
        guard let url = UniversalLinkURL(string: string) else { return Decision(verdict: .noMatch) }
        return decide(url)
      }
    }
  }
}

extension LinkRuntime.Table {
  /// The apps that govern one host, each with the entry it is decided on, in table order. With several apps their
  /// rules are merged into one index, so a URL on a host hundreds of apps claim is looked up once, not once per app.
  final class Group: Sendable {
    let programs: [LinkRuntime.RuleProgram.Core]
    /// The first member's program and the number of members, held in the group itself: most hosts have one app,
    /// and reaching its program through the array would be one more cache miss per URL.
    private let first: LinkRuntime.RuleProgram.Core
    private let count: Int
    /// In the merged numbering, where each app's rules start, and the total at the end.
    let bases: [Int32]
    /// What each rule decides when it matches, in the merged numbering: its verdict, its app and its pointer, made
    /// once, so deciding a URL reads one record, not the app's entry and then the rule's.
    let decisions: [LinkRuntime.Table.Decision]
    /// Every app's rules, app after app; nil when the apps are tried one by one.
    let index: LinkRuntime.CandidateIndex?

    /// Groups `members`, at least one, in table order: each an app's ID and its entry for the host.
    init(members: [(appID: String, scope: LinkRuntime.Table.Scope)], merge: Bool) {
      programs = members.map(\.scope.program.core)
      first = programs[0]
      count = programs.count
      let rules = members.map(\.scope.program.rules)
      decisions = members.flatMap { member in
        member.scope.program.rules.map { rule in
          LinkRuntime.Table.Decision(
            verdict: rule.exclude ? .exclude : .match, appID: member.appID, pointer: rule.pointer)
        }
      }
      var bases: [Int32] = [0]
      for rules in rules { bases.append(bases[bases.count - 1] + Int32(rules.count)) }
      self.bases = bases
      index =
        merge && programs.count > 1
        ? LinkRuntime.CandidateIndex(filters: programs.flatMap(\.filters), paths: rules.flatMap { $0.map(\.path) })
        : nil
    }

    /// Calls `found` with each app (a position among the members) whose rules decide the URL, and the deciding
    /// rule, in table order, until it returns false.
    func decide(_ subject: inout LinkRuntime.Subject, _ found: (Int, Int) -> Bool) {
      guard let index else {
        for member in 0..<count {
          if let rule = program(member, { $0.firstMatch(&subject) }), !found(member, rule) { return }
        }
        return
      }
      index.withCandidates(&subject) { candidates, listed, subject in
        // Candidates come app by app, each app's in rule order: an app's first match decides it.
        var member = 0
        var decided = -1
        for candidate in candidates {
          let id = LinkRuntime.CandidateIndex.rule(candidate)
          while Int(bases[member + 1]) <= id { member += 1 }
          guard member != decided else { continue }
          let rule = id - Int(bases[member])
          let listed = listed[LinkRuntime.CandidateIndex.position(candidate)]
          guard program(member, { $0.matches(listed, number: rule, &subject) }) else { continue }
          decided = member
          if !found(member, rule) { return }
        }
      }
    }

    /// Calls `body` with member `member`'s program, borrowed: the programs of a host many apps claim are shared by
    /// every thread deciding URLs, and retaining one is a write to its first cache line.
    @inline(__always)
    private func program<Result>(_ member: Int, _ body: (LinkRuntime.RuleProgram.Core) -> Result) -> Result {
      if member == 0 { return Unmanaged.passUnretained(first)._withUnsafeGuaranteedRef(body) }
      return programs.withUnsafeBufferPointer { Unmanaged.passUnretained($0[member])._withUnsafeGuaranteedRef(body) }
    }

    /// What rule `rule` of member `member` decides when it matches.
    @inline(__always)
    func decision(_ member: Int, _ rule: Int) -> LinkRuntime.Table.Decision {
      decisions.withUnsafeBufferPointer { $0[(member == 0 ? 0 : Int(bases[member])) + rule] }
    }
  }
}

// MARK: - Reading the rules document

extension LinkRuntime.Table: Decodable {
  private enum CodingKeys: String, CodingKey { case apps }

  private struct AppEntry: Decodable {
    let appID: String
    let scopes: [ScopeEntry]?
  }

  private struct ScopeEntry: Decodable {
    let host: String
    let wildcard: Bool?
    let rules: [LinkRuntime.Rule]?
  }

  /// Reads and compiles the `apps` of a rules document; ``LinkRuntime/choicesKey`` must carry its `choices`.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let entries = try c.decodeIfPresent([AppEntry].self, forKey: .apps) ?? []
    var builder = LinkRuntime.PatternBuilder()
    let apps = entries.map { app in
      LinkRuntime.Table.App(
        appID: app.appID,
        scopes: (app.scopes ?? []).map { scope in
          LinkRuntime.Table.Scope(
            host: scope.host, wildcard: scope.wildcard ?? false,
            program: LinkRuntime.RuleProgram(rules: scope.rules ?? [], builder: &builder))
        })
    }
    self.init(apps: apps)
  }
}
