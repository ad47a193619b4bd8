import Foundation
import IPALinksKit
import NIOConcurrencyHelpers

extension AuditStore {
  /// Opens the store at `location` (made if `creating`, else only if it exists), runs `body` on it and closes it;
  /// nil, after telling `warn` the one line why, when the store cannot be opened or `body` fails.
  public static func reading<T: Sendable>(
    _ location: StoreLocation, creating: Bool = false, warn: (String) -> Void, _ body: (AuditStore) async throws -> T
  ) async -> T? {
    let store: AuditStore
    do { store = try await open(location, creating: creating) } catch {
      warn(error.description)
      return nil
    }
    var result: T?
    do { result = try await body(store) } catch {
      warn((error as? Failure)?.description ?? "\(location): \(location.masking("\(error)"))")
    }
    try? await store.close()
    return result
  }

  /// `store import`: each saved inventory (`.json`, `.jsonl`, `-`) as a run of its own, labelled `label` or the
  /// file's name (none for `-` or a name that reads as a time or a run's number) and observed when the file was saved
  /// (its modification time, and now for standard input or a time after this clock).
  ///
  /// `console` shows each file's inputs as they are stored (a bar on a terminal, naming the file), and Ctrl-C then
  /// says what the store holds.
  ///
  /// Returns the exit code: 0 all imported; 1 some file could not be read (the others are imported); 2 none could
  /// be, or the store cannot be written.
  public static func importInventories(
    _ files: [String], into location: StoreLocation, label: String?, arguments: [String],
    console: BatchConsole? = nil, warn: (String) -> Void
  ) async -> Int32 {
    let store: AuditStore
    do { store = try await open(location) } catch {
      warn(error.description)
      return 2
    }
    var (imported, failed) = (0, 0)
    // The file being imported, its run once begun, its inputs (nil: read from a pipe, not counted ahead), those
    // written and the files done before it: what a failure and Ctrl-C (on its own thread, hence the lock) say the
    // store holds.
    var recorder: RunRecorder?
    let held = NIOLockedValueBox((file: "", run: Int?.none, inputs: Int?.none, written: 0, imported: 0))
    if console != nil {
      InterruptWatch.note { [count = files.count] in
        let now = held.withLockedValue { $0 }
        guard let run = now.run else { return nil }
        return "\(location): the store holds \(Self.holding(now.written, of: now.inputs, in: now.file)) in run \(run), "
          + "left unfinished" + (count > 1 ? "; \(now.imported) of the \(count) files imported before it" : "")
      }
    }
    let workers = ProcessInfo.processInfo.activeProcessorCount
    for file in files {
      recorder = nil
      // The inputs of the transaction under way: what a commit lost with its answer may have stored.
      var writing = 0
      do {
        // Read a batch at a time: an inventory of JSON Lines may be larger than memory, and its first batch is read
        // before a run begins, so a file that is not an inventory leaves none.
        let reading = try await Reading.open(file, workers: workers)
        guard let batch = try await reading.next({ try $0.next(RecordingRun.queueLimit) }) else {
          throw InventoryReader.Failure(description: "\(file): no inventory found")
        }
        // A file time after this clock (a copy from a machine whose clock is ahead) would put the inventory ahead of
        // every run until then, each of which it would hide: taken as now, and said.
        let saved = file == "-" ? AuditStore.now : savedAt(file)
        let future = saved.timeIntervalSince(AuditStore.now) > 60
        if future {
          warn(
            "warning: \(TerminalText.escape(file)) was modified at \(StoreText.time(AuditStore.timestamp(saved))) UTC, "
              + "after this clock: imported as of now, so that it does not hide the runs until then")
        }
        let time = future ? AuditStore.now : saved
        // The file's name labels the run unless it would read as a time, an age or a run's number (`--at 1` then
        // found the import labelled `1`, not run 1), or is `-`.
        let named = file == "-" || Int64(file) != nil || StoreTime.labelProblem(file) != nil ? nil : file
        let run = try await RunRecorder.begin(
          store, command: "store import", arguments: arguments, label: label ?? named, shard: nil, at: time)
        recorder = run
        let expected = reading.expected
        held.withLockedValue { $0 = (file, run.run, expected, 0, imported) }
        if let expected { console?.begin(total: expected) } else { console?.beginUncounted() }
        console?.started(file == "-" ? "standard input" : file)
        // Prepared on every core, and written as many per transaction as a run that falls behind writes. An
        // inventory does not say what its input files were, and the file at such a path now may be another (a later
        // week's IPA): it is neither read nor taken for the input, whose size and SHA-256 stay unknown.
        let prepare = { @Sendable (batch: InventoryStream.Batch) throws in
          try AuditStore.concurrentMap(batch.reports, chunk: 4) {
            RunRecorder.prepare($0, retrievals: nil, at: time, digests: InputDigests(), file: nil)
          }
        }
        // The next batch is read and prepared while this one is written.
        let ahead = {
          Task {
            try await reading.next { stream in
              try stream.next(RecordingRun.queueLimit).map { ($0, try prepare($0)) }
            }
          }
        }
        var current: (InventoryStream.Batch, [RunRecorder.Prepared])? = (batch, try prepare(batch))
        var (handled, skipped) = (0, 0)
        while let (batch, prepared) = current {
          let next = ahead()
          do {
            for line in batch.skipped {
              skipped += 1
              guard skipped <= InventoryStream.skippedLinesNamed else { continue }
              if let console { console.problem(line.description) } else { warn(line.description) }
            }
            writing = prepared.count
            if !prepared.isEmpty { try await run.record(prepared) }
            writing = 0
          } catch {
            // The stream is let go only once the batch read ahead is done with it.
            _ = await next.result
            throw error
          }
          held.withLockedValue { $0.written += batch.reports.count }
          handled += batch.reports.count + batch.skipped.count
          console?.moved(to: handled)
          current = try await next.value
        }
        try await run.finish(at: time)
        console?.end()
        let written = held.withLockedValue { $0.written }
        if skipped > 0 {
          warn(
            InventoryStream.skippedSummary(reading.name, skipped: skipped)
              + "; run \(run.run) holds the other \(TerminalText.count(written, "input"))")
          failed += 1
        } else {
          // What was made, as `refresh` says its run: the run's number is what `--at` and `store runs` know it by.
          console?.say(
            "\(reading.name): \(TerminalText.count(written, "input")) imported as run \(run.run)"
              + (label.map { " (\($0))" } ?? ""))
        }
        imported += 1
      } catch let failure as Failure {
        console?.end()
        // The store stopped taking runs: said once, with what is missing, and nothing more is tried.
        var line =
          failure.description + "; \(files.count - imported) of \(TerminalText.count(files.count, "file")) not imported"
        if let run = recorder {
          let (inputs, stored) = (held.withLockedValue { $0.inputs }, await run.storedInputs)
          line += ": run \(run.run) holds \(Self.holding(stored, of: inputs, in: file)) and is left unfinished"
          if failure.commitUnknown && writing > 0 {
            line += " (or \(stored + writing), if the transaction of \(writing) lost as it committed went through)"
          }
        }
        warn(line)
        (imported, failed) = (0, failed + 1)
        break
      } catch {
        console?.end()
        // The file could not be read on (its disk failed midway): what its run holds stays, unfinished.
        var line = "\(error)"
        if let run = recorder {
          let now = held.withLockedValue { $0 }
          line += "; run \(run.run) holds \(Self.holding(now.written, of: now.inputs, in: file)) and is left unfinished"
        }
        warn(line)
        failed += 1
      }
    }
    held.withLockedValue { $0.run = nil }
    await store.close(removingIfEmpty: imported == 0)
    return imported == 0 ? 2 : failed > 0 ? 1 : 0
  }

