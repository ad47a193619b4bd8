/// Deterministic randomness, so every benchmark run measures the same work (SplitMix64).
public struct SplitMix: RandomNumberGenerator {
  /// The generator's state; the seed.
  public var state: UInt64

  /// A generator seeded with `state`.
  public init(state: UInt64) { self.state = state }

  /// The next 64 random bits.
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// A duration in seconds, for rates.
public func seconds(_ d: Duration) -> Double {
  Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
}
