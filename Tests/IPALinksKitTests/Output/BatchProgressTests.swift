import Foundation
import Testing

@testable import IPALinksKit

/// The progress bar's line: inputs done and total, the rate, the time left and what is under way.
struct BatchProgressTests {
  static let start = Date(timeIntervalSince1970: 1_000_000)

  @Test func theLineCountsTheRateAndNamesTheFileUnderWay() {
    var bar = BatchProgress(total: 8, startedAt: Self.start)
    bar.started("/corpus/a/One.ipa")
    bar.started("/corpus/b/Two.ipa")
    bar.finished("/corpus/a/One.ipa", at: Self.start.addingTimeInterval(1))
    bar.finished("/corpus/b/Two.ipa", at: Self.start.addingTimeInterval(2))
    #expect(
      bar.line(width: 80, now: Self.start.addingTimeInterval(2))
        == "[#####...............] 2/8 25% 1.0/s ETA 0:06")
    bar.started("/corpus/c/Three\u{1B}[2J.ipa")
    #expect(
      bar.line(width: 80, now: Self.start.addingTimeInterval(2))
        == "[#####...............] 2/8 25% 1.0/s ETA 0:06  Three\\u{1b}[2J.ipa")
    #expect(bar.line(width: 20, now: Self.start).count <= 17, "cut to the width, less three columns for ^C")
    // Cut between fields, not in one: `… 25% 1` would read as a rate of 1.
    let narrow = bar.line(width: 40, now: Self.start.addingTimeInterval(2))
    #expect(narrow == "[#####...............] 2/8 25% 1.0/s", "\(narrow)")
    #expect(bar.line(width: 37, now: Self.start.addingTimeInterval(2)) == "[#####...............] 2/8 25%")
  }

  /// A name of wide characters is cut by the columns it takes: counted as characters, the line was wider than the
  /// terminal, wrapped, and each redraw (which clears one line) left a row of it behind (16 rows after 9 s).
  @Test func aNameOfWideCharactersIsCutByItsColumns() {
    var bar = BatchProgress(total: 8, startedAt: Self.start)
    bar.started("/corpus/" + String(repeating: "日本語の名前", count: 12) + ".ipa")
    for width in [40, 60, 80, 120] {
      let line = bar.line(width: width, now: Self.start.addingTimeInterval(1))
      #expect(TerminalText.columns(line) <= width - 3, "\(width): \(line)")
      // At 40 columns there is no room for a name: the fields alone are shown.
      #expect(width < 60 || (line.contains("日本語") && line.hasSuffix("…")), "\(line)")
    }
    #expect(TerminalText.columns("日本語") == 6 && TerminalText.columns("e\u{301}") == 1)
    #expect(TerminalText.columns("ab") == 2 && TerminalText.prefix("日本語", columns: 5) == "日本")
  }

  /// What a wait after the batch shows (the store writing what it queued): a count begun part way, which only
  /// grows, its rate counting only what moved since, and a label of its own in place of the files.
  @Test func aWaitAdvancesToACountUnderALabel() {
    var bar = BatchProgress(total: 64, startedAt: Self.start, done: 40)
    bar.started("/corpus/Last.ipa")
    bar.label("storing (11 written)")
    bar.advance(to: 56, at: Self.start.addingTimeInterval(2))
    #expect(bar.done == 56)
    #expect(
      bar.line(width: 80, now: Self.start.addingTimeInterval(2))
        == "[#################...] 56/64 87% 8.0/s ETA 0:01  storing (11 written)")
    bar.advance(to: 50)
    #expect(bar.done == 56, "a count never goes back")
  }

  /// A count that moves many at a time (an inventory's inputs, stored 128 to a transaction) has the rate of the
  /// inputs, not of the steps: each step is one point of the rate, however many it counts.
  @Test func aCountThatMovesInStepsHasTheRateOfWhatItCounts() {
    var bar = BatchProgress(total: 3200, startedAt: Self.start)
    for step in 1...6 { bar.advance(to: step * 128, at: Self.start.addingTimeInterval(Double(step))) }
    #expect(bar.rate(Self.start.addingTimeInterval(6)) == 128, "640 inputs in the 5 s since the first step")
    #expect(
      bar.line(width: 80, now: Self.start.addingTimeInterval(6)).hasPrefix(
        "[####................] 768/3200 24% 128.0/s ETA 0:19"))
  }

  /// An input that has run longer than ``BatchProgress/slowAfter`` takes the newest one's place, with its time so
  /// far, and a name too long for the line is cut before that time is; the rate falls while nothing finishes, and
  /// after five seconds of that the time left is not known.
  @Test func aSlowInputIsNamedWithItsTimeSoFar() {
    var bar = BatchProgress(total: 14, startedAt: Self.start)
    bar.started("shop.example.com", at: Self.start)
    for index in 1...12 {
      let at = Self.start.addingTimeInterval(Double(index) / 10)
      bar.started("host\(index).example.com", at: at)
      bar.finished("host\(index).example.com", at: at)
    }
    bar.started("last.example.com", at: Self.start.addingTimeInterval(1.3))
    let (soon, later) = (Self.start.addingTimeInterval(2), Self.start.addingTimeInterval(65))
    #expect(bar.line(width: 80, now: soon) == "[#################...] 12/14 85% 5.8/s ETA 0:00  last.example.com")
    #expect(
      bar.line(width: 80, now: later) == "[#################...] 12/14 85% 0.2/s ETA -:--  shop.example.com for 1:05")
    #expect(bar.rate(later) < bar.rate(soon))
    #expect(bar.line(width: 80, now: Self.start.addingTimeInterval(6.1)).contains(" ETA 0:01 "), "4.9 s: an estimate")
    #expect(bar.line(width: 70, now: later) == "[#################...] 12/14 85% 0.2/s ETA -:--  shop.exa… for 1:05")
    // Once it is done, the next that has run too long is named.
    bar.finished("shop.example.com", at: later)
    #expect(bar.line(width: 80, now: later).hasSuffix("  last.example.com for 1:03"))
  }

  /// A batch whose size only its end tells (an inventory read from a pipe) shows what is done and the rate, with no
  /// bar, share or time left to guess; and a count past a total counted ahead (a file that grew) stays at 100%.
  @Test func aBatchOfNoKnownTotalCountsWhatIsDone() {
    var bar = BatchProgress(total: nil, startedAt: Self.start)
    bar.started("standard input")
    for step in 1...6 { bar.advance(to: step * 128, at: Self.start.addingTimeInterval(Double(step))) }
    #expect(bar.line(width: 80, now: Self.start.addingTimeInterval(6)) == "768 so far 128.0/s  standard input")
    var grown = BatchProgress(total: 100, startedAt: Self.start)
    grown.advance(to: 128, at: Self.start.addingTimeInterval(1))
    #expect(
      grown.line(width: 80, now: Self.start.addingTimeInterval(1))
        == "[####################] 128/100 100% 128.0/s ETA 0:00")
  }
}