  /// An inventory being read, on a thread of its own: a read waits on the file, and a pipe's on its writer (an
  /// `inspect` between two inputs), which must not hold one of Swift concurrency's few threads. One read at a time.
  private final class Reading: @unchecked Sendable {
    /// Made, read and let go on `queue` alone.
    private var stream: InventoryStream?
    private let queue: DispatchQueue
    /// The file's reports counted ahead (``InventoryStream/expected``); nil from a pipe.
    private(set) var expected: Int?
    /// The file as messages name it (``InventoryStream/name``).
    let name: String

    // Every field but the stream is written by the task that opens the file, the stream on the reading thread only:
    // ThreadSanitizer once saw the fields written there and read by a task as a race.
    private init(_ path: String, queue: DispatchQueue) {
      (self.queue, name) = (queue, path == "-" ? "standard input" : path)
    }

    /// `path` opened, and its first line read, on the reading thread.
    static func open(_ path: String, workers: Int) async throws -> Reading {
      let reading = Reading(path, queue: DispatchQueue(label: "ipalinks.store-import.read"))
      reading.expected = try await reading.next(opening: path, workers: workers)
      return reading
    }

    /// Opens the stream on the reading thread; says how many reports it counted ahead.
    private func next(opening path: String, workers: Int) async throws -> Int? {
      try await withCheckedThrowingContinuation { done in
        queue.async {
          done.resume(
            with: Result {
              let stream = try InventoryStream(path: path, workers: workers)
              self.stream = stream
              return stream.expected
            })
        }
      }
    }

