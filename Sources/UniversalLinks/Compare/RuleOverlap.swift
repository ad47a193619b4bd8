/// Where the `details` entries of one AASA file open the same URLs, and which entry wins them.
///
/// iOS consults a file's `details` entries in order and uses a later one only when the earlier ones did not match
/// (Apple Frameworks Engineer, developer forums thread 649423: the second section "is only consulted if the first
/// section didn't match any"). So when two entries both open a URL, the apps of the earlier entry get it. An
/// auditor of a host shared by several apps wants exactly this: whose rules win for which paths.
///
/// Examples come from the same sampler as ``AASAComparison``: every rule's patterns instantiated several ways, each
/// URL decided by every entry's compiled rules. Only a URL that the winner opens (`match`) and that no earlier entry
/// excludes is reported, so an example is never claimed where iOS's choice is in doubt.
public struct RuleOverlap: Sendable, Equatable, Codable {
  /// The entry whose apps open ``example``: the earliest in the file that matches it.
  public var winner: Int
  /// Later entries that would also open ``example`` but are never consulted for it.
  public var shadowed: [Int]
  /// A URL both decide as `match`.
  public var example: String
  /// The winner's deciding rule, by JSON pointer.
  public var winnerPointer: String
  /// Each shadowed entry's deciding rule, by JSON pointer, in the order of ``shadowed``.
  public var shadowedPointers: [String]

  /// At most `limit` overlaps between the entries of one file on `host`: one example per pair (winner, first
  /// shadowed entry), in file order. `entries` maps a `details` index to the rules of an app that entry lists
  /// (every app of one entry has the same rules, so one is enough).
  public static func find(entries: [Int: AppLinkRules], host: String, limit: Int = 20) -> [RuleOverlap] {
    let order = entries.keys.sorted()
    guard order.count > 1 else { return [] }
    let compiled = order.map { index in
      let rules = entries[index].map { $0.exceedsDeviceSizeLimit ? [] : $0.runtimeRules(keepingNever: false) } ?? []
      return (index: index, rules: rules, program: LinkRuntime.RuleProgram(rules: rules))
    }
    var seenPairs = Set<[Int]>()
    var seenURLs = Set<String>()
    var out: [RuleOverlap] = []
    search: for side in compiled {
      for rule in side.rules where !rule.exclude {
        for url in URLSampler.urls(for: rule, host: host) where seenURLs.insert(url.absoluteString).inserted {
          var winner: (index: Int, pointer: String)?
          var shadowed: [(index: Int, pointer: String)] = []
          for other in compiled {
            guard let hit = other.program.firstMatch(url) else { continue }
            let decided = other.rules[hit]
            if winner == nil {
              // An earlier entry that excludes the URL leaves iOS's choice undocumented: no claim.
              if decided.exclude { break }
              winner = (other.index, decided.pointer)
            } else if !decided.exclude {
              shadowed.append((other.index, decided.pointer))
            }
          }
          guard let winner, let first = shadowed.first, seenPairs.insert([winner.index, first.index]).inserted
          else { continue }
          out.append(
            RuleOverlap(
              winner: winner.index, shadowed: shadowed.map(\.index), example: url.absoluteString,
              winnerPointer: winner.pointer, shadowedPointers: shadowed.map(\.pointer)))
          if out.count >= limit { break search }
        }
      }
    }
    return out.sorted { ($0.winner, $0.shadowed.first ?? 0) < ($1.winner, $1.shadowed.first ?? 0) }
  }
}
