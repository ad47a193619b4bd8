import Foundation

/// Where the audit store lives: a SQLite file (the default, embedded), or a PostgreSQL database shared by the
/// machines of one audit. Given by `--store`, else `IPALINKS_STORE`; a `postgres://` or `postgresql://` URL names a
/// PostgreSQL database, anything else a file path.
public enum StoreLocation: Sendable, Equatable, CustomStringConvertible {
  /// A SQLite database file, created on first use with mode 0600.
  case sqlite(path: String)
  /// A PostgreSQL database.
  case postgres(Postgres)

  /// A PostgreSQL database and how to log in; the password never appears in ``description``.
  public struct Postgres: Sendable, Equatable {
    /// The server's host name or address; for a Unix-domain socket, the folder that holds it (as libpq reads a
    /// `host` that starts with `/`).
    public var host: String
    /// The server's port.
    public var port: Int
    /// The role to log in as.
    public var user: String
    /// From the URL, else `PGPASSWORD`, else `~/.pgpass`; nil when none says.
    public var password: String?
    /// The database.
    public var database: String
    /// How TLS is used, as libpq's `sslmode` says: `prefer` (the default) when nothing says.
    public var tls: TLSMode
    /// The certificates that sign the server's, for `verify-ca` and `verify-full` (`sslrootcert`, a PEM file); nil
    /// for the system's trusted authorities.
    public var rootCertificates: String?

    /// Whether to insist on TLS (`sslmode=require`, `verify-ca` or `verify-full`).
    public var requireTLS: Bool { tls >= .require }

    /// The socket's path, when ``host`` names a folder: `FOLDER/.s.PGSQL.PORT`, as libpq makes it.
    public var socketPath: String? { host.hasPrefix("/") ? "\(host)/.s.PGSQL.\(port)" : nil }
  }

  /// libpq's `sslmode`, in order of what it insists on.
  public enum TLSMode: String, Sendable, Comparable, CaseIterable {
    /// Plain TCP only.
    case disable
    /// TLS when the server asks for it; taken as `prefer` (libpq tries plain TCP first).
    case allow
    /// TLS when the server offers it, else plain TCP; the certificate is not checked, as libpq does not.
    case prefer
    /// TLS or no connection; the certificate is not checked, as libpq does not.
    case require
    /// TLS with a certificate signed by a trusted authority (``Postgres/rootCertificates``), for any name.
    case verifyCA = "verify-ca"
    /// TLS with a trusted certificate for the host's name.
    case verifyFull = "verify-full"

    /// Whether `a` insists on less than `b`, in the order libpq lists them.
    public static func < (a: TLSMode, b: TLSMode) -> Bool {
      allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
  }

  /// The query parameters a URL may give, as libpq names them; `ssl=true` is libpq's other way to say
  /// `sslmode=require`.
  static let parameters = ["host", "port", "user", "password", "dbname", "sslmode", "sslrootcert", "ssl"]

  /// Why a location cannot be used; the message masks any password.
  public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
    /// One line naming the store.
    public var description: String
  }

