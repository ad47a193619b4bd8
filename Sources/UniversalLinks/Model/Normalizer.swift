/// Turns served bytes into an ``AASAFile``, recording every tolerated problem as a diagnostic.
///
/// Parsing and validation share this walk, so what the matcher sees and what the validator reports cannot drift
/// apart: a value the validator calls ignored is exactly a value the model left out.
struct Normalizer {
  var diagnostics: [AASADiagnostic] = []
  /// Names usable in `$(…)`: custom ones plus built-ins; filled before patterns are read.
  private var definedVariables: Set<String> = []
  /// How many values each custom variable has, for the expansion count.
  private var customSizes: [String: Int] = [:]
  /// Patterns read so far, against ``AASAFile/maximumPatterns``.
  private var patternCount = 0
  /// Alternatives `$(…)` references add up to, against ``AASAFile/maximumExpansion``.
  private var expansion = 0

  private mutating func report(_ code: AASADiagnosticCode, _ pointer: String, _ message: String) {
    diagnostics.append(AASADiagnostic(code, at: pointer, message))
  }

  mutating func parse(_ input: [UInt8]) throws(AASAError) -> AASAFile {
    guard input.count <= AASAError.maximumInputSize else { throw .inputTooLarge(byteCount: input.count) }
    var bytes = input
    var signed = false
    if CMSEnvelope.looksLikeEnvelope(input) {
      do { bytes = try CMSEnvelope.content(of: input) } catch { throw .invalidEnvelope(error) }
      signed = true
      report(
        .signedEnvelope, "", "the file is PKCS#7-signed; iOS still accepts it, but plain JSON is the current format")
    }
    if input.count > AASAFile.deviceSizeLimit {
      report(
        .fileTooLarge, "",
        "the file is \(input.count) bytes; devices refuse anything over \(AASAFile.deviceSizeLimit) bytes (128 KB)")
    }
    let root: JSONValue
    do { root = try JSONReader.parse(bytes) } catch {
      if error.atEnd { throw .endsEarly(line: error.line, column: error.column, reason: error.reason) }
      throw .invalidJSON(line: error.line, column: error.column, reason: error.reason)
    }
    guard case .object(let members) = root else { throw .notAnObject(found: root.typeName) }
    var file = AASAFile(byteCount: input.count, isSigned: signed)
    checkDuplicates(members, "")
    for member in members.uniqued {
      let pointer = JSONPointer.join("", member.key)
      switch member.key {
      case "applinks": file.applinks = appLinks(member.value, pointer)
      case "webcredentials": file.webcredentials = appList(member.value, pointer)
      case "appclips": file.appclips = appList(member.value, pointer)
      case "activitycontinuation": file.activitycontinuation = appList(member.value, pointer)
      default: report(.unknownKey, pointer, "unknown service \(JSONPointer.quote(member.key)) is ignored")
      }
    }
    if file.applinks == nil, file.webcredentials == nil, file.appclips == nil, file.activitycontinuation == nil {
      report(
        .noServiceKey, "",
        "none of \"applinks\", \"webcredentials\", \"appclips\" or \"activitycontinuation\": this is no AASA file "
          + "(an error page in JSON?)")
    } else if file.applinks == nil {
      report(.missingApplinks, "", "no \"applinks\" section: no universal link on this domain opens any app")
    }
    // Checked once at the end: the walk itself is linear in the input, which is already capped.
    if patternCount > AASAFile.maximumPatterns { throw .tooManyPatterns(count: patternCount) }
    if expansion > AASAFile.maximumExpansion { throw .expansionTooLarge(alternatives: expansion) }
    return file
  }

  // MARK: - Structure

  private mutating func object(_ value: JSONValue, _ pointer: String, _ what: String) -> [JSONMember]? {
    guard case .object(let members) = value else {
      report(.invalidType, pointer, "\(what) must be an object, not \(value.typeName); it is ignored")
      return nil
    }
    checkDuplicates(members, pointer)
    return members.uniqued
  }

  private mutating func checkDuplicates(_ members: [JSONMember], _ pointer: String) {
    var seen = Set<String>()
    for member in members where !seen.insert(member.key).inserted {
      report(
        .duplicateKey, JSONPointer.join(pointer, member.key),
        "key \(JSONPointer.quote(member.key)) appears more than once; the last value wins")
    }
  }

  private mutating func appList(_ value: JSONValue, _ pointer: String) -> AppList? {
    guard let members = object(value, pointer, "a service section") else { return nil }
    var list = AppList(apps: [])
    for member in members {
      let p = JSONPointer.join(pointer, member.key)
      switch member.key {
      case "apps": list.apps = appIDArray(member.value, p) ?? []
      case "details":
        // `appclips` and `webcredentials` have no details; iOS ignores them (a common misunderstanding).
        report(.unknownKey, p, "\"details\" is only read in \"applinks\"; it is ignored here")
      default: report(.unknownKey, p, "unknown key \(JSONPointer.quote(member.key)) is ignored")
      }
    }
    return list
  }

