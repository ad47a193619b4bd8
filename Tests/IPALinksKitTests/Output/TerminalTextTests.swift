import Testing
import UniversalLinks

@testable import IPALinksKit

struct TerminalTextTests {
  @Test func controlsBidiAndSeparatorsBecomeVisibleEscapes() {
    #expect(TerminalText.escape("a\u{1B}[31mb") == #"a\u{1b}[31mb"#)
    #expect(TerminalText.escape("csi\u{9B}2J") == #"csi\u{9b}2J"#)
    #expect(TerminalText.escape("del\u{7F}") == #"del\u{7f}"#)
    #expect(TerminalText.escape("rlo\u{202E}txt.exe") == #"rlo\u{202e}txt.exe"#)
    #expect(TerminalText.escape("iso\u{2066}x\u{2069}") == #"iso\u{2066}x\u{2069}"#)
    #expect(TerminalText.escape("line\u{2028}forged") == #"line\u{2028}forged"#)
    #expect(TerminalText.escape("nel\u{85}") == #"nel\u{85}"#)
    #expect(TerminalText.escape("a\nb\tc") == #"a\u{a}b\u{9}c"#)
    #expect(TerminalText.escape("a\nb\tc", keepingLineBreaks: true) == "a\nb\tc")
    #expect(TerminalText.escape("a\rb", keepingLineBreaks: true) == #"a\u{d}b"#)
  }

  /// What a terminal shows as nothing is shown escaped, so `ex\u{200b}ample.com` does not read as `example.com`;
  /// and the report page escapes exactly the same set (it missed U+061C, the terminal U+200B and the tags).
  @Test func invisibleCharactersAreShownAndThePageEscapesTheSameSet() {
    #expect(TerminalText.escape("applinks:ex\u{200B}ample.com") == #"applinks:ex\u{200b}ample.com"#)
    #expect(TerminalText.escape("Pay\u{E0041}Pal\u{AD}") == #"Pay\u{e0041}Pal\u{ad}"#)
    #expect(TerminalText.escape("a\u{2060}b\u{FEFF}") == #"a\u{2060}b\u{feff}"#)
    // And every default-ignorable code point: a Hangul filler, a variation selector, the combining grapheme joiner,
    // Mongolian and Khmer format characters, a halfwidth filler (shown raw, they could hide in a name).
    for value in [
      0x61C, 0x200B, 0x200D, 0x2060, 0xAD, 0xFEFF, 0xE0041, 0x202E, 0x1B, 0x2028, 0x3164, 0x115F, 0x34F, 0x180E,
      0xFE0F, 0x17B4, 0xFFA0,
    ] {
      let scalar = Unicode.Scalar(UInt32(value))!
      #expect(HTML.esc("x\(scalar)y") == "x\\u{\(String(value, radix: 16))}y", "U+\(String(value, radix: 16))")
      #expect(TerminalText.escape("x\(scalar)y") == HTML.esc("x\(scalar)y"), "U+\(String(value, radix: 16))")
    }
  }

  @Test func ordinaryTextIsUntouched() {
    for text in ["https://example.com/café/*", "Store Sample", "日本語", "emoji 🙂", "tab-free", ""] {
      #expect(TerminalText.escape(text) == text)
    }
  }

  /// Sizes for a bar's label: both in the unit that suits the whole, one decimal below ten.
  @Test func sizesShareTheUnitOfTheWhole() {
    #expect(TerminalText.size(0, of: 3 << 30) == "0.0 of 3.0 GiB")
    #expect(TerminalText.size(512 << 20, of: 3 << 30) == "0.5 of 3.0 GiB")
    #expect(TerminalText.size(3 << 30, of: 3 << 30) == "3.0 of 3.0 GiB")
    #expect(TerminalText.size(12 << 20, of: 40 << 20) == "12 of 40 MiB")
    #expect(TerminalText.size(100, of: 900) == "100 of 900 bytes")
    #expect(TerminalText.size(1536, of: 1 << 40) == "0.0 of 1.0 TiB")
  }

