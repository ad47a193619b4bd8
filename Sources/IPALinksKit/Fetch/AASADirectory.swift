import Foundation

/// `--aasa-dir`: AASA files read from folders instead of the network, for air-gapped audits and the offline demo.
enum AASADirectory {
  /// Reads `<directory>/<host>`, else `<directory>/<host>.json`, from the first of `directories` that has either.
  /// The host must already be validated, so the name cannot climb out of the folder; the size cap applies as for
  /// downloads, and only regular files are read. Messages name files as the user gave the folder (relative stays
  /// relative), so output does not depend on where the command runs.
  static func read(host: String, directories: [URL], maximumBytes: Int) -> AASAFetchResult {
    for name in directories.flatMap({ [($0, host), ($0, host + ".json")] }) {
      let (directory, name) = name
      let file = directory.appendingPathComponent(name, isDirectory: false)
      let shown = file.relativePath
      var info = stat()
      guard stat(file.path, &info) == 0 else { continue }
      guard info.st_mode & S_IFMT == S_IFREG else {
        return AASAFetchResult(
          host: host, status: .unreadable, source: .aasaDir, url: shown,
          message: "\(host): \(shown) is not a regular file, so its AASA file is unknown")
      }
      guard Int(info.st_size) <= maximumBytes else {
        return AASAFetchResult(
          host: host, status: .tooLarge, source: .aasaDir, url: shown, bytes: Int(info.st_size),
          message: "\(host): \(shown) is \(Int(info.st_size)) bytes, over the \(maximumBytes.byteCount) cap")
      }
      do {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        // Read one byte past the cap in case the file grew since stat.
        let data = try handle.read(upToCount: maximumBytes + 1) ?? Data()
        guard data.count <= maximumBytes else {
          return AASAFetchResult(
            host: host, status: .tooLarge, source: .aasaDir, url: shown, bytes: data.count,
            message: "\(host): \(shown) is over the \(maximumBytes.byteCount) cap")
        }
        return AASAFetchResult(
          host: host, status: .ok, source: .aasaDir, url: shown, bytes: data.count,
          message: "\(host): read \(data.count) bytes from \(shown)", body: [UInt8](data))
      } catch {
        return AASAFetchResult(
          host: host, status: .unreadable, source: .aasaDir, url: shown,
          message: "\(host): \(shown) cannot be read (\(WholeFile.unreadable(file.path) ?? "a read failed"))")
      }
    }
    return AASAFetchResult(
      host: host, status: .notFound, source: .aasaDir,
      message: "\(host): no \(host) or \(host).json in \(directories.map(\.relativePath).joined(separator: ", "))")
  }
}
