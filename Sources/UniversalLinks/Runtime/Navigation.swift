extension LinkRuntime {
  /// One navigation in a web view, described by the facts WebKit's app-link decision reads. Whether iOS would
  /// open an app for it is ``Table/decide(_:)-(Navigation)``: the navigation rule, written down once, with its
  /// sources in docs/MATCHING.md ("The navigation rule").
  public struct Navigation: Sendable, Equatable {
    /// The frame a navigation loads in.
    public enum Frame: String, Sendable, CaseIterable {
      /// The web view's main frame (`targetFrame.isMainFrame`).
      case main
      /// An iframe: WebKit never opens an app for it.
      case subframe
      /// A new window (`target=_blank`, `window.open`; `targetFrame` is nil).
      case newWindow = "new-window"
    }

    /// What started the navigation, as `WKNavigationType` says.
    public enum Kind: String, Sendable, CaseIterable {
      /// A link the user (or a script's `click()`) activated.
      case linkActivated = "link-activated"
      /// A form submission.
      case formSubmitted = "form-submitted"
      /// Back or forward in the history: WebKit never opens an app for it.
      case backForward = "back-forward"
      /// A reload: it loads the page's own URL, so the host is the page's.
      case reload
      /// A form submitted again (a reload of a POST).
      case formResubmitted = "form-resubmitted"
      /// Anything else: script (`location.href = …`), a redirect of such a load, a load the app starts.
      case other
    }

    /// The URL being loaded.
    public var destination: String
    /// The page the web view shows: its main frame's URL as committed (not the one still loading, and not a
    /// redirect's), whose host WebKit compares with the destination's, for new windows too. Nil when there is none
    /// yet (a web view's first load).
    public var page: String?
    /// The frame the navigation loads in.
    public var frame: Frame
    /// What started it.
    public var kind: Kind
    /// Whether WebKit lets this navigation open apps (its `ShouldOpenExternalURLsPolicy` is `ShouldAllow`): true
    /// for a navigation the user's tap started (a user gesture, also when script acts within a second of the tap),
    /// and for one the page's own script starts in the main frame of a page the user reached by a tap, which
    /// inherits it; false for loads the app starts (`WKWebView.load`), script on pages the app loaded, and script
    /// in iframes. Nil when unknown (`WKNavigationAction` does not say), which counts as true: a guard fails closed.
    public var userInitiated: Bool?

    /// Describes a navigation; `userInitiated` nil means unknown.
    public init(destination: String, page: String?, frame: Frame, kind: Kind, userInitiated: Bool? = nil) {
      self.destination = destination
      self.page = page
      self.frame = frame
      self.kind = kind
      self.userInitiated = userInitiated
    }
  }

  /// What iOS does with a navigation, and why.
  public struct NavigationDecision: Sendable, Equatable {
    /// Why the navigation opens an app or stays in the web view.
    public enum Reason: String, Sendable, CaseIterable {
      /// An app claims the destination and nothing keeps WebKit from trying it: the app opens.
      case claimed
      /// The destination's host could not be read exactly (text outside ASCII the guard cannot map as WebKit
      /// does): counted as opening an app, so a guard fails closed.
      case unreadableHost = "unreadable-host"
      /// Not an http or https URL that WebKit would load.
      case notWeb = "not-web"
      /// It loads in an iframe.
      case subframe
      /// It goes back or forward in the history.
      case backForward = "back-forward"
      /// Neither the user's tap nor a page the user reached by a tap started it.
      case notUserInitiated = "not-user-initiated"
      /// Its host is the page's own (WebKit compares the hosts exactly: `www.a.com` is not `a.com`).
      case sameHost = "same-host"
      /// No app opens the destination (no rule matched, or a rule excluded it).
      case unclaimed
    }

    /// Whether iOS would leave the web view for an app.
    public var opensApp: Bool
    /// Why.
    public var reason: Reason
    /// The destination's verdict over every app, when the rule got as far as asking.
    public var decision: Table.Decision?

    /// Creates a decision.
    public init(opensApp: Bool, reason: Reason, decision: Table.Decision? = nil) {
      self.opensApp = opensApp
      self.reason = reason
      self.decision = decision
    }
  }
}

extension LinkRuntime.Table {
  /// What iOS does with a navigation in a `WKWebView`: it opens an app exactly when WebKit tries the app link and an
  /// app claims the destination.
  ///
  /// WebKit (`WebPageProxy::decidePolicyForNavigationAction`, `API::NavigationAction::shouldOpenAppLinks`) tries
  /// the app link only for a navigation that loads in the main frame (or a new window), to a host other than the
  /// page's, that is not back/forward, and whose `ShouldOpenExternalURLsPolicy` is `ShouldAllow` (the user's tap
  /// started it; see ``LinkRuntime/Navigation/userInitiated``), and only when the navigation delegate answers
  /// `.allow`. The destination is read as WebKit reads it (``LinkRuntime/WebURL``), then decided by the rules.
  public func decide(_ navigation: LinkRuntime.Navigation) -> LinkRuntime.NavigationDecision {
    typealias Decision = LinkRuntime.NavigationDecision
    guard let destination = LinkRuntime.WebURL(navigation.destination) else {
      return Decision(opensApp: false, reason: .notWeb)
    }
    if navigation.frame == .subframe { return Decision(opensApp: false, reason: .subframe) }
    if navigation.kind == .backForward { return Decision(opensApp: false, reason: .backForward) }
    if navigation.userInitiated == false { return Decision(opensApp: false, reason: .notUserInitiated) }
    // A page WebKit cannot read as http(s) (`about:blank`, `data:`) has an empty host, which differs.
    if let page = navigation.page.flatMap(LinkRuntime.WebURL.init), page.hasSameHost(as: destination) {
      return Decision(opensApp: false, reason: .sameHost)
    }
    guard destination.hostIsExact else { return Decision(opensApp: true, reason: .unreadableHost) }
    let decision = decide(destination.href)
    return Decision(
      opensApp: decision.verdict == .match, reason: decision.verdict == .match ? .claimed : .unclaimed,
      decision: decision)
  }
}