  @Test func countsAgreeWithTheirNouns() {
    #expect(TerminalText.count(0, "app") == "0 apps")
    #expect(TerminalText.count(1, "app") == "1 app")
    #expect(TerminalText.count(2, "bundle") == "2 bundles")
    #expect(TerminalText.count(1, "entry", "entries") == "1 entry")
    #expect(TerminalText.count(3, "entry", "entries") == "3 entries")
  }

  @Test func wrapBreaksAfterCommasAndNeverInsideAToken() {
    let rule = #"{"/": "/p/$(digit)*", "?": {"ref": "?*"}, "caseSensitive": false}"#
    #expect(
      TerminalText.wrap(rule, width: 50, first: "  ", rest: "    ") == [
        #"  {"/": "/p/$(digit)*", "?": {"ref": "?*"},"#,
        #"    "caseSensitive": false}"#,
      ])
    // A token longer than the line stays whole on a line of its own.
    let host = "a-very-long-host-name-that-does-not-fit.example.com"
    #expect(TerminalText.wrap("see " + host, width: 20, rest: "  ") == ["see", "  " + host])
    #expect(TerminalText.wrap("short", width: 20, first: "> ", rest: "") == ["> short"])
  }

  @Test func aLongProblemLineWrapsBetweenWordsWithIndentedContinuations() {
    let summary =
      "ipalinks: 2 inputs in 0.0 s (168.1/s, 2 jobs): 0 complete, 2 partial, 0 unreadable; 2 bundles, 6 associated domains"
    let lines = TerminalText.wrapProblem(summary, width: 60)
    #expect(
      lines == [
        "ipalinks: 2 inputs in 0.0 s (168.1/s, 2 jobs): 0 complete, 2",
        "            partial, 0 unreadable; 2 bundles, 6 associated",
        "            domains",
      ])
    // Nothing is lost or changed: the words, in order, are the line's.
    #expect(lines.map { $0.split(separator: " ") }.joined().joined(separator: " ") == summary)
    // An item of a list keeps its indent, and its continuation goes two past it.
    #expect(
      TerminalText.wrapProblem("ipalinks:   dev.example.com: cannot resolve dev.example.com: no such host", width: 50)
        == ["ipalinks:   dev.example.com: cannot resolve", "              dev.example.com: no such host"])
    // A word longer than the line (a URL) is never cut; it overflows a line of its own.
    let url = "https://shop.example.com/.well-known/apple-app-site-association"
    #expect(
      TerminalText.wrapProblem("ipalinks: fetched " + url + " in 3 s", width: 40) == [
        "ipalinks: fetched", "            " + url, "            in 3 s",
      ])
    // A line that fits, or that is not a problem line, is kept whole.
    #expect(TerminalText.wrapProblem("ipalinks: short", width: 40) == ["ipalinks: short"])
    let other = String(repeating: "word ", count: 20)
    #expect(TerminalText.wrapProblem(other, width: 40) == [other])
  }

  @Test func packMovesAFieldThatDoesNotFitToTheNextLine() {
    #expect(
      TerminalText.pack(
        ["https://e.com/x", "/applinks/details/0/components/1"], width: 40, first: "match  ", rest: "    ")
        == ["match  https://e.com/x", "    /applinks/details/0/components/1"])
  }

  /// Packing keeps each line's length as it grows instead of counting the whole line again for every field; the
  /// lines are those of counting it whole, for fields of every kind: ASCII, wide scripts, emoji, and a field that
  /// begins with a combining mark, which joins the character before it (lengths do not add up there).
  @Test func packedLinesAreThoseOfCountingEachLineWhole() {
    func counted(_ fields: [String], width: Int, first: String, rest: String, separator: String) -> [String] {
      var (lines, line, empty) = ([String](), first, true)
      for field in fields where !field.isEmpty {
        let candidate = empty ? line + field : line + separator + field
        if candidate.count <= width {
          (line, empty) = (candidate, false)
          continue
        }
        if !empty { (lines, line) = (lines + [line], rest) }
        let wrapped = TerminalText.wrap(field, width: width, first: line, rest: rest)
        (lines, line, empty) = (lines + wrapped.dropLast(), wrapped.last ?? line, false)
      }
      return lines + [line]
    }
    let pieces = ["https://e.com/x", "/applinks/details/0", "\u{301}é", "日本語のパス", "🙂🙂", "a, b, c", "x", "\u{308}", "*"]
    var state: UInt64 = 7
    func next(_ bound: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int(state >> 33) % bound
    }
    for _ in 0..<2_000 {
      let fields = (0..<next(6)).map { _ in (0...next(3)).map { _ in pieces[next(pieces.count)] }.joined() }
      let (width, separator) = (20 + next(40), [" ", "  "][next(2)])
      let first = ["", "match     ", "no-match  ", "é"][next(4)]
      #expect(
        TerminalText.pack(fields, width: width, first: first, rest: "    ", separator: separator)
          == counted(fields, width: width, first: first, rest: "    ", separator: separator), "\(fields) \(width)")
    }
  }

  @Test func widthIsColumnsThenTheTerminalThen80() {
    #expect(TerminalText.width(columns: "100", terminalWidth: 120) == 100)
    #expect(TerminalText.width(columns: nil, terminalWidth: 120) == 120)
    #expect(TerminalText.width(columns: "junk", terminalWidth: nil) == 80)
  }
}

