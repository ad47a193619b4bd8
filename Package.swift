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
    // The web-view guard that `blocklist --format swift` writes, as a library that reads a rules document at run time.
    .library(name: "UniversalLinkGuard", targets: ["UniversalLinkGuard"]),
    // The fuzz harness bodies, for the libFuzzer executables in Fuzz/ and the regression tests here.
    .library(name: "IPALinksFuzzing", targets: ["IPALinksFuzzing"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    .package(url: "https://github.com/apple/swift-asn1", from: "1.3.0"),
    .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
    .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.30.0"),
    .package(url: "https://github.com/apple/swift-certificates", from: "1.10.0"),
    .package(url: "https://github.com/apple/swift-crypto", from: "3.12.0"),
    // Already built for SwiftNIO; the executable's Ctrl-C handler reads its pipe through an atomic.
    .package(url: "https://github.com/apple/swift-atomics", from: "1.2.0"),
    // The audit store: one query builder (SQLKit) over SQLite (embedded, the default) and PostgreSQL (shared).
    .package(url: "https://github.com/vapor/sql-kit", from: "3.36.0"),
    .package(url: "https://github.com/vapor/sqlite-kit", from: "4.5.0"),
    .package(url: "https://github.com/vapor/postgres-kit", from: "2.17.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
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
    // The guard's front (Foundation, WebKit where it exists) over the runtime core in UniversalLinks/Runtime. The
    // generated guard is this file and the core's files, verbatim; the define is what imports the core here.
    .target(
      name: "UniversalLinkGuard",
      // Crypto (CryptoKit's API, on Apple platforms CryptoKit itself) checks signed rules documents.
      dependencies: ["UniversalLinks", .product(name: "Crypto", package: "swift-crypto")],
      swiftSettings: [.define("UNIVERSAL_LINK_GUARD_PACKAGE")]
    ),
    // Embeds the guard's sources and Resources/ into IPALinksKit at build time (see Plugins/EmbedSources).
    .plugin(name: "EmbedSources", capability: .buildTool(), path: "Plugins/EmbedSources"),
    .target(
      name: "IPALinksKit",
      dependencies: [
        "CZip", "CPlist", "UniversalLinks",
        .product(name: "SwiftASN1", package: "swift-asn1"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        .product(name: "Atomics", package: "swift-atomics"),
        // `blocklist --sign`: Ed25519 signatures of rules documents.
        .product(name: "Crypto", package: "swift-crypto"),
      ],
      exclude: ["Resources"],
      plugins: ["EmbedSources"]
    ),
    .target(name: "IPALinksFuzzing", dependencies: ["IPALinksKit", "UniversalLinks"]),
    // The audit store (SQLite or PostgreSQL) under the claims model; only the executable links it, so the library
    // and its fuzzers stay free of database drivers.
    .target(
      name: "IPALinksStore",
      dependencies: [
        "IPALinksKit",
        .product(name: "SQLKit", package: "sql-kit"),
        .product(name: "SQLiteKit", package: "sqlite-kit"),
        .product(name: "PostgresKit", package: "postgres-kit"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
      ]
    ),
    .executableTarget(
      name: "ipalinks",
      dependencies: [
        "IPALinksKit", "IPALinksStore", "UniversalLinks",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    // What the matcher benchmarks share: seeded randomness and timing.
    .target(name: "BenchmarkSupport", path: "Benchmarks/BenchmarkSupport"),
    .executableTarget(
      name: "MatchBenchmark",
      dependencies: ["UniversalLinks", "BenchmarkSupport"],
      path: "Benchmarks/MatchBenchmark"
    ),
    .executableTarget(
      name: "ScanBenchmark",
      dependencies: ["UniversalLinks", "BenchmarkSupport"],
      path: "Benchmarks/ScanBenchmark"
    ),
    .testTarget(name: "UniversalLinksTests", dependencies: ["UniversalLinks"]),
    .testTarget(
      name: "UniversalLinkGuardTests",
      dependencies: [
        "UniversalLinkGuard", "UniversalLinks", "IPALinksKit", .product(name: "Crypto", package: "swift-crypto"),
      ]),
    .executableTarget(
      name: "FetchBenchmark",
      dependencies: [
        "IPALinksKit", "TestServers",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
      ],
      path: "Benchmarks/FetchBenchmark"
    ),
    .executableTarget(
      name: "RefreshBenchmark", dependencies: ["IPALinksKit", "IPALinksStore", "TestServers"],
      path: "Benchmarks/RefreshBenchmark"
    ),
    // Real HTTPS servers on loopback (SwiftNIO + NIOSSL) with a CA made at run time, shared by the fetcher's
    // tests and its benchmark. Never part of the shipped products.
    .target(
      name: "TestServers",
      dependencies: [
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "X509", package: "swift-certificates"),
        .product(name: "Crypto", package: "swift-crypto"),
      ],
      path: "Tests/TestServers"
    ),
    .testTarget(name: "IPALinksKitTests", dependencies: ["IPALinksKit", "IPALinksFuzzing", "TestServers"]),
    .testTarget(
      name: "EndToEndTests",
      dependencies: [
        "IPALinksKit", "IPALinksStore", "TestServers", .product(name: "SQLKit", package: "sql-kit"),
        .product(name: "Crypto", package: "swift-crypto"),
      ],
      exclude: ["Snapshots"]),
  ]
)
