#!/bin/sh
# Writes a Swift file that embeds the text of the files it is given, for the EmbedSources build plugin: how the
# runtime core, the guard's front and the page resources reach the generators without a second copy in the repo.
# Usage: embed-sources.sh OUTPUT ROOT PATH...   (each PATH relative to ROOT)
set -eu
out=$1
root=$2
shift 2
{
  printf '// Generated at build time by Plugins/EmbedSources from the files it names. Do not edit.\n'
  printf 'enum EmbeddedSources {\n'
  printf '  /// The text of each embedded file, by its path in the repository.\n'
  printf '  static let files: [String: String] = [\n'
  for path in "$@"; do
    # The raw string's closing delimiter; a file holding it could end the literal early.
    if grep -qF '"""####' "$root/$path"; then
      echo "error: $path contains the delimiter \"\"\"####" >&2
      exit 1
    fi
    printf '    "%s": ####"""\n' "$path"
    cat "$root/$path"
    printf '\n"""####,\n'
  done
  printf '  ]\n}\n'
} >"$out.tmp"
mv "$out.tmp" "$out"