struct ExplanationTextTests {
  static let app = "ABCDE12345.com.example.app"

  @Test func theFailingQueryItemIsNamedWithWhy() throws {
    let file = try AASAFile(
      json:
        #"{"applinks": {"details": [{"appIDs": ["\#(Self.app)"], "components": [{"/": "/help/*", "?": {"articleNumber": "????"}}]}]}}"#
    )
    let explanation = file.matcher(appID: Self.app).explain("https://example.com/help/1?articleNumber=481")
    let lines = ExplanationText.lines(explanation, style: TextStyle(useColor: false, width: 120))
    #expect(
      lines == [
        #"  /applinks/details/0/components/0  (closest)  {"/": "/help/*", "?": {"articleNumber": "????"}}"#,
        #"    ✓ /               /help/*  matches "/help/1", compared as "/help/1/": a trailing / is implied"#,
        #"    ✗ ?articleNumber  ????  does not match "481": needs exactly 4 characters, has 3"#,
      ])
    // At 80 columns the rule and the reason move to indented lines of their own.
    #expect(
      ExplanationText.lines(explanation) == [
        "  /applinks/details/0/components/0  (closest)",
        #"      {"/": "/help/*", "?": {"articleNumber": "????"}}"#,
        #"    ✓ /               /help/*"#,
        #"        matches "/help/1", compared as "/help/1/": a trailing / is implied"#,
        #"    ✗ ?articleNumber  ????"#,
        #"        does not match "481": needs exactly 4 characters, has 3"#,
      ])
  }

  @Test func aVerdictFromOutsideTheRulesSaysSo() throws {
    let file = try AASAFile(json: #"{"applinks": {"details": []}}"#)
    #expect(
      ExplanationText.lines(file.matcher(appID: Self.app).explain("https://example.com/x"))
        == ["  the file's applinks does not list the app, so no rule applies"])
  }

  @Test func hostileValuesAreEscaped() throws {
    let file = try AASAFile(
      json:
        #"{"applinks": {"details": [{"appIDs": ["\#(Self.app)"], "components": [{"/": "/a\u001b[31m*", "percentEncoded": false}]}]}}"#
    )
    let lines = ExplanationText.lines(file.matcher(appID: Self.app).explain("https://example.com/b%1B%5B2J"))
    #expect(!lines.joined().unicodeScalars.contains { $0.value == 0x1B })
    #expect(lines.joined().contains(#"\u{1b}"#))
  }
}