  private mutating func appIDArray(_ value: JSONValue, _ pointer: String) -> [String]? {
    guard case .array(let items) = value else {
      report(.invalidType, pointer, "must be an array of app IDs, not \(value.typeName); it is ignored")
      return nil
    }
    var out: [String] = []
    for (i, item) in items.enumerated() {
      let p = JSONPointer.join(pointer, i)
      guard let id = item.stringValue else {
        report(.invalidType, p, "an app ID must be a string, not \(item.typeName); it is ignored")
        continue
      }
      checkAppID(id, p)
      out.append(id)
    }
    return out
  }

  private mutating func checkAppID(_ id: String, _ pointer: String) {
    if let problem = AppIDFormat.problem(id) {
      report(.invalidAppID, pointer, "\(JSONPointer.quote(id)) is not TEAMID.bundle.id: \(problem)")
    } else if id.utf8.prefix(10).allSatisfy(AppIDFormat.isDigit) {
      report(
        .numericTeamID, pointer,
        "\(JSONPointer.quote(id)) starts with ten digits: that is usually an App Store id, not a team ID "
          + "(team IDs have letters, as in Developer › Membership)")
    }
  }

  /// A path pattern that starts with a scheme or a host: iOS compares it with the URL's path only, so it never
  /// matches what its author meant.
  private mutating func checkPathHasNoHost(_ pattern: String, _ pointer: String) {
    let body = pattern.hasPrefix("/") ? Substring(pattern.dropFirst()) : Substring(pattern)
    if body.lowercased().hasPrefix("http://") || body.lowercased().hasPrefix("https://") {
      report(
        .patternHasHost, pointer,
        "\(JSONPointer.quote(pattern)) starts with a scheme, but \"/\" patterns are matched against the path only")
      return
    }
    // `github.com/…` without a leading slash: a first segment made of dotted labels ending in letters.
    guard !pattern.hasPrefix("/"), let slash = body.firstIndex(of: "/") else { return }
    let labels = body[..<slash].split(separator: ".", omittingEmptySubsequences: false)
    let looksLikeHost =
      labels.count >= 2
      && labels.allSatisfy { label in
        !label.isEmpty
          && label.utf8.allSatisfy { AppIDFormat.isLower($0 | 0x20) || AppIDFormat.isDigit($0) || $0 == 0x2D }
      }
      && labels.last!.utf8.allSatisfy { AppIDFormat.isLower($0 | 0x20) } && labels.last!.count >= 2
    if looksLikeHost {
      report(
        .patternHasHost, pointer,
        "\(JSONPointer.quote(pattern)) starts with a host name, but \"/\" patterns are matched against the path "
          + "only; the domain comes from the associated-domains entitlement")
    }
  }

  private mutating func appLinks(_ value: JSONValue, _ pointer: String) -> AppLinks? {
    guard let members = object(value, pointer, "\"applinks\"") else { return nil }
    var links = AppLinks()
    // Variables first, whatever the key order, so patterns can be checked against them.
    if let vars = members["substitutionVariables"] {
      links.substitutionVariables = variables(vars, JSONPointer.join(pointer, "substitutionVariables"))
    }
    definedVariables = Set(BuiltinVariables.names).union(links.substitutionVariables.map(\.name))
    for variable in links.substitutionVariables { customSizes[variable.name] = variable.values.count }
    for member in members {
      let p = JSONPointer.join(pointer, member.key)
      switch member.key {
      case "apps":
        if case .array(let items) = member.value {
          links.apps = items.compactMap(\.stringValue)
          if !items.isEmpty {
            report(
              .legacyAppsNotEmpty, p,
              "legacy \"apps\" should be an empty array: iOS ignores its contents, and apps are listed in "
                + "\"details\"")
          }
        } else {
          report(.invalidType, p, "legacy \"apps\" must be an array (iOS ignores it)")
        }
      case "details": links.details = details(member.value, p)
      case "defaults":
        if let d = object(member.value, p, "\"defaults\"") { links.defaults = component(d, p, index: 0) }
      case "substitutionVariables": break
      case "webcredentials", "appclips", "activitycontinuation":
        report(
          .misplacedSection, p,
          "\(JSONPointer.quote(member.key)) belongs at the top level of the file, beside \"applinks\"; inside it, "
            + "it is ignored")
      default: report(.unknownKey, p, "unknown key \(JSONPointer.quote(member.key)) in \"applinks\" is ignored")
      }
    }
    return links
  }

