// The front of the web-view guard. `ipalinks blocklist --format swift` writes this file, verbatim, followed by the
// runtime core (`Sources/UniversalLinks/Runtime`) and the rules, so an app gets one self-contained file that
// depends on Foundation only (and WebKit where it exists). In this package it compiles as the `UniversalLinkGuard`
// library, which reads a rules document at run time and imports the core from `UniversalLinks`.

import Foundation

#if UNIVERSAL_LINK_GUARD_PACKAGE
  import UniversalLinks
#endif

// MARK: - How to use
//
// UniversalLinkGuard answers one question: would iOS hand this navigation to one of the apps below instead of
// loading it? In a WKWebView such a navigation leaves your app for the other app. The answer follows WebKit's own
// rule (`LinkRuntime.Table.decide(_:)` below): iOS tries an app only for a navigation in the main frame (or a new
// window), to a host other than the page's, that is not back/forward, that the user's tap started, and whose URL an
// app's AASA rules open. So browsing within a site always stays in the web view.
//
// In your WKNavigationDelegate (Apple platforms, where WebKit exists):
//
//     func webView(
//       _ webView: WKWebView, decidePolicyFor navigationAction: WKNavigationAction,
//       decisionHandler: @escaping @MainActor @Sendable (WKNavigationActionPolicy) -> Void
//     ) {
//       UniversalLinkGuard.shared.decidePolicy(for: navigationAction, in: webView, decisionHandler: decisionHandler)
//     }
//
//     // or, with the async form of the delegate method:
//     func webView(
//       _ webView: WKWebView, decidePolicyFor navigationAction: WKNavigationAction
//     ) async -> WKNavigationActionPolicy {
//       UniversalLinkGuard.shared.navigationPolicy(for: navigationAction, in: webView)
//     }
//
// Elsewhere, ask about a URL and the page it is opened from:
//
//     let linkGuard = UniversalLinkGuard.shared          // decodes the embedded rules on first use
//     linkGuard.opensApp(url, from: webView.url)          // false for a URL on the page's own host
//     switch linkGuard.verdict(for: url) {                // the URL's rules alone, wherever it is opened from
//     case .opensApp(let appID, let rule): print("\(appID) claims it, rule \(rule)")
//     case .excluded(let appID, let rule): print("\(appID) excludes it, rule \(rule)")
//     case .staysInWebView: break
//     }
//
// How a URL is decided (rules match as in `ipalinks match`, by the same code): only http and https URLs; for each
// app, the entry for the URL's exact host, else the longest wildcard (`*.example.com`) entry covering it; in that
// entry the rules are tried in order and the first that matches decides (exclude or open). The first app that
// opens the URL wins; an exclusion only reports which app excluded it.

/// Tells whether iOS would open an app, rather than the web view, for a URL, from a rules document written by
/// `ipalinks blocklist`.
public struct UniversalLinkGuard: Sendable {
  /// What iOS would do with a URL.
  public enum Verdict: Equatable, Sendable {
    /// The URL opens `appID`; `rule` is the JSON pointer of the deciding rule in the domain's AASA file.
    case opensApp(appID: String, rule: String)
    /// A rule of `appID` excludes the URL (and no app opens it); `rule` is that rule's JSON pointer.
    case excluded(appID: String, rule: String)
    /// No app claims the URL, or it is not an http(s) URL.
    case staysInWebView
  }

  /// What a rules document says about itself, so an app can tell a newer one: the ipalinks that made it, when
  /// (RFC 3339, UTC), and the SHA-256 of its rules, which stays the same while the rules do. Nil in a document
  /// made before ipalinks stamped them, or for rules compiled in code.
  public struct Stamp: Sendable, Equatable, Decodable {
    /// The ipalinks that made the document, with its version.
    public var generator: String?
    /// When it was made.
    public var generatedAt: String?
    /// The SHA-256 of its rules, in lower-case hex.
    public var sha256: String?
    /// The list's name (`blocklist --list-name`), signed with its time: an updating guard takes documents of its own
    /// list only, so that one key signing several lists cannot swap one list's rules for another's. Nil when the
    /// list has none.
    public var list: String? = nil
    /// The Ed25519 signature (`blocklist --sign`) of its rules and when and by what they were made (the bytes
    /// ``signed(of:)`` gives), in base64; nil when it is not signed.
    public var signature: String? = nil

