import Foundation
import IPALinksKit
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where a store's work runs: the event loop its connection answers on, which a run's ``RunRecorder`` runs on too,
/// and the thread pool that prepares a run's rows and runs SQLite's statements.
///
/// A run recorded alongside an inspection (``background``) works on threads of its own, below the command's: the
/// inspection and the output, which the user waits for, run first, and the store takes the time they leave. Its
/// bounded queue (``RecordingRun/queueLimit``) holds the command back only when the store falls that far behind, so a
/// store starved of time slows the run rather than grow its memory.
struct StoreThreads: Sendable {
  /// The event loop the connection answers on.
  let loop: any EventLoop
  /// The threads that prepare rows and run SQLite's statements.
  let pool: NIOThreadPool

  /// NIO's shared threads, at the command's priority: for commands whose work is the store's.
  static let shared = StoreThreads(loop: MultiThreadedEventLoopGroup.singleton.next(), pool: .singleton)

  /// One event loop and one pool thread, each lowered by its first task, before any other reaches it.
  static let background: StoreThreads = {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let loop = group.next()
    loop.execute { lowerThisThread() }
    let pool = NIOThreadPool(numberOfThreads: 1)
    pool.start()
    pool.submit { _ in lowerThisThread() }
    return StoreThreads(loop: loop, pool: pool)
  }()

  /// Lowers the calling thread: nice 10 on Linux, where the nice value is each thread's own and raising it needs no
  /// privilege (`who` 0 is the calling thread); the utility class on Darwin.
  private static func lowerThisThread() {
    #if canImport(Glibc)
      _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
    #elseif canImport(Darwin)
      _ = pthread_set_qos_class_self_np(QOS_CLASS_UTILITY, 0)
    #endif
  }

  /// Inputs of at least this many bytes are hashed on ``hashing``: reading one takes a few milliseconds or more
  /// (SHA-256 runs at 1.5 to 2 GB/s), more than preparing the rest of an input.
  static let largeInput: Int64 = 4 << 20

  /// The threads that hash large inputs, one per core, each task lowered as ``background``'s threads are. Their
  /// digests are most of what a first run of IPAs of real size costs the store (16 of 200 MB: 2.1 s to record, 0.05 s
  /// to inspect), and one pool thread read them one at a time; small inputs stay on ``pool``, where more threads
  /// cost a corpus of small IPAs more than they saved.
  static let hashing: NIOThreadPool = {
    let pool = NIOThreadPool(numberOfThreads: max(2, System.coreCount))
    pool.start()
    return pool
  }()

  /// ``RunRecorder/prepare(_:retrievals:at:digests:)`` on ``pool``; a large input (``largeInput``) is hashed on
  /// ``hashing`` first, so several are read at once.
  func prepare(
    _ report: InspectionReport, retrievals: [AASARequest: AASARetrieval]?, at time: Date, digests: InputDigests,
    hashing: HashingProgress? = nil
  ) async -> RunRecorder.Prepared {
    // nil for a small input, hashed with the rest on `pool`; a large one's facts, nil too when it could not be read.
    let size = InputDigests.size(ofRegularFile: report.input) ?? 0
    let hashed: InputDigests.Facts?? =
      size >= Self.largeInput
      ? await Self.run(on: Self.hashing) {
        Self.lowerThisThread()
        hashing?.begin(size)
        var read: Int64 = 0
        defer { hashing?.end(size, read: read) }
        return digests.facts(report.input) { count in
          read += Int64(count)
          hashing?.read(count)
        }
      } : nil
    return await Self.run(on: pool) {
      RunRecorder.prepare(
        report, retrievals: retrievals, at: time, digests: digests, file: hashed ?? digests.facts(report.input))
    }
  }

  /// `body` on `pool`, or on the caller's thread when the pool was shut down (never, for these), rather than lose
  /// the input.
  private static func run<T: Sendable>(on pool: NIOThreadPool, _ body: @escaping @Sendable () -> T) async -> T {
    do { return try await pool.runIfActive(body) } catch { return body() }
  }
}

/// How far the large inputs being hashed have been read, for the bar a run's tail shows: one input of gigabytes may
/// take a minute from a slow disk.
final class HashingProgress: Sendable {
  private let counts = NIOLockedValueBox<(read: Int64, of: Int64)>((0, 0))

  /// The bytes read of the inputs being hashed now, and their sizes; (0, 0) when none is.
  var now: (read: Int64, of: Int64) { counts.withLockedValue { $0 } }

  func begin(_ size: Int64) { counts.withLockedValue { $0.of += size } }
  func read(_ count: Int) { counts.withLockedValue { $0.read += Int64(count) } }
  func end(_ size: Int64, read: Int64) { counts.withLockedValue { ($0.read, $0.of) = ($0.read - read, $0.of - size) } }
}
