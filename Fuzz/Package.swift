// swift-tools-version:6.0
// libFuzzer harnesses, one executable per parser that reads untrusted bytes. A package of its own, so the main
// build never compiles them and they can be built with `--sanitize=fuzzer --sanitize=address` (see `make fuzz`).
import Foundation
import PackageDescription

/// SwiftPM names a path dependency after its folder, which is whatever the clone was called.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
let rootIdentity = root.lastPathComponent.lowercased()

let harnesses = [
  "FuzzZip", "FuzzInspect", "FuzzPlist", "FuzzMachO", "FuzzCodeSignature", "FuzzDER", "FuzzCMS", "FuzzAASA",
  "FuzzMatch", "FuzzEntitlementStrings",
]

let package = Package(
  name: "ipalinks-fuzz",
  platforms: [.macOS(.v13)],
  dependencies: [.package(path: root.path)],
  targets: harnesses.map { name in
    .executableTarget(
      name: name,
      dependencies: [.product(name: "IPALinksFuzzing", package: rootIdentity)],
      path: "Sources/\(name)"
    )
  }
)