    /// Whether `rulesJSON`, the document this stamp came from, holds the rules its `sha256` is the digest of.
    public func matches(_ rulesJSON: String) -> Bool {
      guard let sha256, let rules = Self.rules(of: rulesJSON) else { return false }
      return LinkRuntime.sha256Hex(rules) == sha256
    }

    /// The bytes a rules document's digest is of: the document's bytes before its stamp (`,"generatedAt":`),
    /// closed with `}`, as `ipalinks blocklist` writes it; nil without a stamp.
    public static func rules(of rulesJSON: String) -> [UInt8]? {
      prefix(of: rulesJSON, before: #","generatedAt":""#)
    }

    /// The bytes a rules document's signature is of: its rules and the stamp's `generatedAt` and `generator`, the
    /// document's bytes before `,"sha256":`, closed with `}`; nil without them. The time is signed so that an old
    /// signed document cannot be given a new time and replayed over newer rules.
    public static func signed(of rulesJSON: String) -> [UInt8]? {
      guard let signed = prefix(of: rulesJSON, before: #","sha256":""#), rules(of: rulesJSON) != nil else { return nil }
      return signed
    }

    /// The bytes before the first `marker`, closed with `}`. Inside a JSON string a quote is escaped, so the first
    /// unescaped marker is the stamp's.
    private static func prefix(of rulesJSON: String, before marker: String) -> [UInt8]? {
      let bytes = Array(rulesJSON.utf8)
      let marker = Array(marker.utf8)
      guard bytes.count >= marker.count,
        let start = (0...(bytes.count - marker.count)).first(where: {
          bytes[$0..<($0 + marker.count)].elementsEqual(marker)
        })
      else { return nil }
      return Array(bytes[..<start]) + [UInt8(ascii: "}")]
    }

    /// An RFC 3339 time as the stamp writes it (`2026-11-28T09:00:00Z`).
    static func date(_ text: String) -> Date? {
      let formatter = ISO8601DateFormatter()
      formatter.formatOptions = [.withInternetDateTime]
      return formatter.date(from: text)
    }

    /// A time as the stamp writes it.
    static func text(_ date: Date) -> String {
      let formatter = ISO8601DateFormatter()
      formatter.formatOptions = [.withInternetDateTime]
      return formatter.string(from: date)
    }
  }

  /// How many rules the guard holds, over every app and entry.
  public var ruleCount: Int { table.apps.reduce(0) { $0 + $1.scopes.reduce(0) { $0 + $1.program.rules.count } } }

  /// How many of them can open an app (not exclusions): with none, the guard keeps every link in the web view.
  public var openingRuleCount: Int {
    table.apps.reduce(0) { $0 + $1.scopes.reduce(0) { $0 + $1.program.rules.filter { !$0.exclude }.count } }
  }

  /// Why a rules document cannot be loaded: one line saying where it goes wrong.
  public struct LoadError: Error, Sendable, CustomStringConvertible {
    /// The message.
    public var description: String
  }

  /// The compiled rules of every app.
  public let table: LinkRuntime.Table
  /// What the rules document said about itself.
  public let stamp: Stamp

  /// A guard for compiled rules.
  public init(table: LinkRuntime.Table) {
    self.table = table
    stamp = Stamp()
  }

  /// `rules`' table under another stamp.
  init(_ rules: UniversalLinkGuard, stamp: Stamp) {
    table = rules.table
    self.stamp = stamp
  }

  /// A guard for a rules document: the JSON that `ipalinks blocklist --format rules` writes, and `--format swift`
  /// embeds in the file it writes. A document that is not one (not JSON, no `apps`, a rule that does not read)
  /// throws a ``LoadError`` saying where.
  public init(rulesJSON: String) throws(LoadError) {
    let data = Data(rulesJSON.utf8)
    do {
      // Its `apps` must be there: a document without them would silently guard nothing.
      stamp = try JSONDecoder().decode(Envelope.self, from: data).stamp
      // Two passes: references to a variable's alternatives (`{"choice": n}`) read the shared table while the
      // rules decode, so each variable's values are held once however many rules use it.
      let decoder = JSONDecoder()
      decoder.userInfo[LinkRuntime.choicesKey] = try JSONDecoder().decode(LinkRuntime.ChoiceTable.self, from: data)
        .choices
      table = try decoder.decode(LinkRuntime.Table.self, from: data)
    } catch {
      throw LoadError(description: "the rules document cannot be read: " + Self.describe(error))
    }
  }

  /// A rules document's `apps` (required, not read here) and its stamp.
  private struct Envelope: Decodable {
    struct Skipped: Decodable {
      init(from decoder: any Decoder) throws {}
    }
    let apps: [Skipped]
    let generator: String?
    let generatedAt: String?
    let sha256: String?
    let signature: String?
    let list: String?
    var stamp: Stamp {
      Stamp(generator: generator, generatedAt: generatedAt, sha256: sha256, list: list, signature: signature)
    }
  }

  /// A decoding error in words, with the path of keys where it happened.
  private static func describe(_ error: any Error) -> String {
    func at(_ path: [any CodingKey]) -> String {
      path.isEmpty ? "" : " at " + path.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: "/")
    }
    switch error as? DecodingError {
    // A piece from a newer ipalinks is valid JSON, and says so (`LinkRuntime.Piece`).
    case .dataCorrupted(let context) where context.debugDescription.hasPrefix("unknown pattern piece"):
      return context.debugDescription + at(context.codingPath)
    case .dataCorrupted(let context): return "not valid JSON" + at(context.codingPath)
    case .keyNotFound(let key, let context): return "no \"\(key.stringValue)\"" + at(context.codingPath)
    case .typeMismatch(_, let context), .valueNotFound(_, let context):
      return context.debugDescription + at(context.codingPath)
    default: return "\(error)"
    }
  }

