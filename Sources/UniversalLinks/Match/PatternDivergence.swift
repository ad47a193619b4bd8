/// Where a value stops fitting a prepared pattern: what `match --explain` says of a key that does not match, beyond
/// a length the value cannot have. Off the hot path: it runs only when a trace is explained.
enum PatternDivergence {
  /// One step of a pattern, literals split into scalars.
  private enum Step {
    case scalar(Unicode.Scalar)
    case any
    case star
    case choice([[Step]])
  }

  /// A place in the pattern: a top-level step, and inside a choice, the alternative and the step within it.
  private struct State: Hashable {
    var top: Int
    var alternative = -1
    var inner = 0
  }

  /// How many scalars of `value` some string the pattern matches can begin with, and whether the whole value
  /// matches.
  /// `cut` when the walk outgrew ``budget`` (a hostile file's `*?*?…` over a long query: 83 s for one URL): then
  /// `prefix` is as far as it got, and nothing is claimed about the rest.
  static func progress(_ pieces: [LinkRuntime.Piece], _ value: String) -> (prefix: Int, complete: Bool, cut: Bool) {
    let steps = compile(pieces)
    let scalars = Array(value.unicodeScalars)
    var states = closure([State(top: 0)], steps)
    var prefix = 0
    var spent = 0
    for scalar in scalars {
      spent += states.count
      if spent > budget { return (prefix, false, true) }
      let next = closure(states.flatMap { advance($0, over: scalar, steps) }, steps)
      if next.isEmpty { return (prefix, false, false) }
      states = next
      prefix += 1
    }
    return (prefix, states.contains { $0.top == steps.count }, false)
  }

  /// The states one explanation may walk through, summed over the value's scalars: a bound on its time whatever
  /// the pattern, far above what real rules and URLs take.
  static let budget = 200_000

  /// Why `value` does not match `pieces`, in words: after which prefix it goes wrong and what the pattern needs
  /// there, or that it ends before the pattern does.
  static func reason(_ pieces: [LinkRuntime.Piece], _ value: String) -> String? {
    let (prefix, complete, cut) = progress(pieces, value)
    guard !complete else { return nil }
    if cut { return "the pattern and the value are too long to say where they part" }
    let scalars = Array(value.unicodeScalars)
    let read = String(String.UnicodeScalarView(scalars[..<prefix]))
    let rest = String(String.UnicodeScalarView(scalars[prefix...]))
    let steps = compile(pieces)
    var states = closure([State(top: 0)], steps)
    for scalar in scalars[..<prefix] { states = closure(states.flatMap { advance($0, over: scalar, steps) }, steps) }
    let needs = expected(states, steps)
    if scalars.isEmpty { return "it is empty, and the pattern needs \(needs)" }
    if prefix == scalars.count { return "it ends after \"\(read)\", where the pattern needs \(needs) next" }
    let place = prefix == 0 ? "from the start" : "after \"\(read)\""
    return "\(place) the pattern needs \(needs), not \"\(rest)\""
  }

  /// What the pattern accepts next from `states`: a run of literal text when only that fits, else the characters
  /// that may come next.
  private static func expected(_ states: [State], _ steps: [Step]) -> String {
    var literals: Set<Unicode.Scalar> = []
    var wild = false
    for state in states {
      switch step(at: state, steps) {
      case .scalar(let c)?: literals.insert(c)
      case .any?, .star?: wild = true
      case .choice?, nil: break
      }
    }
    if wild { return literals.isEmpty ? "a character" : "a character" }
    if literals.count == 1, var run = literals.first.map({ String($0) }) {
      // Follow the one literal path while it stays one, for a readable run such as "buy/".
      var current = states
      while let c = run.unicodeScalars.last {
        current = closure(current.flatMap { advance($0, over: c, steps) }, steps)
        let nexts = current.map { step(at: $0, steps) }
        guard nexts.count > 0, case .scalar(let n)? = nexts[0],
          nexts.allSatisfy({ if case .scalar(n)? = $0 { true } else { false } }), run.unicodeScalars.count < 40
        else { break }
        run.unicodeScalars.append(n)
      }
      return "\"\(run)\""
    }
    let sorted = literals.sorted { $0.value < $1.value }
    guard let first = sorted.first, let last = sorted.last else { return "nothing more" }
    // A run such as $(digit)'s reads as its ends.
    if sorted.count > 3 && Int(last.value - first.value) == sorted.count - 1 {
      return "one of \"\(first)\"–\"\(last)\""
    }
    let quoted = sorted.map { "\"\($0)\"" }
    return "one of "
      + (quoted.count > 6
        ? quoted.prefix(5).joined(separator: ", ") + ", … (\(quoted.count) in all)" : quoted.joined(separator: ", "))
  }

  private static func compile(_ pieces: [LinkRuntime.Piece]) -> [Step] {
    pieces.flatMap { piece -> [Step] in
      switch piece {
      case .literal(let text): text.unicodeScalars.map(Step.scalar)
      case .any: [.any]
      case .star: [.star]
      case .choice(let alternatives): [.choice(alternatives.map(compile))]
      }
    }
  }

  private static func step(at state: State, _ steps: [Step]) -> Step? {
    guard state.top < steps.count else { return nil }
    guard state.alternative >= 0, case .choice(let alternatives) = steps[state.top] else { return steps[state.top] }
    let alternative = alternatives[state.alternative]
    return state.inner < alternative.count ? alternative[state.inner] : nil
  }

  /// The states reachable without reading: past stars (which may match nothing), into a choice's alternatives, and
  /// out of an alternative at its end.
  private static func closure(_ states: [State], _ steps: [Step]) -> [State] {
    var seen = Set<State>()
    var out: [State] = []
    var pending = states
    while let state = pending.popLast() {
      guard seen.insert(state).inserted else { continue }
      out.append(state)
      guard state.top < steps.count else { continue }
      if state.alternative < 0, case .choice(let alternatives) = steps[state.top] {
        for index in alternatives.indices { pending.append(State(top: state.top, alternative: index, inner: 0)) }
        continue
      }
      if state.alternative >= 0, case .choice(let alternatives) = steps[state.top],
        state.inner == alternatives[state.alternative].count
      {
        pending.append(State(top: state.top + 1))
        continue
      }
      if case .star? = step(at: state, steps) { pending.append(moved(state)) }
    }
    return out
  }

  /// The states after reading `scalar` from `state`.
  private static func advance(_ state: State, over scalar: Unicode.Scalar, _ steps: [Step]) -> [State] {
    switch step(at: state, steps) {
    case .scalar(let c)? where c == scalar: [moved(state)]
    case .any?: [moved(state)]
    case .star?: [state]
    default: []
    }
  }

  private static func moved(_ state: State) -> State {
    var next = state
    if next.alternative >= 0 { next.inner += 1 } else { next.top += 1 }
    return next
  }
}