    /// `body` of the stream, on the reading thread, after every read asked for before it.
    func next<T: Sendable>(_ body: @escaping @Sendable (InventoryStream) throws -> T) async throws -> T {
      try await withCheckedThrowingContinuation { done in
        queue.async {
          done.resume(
            with: Result {
              // Opened before any read is asked for, on this same queue.
              guard let stream = self.stream else {
                throw InventoryReader.Failure(description: "\(self.name): not open")
              }
              return try body(stream)
            })
        }
      }
    }
  }

  /// `12 of the 40 inputs of week-47.jsonl`, or `12 inputs of standard input` when the file was not counted ahead.
  static func holding(_ written: Int, of inputs: Int?, in file: String) -> String {
    let name = file == "-" ? "standard input" : TerminalText.escape(file)
    guard let inputs else { return "\(TerminalText.count(written, "input")) of \(name)" }
    return "\(written) of the \(TerminalText.count(inputs, "input")) of \(name)"
  }

  /// When a file was saved: its modification time.
  static func savedAt(_ path: String) -> Date {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date) ?? Date()
  }
}

/// A run recorded as a command goes: each input as it finishes, until the store fails, which is told once; the
/// command's own output goes on regardless, and ``finish()`` says whether all of it was stored.
///
/// Recording overlaps the inspection: ``record(_:_:)`` returns once the input is queued, and each input is prepared
/// (its hash, its JSON) on its own task while earlier ones are written, in order. Inputs are written together, each
/// whole, in one transaction: once ``gatherCount`` have queued, or the oldest has waited ``gatherDelay``, or the run
/// ends. A transaction costs about the same for one input as for a few (its statements, its round trips, its
/// commit), so a store slower than the inspection writes more inputs per transaction rather than fall behind, and a
/// fast one does not spend a core on commits. At most ``queueLimit`` inputs wait, so memory stays bounded.
///
/// Its state is behind a lock rather than in an actor: queueing an input is a few steps, and the command that
/// queues it (the one task that writes the output, in order) must not wait for a thread to run them.
public final class RecordingRun: Sendable {
  private let recorder: RunRecorder?
  /// The digests the store holds of the inputs the run expects (``expect(_:)``), being looked up: those of the
  /// files still as they were are not read again. Nil until the inputs are known, when every input is hashed.
  private let digests = NIOLockedValueBox<Task<InputDigests, Never>?>(nil)
  private let warn: @Sendable (String) -> Void
  private let state: NIOLockedValueBox<State>
  /// How far the large inputs being hashed have been read.
  private let hashing = HashingProgress()

  private struct State {
    /// Whether everything so far reached the store.
    var stored: Bool
    /// How many inputs were given to ``record(_:_:)``, how many of them are prepared (hashed, made into rows), and
    /// how many the store holds.
    var given = 0
    var ready = 0
    var written = 0
    /// Why the store stopped taking inputs, once it did, and how many inputs the transaction it failed in held.
    var failure: AuditStore.Failure?
    var lost = 0
    /// The inputs queued and not yet written, oldest first, each being prepared on its own task.
    var queue: [Task<RunRecorder.Prepared, Never>] = []
    /// When the oldest input in `queue` was queued.
    var oldestQueued: ContinuousClock.Instant?
    /// The transaction under way, if any.
    var writing: Task<Void, Never>?
    /// The wake-up that writes the queue once its oldest input has waited ``gatherDelay``; the transaction that
    /// writes the queue first cancels it.
    var gathering: Task<Void, Never>?
    /// Whether the run has ended, so nothing more will queue.
    var ending = false
  }

