/// The text of `ipalinks fetch`: per host, how the file was retrieved, the apps it lists and its findings. (The JSON
/// form is ``JSONReporter`` over the same ``DomainAASA`` values.)
public enum FetchReporter {
  /// The `fetch --format json` document: every host's outcome, in the order given.
  public struct Document: Encodable, Sendable {
    /// One outcome per host.
    public var domains: [DomainAASA]

    /// The document for `domains`.
    public init(domains: [DomainAASA]) { self.domains = domains }
  }

  /// Every string from the network is cleaned of control characters. `bodies` maps a host to the body to print
  /// after its findings (`--body`); hosts without one print none.
  public static func text(
    _ outcomes: [DomainAASA], bodies: [String: [UInt8]] = [:], style: TextStyle = TextStyle(useColor: false)
  ) -> String {
    let reporter = TextReporter(useColor: false)
    var out = ""
    for o in outcomes {
      let url = reporter.clean(o.fetch.url ?? "")
      out += TerminalText.pack(
        [reporter.clean(o.fetch.host), o.status.rawValue, o.fetch.source.rawValue, url], width: style.width, rest: "  "
      ).map { $0 + "\n" }.joined()
      out += TerminalText.wrap(reporter.clean(o.fetch.message), width: style.width, first: "  ", rest: "    ")
        .map { $0 + "\n" }.joined()
      for other in o.fetch.comparison {
        out +=
          "  compared: \(other.source.rawValue) gave \(other.status.rawValue)"
          + (other.status != o.status ? " (differs)" : "") + "\n"
      }
      out += style.sourceChangeLines(o.sourceChanges, indent: "  ").map { $0 + "\n" }.joined()
      if !o.listedApps.isEmpty {
        out += TerminalText.wrap(
          o.listedApps.map { reporter.clean($0) }.joined(separator: ", "), width: style.width,
          first: "  applinks apps: ", rest: "    "
        ).map { $0 + "\n" }.joined()
      }
      for d in o.diagnostics {
        let text = "\(reporter.clean(d.pointer.isEmpty ? "(document)" : d.pointer)): \(reporter.clean(d.message))"
        let lines = style.findingLines(d.severity.rawValue, d.code.rawValue, text, lead: "  ", rest: "      ")
        out += lines.map { $0 + "\n" }.joined()
      }
      if let bytes = bodies[o.fetch.host] {
        out += reporter.clean(String(decoding: bytes, as: UTF8.self), keepingNewlines: true) + "\n"
      }
    }
    return out
  }
}
