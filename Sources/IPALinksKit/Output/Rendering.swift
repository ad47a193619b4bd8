import UniversalLinks

// Each command's output in the format asked for, so the executable picks a reporter and a format and prints.

extension HostClaims {
  /// `who-claims HOST`: the text, one JSON document, or one JSON object per app. `brief` (`-q`) keeps a URL's text
  /// to each app and its verdict, without the entries and rules.
  public func rendered(_ format: OutputFormat, style: TextStyle, brief: Bool = false) -> String {
    switch format {
    case .json: JSONReporter.document(self) + "\n"
    case .jsonl: claims.map { JSONReporter.render($0, pretty: false) + "\n" }.joined()
    case .text: AuditTextReporter(style: style).render(self, brief: brief && url != nil)
    }
  }

  /// For a URL, whether an app opens it; for a host, whether an app's active entry claims it: what `who-claims`
  /// exits 0 for, as grep does when it finds a line.
  public var answersYes: Bool {
    url == nil ? claims.contains(where: \.isActive) : claims.contains { $0.verdict?.verdict == .match }
  }

  /// For a URL no app opens: whether an app's answer is unknown (its file for the host is), so "none" is not known
  /// either; `who-claims` exits 2 for it.
  public var answerUnknown: Bool { !answersYes && claims.contains { $0.verdictUnknown == true } }
}

extension InventoryDiff {
  /// `diff`: the text or one JSON document.
  public func rendered(_ format: DocumentFormat, style: TextStyle) -> String {
    switch format {
    case .json: JSONReporter.document(self) + "\n"
    case .text: AuditTextReporter(style: style).render(self)
    }
  }
}

extension FetchReporter {
  /// `fetch`: the text (with each file's `bodies` when asked for), one JSON document, or one object per domain.
  public static func rendered(
    _ outcomes: [DomainAASA], format: OutputFormat, bodies: [String: [UInt8]], style: TextStyle
  ) -> String {
    switch format {
    case .json: JSONReporter.document(Document(domains: outcomes)) + "\n"
    case .jsonl: outcomes.map { JSONReporter.render($0, pretty: false) + "\n" }.joined()
    case .text: text(outcomes, bodies: bodies, style: style)
    }
  }
}

extension AASAValidationReporter {
  /// `aasa validate`: the text, one JSON document, or one object per finding.
  public static func rendered(
    _ diagnostics: [AASADiagnostic], file: String, format: OutputFormat, style: TextStyle
  ) -> String {
    switch format {
    case .json: document(diagnostics, file: file)
    case .jsonl: jsonLines(diagnostics, file: file)
    case .text: text(diagnostics, file: file, style: style)
    }
  }
}

extension AASAShowReporter {
  /// `aasa show`: the text or the normalized file as one JSON document.
  public static func rendered(_ aasa: AASAFile, name: String, format: DocumentFormat, style: TextStyle) -> String {
    switch format {
    case .json: JSONReporter.document(aasa) + "\n"
    case .text: text(aasa, name: name, style: style)
    }
  }
}

extension AASADiffReporter {
  /// `aasa diff`: the text or one JSON document.
  public static func rendered(
    _ comparison: AASAComparison, old: String, new: String, files: (old: AASAFile, new: AASAFile),
    appIDs: [String], format: DocumentFormat, style: TextStyle
  ) -> String {
    switch format {
    case .json: json(comparison, old: old, new: new)
    case .text: text(comparison, old: old, new: new, files: files, appIDs: appIDs, style: style)
    }
  }
}
