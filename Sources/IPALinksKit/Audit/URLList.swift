import Foundation
import UniversalLinks

/// A file of URLs, one per line, as `match --urls` and `diff --urls` read it: white space around a line ignored,
/// blank lines and `#` comments skipped, and a line that is not an absolute URL with a host named and skipped, as
/// `who-claims --urls` names its lines.
public enum URLList {
  /// Why `text` is not a URL the commands decide, or nil when it is one: the one test for a URL given as an argument
  /// (`match`, `who-claims URL`) and for a line of a list (`match --urls`, `who-claims --urls`). An http(s) URL must
  /// also be one WebKit reads (``LinkRuntime/WebURL``): a port past 65535 or a host with `^` is no URL a web view
  /// can load or a user tap, where `who-claims` and `--urls` called it opened.
  public static func problem(_ text: String) -> String? {
    if isPlain(text) { return nil }
    if let why = URLScan.controlProblem(text) { return why }
    guard let url = UniversalLinkURL(string: text) else {
      return "\(URLScan.quoted(text)) is not an absolute URL with a host"
    }
    if url.scheme == "http" || url.scheme == "https" {
      guard let web = LinkRuntime.WebURL(text) else {
        return "\(URLScan.quoted(text)) is not a URL WebKit can load (its host or port is not valid)"
      }
      // A link carries such a host in Punycode, which is what iOS compares: read as written, `café.example.com`
      // was opened by no app that claims `xn--caf-dma.example.com`, a definite answer and a wrong one.
      if !url.host.unicodeScalars.allSatisfy(\.isASCII) {
        return "\(URLScan.quoted(text)) has a host that is not ASCII; a link carries it in Punycode, as iOS compares "
          + "it: give the host so (here probably \(URLScan.quoted(web.href)))"
      }
      return nil
    }
    return URLComponents(string: text)?.host == nil
      ? "\(URLScan.quoted(text)) is not an absolute URL with a host" : nil
  }

  /// Whether `text` is an `http(s)` URL both parsers surely take, read in one pass: a plain host
  /// (``HostName/isPlain(_:punycode:)``, no `xn--` label), so no port or user, and then only RFC 3986's characters and
  /// `%XX`, one `#` at most. Nearly every URL of a list is one: `URLComponents` parsing each was 42% of `match
  /// --urls`'s time. Anything else takes the parsers' own test. (`urlListsFastCheckAgreesWithTheParsers` checks that
  /// a URL this takes, both parsers take.)
  static func isPlain(_ text: String) -> Bool {
    var text = text
    return text.withUTF8 { b in
      let n = b.count
      func lower(_ k: Int) -> UInt8 { b[k] | 0x20 }
      guard n > 8, lower(0) == 0x68, lower(1) == 0x74, lower(2) == 0x74, lower(3) == 0x70 else { return false }
      var i = lower(4) == 0x73 ? 5 : 4
      guard b[i] == 0x3A, b[i + 1] == 0x2F, b[i + 2] == 0x2F else { return false }
      i += 3
      // The host ends at `/`, `?`, `#` or the end.
      let host = i
      while i < n, b[i] != 0x2F, b[i] != 0x3F, b[i] != 0x23 { i += 1 }
      guard HostName.isPlain(b[host..<i], punycode: false) else { return false }
      // A host whose last label is a number is read as an IPv4 address, which `a.1` or `1.2.3.4.5` is not.
      var last = i
      while last > host, b[last - 1] != 0x2E { last -= 1 }
      if last < i, b[last..<i].allSatisfy({ $0 &- 0x30 < 10 }) { return false }
      // The rest: unreserved, sub-delims, `:`, `/`, `?`, `%XX` and one `#`; no `@`.
      var fragment = false
      while i < n {
        switch b[i] {
        case 0x25:
          func isHex(_ c: UInt8) -> Bool { c &- 0x30 < 10 || (c | 0x20) &- 0x61 < 6 }
          guard i + 2 < n, isHex(b[i + 1]), isHex(b[i + 2]) else { return false }
          i += 2
        case 0x23:
          if fragment { return false }
          fragment = true
        case 0x41...0x5A, 0x61...0x7A, 0x30...0x39, 0x2D, 0x2E, 0x5F, 0x7E, 0x2F, 0x3F, 0x3A, 0x21, 0x24, 0x26...0x2C,
          0x3B, 0x3D:
          break
        default: return false
        }
        i += 1
      }
      return true
    }
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
      var text = line.trimmingWhitespace()
      // A byte-order mark, as editors on Windows write one, is not part of the first URL (as in a hosts list).
      if number == 1, text.hasPrefix("\u{FEFF}") { text = String(text.dropFirst()).trimmingWhitespace() }
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
