import Testing

@testable import IPALinksKit

struct BundleLocatorTests {
  @Test func findsMainAppAndNestedBundlesWithoutDirectoryEntries() {
    let paths = [
      "Payload/Café.app/Info.plist",
      "Payload/Café.app/PlugIns/Share.appex/Info.plist",
      "Payload/Café.app/AppClips/Clip.app/Clip",
      "Payload/Café.app/Watch/Watch.app/PlugIns/WatchExt.appex/WatchExt",
      "Payload/Café.app/Extensions/Widget.appex/Info.plist",
      "Payload/Deep/Inner.app/Info.plist",
      "__MACOSX/Payload/._Café.app",
      "Payload/._Junk.app/Info.plist",
      "Payload/Café.app/Frameworks/Lib.framework/PlugIns/Hidden.appex/Info.plist",
      "iTunesMetadata.plist",
    ]
    let (bundles, truncated) = BundleLocator.locate(paths: paths)
    #expect(!truncated)
    #expect(
      bundles.map(\.path) == [
        "Payload/Café.app",
        "Payload/Café.app/AppClips/Clip.app",
        "Payload/Café.app/Extensions/Widget.appex",
        "Payload/Café.app/PlugIns/Share.appex",
        "Payload/Café.app/Watch/Watch.app",
        "Payload/Café.app/Watch/Watch.app/PlugIns/WatchExt.appex",
      ])
    #expect(bundles.map(\.kind) == [.app, .appClip, .appExtension, .appExtension, .watchApp, .appExtension])
  }

  @Test func aBundleFolderWithNothingInsideIsNotABundle() {
    #expect(BundleLocator.locate(paths: ["Payload/A.app/PlugIns/X.appex"]).bundles.map(\.path) == ["Payload/A.app"])
  }

  @Test func bundleCountIsCapped() {
    let paths = (0..<300).map { "Payload/A.app/PlugIns/E\($0).appex/Info.plist" }
    let (bundles, truncated) = BundleLocator.locate(paths: paths)
    #expect(truncated)
    #expect(bundles.count == BundleLocator.maximumBundles)
  }
}