  /// The location `text` names. `environment` gives `PGPASSWORD`, `PGUSER`, `PGPORT` and `HOME`; `pgpass` is the
  /// text of the `~/.pgpass` file when it may be read (nil: absent or readable by others, which libpq ignores too).
  public init(
    _ text: String, environment: [String: String] = ProcessInfo.processInfo.environment, pgpass: String? = nil
  )
    throws(Problem)
  {
    let lower = text.lowercased()
    guard lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://") else {
      guard !text.isEmpty else { throw Problem(description: "--store: an empty path") }
      // Another scheme is not a file name that happens to contain "://": say what is supported.
      if let scheme = text.range(of: "://").map({ text[..<$0.lowerBound] }), !scheme.isEmpty,
        scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+.-".contains($0) }), scheme.first?.isLetter == true
      {
        throw Problem(
          description: "\(Self.masked(text)): \(scheme):// stores are not supported: give a SQLite file's path or a "
            + "postgres:// URL")
      }
      self = .sqlite(path: text)
      return
    }
    // libpq's parameters in the query string (host, port, user, password, dbname, sslmode) stand for the URL's parts.
    let parsed = URLComponents(string: text)
    let query = { (name: String) in
      parsed?.queryItems?.last { $0.name == name }?.value.flatMap { $0.isEmpty ? nil : $0 }
    }
    // As libpq, a parameter it does not know is refused: a misspelt `sslmode` must not connect without TLS.
    if let unknown = parsed?.queryItems?.first(where: { !Self.parameters.contains($0.name) }) {
      throw Problem(
        description: "\(Self.masked(text)): unknown parameter \"\(unknown.name)\" (a URL takes "
          + Self.parameters.joined(separator: ", ") + ")")
    }
    // An IPv6 address is written in brackets in a URL (`[::1]`), which are not part of the address.
    let urlHost = parsed?.host.flatMap { host -> String? in
      guard !host.isEmpty else { return nil }
      return host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }
    guard let url = parsed, let host = query("host") ?? urlHost else {
      throw Problem(
        description: "\(Self.masked(text)): not a PostgreSQL URL (postgres://user@host:port/database, or "
          + "postgres://user@/database?host=/socket/folder)")
    }
    let database = query("dbname") ?? String(url.path.drop { $0 == "/" })
    let user = query("user") ?? url.user ?? environment["PGUSER"] ?? environment["USER"] ?? "postgres"
    // As libpq: the URL's port, else PGPORT, else 5432.
    let portText = query("port") ?? url.port.map(String.init) ?? environment["PGPORT"].flatMap { $0.isEmpty ? nil : $0 }
    guard let port = portText.map({ Int($0) }) ?? 5432, (1...65_535).contains(port) else {
      throw Problem(description: "\(Self.masked(text)): the port must be a number from 1 to 65535")
    }
    if let ssl = query("ssl"), ssl != "true" {
      throw Problem(description: "\(Self.masked(text)): ssl=\(ssl): only ssl=true is known (sslmode=require)")
    }
    let mode = query("sslmode") ?? (query("ssl") == nil ? "prefer" : "require")
    // As libpq, a value it does not know is refused: a misspelt `require` must not connect without TLS.
    guard let tls = TLSMode(rawValue: mode) else {
      throw Problem(
        description: "\(Self.masked(text)): sslmode=\(mode) is not one of \(Self.sslModes.joined(separator: ", "))")
    }
    var server = Postgres(
      host: host, port: port, user: user, password: query("password") ?? url.password,
      database: database.isEmpty ? user : database, tls: tls, rootCertificates: query("sslrootcert"))
    if server.rootCertificates != nil && tls < .verifyCA {
      throw Problem(
        description: "\(Self.masked(text)): sslrootcert is used by sslmode=verify-ca or verify-full only, not \(mode)")
    }
    if server.socketPath != nil && server.requireTLS {
      throw Problem(description: "\(Self.masked(text)): a Unix-domain socket takes no TLS (sslmode=\(mode))")
    }
    // An empty PGPASSWORD is none, as libpq reads it: the location said `aud:***@` for a login that sent none.
    if server.password == nil, let password = environment["PGPASSWORD"], !password.isEmpty {
      server.password = password
    }
    if server.password == nil, let pgpass { server.password = Self.password(in: pgpass, for: server) }
    self = .postgres(server)
  }

  /// libpq's `sslmode` values; the last three insist on TLS.
  static let sslModes = TLSMode.allCases.map(\.rawValue)

  /// The location from `--store`, else `IPALINKS_STORE`; nil when neither says.
  public static func given(_ option: String?, environment: [String: String] = ProcessInfo.processInfo.environment)
    throws(Problem) -> StoreLocation?
  {
    guard let text = option ?? environment["IPALINKS_STORE"].flatMap({ $0.isEmpty ? nil : $0 }) else { return nil }
    return try StoreLocation(text, environment: environment, pgpass: pgpassFile(environment))
  }

  /// `~/.pgpass`, when it exists and only its owner may read it (libpq ignores it otherwise).
  static func pgpassFile(_ environment: [String: String]) -> String? {
    let home = environment["HOME"] ?? NSHomeDirectory()
    let path = environment["PGPASSFILE"] ?? home + "/.pgpass"
    var info = stat()
    guard stat(path, &info) == 0, info.st_mode & 0o077 == 0 else { return nil }
    return try? String(contentsOfFile: path, encoding: .utf8)
  }

  /// The password of the first `~/.pgpass` line (`host:port:database:user:password`, `*` matching anything,
  /// `\:` and `\\` escaped) that fits `server`.
  static func password(in pgpass: String, for server: Postgres) -> String? {
    for line in pgpass.split(separator: "\n") where !line.hasPrefix("#") {
      var fields: [String] = [""]
      var escaped = false
      for c in line {
        if escaped {
          fields[fields.count - 1].append(c)
          escaped = false
        } else if c == "\\" {
          escaped = true
        } else if c == ":" && fields.count < 5 {
          fields.append("")
        } else {
          fields[fields.count - 1].append(c)
        }
      }
      guard fields.count == 5 else { continue }
      let wanted = [server.host, String(server.port), server.database, server.user]
      if zip(fields.prefix(4), wanted).allSatisfy({ $0 == "*" || $0 == $1 }) { return fields[4] }
    }
    return nil
  }

  /// The location for people: the file's path, or the URL with any password written as `***`.
  public var description: String {
    switch self {
    case .sqlite(let path): path
    case .postgres(let p) where p.socketPath != nil:
      "postgres://\(p.user)\(p.password == nil ? "" : ":***")@/\(p.database)?host=\(p.host)&port=\(p.port)"
    case .postgres(let p):
      // An IPv6 address in brackets, as a URL writes it: `::1:5432` reads as another address.
      "postgres://\(p.user)\(p.password == nil ? "" : ":***")@\(p.host.contains(":") ? "[\(p.host)]" : p.host):"
        + "\(p.port)/\(p.database)"
    }
  }

  /// The command line as a run records it: a `postgres://` URL's password, in `--store` or anywhere, masked.
  public static var maskedCommandLine: [String] { CommandLine.arguments.dropFirst().map(masked) }

  /// `text` with the password of a URL masked, for messages about a location that could not be parsed.
  public static func masked(_ text: String) -> String {
    var text = text
    // A password given as a query parameter (`?password=…`), as libpq takes it, its name escaped or not
    // (`%70assword=` is `password=` to a URL's reader).
    if let query = text.firstIndex(of: "?") {
      let parameters = text[text.index(after: query)...].split(separator: "&", omittingEmptySubsequences: false)
      text =
        String(text[...query])
        + parameters.map { parameter in
          let name = parameter.prefix { $0 != "=" }
          let decoded = (String(name).removingPercentEncoding ?? String(name)).lowercased()
          return decoded == "password" && name.count < parameter.count ? "\(name)=***" : String(parameter)
        }.joined(separator: "&")
    }
    guard let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].lastIndex(of: "@") else {
      return text
    }
    let credentials = text[scheme.upperBound..<at]
    guard let colon = credentials.firstIndex(of: ":") else { return text }
    return String(text[..<colon]) + ":***" + String(text[at...])
  }

  /// Masks every occurrence of this location's password in `message`, for errors that quote what the server said.
  public func masking(_ message: String) -> String {
    guard case .postgres(let p) = self, let password = p.password, !password.isEmpty else { return message }
    return message.replacingOccurrences(of: password, with: "***")
  }
}
