import Foundation
import UniversalLinks

/// A file of URLs, one per line, as `match --urls` and `diff --urls` read it: white space around a line ignored,
/// blank lines and `#` comments skipped, and a line that is not an absolute URL with a host named and skipped, as
/// `who-claims --urls` names its lines.
public enum URLList {
  /// Why `text` is not a URL `match` decides, or nil when it is one: the test for a URL given as an argument and
  /// for a line of a list alike.
  public static func problem(_ text: String) -> String? {
    UniversalLinkURL(string: text) == nil || URLComponents(string: text)?.host == nil
      ? "\(URLScan.quoted(text)) is not an absolute URL with a host" : nil
  }

  /// Gives `body` each URL of the list at `path` (`-`: standard input) as it is read, in bounded memory, and
  /// `warn` each line that is not one (`urls.txt: line 3: "x" is not an absolute URL with a host`). `waiting` is
  /// called before a read that may wait for a writer (a pipe), for what was made of the URLs so far to be written
  /// first. Returns how many lines were skipped so, or nil (said) when the list cannot be opened.
  public static func read(
    _ path: String, warn: (String) -> Void, waiting: () -> Void = {}, _ body: (String) -> Void
  ) -> Int? {
    guard let reader = LineReader(path: path) else {
      warn(LineReader.cannotRead(path, "URL list"))
      return nil
    }
    let name = path == "-" ? "standard input" : path
    var (number, skipped) = (0, 0)
    while true {
      if reader.mayWait { waiting() }
      guard let line = reader.next() else { break }
      number += 1
      let text = line.trimmingWhitespace()
      if text.isEmpty || text.hasPrefix("#") { continue }
      let why = reader.cut ? "longer than \(LineReader.maximumLineBytes >> 20) MiB; not a URL" : problem(text)
      guard let why else {
        body(text)
        continue
      }
      warn("\(name): line \(number): \(why)")
      skipped += 1
    }
    return skipped
  }
}