  /// How many inputs may wait to be written, and so go in one transaction at most.
  public static let queueLimit = 128
  /// How many queued inputs start a transaction without waiting for more.
  static let gatherCount = 64
  /// How long a queued input waits for others to share its transaction: what a crash may lose, besides the inputs
  /// being inspected.
  static let gatherDelay = Duration.milliseconds(200)

  /// Whether everything so far reached the store.
  public var stored: Bool { state.withLockedValue { $0.stored } }

  private let location: StoreLocation
  /// What the run is known by besides its number, said with it when it ends: its label and shard.
  private let naming: String?

  private init(
    _ recorder: RunRecorder?, location: StoreLocation, naming: String? = nil,
    warn: @escaping @Sendable (String) -> Void
  ) {
    self.recorder = recorder
    self.location = location
    self.naming = naming
    self.warn = warn
    let state = NIOLockedValueBox(State(stored: recorder != nil))
    self.state = state
    if let recorder {
      // Ctrl-C ends the command where it is: what the store holds is said with what finished.
      InterruptWatch.note { [run = recorder.run] in
        let (given, written) = state.withLockedValue { ($0.given, $0.written) }
        return
          "\(location): the store holds \(written) of the \(TerminalText.count(given, "input")) handed to it, in run "
          + "\(run), left unfinished" + (given > written ? "; \(given - written) not stored" : "")
      }
    }
  }

  /// The line that says what the store lacks, once it stopped taking inputs: how many were not stored, and what the
  /// run holds.
  private func missing(_ state: State, run: Int) -> String {
    let why = state.failure?.description ?? "\(location): the store stopped taking inputs"
    if state.failure?.fileRemoved == true {
      return "\(why): none of the \(TerminalText.count(state.given, "input")) is stored"
    }
    let unknown = state.failure?.commitUnknown == true ? state.lost : 0
    return "\(why); \(state.given - state.written) of \(TerminalText.count(state.given, "input")) not stored: run "
      + "\(run) holds \(state.written) and is left unfinished"
      + (unknown > 0
        ? " (or \(state.written + unknown), if the transaction of \(unknown) lost as it committed went through)" : "")
  }

  /// Opens the store and starts a run of `command` (see ``RunRecorder/begin(_:command:arguments:label:shard:at:)``);
  /// a store that cannot be opened or written is told to `warn`, and the run records nothing.
  public static func begin(
    _ location: StoreLocation, command: String, arguments: [String], label: String?, shard: String?,
    warn: @escaping @Sendable (String) -> Void
  ) async -> RecordingRun {
    let store: AuditStore
    do { store = try await AuditStore.open(location, inBackground: true) } catch {
      warn(error.description)
      return RecordingRun(nil, location: location, warn: warn)
    }
    do {
      let started = AuditStore.now
      let recorder = try await RunRecorder.begin(
        store, command: command, arguments: arguments, label: label, shard: shard, at: started)
      if let note = await recorder.clockNote(at: started) { warn(note) }
      let naming = [label, shard.map { "shard \($0)" }].compactMap { $0 }.joined(separator: ", ")
      return RecordingRun(recorder, location: location, naming: naming.isEmpty ? nil : naming, warn: warn)
    } catch {
      warn(error.description)
      try? await store.close()
      return RecordingRun(nil, location: location, warn: warn)
    }
  }

  /// The run is about to inspect the inputs at `paths` (a batch's, once its folders are walked): the digests the
  /// store holds of them are looked up, in the background, before the first is prepared. Only theirs: a store of a
  /// year of weekly runs whose IPAs sit in a folder per week holds a row per file ever inspected, which a run of a
  /// few inputs must not read (or hold in memory).
  public func expect(_ paths: [String]) {
    guard let store = recorder?.store else { return }
    digests.withLockedValue { digests in
      // Without them every input is read and hashed, which is what they save and no more: a store that cannot
      // answer fails the run's first transaction, which says so.
      digests = Task { (try? await InputDigests.load(store, paths: paths)) ?? InputDigests() }
    }
  }

