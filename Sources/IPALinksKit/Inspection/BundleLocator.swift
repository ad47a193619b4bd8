/// Finds the app bundles in a container from its file paths alone.
///
/// Archives may lack directory entries, so bundles are recognised from the paths of the files inside them.
/// macOS junk (`__MACOSX/`, AppleDouble `._` files) is ignored.
public enum BundleLocator {
  /// More bundles than any real app ships; a hostile archive cannot make us inspect without end.
  public static let maximumBundles = 256

  /// A bundle folder found in the container, before anything in it is read.
  public struct Located: Sendable, Equatable {
    /// Folder path inside the container, without a trailing slash: `Payload/Store.app/PlugIns/Share.appex`.
    public var path: String
    /// Told by the folder it sits in: `PlugIns`/`Extensions`, `AppClips`, `Watch`, or a main app.
    public var kind: BundleReport.Kind
  }

  /// Main apps (`Payload/<Name>.app`, one level deep) and their nested bundles, parents first, sorted.
  public static func locate(paths: [String]) -> (bundles: [Located], truncated: Bool) {
    var found: [String: BundleReport.Kind] = [:]
    for path in paths {
      let parts = path.split(separator: "/", omittingEmptySubsequences: false)
      guard parts.count >= 3, parts[0] == "Payload", parts[1].hasSuffix(".app"), parts[1].count > 4 else { continue }
      if parts.contains(where: { $0 == "__MACOSX" || $0.hasPrefix("._") || $0.isEmpty }) { continue }
      var root = "Payload/" + parts[1]
      found[root] = found[root] ?? .app
      var i = 2
      // Only descend while a file lies below the candidate bundle folder (i + 2 < count).
      while i + 2 < parts.count {
        let container = parts[i]
        let name = parts[i + 1]
        let kind: BundleReport.Kind?
        switch container {
        case "PlugIns", "Extensions": kind = name.hasSuffix(".appex") ? .appExtension : nil
        case "AppClips": kind = name.hasSuffix(".app") ? .appClip : nil
        case "Watch": kind = name.hasSuffix(".app") ? .watchApp : nil
        default: kind = nil
        }
        guard let kind else { break }
        root += "/\(container)/\(name)"
        found[root] = kind
        i += 2
      }
    }
    let sorted = found.keys.sorted().map { Located(path: $0, kind: found[$0]!) }
    return (Array(sorted.prefix(maximumBundles)), sorted.count > maximumBundles)
  }
}
