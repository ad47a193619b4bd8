import Foundation
import Testing

@testable import IPALinksKit

struct AASAFetchOptionsTests {
  @Test func theCacheFollowsXDGOnlyForAbsolutePaths() {
    #expect(
      AASAFetchOptions.defaultCacheDirectory(["XDG_CACHE_HOME": "/x/cache", "HOME": "/home/u"]).path
        == "/x/cache/ipalinks")
    #expect(
      AASAFetchOptions.defaultCacheDirectory(["XDG_CACHE_HOME": "relative", "HOME": "/home/u"]).path
        == "/home/u/.cache/ipalinks")
    #expect(AASAFetchOptions.defaultCacheDirectory(["HOME": "/home/u"]).path == "/home/u/.cache/ipalinks")
  }
}