  /// Queues `report`, observed now, with the retrievals its domains used, which `fetches` kept; waits only while
  /// ``queueLimit`` inputs are queued already.
  public func record(_ report: InspectionReport, _ fetches: SharedAASAFetches?) async {
    let storing = state.withLockedValue { state in
      state.given += 1
      return state.stored
    }
    guard let recorder, storing else { return }
    let time = AuditStore.now
    // Each retrieval goes with the first input that used it: the others neither prepare nor write it. It is
    // claimed here, in the order inputs finish, and looked up with the input's other work, off the command's way.
    let requests = recorder.unrecorded(UniversalLinkInventory.requests(for: report))
    let known = digests.withLockedValue { $0 }
    let prepared = Task.detached { [state, hashing] in
      let retrievals = await fetches?.retrievals(for: requests)
      // Looked up before any input is written, so on the store's one connection the lookup never meets a transaction.
      let digests = await known?.value ?? InputDigests()
      let input = await recorder.store.threads.prepare(
        report, retrievals: retrievals, at: time, digests: digests, hashing: hashing)
      state.withLockedValue { $0.ready += 1 }
      return input
    }
    var full = state.withLockedValue { state -> Task<Void, Never>? in
      guard state.stored else { return nil }
      state.queue.append(prepared)
      if state.oldestQueued == nil { state.oldestQueued = .now }
      writeNext(&state)
      return state.queue.count > Self.queueLimit ? state.writing : nil
    }
    while let writing = full {
      await writing.value
      full = state.withLockedValue { $0.queue.count > Self.queueLimit ? $0.writing : nil }
    }
  }

  /// Starts a transaction of the inputs queued, unless one is under way or the queue is still gathering; each one
  /// that ends starts the next.
  private func writeNext(_ state: inout State) {
    guard state.writing == nil, !state.queue.isEmpty, let recorder, let oldest = state.oldestQueued else { return }
    let waited = ContinuousClock.now - oldest
    guard state.ending || state.queue.count >= Self.gatherCount || waited >= Self.gatherDelay else {
      if state.gathering == nil {
        state.gathering = Task { [delay = Self.gatherDelay - waited] in
          try? await Task.sleep(for: delay)
          self.gathered()
        }
      }
      return
    }
    state.gathering?.cancel()
    state.gathering = nil
    let inputs = state.queue.prefix(Self.queueLimit)
    state.queue.removeFirst(inputs.count)
    // The inputs left behind (over the limit) have waited as long as any.
    state.oldestQueued = state.queue.isEmpty ? nil : oldest
    state.writing = Task {
      var prepared: [RunRecorder.Prepared] = []
      for input in inputs { prepared.append(await input.value) }
      if self.stored {
        do throws(AuditStore.Failure) {
          try await recorder.record(prepared)
          self.state.withLockedValue { $0.written += prepared.count }
        } catch { self.failed(error, inputs: prepared.count) }
      }
      self.wrote()
    }
  }

  private func gathered() {
    state.withLockedValue { state in
      // Cancelled under this lock: a wake-up that was cancelled too late to stop sleeping does nothing.
      guard !Task.isCancelled else { return }
      state.gathering = nil
      writeNext(&state)
    }
  }

  private func wrote() {
    state.withLockedValue { state in
      state.writing = nil
      if state.stored {
        writeNext(&state)
      } else {
        state.queue = []
        state.oldestQueued = nil
      }
    }
  }

  /// The store stopped taking inputs: the rest are counted, and told once the run ends.
  private func failed(_ error: AuditStore.Failure, inputs: Int) {
    state.withLockedValue { state in
      if state.failure == nil { (state.failure, state.lost) = (error, inputs) }
      state.stored = false
    }
  }

