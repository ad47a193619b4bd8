// The parts of Apple's WebKit API that the Swift guard's WebKit glue uses, declared as the iOS SDK declares them
// (names, types, optionality, `@MainActor`), so that Linux can type-check the glue (`#if canImport(WebKit)`) with
// `swiftc -swift-version 6` and drive it with navigation actions built by hand. It stands in only for what cannot
// run here: Apple's WebKit. The decision itself is the runtime core's, tested without it.
@_exported import Foundation

#if canImport(FoundationNetworking)
  @_exported import FoundationNetworking
#endif

/// `WKNavigationType`: the SDK's raw values.
public enum WKNavigationType: Int, Sendable {
  case linkActivated = 0
  case formSubmitted = 1
  case backForward = 2
  case reload = 3
  case formResubmitted = 4
  case other = -1
}

/// `WKNavigationActionPolicy`: `.allow` + 2 is WebKit's private "allow without trying app links".
public enum WKNavigationActionPolicy: Int, Sendable {
  case cancel = 0
  case allow = 1
  case download = 2
  case allowWithoutTryingAppLink = 3
}

/// `WKNavigation`.
@MainActor open class WKNavigation {
  public init() {}
}

/// `WKBackForwardListItem`.
@MainActor open class WKBackForwardListItem {
  open var url: URL
  public init(url: URL) { self.url = url }
}

/// `WKBackForwardList`.
@MainActor open class WKBackForwardList {
  open var currentItem: WKBackForwardListItem?
  public init(currentItem: WKBackForwardListItem?) { self.currentItem = currentItem }
}

/// `WKWebView`: `load(_:)` records the requests it was given.
@MainActor open class WKWebView {
  open var backForwardList: WKBackForwardList
  open var url: URL? { backForwardList.currentItem?.url }
  public var loaded: [URLRequest] = []
  public init(page: URL?) { backForwardList = WKBackForwardList(currentItem: page.map(WKBackForwardListItem.init)) }
  @discardableResult open func load(_ request: URLRequest) -> WKNavigation? {
    loaded.append(request)
    return WKNavigation()
  }
}

/// `WKFrameInfo`.
@MainActor open class WKFrameInfo {
  open var isMainFrame: Bool
  open weak var webView: WKWebView?
  public init(isMainFrame: Bool, webView: WKWebView?) {
    self.isMainFrame = isMainFrame
    self.webView = webView
  }
}

/// `WKNavigationAction`.
@MainActor open class WKNavigationAction {
  open var request: URLRequest
  open var targetFrame: WKFrameInfo?
  open var sourceFrame: WKFrameInfo
  open var navigationType: WKNavigationType
  public init(
    request: URLRequest, targetFrame: WKFrameInfo?, sourceFrame: WKFrameInfo, navigationType: WKNavigationType
  ) {
    self.request = request
    self.targetFrame = targetFrame
    self.sourceFrame = sourceFrame
    self.navigationType = navigationType
  }
}