  /// What iOS would do with `url`.
  public func verdict(for url: URL) -> Verdict { verdict(for: url.absoluteString) }

  /// What iOS would do with the URL `string`; a string that is not an absolute URL stays in the web view.
  ///
  /// The string is split the way `ipalinks match` splits it (not with `URL(string:)`, which re-encodes every `%`
  /// of a part that also holds a character needing encoding), so both give the same verdict.
  public func verdict(for string: String) -> Verdict {
    let decision = table.decide(string)
    switch decision.verdict {
    case .match: return .opensApp(appID: decision.appID ?? "", rule: decision.pointer ?? "")
    case .exclude: return .excluded(appID: decision.appID ?? "", rule: decision.pointer ?? "")
    case .noMatch: return .staysInWebView
    }
  }

  /// Whether iOS would open an app when the user taps a link to `url` on `page`, the page the web view shows: false
  /// when `page` has the same host as `url` (WebKit keeps such a navigation in the web view), else whether an app
  /// claims `url`. Nil means no page yet (a web view's first load).
  public func opensApp(_ url: URL, from page: URL?) -> Bool {
    decide(
      LinkRuntime.Navigation(
        destination: url.absoluteString, page: page?.absoluteString, frame: .main, kind: .linkActivated)
    ).opensApp
  }