  /// Waits for the inputs still queued (``finish()`` begins with it), once a batch's inspection is over while
  /// `console` shows them being made ready and written (``BatchConsole/waiting(for:done:total:)``: a bar on a
  /// terminal, and Ctrl-C saying what the store holds). The first run of large IPAs spends most of its time here:
  /// hashing 128 of 200 MB takes seconds, from a slow disk minutes, after inspecting them took a fraction of one.
  public func settle(showing console: BatchConsole? = nil) async {
    guard recorder != nil else { return }
    // A run that expected inputs and recorded none (Ctrl-C aside, all named nothing) has its lookup end first.
    _ = await digests.withLockedValue({ $0 })?.value
    var writing = state.withLockedValue { state in
      state.ending = true
      writeNext(&state)
      return state.writing
    }
    while let under = writing {
      if let console {
        // The bar counts the inputs made ready (hashed, turned into rows), which move one at a time and are most of
        // the wait; its label, those the store holds, which move a transaction at a time.
        let (ready, written, given) = state.withLockedValue { ($0.ready, $0.written, $0.given) }
        // A large input being read for its SHA-256 moves no count for a while: how far it got does.
        let (read, of) = hashing.now
        let label =
          of == 0
          ? "storing (\(written) written)"
          : "hashing \(TerminalText.size(read, of: of))" + (written > 0 ? ", \(written) written" : "")
        console.waiting(for: label, done: ready, total: given)
      }
      // Only a bar needs to hear of each input made ready; without one, the wait costs no wake-up.
      if console?.showsProgress == true { try? await Task.sleep(for: .milliseconds(100)) } else { await under.value }
      writing = state.withLockedValue { $0.writing }
    }
    console?.endWaiting()
  }

  /// When no input was given to the run (the arguments named none), removes the run and closes the store, and says
  /// so by returning true: an empty run under its label would answer `--at LABEL` and `diff --since` with nothing.
  /// A SQLite file the run made goes too, when no other run is in it.
  public func discardIfEmpty() async -> Bool {
    guard let recorder, state.withLockedValue({ $0.given == 0 }) else { return false }
    let discarded = (try? await recorder.discard()) ?? false
    if discarded { await recorder.store.close(removingIfEmpty: true) }
    return discarded
  }

  /// Waits for the queued inputs, marks the run finished when all of it was stored, closes the store, and says
  /// whether it was. A wait still to come (one input's: a large IPA read for its SHA-256, a slow server) is shown
  /// by `console`, as after a batch (``settle(showing:)``).
  public func finish(showing console: BatchConsole? = nil) async -> Bool {
    // A store that could not be opened was told as the run began: its line says nothing is stored.
    guard let recorder else { return false }
    await settle(showing: console)
    var stored = self.stored
    if stored {
      do {
        try await recorder.finish()
        // What was made, as `store import` and `refresh` say their runs: the number is what `--at`, `store runs`
        // and `history` know it by.
        console?.say(
          "\(location): \(TerminalText.count(state.withLockedValue { $0.written }, "input")) stored as run "
            + "\(recorder.run)" + (naming.map { " (\($0))" } ?? ""))
      } catch {
        warn(
          error.description
            + (error.fileRemoved
              ? ": none of the \(TerminalText.count(state.withLockedValue { $0.given }, "input")) is stored"
              : "; run \(recorder.run) holds every input, and is left unfinished"))
        stored = false
        state.withLockedValue { $0.stored = false }
      }
    } else {
      warn(missing(state.withLockedValue { $0 }, run: recorder.run))
    }
    try? await recorder.store.close()
    return stored
  }
}

extension AuditStore {
  /// The instants `--since` (a day read from its start) and `--at` (a day read at its end; nil for the latest)
  /// name, for a comparison between them; one that cannot be what was meant is refused rather than answered "no
  /// differences": `--since` after the store's last run, or after `--at`.
  func window(since: StoreTime, at: StoreTime?) async throws(Failure) -> (since: Date, at: Date?) {
    let start = try await resolve(since, day: .start)
    if let last = try await lastRecorded(), start > last {
      throw Failure(
        description: "\(location): nothing was recorded after \(since): the store's last run ended at "
          + StoreText.time(AuditStore.timestamp(last)) + " UTC")
    }
    let end = try await instant(at, day: .end)
    if let end, let at, end < start {
      throw Failure(description: "\(location): --since \(since) is after --at \(at): give the earlier time to --since")
    }
    return (start, end)
  }

