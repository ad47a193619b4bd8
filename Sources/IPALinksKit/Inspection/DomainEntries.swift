/// The fifth stage of an inspection: the associated-domain entries of the effective entitlements, parsed,
/// deduplicated and capped, with developer-mode entries ruled out of builds that cannot use them.
struct DomainEntries {
  /// Cap on associated-domain entries per bundle; a hostile entitlement cannot flood the inventory.
  static let maximum = 1_000

  /// The entries in entitlement order, each once.
  var domains: [AssociatedDomain] = []
  /// What is wrong with the list or its entries.
  var diagnostics: [Diagnostic] = []

  /// The entries of `entitlements`, for the bundle at `path`.
  init(_ entitlements: [String: PlistValue], path: String) {
    guard let value = entitlements[EntitlementResolver.associatedDomainsKey] else { return }
    let key = "com.apple.developer.associated-domains"
    // Every string is read, with what is not one said: a number among them hid every domain the app claims, and
    // an unknown claim must not read as none.
    var entries: [String] = []
    if let text = value.stringValue {
      diagnostics.append(
        Diagnostic(.error, .domainNotAList, "\(path): \(key) is a string, not a list of strings; read as a list of one")
      )
      entries = [text]
    } else if let items = value.arrayValue {
      for (index, item) in items.enumerated() {
        if let text = item.stringValue {
          entries.append(text)
        } else {
          diagnostics.append(
            Diagnostic(
              .error, .domainNotAList, "\(path): \(key)/\(index) is \(item.summary), not a string; left out"))
        }
      }
    } else {
      diagnostics.append(
        Diagnostic(.error, .domainNotAList, "\(path): \(key) is \(value.summary), not a list of strings"))
      return
    }
    if entries.count > Self.maximum {
      diagnostics.append(
        Diagnostic(
          .error, .domainTooMany,
          "\(path): \(entries.count) associated domains; only the first \(Self.maximum) are reported"))
    }
    let developmentSigned = entitlements["get-task-allow"]?.boolValue == true
    var seen: Set<String> = []
    for raw in entries.prefix(Self.maximum) {
      if !seen.insert(raw).inserted {
        diagnostics.append(Diagnostic(.info, .domainDuplicate, "associated domain \"\(raw)\" is listed twice"))
        continue
      }
      var domain = AssociatedDomain.parse(raw, diagnostics: &diagnostics)
      if domain.active && domain.modes.contains("developer") && !developmentSigned {
        domain.inactiveReason = .developerModeUnavailable
      }
      domains.append(domain)
    }
  }
}