  /// What iOS does with a navigation described by its facts, and why: the navigation rule, over these rules.
  public func decide(_ navigation: LinkRuntime.Navigation) -> LinkRuntime.NavigationDecision {
    table.decide(navigation)
  }
}

/// A guard whose rules an app replaces while it runs, with a newer rules document it downloaded
/// (`ipalinks blocklist --format rules`). The guard keeps the rules it has, and ``update(rulesJSON:allowingNoRules:now:)``
/// throws a ``UniversalLinkGuard/LoadError`` saying why, for a document that:
///
/// - cannot be loaded (cut short, not JSON, no `apps`);
/// - is of another list (`blocklist --list-name`) than the rules in use, or of a named list when they have no name,
///   or the other way round;
/// - has no `sha256`, or one that is not the digest of its rules (edited, or damaged on the way);
/// - for a guard that takes signed documents only: is not signed, or not with its key, or has its time changed;
/// - was made before the rules in use (to go back, ``rollBack(to:allowingNoRules:now:)`` says so in so many words),
///   or in the same second with other rules;
/// - was made more than ``allowedClockSkew`` after this device's clock, which would lock out every real update
///   until then;
/// - holds no rule that opens an app (none, or only exclusions) while the rules in use hold some, unless
///   `allowingNoRules` says that is meant.
///
/// So a failed or forged download never leaves the web view unguarded. The guard knows the newest document it took
/// only while the app runs: keep the last one `update` took (it returned true) and give it to `update` at launch,
/// before any download, so that an older one replayed after a relaunch is refused too.
///
///     let linkGuard = UpdatingLinkGuard(.shared)
///     // later, with the body of https://example.com/ipalinks-rules.json:
///     do { try linkGuard.update(rulesJSON: body) } catch { log("kept the rules in use: \(error)") }
///     linkGuard.current.verdict(for: url)
public final class UpdatingLinkGuard: @unchecked Sendable {
  private let lock = NSLock()
  private var guarded: UniversalLinkGuard

  /// How far after this device's clock a document may say it was made: five minutes, for a publisher whose clock
  /// runs ahead. A document from further in the future is refused.
  public static let allowedClockSkew: TimeInterval = 300

  /// Checks a document's signature: given the bytes signed (``UniversalLinkGuard/Stamp/signed(of:)``: its rules and
  /// when they were made) and the signature, whether the signature is valid for them. Nil when documents need none.
  private let verifySignature: (@Sendable (_ signed: [UInt8], _ signature: [UInt8]) -> Bool)?

  /// Starts with `initial`'s rules, and takes documents that need no signature.
  public init(_ initial: UniversalLinkGuard) {
    guarded = initial
    verifySignature = nil
  }

  /// Starts with `initial`'s rules, and takes only documents signed (`blocklist --sign`) with a signature that
  /// `verify` accepts for the bytes signed (``UniversalLinkGuard/Stamp/signed(of:)``): an unsigned or wrongly signed
  /// one is refused. With CryptoKit, use ``init(_:publicKey:)`` instead; this form lets another Ed25519
  /// implementation check.
  public init(
    _ initial: UniversalLinkGuard,
    verifyingSignatures verify: @escaping @Sendable (_ signed: [UInt8], _ signature: [UInt8]) -> Bool
  ) {
    guarded = initial
    verifySignature = verify
  }

  /// The rules in use.
  public var current: UniversalLinkGuard {
    lock.lock()
    defer { lock.unlock() }
    return guarded
  }

  /// Loads `rulesJSON` and uses it from now on. Returns false, changing nothing, when it holds the rules in use
  /// (the same `sha256`) made no later; true when it was taken (the same rules made later too: their time is then
  /// the one an older document must not be before), which is when an app saves it. Throws, keeping the rules in
  /// use, for any document the type's description lists; `now` is this device's clock.
  @discardableResult
  public func update(
    rulesJSON: String, allowingNoRules: Bool = false, now: Date = Date()
  ) throws(UniversalLinkGuard.LoadError) -> Bool {
    try replace(with: rulesJSON, olderAllowed: false, allowingNoRules: allowingNoRules, now: now)
  }

  /// Goes back to an older rules document, such as the one before a bad update: ``update(rulesJSON:allowingNoRules:now:)``
  /// refuses those, so that a replayed old download cannot undo a newer list. Every other check still applies.
  @discardableResult
  public func rollBack(
    to rulesJSON: String, allowingNoRules: Bool = false, now: Date = Date()
  ) throws(UniversalLinkGuard.LoadError) -> Bool {
    try replace(with: rulesJSON, olderAllowed: true, allowingNoRules: allowingNoRules, now: now)
  }