  private mutating func variables(_ value: JSONValue, _ pointer: String) -> [SubstitutionVariable] {
    guard let members = object(value, pointer, "\"substitutionVariables\"") else { return [] }
    var out: [SubstitutionVariable] = []
    for member in members {
      let p = JSONPointer.join(pointer, member.key)
      guard case .array(let items) = member.value else {
        report(
          .invalidType, p, "variable \(JSONPointer.quote(member.key)) must be an array of strings; it is ignored")
        continue
      }
      var values: [String] = []
      for (i, item) in items.enumerated() {
        guard let s = item.stringValue else {
          report(.invalidType, JSONPointer.join(p, i), "a variable value must be a string; it is ignored")
          continue
        }
        if s.contains("$(") {
          report(
            .nestedVariable, JSONPointer.join(p, i),
            "value \(JSONPointer.quote(s)) contains \"$(\": variables are not expanded inside values")
        }
        values.append(s)
      }
      out.append(SubstitutionVariable(name: member.key, values: values))
    }
    return out
  }

  private mutating func details(_ value: JSONValue, _ pointer: String) -> [AppLinksDetail] {
    switch value {
    case .array(let items):
      return items.enumerated().map { i, item in
        let p = JSONPointer.join(pointer, i)
        guard case .object(let members) = item else {
          report(.invalidType, p, "a details entry must be an object, not \(item.typeName); it is ignored")
          return AppLinksDetail(index: i, appIDs: [], rules: .none)
        }
        checkDuplicates(members, p)
        return detail(members.uniqued, p, index: i, key: nil)
      }
    case .object(let members):
      // The pre-iOS 11 form: {"TEAMID.bundle": {"paths": [...]}}.
      checkDuplicates(members, pointer)
      return members.uniqued.enumerated().map { i, member in
        let p = JSONPointer.join(pointer, member.key)
        checkAppID(member.key, p)
        guard case .object(let inner) = member.value else {
          report(.invalidType, p, "a details entry must be an object, not \(member.value.typeName); it is ignored")
          return AppLinksDetail(index: i, key: member.key, appIDs: [member.key], rules: .none)
        }
        checkDuplicates(inner, p)
        var d = detail(inner.uniqued, p, index: i, key: member.key)
        d.appIDs = [member.key]
        return d
      }
    default:
      report(.invalidType, pointer, "\"details\" must be an array, not \(value.typeName); it is ignored")
      return []
    }
  }

  private mutating func detail(_ members: [JSONMember], _ pointer: String, index: Int, key: String?) -> AppLinksDetail {
    var appIDs: [String]? = nil
    if let v = members["appIDs"] {
      appIDs = appIDArray(v, JSONPointer.join(pointer, "appIDs"))
    }
    if let v = members["appID"] {
      let p = JSONPointer.join(pointer, "appID")
      if let id = v.stringValue {
        if appIDs == nil {
          checkAppID(id, p)
          appIDs = [id]
        }
      } else {
        report(.invalidType, p, "\"appID\" must be a string, not \(v.typeName); it is ignored")
      }
    }
    var rules = AppLinksRules.none
    if let v = members["components"] {
      let p = JSONPointer.join(pointer, "components")
      if members["paths"] != nil {
        report(
          .pathsWithComponents, JSONPointer.join(pointer, "paths"),
          "\"paths\" is ignored because \"components\" is present (iOS 13 and later read only components)")
      }
      if case .array(let items) = v {
        var list: [AASAComponent] = []
        for (i, item) in items.enumerated() {
          let cp = JSONPointer.join(p, i)
          guard case .object(let c) = item else {
            report(.invalidType, cp, "a component must be an object, not \(item.typeName); it is ignored")
            continue
          }
          checkDuplicates(c, cp)
          list.append(component(c.uniqued, cp, index: i))
        }
        rules = .components(list)
      } else {
        report(.invalidType, p, "\"components\" must be an array, not \(v.typeName); the detail matches nothing")
        rules = .components([])
      }
    } else if let v = members["paths"] {
      rules = .paths(paths(v, JSONPointer.join(pointer, "paths")))
    }
    var defaults: AASAComponent? = nil
    for member in members {
      let p = JSONPointer.join(pointer, member.key)
      switch member.key {
      case "appIDs", "appID", "components", "paths", "comment": break
      case "defaults":
        if let d = object(member.value, p, "\"defaults\"") { defaults = component(d, p, index: 0) }
      default: report(.unknownKey, p, "unknown key \(JSONPointer.quote(member.key)) in a details entry is ignored")
      }
    }
    return AppLinksDetail(index: index, key: key, appIDs: appIDs ?? [], defaults: defaults, rules: rules)
  }

