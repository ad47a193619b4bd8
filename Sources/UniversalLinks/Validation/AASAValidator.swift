/// Lints an AASA file: every problem at once, each with a stable code and a JSON pointer.
///
/// Parsing never fails on what iOS tolerates, so this is where authors learn that a rule silently does
/// nothing.
public enum AASAValidator {
  /// All findings for the bytes as served, in document order (file-level findings first).
  ///
  /// - Parameter appID: when given, also reports ``AASADiagnosticCode/appNotListed`` if `applinks` does not
  ///   list that app.
  public static func validate(_ bytes: [UInt8], appID: String? = nil) -> [AASADiagnostic] {
    let checked = check(bytes)
    guard let file = checked.file, let appID else { return checked.diagnostics }
    return checked.diagnostics + appFindings(file, appID: appID)
  }

  /// Parses once and returns the file with its app-independent findings, so a file claimed by many apps is parsed
  /// and linted once; ``appFindings(_:appID:)`` adds each app's part. `file` is nil when the bytes do not parse.
  public static func check(_ bytes: [UInt8]) -> (file: AASAFile?, diagnostics: [AASADiagnostic]) {
    var normalizer = Normalizer()
    let file: AASAFile
    do {
      file = try normalizer.parse(bytes)
    } catch {
      var out = normalizer.diagnostics
      switch error {
      case .invalidJSON, .endsEarly: out.append(AASADiagnostic(.invalidJSON, at: "", error.description))
      case .notAnObject: out.append(AASADiagnostic(.notAnObject, at: "", error.description))
      case .invalidEnvelope: out.append(AASADiagnostic(.invalidEnvelope, at: "", error.description))
      case .inputTooLarge:
        out.append(AASADiagnostic(.fileTooLarge, at: "", error.description))
      case .tooManyPatterns: out.append(AASADiagnostic(.tooManyPatterns, at: "", error.description))
      case .expansionTooLarge: out.append(AASADiagnostic(.expansionTooLarge, at: "", error.description))
      }
      return (nil, out)
    }
    // An entry whose "components" or "paths" is not an array already has an error saying it matches nothing; the
    // warning would call the list empty, which the file does not say.
    let mistyped = Set(
      normalizer.diagnostics.filter { $0.code == .invalidType }.map(\.pointer)
        .filter { $0.hasSuffix("/components") || $0.hasSuffix("/paths") }.map { String($0[..<$0.lastIndex(of: "/")!]) })
    let findings = semanticFindings(file).filter { !($0.code == .detailNeverMatches && mistyped.contains($0.pointer)) }
    return (file, normalizer.diagnostics + findings)
  }

  /// What the file means for one app: ``AASADiagnosticCode/appNotListed`` when `applinks` does not list it.
  public static func appFindings(_ file: AASAFile, appID: String) -> [AASADiagnostic] {
    guard file.applinks?.detail(for: appID) == nil else { return [] }
    let elsewhere = [
      ("webcredentials", file.webcredentials), ("appclips", file.appclips),
      ("activitycontinuation", file.activitycontinuation),
    ].filter { $0.1?.apps.contains(appID) == true }.map(\.0)
    let note = elsewhere.isEmpty ? "" : " (it is listed in \(elsewhere.joined(separator: ", ")) only)"
    return [
      AASADiagnostic(
        .appNotListed, at: file.applinks == nil ? "" : "/applinks/details",
        "\(appID) is not listed in applinks, so no universal link on this domain opens it\(note)")
    ]
  }

  /// Findings that need the normalized model: details and rules that can never take effect.
  static func semanticFindings(_ file: AASAFile) -> [AASADiagnostic] {
    var out: [AASADiagnostic] = []
    if let links = file.applinks {
      var claimed = Set<String>()
      var firstListing: [String: AppLinksDetail] = [:]
      for detail in links.details {
        out += findings(for: detail, in: file, claimed: claimed)
        for (i, app) in detail.appIDs.enumerated() {
          if let first = firstListing[app] {
            out.append(
              AASADiagnostic(
                .appListedTwice, at: detail.key == nil ? detail.pointer + "/appIDs/" + String(i) : detail.pointer,
                "\(app) is already listed at \(first.pointer), and iOS uses only the first entry listing an app"))
          } else {
            firstListing[app] = detail
          }
        }
        claimed.formUnion(detail.appIDs)
      }
      for rule in unencodedPatterns(links) { out.append(rule) }
    }
    return out
  }

