import ArgumentParser
import Foundation
import IPALinksKit
import IPALinksStore

/// `--store`: the audit store a command writes to or reads from, else `IPALINKS_STORE`.
struct StoreOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "The audit store: a SQLite file, or a postgres:// URL (default: $IPALINKS_STORE; none when unset).",
      valueName: "location"))
  var store: String?
  @Option(
    help: ArgumentHelp(
      "How long to wait for the store: a PostgreSQL server's answer to connecting or to a statement, a "
        + "reconnection after it restarts, or a SQLite file another writer holds (default: 30).", valueName: "seconds"))
  var storeTimeout: Double?

  /// Whether a store is given, by `--store` or `IPALINKS_STORE`.
  var isGiven: Bool { store != nil || !(ProcessInfo.processInfo.environment["IPALINKS_STORE"] ?? "").isEmpty }

  /// The location given; a malformed one is a usage error, with its password masked.
  func location() throws -> StoreLocation? {
    if let storeTimeout {
      guard storeTimeout > 0, storeTimeout <= 86_400 else {
        throw ValidationError("--store-timeout must be a number of seconds above 0, at most 86400")
      }
      AuditStore.timeout = .milliseconds(Int(storeTimeout * 1000))
    }
    do { return try StoreLocation.given(store) } catch { throw ValidationError(error.description) }
  }

  /// The location given, for the commands that need one (`store`, `history`).
  /// A `--run-label` refused when no run could be named by it (``StoreTime/labelProblem(_:)``): empty, or read as a
  /// date, a time, an age or `run N`.
  static func checkRunLabel(_ label: String?) throws {
    if let label, let problem = StoreTime.labelProblem(label) {
      throw ValidationError("--run-label: " + TerminalText.escape(problem))
    }
  }

  func required() throws -> StoreLocation {
    guard let location = try location() else { throw ValidationError("give --store LOCATION, or set IPALINKS_STORE") }
    return location
  }
}

/// `--store` and `--at` of the commands that read the store's state: `who-claims`, `report`, `blocklist`, `diff`
/// and `history`.
struct StoreReadOptions: ParsableArguments {
  @OptionGroup var store: StoreOptions
  // Unconditional, so that an age written -5d is a value, not an option.
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "With --store: the state as it was then: a date (2026-03-01, read at its end), an RFC 3339 time or one as "
        + "ipalinks prints it (2026-03-01 09:30:07 UTC; to the minute, read at its end), an age "
        + "(7d, 12h, 2w, 30min), or a run's label or number (the end of that run).", valueName: "time"))
  var at: StoreTime?

  func validate() throws {
    if at != nil && !store.isGiven { throw ValidationError("--at reads the store: give --store too") }
  }

  /// The store to read beside `inputs`: `--store`, or `IPALINKS_STORE` when no other input is given, so that a
  /// variable set for `inspect` does not add itself to every command's inputs.
  func location(besideInputs inputs: Bool) throws -> StoreLocation? {
    if inputs && store.store == nil {
      // Read without a store, `--at` would be ignored: the answer of now, given as the answer of then.
      if at != nil {
        throw ValidationError(
          "--at reads the store: give --store too (IPALINKS_STORE counts only when no other input is given)")
      }
      return nil
    }
    return try store.location()
  }
}

extension StoreTime: ExpressibleByArgument {
  /// Parses `--at` and `--since`.
  public init?(argument: String) {
    // An empty value is no label a run has: refused as argument-parser refuses any value it cannot read.
    // Nor is a date that does not exist (`2026-13-45`): refused as a value, not looked for as a label.
    guard !argument.isEmpty, !StoreTime.isMisshapenTime(argument) else { return nil }
    self.init(parsing: argument, allowingAge: true)
  }
}