  private func replace(
    with rulesJSON: String, olderAllowed: Bool, allowingNoRules: Bool, now: Date
  ) throws(UniversalLinkGuard.LoadError) -> Bool {
    func refuse(_ reason: String) -> UniversalLinkGuard.LoadError {
      UniversalLinkGuard.LoadError(description: "the rules document " + reason + "; kept the rules in use")
    }
    var next: UniversalLinkGuard
    do { next = try UniversalLinkGuard(rulesJSON: rulesJSON) } catch {
      throw UniversalLinkGuard.LoadError(description: "\(error); kept the rules in use")
    }
    guard let sha256 = next.stamp.sha256 else { throw refuse("has no sha256 to check its rules against") }
    guard next.stamp.matches(rulesJSON) else { throw refuse("does not match its sha256 (\(sha256))") }
    if let verifySignature {
      guard let signature = next.stamp.signature else {
        throw refuse("is not signed, and this guard takes signed ones")
      }
      let bytes = Data(base64Encoded: signature).map(Array.init) ?? []
      guard let signed = UniversalLinkGuard.Stamp.signed(of: rulesJSON), verifySignature(signed, bytes) else {
        // Older ipalinks signed the rules alone, which let an old document pass with a new time.
        if let rules = UniversalLinkGuard.Stamp.rules(of: rulesJSON), verifySignature(rules, bytes) {
          throw refuse("is signed without its time, by an older ipalinks; sign it again with this one")
        }
        throw refuse("has a signature that does not verify with the key this guard trusts")
      }
      // What was signed, and nothing after it (a second "apps" key, say), is what the guard uses.
      let asSigned = try UniversalLinkGuard(rulesJSON: String(decoding: signed, as: UTF8.self))
      next = UniversalLinkGuard(
        asSigned,
        stamp: UniversalLinkGuard.Stamp(
          generator: asSigned.stamp.generator, generatedAt: asSigned.stamp.generatedAt, sha256: sha256,
          list: asSigned.stamp.list, signature: signature))
    }
    guard let made = next.stamp.generatedAt, let madeAt = UniversalLinkGuard.Stamp.date(made) else {
      throw refuse("says no time it was made (generatedAt)")
    }
    if madeAt.timeIntervalSince(now) > Self.allowedClockSkew {
      throw refuse(
        "was made \(made), after this device's clock (\(UniversalLinkGuard.Stamp.text(now))) by more than "
          + "\(Int(Self.allowedClockSkew)) seconds")
    }
    lock.lock()
    defer { lock.unlock() }
    let inUse = guarded.stamp
    // Another list's document, however new and however signed, would put its rules in place of this list's.
    if next.stamp.list != inUse.list {
      func named(_ list: String?) -> String { list.map { "the list \"\($0)\"" } ?? "a list with no name" }
      throw refuse(
        "is of \(named(next.stamp.list)), and the rules in use are of \(named(inUse.list)); an updating guard takes "
          + "documents of its own list only")
    }
    let inUseMade = inUse.generatedAt.flatMap(UniversalLinkGuard.Stamp.date)
    if sha256 == inUse.sha256 {
      // The same rules made later decide the same, but what is older is now older than them: a replayed download
      // made in between was taken over the newer document. Taken, so that an app saves it.
      guard !olderAllowed, let inUseMade, madeAt > inUseMade else { return false }
      guarded = next
      return true
    }
    // Of the same second too: two such documents could otherwise replace each other back and forth, a replay each
    // time.
    if !olderAllowed, let inUseMade, madeAt <= inUseMade {
      throw refuse(
        madeAt < inUseMade
          ? "was made \(made), before the rules in use (\(inUse.generatedAt ?? "")); to go back to it, call "
            + "rollBack(to:)"
          : "was made \(made), the same second as the rules in use, and holds other rules, so which is newer cannot "
            + "be told; publish it with a later time, or call rollBack(to:) to take it")
    }
    // A document whose rules only exclude opens no app either: it would switch the guard off as an empty one does.
    let (rules, opening) = (next.ruleCount, next.openingRuleCount)
    let openingInUse = guarded.openingRuleCount
    if opening == 0 && openingInUse > 0 && !allowingNoRules {
      throw refuse(
        (rules == 0 ? "holds no rule" : "holds no rule that opens an app (its \(rules) only exclude)")
          + ", and the rules in use hold \(openingInUse) that do; pass allowingNoRules: true if that is meant")
    }
    guarded = next
    return true
  }
}

#if UNIVERSAL_LINK_GUARD_PACKAGE && canImport(Crypto)
  import Crypto
#elseif canImport(CryptoKit)
  import CryptoKit
#endif

#if (UNIVERSAL_LINK_GUARD_PACKAGE && canImport(Crypto)) || canImport(CryptoKit)
  extension UpdatingLinkGuard {
    /// Why a public key cannot be used.
    public struct KeyError: Error, Sendable, CustomStringConvertible {
      /// The message.
      public var description: String
    }

