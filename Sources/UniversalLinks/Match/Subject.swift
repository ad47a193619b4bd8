/// One URL prepared for matching, with the four readings rules can ask for (encoded or decoded, case kept or
/// folded) computed on first use and then shared by every pattern.
struct Subject {
  final class Reading {
    /// Normalized per rule 5: `//` collapsed, leading and trailing `/` added, empty is `/`.
    let path: SubjectText
    let query: SubjectText
    let fragment: SubjectText
    /// `name=value` pairs split on `&` and the first `=`; an item without `=` has the value `""`.
    let items: [(name: String, value: SubjectText)]

    init(path: SubjectText, query: SubjectText, fragment: SubjectText, items: [(name: String, value: SubjectText)]) {
      self.path = path
      self.query = query
      self.fragment = fragment
      self.items = items
    }
  }

  let url: UniversalLinkURL
  private var readings: [Reading?] = [nil, nil, nil, nil]

  init(_ url: UniversalLinkURL) { self.url = url }

  static func slot(percentEncoded: Bool, caseSensitive: Bool) -> Int {
    (percentEncoded ? 0 : 1) + (caseSensitive ? 0 : 2)
  }

  mutating func reading(_ slot: Int) -> Reading {
    let percentEncoded = slot & 1 == 0
    let caseSensitive = slot & 2 == 0
    if let cached = readings[slot] { return cached }
    func prepare(_ encoded: String) -> String {
      let text = percentEncoded ? encoded : UniversalLinkURL.percentDecode(encoded)
      return caseSensitive ? text : text.lowercased()
    }
    let query = url.percentEncodedQuery ?? ""
    var items: [(name: String, value: SubjectText)] = []
    if !query.isEmpty {
      for item in query.split(separator: "&", omittingEmptySubsequences: false) {
        if let eq = item.firstIndex(of: "=") {
          items.append((prepare(String(item[..<eq])), SubjectText(prepare(String(item[item.index(after: eq)...])))))
        } else {
          items.append((prepare(String(item)), SubjectText.empty))
        }
      }
    }
    let reading = Reading(
      path: SubjectText(Self.normalizePath(prepare(url.percentEncodedPath))),
      query: SubjectText(prepare(query)),
      fragment: SubjectText(prepare(url.percentEncodedFragment ?? "")),
      items: items)
    readings[slot] = reading
    return reading
  }

  static func normalizePath(_ path: String) -> [UInt32] {
    let slash: UInt32 = 0x2F
    var out: [UInt32] = [slash]
    for c in path.unicodeScalars where !(c.value == slash && out.last == slash) {
      out.append(c.value)
    }
    if out.last != slash { out.append(slash) }
    return out
  }
}