  private static func findings(for detail: AppLinksDetail, in file: AASAFile, claimed: Set<String>)
    -> [AASADiagnostic]
  {
    var out: [AASADiagnostic] = []
    let pointer = detail.pointer
    func never(_ why: String) { out.append(AASADiagnostic(.detailNeverMatches, at: pointer, why)) }

    if detail.appIDs.isEmpty {
      never("this entry lists no app, so its rules never apply")
      return out
    }
    if detail.appIDs.allSatisfy(claimed.contains) {
      never("every app it lists is already listed by an earlier entry, and iOS uses only the first one")
      return out
    }
    // Compile through the first unclaimed app: all apps of one detail share the same rules.
    let app = detail.appIDs.first { !claimed.contains($0) }!
    let matcher = file.matcher(appID: app)
    switch detail.rules {
    case .none:
      never("this entry has neither \"components\" nor \"paths\", so it matches nothing")
      return out
    case .components(let list) where list.isEmpty:
      never("\"components\" holds no rule, so this entry matches nothing")
      return out
    case .paths(let list) where list.isEmpty:
      never("\"paths\" holds no rule, so this entry matches nothing")
      return out
    default: break
    }
    let compiled = matcher.program.compiled
    let references = matcher.ruleReferences
    if zip(references, compiled).allSatisfy({ $0.exclude || $1.neverMatches }) {
      never("every rule either excludes or can never match, so no URL opens the app")
    }
    out += shadowed(matcher)
    return out
  }

  /// Rules that never decide because an earlier rule of the entry matches every URL they match
  /// (``RuleShadowing``): `unreachable-pattern` when the earlier rule matches every URL at all, else
  /// `shadowed-rule` with both pointers. Rules that can never match are left to their own findings.
  static func shadowed(_ matcher: AASAMatcher) -> [AASADiagnostic] {
    var out: [AASADiagnostic] = []
    let compiled = matcher.program.compiled
    let rules = matcher.program.rules
    let references = matcher.ruleReferences
    var checker = RuleShadowing(rules)
    for later in rules.indices where !compiled[later].neverMatches && !checker.exhausted {
      for earlier in 0..<later where !compiled[earlier].neverMatches {
        guard compiled[earlier].matchesEverything || checker.shadows(earlier, later) else { continue }
        let shadow = references[earlier]
        if compiled[earlier].matchesEverything {
          out.append(
            AASADiagnostic(
              .unreachablePattern, at: references[later].pointer,
              "never tried: \(shadow.pointer) \(shadow.pattern) matches every URL first"))
        } else {
          let decider = "\(shadow.pointer) \(shadow.pattern)"
          let message =
            switch (shadow.exclude, references[later].exclude) {
            case (false, true): "this exclude never applies: \(decider) opens every URL it matches first"
            case (true, false): "this rule never opens a URL: \(decider) excludes every URL it matches first"
            default: "never decides: \(decider) decides every URL it matches first"
            }
          out.append(AASADiagnostic(.shadowedRule, at: references[later].pointer, message))
        }
        break
      }
    }
    return out
  }

  /// Patterns compared with encoded URLs that contain characters an encoded URL never has.
  private static func unencodedPatterns(_ links: AppLinks) -> [AASADiagnostic] {
    var out: [AASADiagnostic] = []
    func check(_ pattern: String?, _ pointer: String, _ percentEncoded: Bool, what: String = "pattern") {
      guard percentEncoded, let pattern else { return }
      // A variable's name is not text the URL must hold (`$(a b)`): only what lies outside `$(…)` is checked.
      var literal = String.UnicodeScalarView()
      var rest = Substring(pattern).unicodeScalars[...]
      while let first = rest.first {
        if first == "$", rest.dropFirst().first == "(", let close = rest.firstIndex(of: ")") {
          rest = rest[rest.index(after: close)...]
        } else {
          literal.append(first)
          rest = rest.dropFirst()
        }
      }
      if let bad = literal.first(where: { $0.value <= 0x20 || $0.value >= 0x7F }) {
        let shown = bad.value <= 0x20 ? "a space or control character" : "\"\(bad)\""
        out.append(
          AASADiagnostic(
            .unencodedPattern, at: pointer,
            "\(what) \(JSONPointer.quote(pattern)) contains \(shown), which a percent-encoded URL never does; "
              + "encode it or set \"percentEncoded\": false"))
      }
    }
    for detail in links.details {
      switch detail.rules {
      case .components(let list):
        for c in list {
          let effective = c.merged(over: detail.defaults).merged(over: links.defaults)
          let encoded = effective.percentEncoded ?? true
          let p = detail.pointer + "/components/" + String(c.index)
          check(c.path, p + "/~1", encoded)
          check(c.fragment, p + "/#", encoded)
          switch c.query {
          case .string(let s)?: check(s, p + "/?", encoded)
          case .items(let items)?:
            for item in items {
              let at = p + "/?/" + JSONPointer.escape(item.name)
              check(item.name, at, encoded, what: "query item name")
              check(item.pattern, at, encoded)
            }
          case nil: break
          }
        }
      case .paths(let list):
        let encoded = detail.defaults?.percentEncoded ?? links.defaults?.percentEncoded ?? true
        for entry in list { check(entry.pattern, detail.pointer + "/paths/" + String(entry.index), encoded) }
      case .none: break
      }
    }
    return out
  }
}
