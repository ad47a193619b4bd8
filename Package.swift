// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "ipalinks",
  platforms: [.macOS(.v13)],
  products: [
    .executable(name: "ipalinks", targets: ["ipalinks"]),
    .library(name: "IPALinksKit", targets: ["IPALinksKit"]),
    // The matcher is its own product so iOS/macOS apps can embed it in a web view's navigation policy.
    .library(name: "UniversalLinks", targets: ["UniversalLinks"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    .package(url: "https://github.com/apple/swift-asn1", from: "1.3.0"),
  ],
  targets: [
    .systemLibrary(
      name: "CZip",
      pkgConfig: "libzip",
      providers: [.apt(["libzip-dev"]), .brew(["libzip"])]
    ),
    .systemLibrary(
      name: "CPlist",
      pkgConfig: "libplist-2.0",
      providers: [.apt(["libplist-dev"]), .brew(["libplist"])]
    ),
    // Pure Swift: AASA model, validation and matcher. No C, no networking.
    .target(
      name: "UniversalLinks",
      dependencies: [.product(name: "SwiftASN1", package: "swift-asn1")]
    ),
    .target(
      name: "IPALinksKit",
      dependencies: [
        "CZip", "CPlist", "UniversalLinks",
        .product(name: "SwiftASN1", package: "swift-asn1"),
      ]
    ),
    .executableTarget(
      name: "ipalinks",
      dependencies: [
        "IPALinksKit", "UniversalLinks",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    .executableTarget(
      name: "MatchBenchmark",
      dependencies: ["UniversalLinks"],
      path: "Benchmarks/MatchBenchmark"
    ),
    .testTarget(name: "UniversalLinksTests", dependencies: ["UniversalLinks"]),
    .testTarget(name: "IPALinksKitTests", dependencies: ["IPALinksKit"]),
    .testTarget(name: "EndToEndTests", dependencies: ["IPALinksKit"], exclude: ["Snapshots"]),
  ]
)
