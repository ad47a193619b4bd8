import Dispatch

/// `transform` applied to `0..<count` on up to `workers` threads at once, in contiguous chunks of at least
/// `minimumChunk`, with the outputs in index order: for batches of independent, CPU-bound items (URLs to decide,
/// inventory lines to decode, stored reports to read) on a machine with cores to spare.
public func parallelMap<Output: Sendable>(
  _ count: Int, workers: Int, minimumChunk: Int = 256, _ transform: @Sendable (Int) -> Output
) -> [Output] {
  parallelMap(count, workers: workers, minimumChunk: minimumChunk, state: {}) { _, k in transform(k) }
}

/// The same, each chunk's items transformed in order with one `State` that `state` makes for the chunk: memory a
/// thread reuses from one item to the next.
func parallelMap<Output: Sendable, State>(
  _ count: Int, workers: Int, minimumChunk: Int = 256, state: @Sendable () -> State,
  _ transform: @Sendable (inout State, Int) -> Output
) -> [Output] {
  let chunks = max(1, min(workers, count / max(minimumChunk, 1)))
  guard chunks > 1 else {
    var local = state()
    return (0..<count).map { transform(&local, $0) }
  }
  let outputs = UnsafeMutableBufferPointer<Output>.allocate(capacity: count)
  defer { outputs.deallocate() }
  // Each chunk initializes its own range of the buffer, so the writes never overlap; all are initialized when
  // concurrentPerform returns.
  nonisolated(unsafe) let shared = outputs
  DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
    var local = state()
    for k in (count * chunk / chunks)..<(count * (chunk + 1) / chunks) {
      (shared.baseAddress! + k).initialize(to: transform(&local, k))
    }
  }
  let result = Array(outputs)
  _ = outputs.deinitialize()
  return result
}