  private mutating func paths(_ value: JSONValue, _ pointer: String) -> [LegacyPath] {
    guard case .array(let items) = value else {
      report(.invalidType, pointer, "\"paths\" must be an array, not \(value.typeName); the detail matches nothing")
      return []
    }
    var out: [LegacyPath] = []
    for (i, item) in items.enumerated() {
      let p = JSONPointer.join(pointer, i)
      guard let s = item.stringValue else {
        report(.invalidPattern, p, "a path must be a string, not \(item.typeName); it is ignored")
        continue
      }
      let exclude = s.hasPrefix("NOT ")
      let pattern = exclude ? String(s.dropFirst(4)) : s
      checkVariables(pattern, p)
      checkPathHasNoHost(pattern, p)
      out.append(LegacyPath(index: i, pattern: pattern, exclude: exclude))
    }
    return out
  }

  private mutating func component(_ members: [JSONMember], _ pointer: String, index: Int) -> AASAComponent {
    var c = AASAComponent(index: index)
    for member in members {
      let p = JSONPointer.join(pointer, member.key)
      let v = member.value
      switch member.key {
      case "/":
        c.path = pattern(v, p, "\"/\"")
        if let path = c.path { checkPathHasNoHost(path, p) }
      case "#": c.fragment = pattern(v, p, "\"#\"")
      case "?": c.query = query(v, p)
      case "exclude": c.exclude = flag(v, p, "exclude")
      case "caseSensitive": c.caseSensitive = flag(v, p, "caseSensitive")
      case "percentEncoded": c.percentEncoded = flag(v, p, "percentEncoded")
      case "comment": c.comment = v.stringValue
      default: report(.unknownKey, p, "unknown key \(JSONPointer.quote(member.key)) in a component is ignored")
      }
    }
    return c
  }

  private mutating func pattern(_ v: JSONValue, _ p: String, _ what: String) -> String? {
    guard let s = v.stringValue else {
      report(.invalidPattern, p, "\(what) must be a string, not \(v.typeName); the key is ignored")
      return nil
    }
    checkVariables(s, p)
    return s
  }

  private mutating func query(_ v: JSONValue, _ p: String) -> QueryPattern? {
    switch v {
    case .string(let s):
      checkVariables(s, p)
      return .string(s)
    case .object(let members):
      checkDuplicates(members, p)
      var items: [QueryItemPattern] = []
      var valid = true
      for member in members.uniqued {
        let ip = JSONPointer.join(p, member.key)
        guard let s = member.value.stringValue else {
          report(
            .invalidPattern, ip,
            "query item pattern must be a string, not \(member.value.typeName); iOS then ignores the whole \"?\"")
          valid = false
          continue
        }
        checkVariables(s, ip)
        items.append(QueryItemPattern(name: member.key, pattern: s))
      }
      return valid ? .items(items) : nil
    default:
      report(.invalidPattern, p, "\"?\" must be a string or an object, not \(v.typeName); the key is ignored")
      return nil
    }
  }

  private mutating func flag(_ v: JSONValue, _ p: String, _ name: String) -> Bool? {
    guard case .bool(let b) = v else {
      report(.invalidFlag, p, "\"\(name)\" must be true or false, not \(v.typeName); the key is ignored")
      return nil
    }
    return b
  }

  private mutating func checkVariables(_ pattern: String, _ pointer: String) {
    patternCount += 1
    for name in PatternToken.variableNames(in: pattern) {
      expansion += customSizes[name] ?? BuiltinVariables.values(of: name)?.count ?? 0
      if !definedVariables.contains(name) {
        report(
          .undefinedVariable, pointer,
          "$(\(name)) is not defined in substitutionVariables nor built in; this pattern never matches")
      }
    }
  }
}

/// The `TEAMID.bundle.id` shape of app IDs.
enum AppIDFormat {
  /// Nil when `id` looks like an app ID, else what is wrong with it.
  static func problem(_ id: String) -> String? {
    let utf8 = Array(id.utf8)
    guard let dot = utf8.firstIndex(of: UInt8(ascii: ".")) else { return "there is no '.' after the team ID" }
    let team = utf8[..<dot]
    let bundle = utf8[(dot + 1)...]
    guard team.count == 10, team.allSatisfy({ isUpperAlnum($0) }) else {
      return "the team ID must be 10 upper-case letters or digits"
    }
    guard !bundle.isEmpty else { return "the bundle ID is empty" }
    guard bundle.allSatisfy({ isUpperAlnum($0) || isLower($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") })
    else { return "the bundle ID may contain only letters, digits, '.' and '-'" }
    return nil
  }

  private static func isUpperAlnum(_ b: UInt8) -> Bool {
    (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(b) || isDigit(b)
  }
  static func isLower(_ b: UInt8) -> Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b) }
  static func isDigit(_ b: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) }
}
