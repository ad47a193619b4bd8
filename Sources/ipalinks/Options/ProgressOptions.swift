import ArgumentParser

/// The options of every command that draws a progress bar (`inspect`, `blocklist`, `diff`, `report`,
/// `who-claims`, `refresh`, `store import`): the same two words for the same thing everywhere.
struct ProgressOptions: ParsableArguments {
  @Flag(name: .customLong("no-progress"), help: "No progress bar, even when stderr is a terminal.")
  var noProgress = false

  @Flag(name: .shortAndLong, help: "Print only errors on stderr: no progress bar, no summary, no notes.")
  var quiet = false
}
