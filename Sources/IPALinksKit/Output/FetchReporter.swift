/// The text of `ipalinks fetch`: per host, how the file was retrieved, the apps it lists and its findings. (The JSON
/// form is ``JSONReporter`` over the same ``DomainAASA`` values.)
public enum FetchReporter {
  /// Every string from the network is cleaned of control characters. `bodies` maps a host to the body to print
  /// after its findings (`--body`); hosts without one print none.
  public static func text(_ outcomes: [DomainAASA], bodies: [String: [UInt8]] = [:]) -> String {
    let reporter = TextReporter(useColor: false)
    var out = ""
    for o in outcomes {
      let url = reporter.clean(o.fetch.url ?? "")
      out += "\(reporter.clean(o.fetch.host))  \(o.status.rawValue)  \(o.fetch.source.rawValue)  \(url)\n"
      out += "  \(reporter.clean(o.fetch.message))\n"
      if !o.listedApps.isEmpty {
        out += "  applinks apps: \(o.listedApps.map { reporter.clean($0) }.joined(separator: ", "))\n"
      }
      for d in o.diagnostics {
        out +=
          "  \(d.severity.rawValue) [\(d.code.rawValue)] \(reporter.clean(d.pointer)): \(reporter.clean(d.message))\n"
      }
      if let bytes = bodies[o.fetch.host] {
        out += reporter.clean(String(decoding: bytes, as: UTF8.self), keepingNewlines: true) + "\n"
      }
    }
    return out
  }
}