    /// Starts with `initial`'s rules, and takes only documents signed (`blocklist --sign`) with the private key of
    /// `publicKey`: its 32 raw Ed25519 bytes (`openssl pkey -in key.pem -pubout -outform DER | tail -c 32`).
    public convenience init(_ initial: UniversalLinkGuard, publicKey: Data) throws(KeyError) {
      guard (try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey)) != nil else {
        throw KeyError(description: "the public key is not 32 raw Ed25519 bytes (\(publicKey.count) bytes given)")
      }
      // The key's bytes, not the key, go into the check: the key type is not Sendable everywhere.
      self.init(initial) { rules, signature in
        (try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey))?.isValidSignature(
          Data(signature), for: Data(rules)) ?? false
      }
    }
  }
#endif

// MARK: - WebKit

#if canImport(WebKit)
  import WebKit

  /// How ``UniversalLinkGuard/decidePolicy(for:in:policy:decisionHandler:)`` keeps a universal link in the web view.
  public enum UniversalLinkPolicy: Sendable {
    /// Cancel the navigation: nothing loads. To show the page, load it with
    /// ``UniversalLinkGuard/load(_:in:)``: WebKit does not try app links for loads an app starts, and the guard lets
    /// that load through.
    case cancel
    /// Cancel the navigation and load the same request as the app's own load (``UniversalLinkGuard/load(_:in:)``),
    /// which WebKit never opens an app for: the page shows in the web view, with public API only. The request keeps
    /// the method, headers and body WebKit gives it; what a navigation carries beyond its request (the page's
    /// `window.opener`, a `target` frame) is lost, and a new window's page loads in this web view.
    case loadInWebView
    /// Let the page load in the web view but tell WebKit not to try app links for it. This is WebKit's private
    /// policy `_WKNavigationActionPolicyAllowWithoutTryingAppLink` (`.allow` + 2): undocumented SPI, so a future iOS
    /// may change it and App Review could object. It keeps the navigation as the page made it (method, body,
    /// referrer); if the SPI worries you, use `.cancel` and load the URL with ``UniversalLinkGuard/load(_:in:)``.
    case allowWithoutOpeningApp
  }

  extension UniversalLinkGuard {
    /// WebKit's private "allow, but do not try app links" value (`WKNavigationActionPolicyAllow + 2`).
    private static var allowWithoutTryingAppLinks: WKNavigationActionPolicy {
      WKNavigationActionPolicy(rawValue: WKNavigationActionPolicy.allow.rawValue + 2) ?? .cancel
    }

    /// The facts of `action` that the navigation rule reads: its URL, the page `webView` shows (its current
    /// history item: the committed page, not one still loading), the frame and the navigation type. Whether the
    /// user's tap started it is unknown (`WKNavigationAction` does not say), which counts as yes, except for a load
    /// started with ``load(_:in:)``. Nil for an action without a URL.
    @MainActor
    public static func navigation(for action: WKNavigationAction, in webView: WKWebView) -> LinkRuntime.Navigation? {
      guard let url = action.request.url else { return nil }
      let frame: LinkRuntime.Navigation.Frame =
        if let target = action.targetFrame { target.isMainFrame ? .main : .subframe } else { .newWindow }
      let kind: LinkRuntime.Navigation.Kind =
        switch action.navigationType {
        case .linkActivated: .linkActivated
        case .formSubmitted: .formSubmitted
        case .backForward: .backForward
        case .reload: .reload
        case .formResubmitted: .formResubmitted
        default: .other
        }
      // Only a load the app started is its own: a tap on a link to the same URL is the user's, and a load replaced
      // before its decision (stopped, or another started) is dropped at the next decision for the main frame. Kept,
      // it let a later tap to that URL through as the app's own load, and iOS opened the app.
      let own = OwnLoads.take(
        url, in: webView, programmatic: action.navigationType == .other, mainFrame: frame == .main)
      return LinkRuntime.Navigation(
        destination: url.absoluteString, page: webView.backForwardList.currentItem?.url.absoluteString, frame: frame,
        kind: kind, userInitiated: own ? false : nil)
    }

    /// The policy for a navigation in `webView`: `.allow` unless iOS would open an app for it, then the one
    /// `policy` picks. Same-host browsing, back/forward, iframes and loads started with ``load(_:in:)`` are left
    /// alone, as iOS leaves them in the web view.
    @MainActor
    public func navigationPolicy(
      for action: WKNavigationAction, in webView: WKWebView, policy: UniversalLinkPolicy = .allowWithoutOpeningApp
    ) -> WKNavigationActionPolicy {
      guard let navigation = Self.navigation(for: action, in: webView), decide(navigation).opensApp else {
        return .allow
      }
      switch policy {
      case .cancel: return .cancel
      case .allowWithoutOpeningApp: return Self.allowWithoutTryingAppLinks
      case .loadInWebView:
        // After this decision is answered: a load started inside it would race the navigation it replaces.
        let request = action.request
        Task { @MainActor in
          if let url = request.url { OwnLoads.add(url, in: webView) }
          webView.load(request)
        }
        return .cancel
      }
    }

    /// Answers `webView(_:decidePolicyFor:decisionHandler:)` for you; see ``navigationPolicy(for:in:policy:)``.
    @MainActor
    public func decidePolicy(
      for action: WKNavigationAction, in webView: WKWebView, policy: UniversalLinkPolicy = .allowWithoutOpeningApp,
      decisionHandler: @escaping @MainActor @Sendable (WKNavigationActionPolicy) -> Void
    ) {
      decisionHandler(navigationPolicy(for: action, in: webView, policy: policy))
    }

    /// Loads `url` in `webView` as your app's own load: WebKit never opens an app for a load an app starts, so the
    /// guard lets it through whatever the policy. Use it to show a page that `.cancel` stopped.
    @MainActor
    @discardableResult
    public func load(_ url: URL, in webView: WKWebView) -> WKNavigation? {
      OwnLoads.add(url, in: webView)
      return webView.load(URLRequest(url: url))
    }

    /// The loads started with ``load(_:in:)`` whose navigation the guard has not seen yet, by web view.
    @MainActor
    private enum OwnLoads {
      static var pending: [(view: Weak, url: String)] = []

      final class Weak {
        weak var view: WKWebView?
        init(_ view: WKWebView) { self.view = view }
      }

      static func add(_ url: URL, in view: WKWebView) {
        pending.removeAll { $0.view.view == nil }
        pending.append((Weak(view), key(url)))
      }

      /// `url` as WebKit writes it in the navigation it makes: `load(HTTPS://Example.com:443/a)` comes back as
      /// `https://example.com/a`, which compared as written was another URL, and `.cancel` stopped the app's load.
      static func key(_ url: URL) -> String { LinkRuntime.WebURL(url.absoluteString)?.href ?? url.absoluteString }

      /// Whether a `programmatic` navigation to `url` in `view` is one of them; it is then no longer pending. A load
      /// is decided before any navigation started after it, so those of `view` still pending when another main-frame
      /// navigation is decided never will be, and go.
      static func take(_ url: URL, in view: WKWebView, programmatic: Bool, mainFrame: Bool) -> Bool {
        let url = key(url)
        if programmatic, let index = pending.firstIndex(where: { $0.view.view === view && $0.url == url }) {
          pending.remove(at: index)
          return true
        }
        if mainFrame { pending.removeAll { $0.view.view === view || $0.view.view == nil } }
        return false
      }
    }
  }
#endif
