import Testing
import UniversalLinks

/// The app every fixture lists unless a case says otherwise.
let app = "ABCDE12345.com.example.app"

/// What a case expects: the verdict and, for a match or an exclude, where the deciding rule sits: its index in the
/// detail's `components` (or `paths`), and the index of that detail in `applinks.details` (0 unless given, as most
/// files have one detail).
enum Expected: Sendable, Equatable {
  case match(Int, detail: Int = 0)
  case exclude(Int, detail: Int = 0)
  case noMatch
}

/// One row of the table: a rule number from issue 3, an AASA file, a URL and the verdict iOS gives.
struct MatchCase: Sendable, CustomTestStringConvertible {
  var rule: Int
  var note: String
  var aasa: String
  var url: String
  var expected: Expected
  var appID: String = app

  var testDescription: String { "rule \(rule): \(note): \(url)" }
}

/// A file with one detail for `app` whose `components` are `components` (a JSON array body).
func components(_ components: String, detailDefaults: String? = nil, defaults: String? = nil, vars: String? = nil)
  -> String
{
  var applinks: [String] = []
  if let defaults { applinks.append(#""defaults": \#(defaults)"#) }
  if let vars { applinks.append(#""substitutionVariables": \#(vars)"#) }
  let detailDefaults = detailDefaults.map { #", "defaults": \#($0)"# } ?? ""
  applinks.append(
    #""details": [{"appIDs": ["\#(app)"], "components": [\#(components)]\#(detailDefaults)}]"#)
  return #"{"applinks": {\#(applinks.joined(separator: ", "))}}"#
}

/// A file with one legacy detail for `app`.
func paths(_ paths: String) -> String {
  #"{"applinks": {"apps": [], "details": [{"appID": "\#(app)", "paths": [\#(paths)]}]}}"#
}

/// Shorthand for a one-component file.
func component(_ body: String, defaults: String? = nil, vars: String? = nil) -> String {
  components("{\(body)}", defaults: defaults, vars: vars)
}

func check(_ c: MatchCase) throws {
  let file = try AASAFile(json: c.aasa)
  let result = file.matcher(appID: c.appID).verdict(for: c.url)
  switch c.expected {
  case .match(let index, let detail):
    #expect(result.verdict == .match, "\(c.testDescription)")
    #expect(result.rule?.componentIndex == index, "\(c.testDescription)")
    #expect(result.rule?.detailIndex == detail, "\(c.testDescription)")
  case .exclude(let index, let detail):
    #expect(result.verdict == .exclude, "\(c.testDescription)")
    #expect(result.rule?.componentIndex == index, "\(c.testDescription)")
    #expect(result.rule?.detailIndex == detail, "\(c.testDescription)")
  case .noMatch:
    #expect(result.verdict == .noMatch, "\(c.testDescription)")
    #expect(result.rule == nil, "\(c.testDescription)")
  }
}
