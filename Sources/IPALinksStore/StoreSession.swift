import Foundation
import IPALinksKit

extension AuditStore {
  /// Opens the store at `location`, runs `body` on it and closes it; nil, after telling `warn` the one line why,
  /// when the store cannot be opened or `body` fails.
  public static func reading<T: Sendable>(
    _ location: StoreLocation, warn: (String) -> Void, _ body: (AuditStore) async throws -> T
  ) async -> T? {
    let store: AuditStore
    do { store = try await open(location) } catch {
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
  /// file's name and observed when the file was saved (its modification time; now for standard input).
  ///
  /// Returns the exit code: 0 all imported; 1 some file could not be read (the others are imported); 2 none could
  /// be, or the store cannot be written.
  public static func importInventories(
    _ files: [String], into location: StoreLocation, label: String?, arguments: [String],
    warn: (String) -> Void
  ) async -> Int32 {
    let store: AuditStore
    do { store = try await open(location) } catch {
      warn(error.description)
      return 2
    }
    var (imported, failed) = (0, 0)
    for file in files {
      do {
        let reports = try InventoryReader.read(path: file)
        let time = file == "-" ? Date() : savedAt(file)
        let run = try await RunRecorder.begin(
          store, command: "store import", arguments: arguments, label: label ?? file, shard: nil, at: time)
        for report in reports { try await run.record(report, retrievals: [:], at: time) }
        try await run.finish(at: time)
        imported += 1
      } catch let failure as Failure {
        warn(failure.description)
        (imported, failed) = (0, failed + 1)
        break
      } catch {
        warn("\(error)")
        failed += 1
      }
    }
    try? await store.close()
    return imported == 0 ? 2 : failed > 0 ? 1 : 0
  }

  /// When a file was saved: its modification time.
  static func savedAt(_ path: String) -> Date {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date) ?? Date()
  }
}

/// A run recorded as a command goes: each input as it finishes, until the store fails, which is told once; the
/// command's own output goes on regardless, and ``finish()`` says whether all of it was stored.
public actor RecordingRun {
  private let recorder: RunRecorder?
  private let warn: @Sendable (String) -> Void
  /// Whether everything so far reached the store.
  public private(set) var stored: Bool

  private init(_ recorder: RunRecorder?, warn: @escaping @Sendable (String) -> Void) {
    self.recorder = recorder
    self.warn = warn
    stored = recorder != nil
  }

  /// Opens the store and starts a run of `command` (see ``RunRecorder/begin(_:command:arguments:label:shard:at:)``);
  /// a store that cannot be opened or written is told to `warn`, and the run records nothing.
  public static func begin(
    _ location: StoreLocation, command: String, arguments: [String], label: String?, shard: String?,
    warn: @escaping @Sendable (String) -> Void
  ) async -> RecordingRun {
    let store: AuditStore
    do { store = try await AuditStore.open(location) } catch {
      warn(error.description)
      return RecordingRun(nil, warn: warn)
    }
    do {
      let recorder = try await RunRecorder.begin(
        store, command: command, arguments: arguments, label: label, shard: shard)
      return RecordingRun(recorder, warn: warn)
    } catch {
      warn(error.description)
      try? await store.close()
      return RecordingRun(nil, warn: warn)
    }
  }

  /// Records `report` with the retrievals its domains used, which `fetches` kept.
  public func record(_ report: InspectionReport, _ fetches: SharedAASAFetches?) async {
    guard stored, let recorder else { return }
    let retrievals = await fetches?.retrievals(for: UniversalLinkInventory.requests(for: report)) ?? [:]
    do { try await recorder.record(report, retrievals: retrievals) } catch {
      warn(error.description)
      stored = false
    }
  }

  /// Marks the run finished when all of it was stored, closes the store, and says whether it was.
  public func finish() async -> Bool {
    guard let recorder else { return false }
    if stored {
      do { try await recorder.finish() } catch {
        warn(error.description)
        stored = false
      }
    }
    try? await recorder.store.close()
    return stored
  }
}
