import UniversalLinks

/// What a store's latest run changed against the runs before it: the hosts whose AASA file it found changed, and
/// the apps whose claims it found changed. `report --store` shows it as "Changed since the previous run".
public struct RunChanges: Sendable, Encodable {
  /// A host whose file the run found different from the last one before it that settled what the file is.
  public struct Host: Sendable, Encodable {
    /// The host.
    public var host: String
    /// Whether it was retrieved as a developer-mode domain.
    public var developerMode: Bool
    /// The status before (`ok`, or the definite failure).
    public var oldStatus: String
    /// The status now.
    public var newStatus: String
    /// Each behavioural change, with the apps (by app ID) it is for.
    public var changes: [AASAComparison.SharedChange]

    /// Creates a host's entry.
    public init(
      host: String, developerMode: Bool, oldStatus: String, newStatus: String,
      changes: [AASAComparison.SharedChange]
    ) {
      (self.host, self.developerMode, self.oldStatus, self.newStatus, self.changes) = (
        host, developerMode, oldStatus, newStatus, changes
      )
    }
  }

  /// An app whose claims the run found changed: its associated domains or URL schemes, or an app first inspected.
  public struct App: Sendable, Encodable {
    /// The app ID, else the bundle ID.
    public var appKey: String
    /// Its name, as the run saw it.
    public var name: String?
    /// Whether the run is the first to inspect it.
    public var first: Bool
    /// Associated domains entries added, as written (`applinks:shop.example.com`).
    public var domainsAdded: [String]
    /// Associated domains entries removed.
    public var domainsRemoved: [String]
    /// URL schemes the app registers, added.
    public var schemesAdded: [String]
    /// URL schemes removed.
    public var schemesRemoved: [String]

    /// Creates an app's entry.
    public init(
      appKey: String, name: String?, first: Bool, domainsAdded: [String], domainsRemoved: [String],
      schemesAdded: [String], schemesRemoved: [String]
    ) {
      (self.appKey, self.name, self.first) = (appKey, name, first)
      (self.domainsAdded, self.domainsRemoved, self.schemesAdded, self.schemesRemoved) = (
        domainsAdded, domainsRemoved, schemesAdded, schemesRemoved
      )
    }
  }

  /// The run: its label, else when it started (UTC); for a label several runs share (shards), every one of them,
  /// and the label says how many (`week-4 (4 runs)`).
  public var run: String
  /// What it is compared with: the run before it, likewise, or the time `report --since` gave; nil when it is the
  /// store's first, which has nothing to be compared with.
  public var previous: String?
  /// Whether ``previous`` is a time the user chose (`report --since`) rather than the run before.
  public var chosen = false
  /// The latest runs, when they changed nothing and the section shows the changes of the run before them, so that
  /// a quiet refresh does not hide them.
  public var quiet: String?
  /// The hosts whose file changed.
  public var hosts: [Host]
  /// The apps whose claims changed.
  public var apps: [App]

  /// Creates the changes of `run` against `previous`.
  public init(run: String, previous: String?, chosen: Bool = false, hosts: [Host], apps: [App]) {
    (self.run, self.previous, self.chosen, self.hosts, self.apps) = (run, previous, chosen, hosts, apps)
  }
}