  /// `diff --store --since`: the state `since` names (a day read from its start) and the state `at` names (the
  /// latest when nil); nil, after telling `warn` why, when the store cannot be read.
  public static func states(
    _ location: StoreLocation, since: String, at: StoreTime?, warn: (String) -> Void
  ) async -> (then: [InspectionReport], now: [InspectionReport])? {
    let states = await reading(location, warn: warn) { store in
      let (then, until) = try await store.window(since: StoreTime(parsing: since, allowingAge: true), at: at)
      let before = try await store.latestReports(at: then)
      return (
        before, try await store.latestReports(at: until), before.isEmpty ? try await store.firstAppObserved() : nil,
        try await store.unfinishedLatestRun(at: until)
      )
    }
    unfinished(states?.3, location: location, then: at != nil, warn: warn)
    if let states, states.0.isEmpty { warn("\(location): no app in the store at \(since)" + before(states.2)) }
    return states.map { (then: $0.0, now: $0.1) }
  }

  /// Says that the latest run a reader answers from (`then`: the latest at the time asked about) did not finish,
  /// when it did not: the state is as far as it got, so an answer from it is not taken for a whole audit's.
  static func unfinished(
    _ run: (run: Int, label: String?, inputs: Int, hosts: Int?)?, location: StoreLocation, then: Bool,
    warn: (String) -> Void
  ) {
    guard let (run, label, inputs, hosts) = run else { return }
    warn(
      "\(location): run \(run)" + (label.map { " (\(TerminalText.escape($0)))" } ?? "")
        + ", the latest\(then ? " then" : ""), did not finish (killed, or still running): "
        + (hosts.map {
          "a refresh, it recorded the files of \(TerminalText.count($0, "host")), and the other hosts keep "
            + "their last answer"
        }
          ?? "it stored \(TerminalText.count(inputs, "input")), and the state holds the rest as earlier runs saw it"))
  }

  /// `: the first app it holds was inspected at 2026-11-30 03:46 UTC`, said after a time that found no app when the
  /// store holds some from a later time: it was asked about a time before its history starts.
  static func before(_ first: String?) -> String {
    first.map { ": the first app it holds was inspected at \(StoreText.time($0)) UTC" } ?? ""
  }
}

extension StoreText {
  /// What `history` is about.
  public enum HistorySubject: Sendable {
    /// `--host`: a host's AASA file, as retrieved in developer mode (`--developer-mode`) or not.
    case host(String, developerMode: Bool = false)
    /// `--app`: a bundle ID or app ID.
    case app(String)
  }

  /// `history` read from the store at `location`, at `time` (the whole history when nil), in `format`, and whether
  /// the store has any; nil, after telling `warn` why, when the store cannot be read.
  public static func history(
    of subject: HistorySubject, in location: StoreLocation, at time: StoreTime?, format: OutputFormat,
    style: TextStyle, warn: (String) -> Void
  ) async -> (text: String, found: Bool)? {
    let read = await AuditStore.reading(location, warn: warn) { store in
      let time = try await store.instant(time, day: .end)
      return (
        try await history(of: subject, in: store, at: time, format: format, style: style),
        try await store.unfinishedLatestRun(at: time)
      )
    }
    AuditStore.unfinished(read?.1, location: location, then: time != nil, warn: warn)
    return read?.0
  }

  private static func history(
    of subject: HistorySubject, in store: AuditStore, at time: Date?, format: OutputFormat, style: TextStyle
  ) async throws -> (text: String, found: Bool) {
    // Nothing by then, but something later: the text says when the history starts, as it would otherwise read
    // as if the store had never seen the host or the app.
    func later(_ first: String?) -> String {
      guard format == .text, let first, let time else { return "" }
      let line =
        "nothing by \(StoreText.time(AuditStore.timestamp(time))) UTC: first seen \(StoreText.time(first)) UTC; "
        + "without --at, history shows it"
      return StoreText.fitted(line, style).map { $0 + "\n" }.joined()
    }
    switch subject {
    case .host(let host, let developerMode):
      let history = try await store.hostHistory(host, at: time, developerMode: developerMode)
      let found = !history.versions.isEmpty
      let first =
        found || time == nil
        ? nil : try await store.hostHistory(host, developerMode: developerMode).versions.first?.firstSeen
      return (self.history(history, format: format, style: style) + later(first), found)
    case .app(let id):
      let history = try await store.appHistory(id, at: time)
      let found = !history.apps.isEmpty
      let first =
        found || time == nil
        ? nil : try await store.appHistory(id).apps.compactMap { $0.versions.first?.firstSeen }.min()
      return (self.history(history, format: format, style: style) + later(first), found)
    }
  }
}

