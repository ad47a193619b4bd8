import Foundation
import PackagePlugin

/// Embeds into `IPALinksKit`, as string constants, the files that generated outputs are assembled from: the
/// guard's front and the matcher's runtime core (the Swift guard is those files verbatim plus the rules), and the
/// resources in `Sources/IPALinksKit/Resources` (the JavaScript guard).
///
/// A build step rather than a committed copy, so each of these files exists once in the repository, where the
/// compiler, `swift format lint` and `node --check` see it as code, and the binary still needs no files beside it.
@main
struct EmbedSources: BuildToolPlugin {
  func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
    let root = context.package.directoryURL
    var paths = ["Sources/UniversalLinkGuard/UniversalLinkGuard.swift"]
    for folder in ["Sources/UniversalLinks/Runtime", "Sources/IPALinksKit/Resources"] {
      let names = try FileManager.default.contentsOfDirectory(atPath: root.appending(path: folder).path)
      paths += names.filter { !$0.hasPrefix(".") }.sorted().map { folder + "/" + $0 }
    }
    let script = root.appending(path: "scripts/embed-sources.sh")
    let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedSources.swift")
    return [
      .buildCommand(
        displayName: "Embedding the guard's sources and the page resources",
        executable: URL(fileURLWithPath: "/bin/sh"),
        arguments: [script.path, output.path, root.path] + paths,
        inputFiles: [script] + paths.map { root.appending(path: $0) },
        outputFiles: [output])
    ]
  }
}
