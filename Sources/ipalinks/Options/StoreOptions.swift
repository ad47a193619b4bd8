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

  /// Whether a store is given, by `--store` or `IPALINKS_STORE`.
  var isGiven: Bool { store != nil || !(ProcessInfo.processInfo.environment["IPALINKS_STORE"] ?? "").isEmpty }

  /// The location given; a malformed one is a usage error, with its password masked.
  func location() throws -> StoreLocation? {
    do { return try StoreLocation.given(store) } catch { throw ValidationError(error.description) }
  }

  /// The command line as a run records it: a `postgres://` URL's password, in `--store` or anywhere, masked.
  static var maskedArguments: [String] {
    CommandLine.arguments.dropFirst().map { StoreLocation.masked($0) }
  }
}