extension AuditStore {
  /// The state `at` names (the latest when nil) of the store at `location`, as the commands that take `--store`
  /// as an input read it; nil, after telling `warn` why, is a store that cannot be read or holds no app (then).
  /// With `about` (a `who-claims` query: a host, a wildcard or a URL), only the apps that question needs.
  /// With `filesOlderThan` and no `at`, `note` is also told how many of the latest state's AASA files were retrieved
  /// longer ago than that, and the oldest: a list made from them is only as current as they are.
  public static func state(
    _ location: StoreLocation, at: StoreTime?, about query: String? = nil, filesOlderThan: TimeInterval? = nil,
    note: (String) -> Void = { _ in }, warn: (String) -> Void
  ) async -> [InspectionReport]? {
    let host = query.flatMap(HostClaims.host(ofQuery:))
    let now = AuditStore.now
    let state = await reading(location, warn: warn) { store in
      let time = try await store.instant(at, day: .end)
      let reports = try await store.latestReports(at: time, about: host)
      // No app on the host is an answer; no app at all is not.
      let holds = reports.isEmpty ? try await store.holdsApps(at: time) : true
      var old: (count: Int, host: String, at: Date)?
      if at == nil, let limit = filesOlderThan { old = try await store.oldFiles(before: now - limit) }
      return (
        reports, holds, holds || at == nil ? nil : try await store.firstAppObserved(),
        try await store.unfinishedLatestRun(at: time), old
      )
    }
    unfinished(state?.3, location: location, then: at != nil, warn: warn)
    if let old = state?.4, let limit = filesOlderThan {
      let one = old.count == 1
      note(
        (one ? "1 host's AASA file was" : "\(old.count) hosts' AASA files were") + " last retrieved into the store "
          + "more than \(StoreText.age(Int(limit)).dropLast(4)) ago (\(one ? "" : "the oldest, ")"
          + "\(TerminalText.escape(old.host))'s, \(StoreText.age(Int(now.timeIntervalSince(old.at))))): "
          + "ipalinks refresh retrieves \(one ? "it" : "them") again")
    }
    guard let state, state.1 else {
      if let state { warn("\(location): no app in the store" + (at.map { " at \($0)" } ?? "") + before(state.2)) }
      return nil
    }
    return state.0
  }

  /// ``state(_:at:about:warn:)`` and, `withChanges`, ``runChanges(_:at:since:warn:)`` at the same time: what `report`
  /// reads. The changes are read on a connection of their own while the state is; their problems are told after the
  /// state's, and one both reads meet (a store that cannot be opened) is told once. `told` is every line told;
  /// `changesUnread`, the lines that say why the changes asked for could not be read (empty when they were).
  public static func state(
    _ location: StoreLocation, at: StoreTime?, about query: String? = nil, withChanges: Bool,
    since: StoreTime? = nil, filesOlderThan: TimeInterval? = nil, note: (String) -> Void = { _ in },
    warn: (String) -> Void
  ) async -> (state: [InspectionReport]?, changes: RunChanges?, told: [String], changesUnread: [String]) {
    async let changed = withChanges ? changes(location, at: at, since: since) : nil
    var told: [String] = []
    let state = await state(location, at: at, about: query, filesOlderThan: filesOlderThan, note: note) {
      told.append($0)
      warn($0)
    }
    guard let (changes, problems) = await changed else { return (state, nil, told, []) }
    let more = problems.filter { !told.contains($0) }
    more.forEach(warn)
    return (state, changes, told + more, changes == nil ? problems : [])
  }

  /// ``runChanges(_:at:since:warn:)``, with the problems it met kept to be told later.
  private static func changes(_ location: StoreLocation, at time: StoreTime?, since: StoreTime?) async
    -> (changes: RunChanges?, problems: [String])
  {
    var problems: [String] = []
    let changes = await runChanges(location, at: time, since: since) { problems.append($0) }
    return (changes, problems)
  }
}
