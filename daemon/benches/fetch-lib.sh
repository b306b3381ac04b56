# What the corpus fetch scripts share (sourced, never run): `once`, which fetches a
# corpus only when its pins changed, and the fetchers of each registry. The sourcing
# script sets `out` (where corpora go) and `tmp` (where one is filled), and may define
# `committed` (run in a corpus once it is filled: the bench corpora are git
# repositories).

# once NAME FUNCTION ARGS...: runs FUNCTION ARGS unless NAME was fetched already by
# the same pins (the function's text, its arguments and, for Rust, the lock file of
# `rust-corpus`); the command fills "$tmp", which then becomes "$out/NAME". Pins are
# per corpus: a new language's fetch leaves the others' corpora where they are.
once() {
  local name=$1; shift
  local pins
  pins=$( { declare -f "$1"; echo "$@"; if [[ $name == rust ]]; then cat "$lib_dir/rust-corpus/Cargo.lock"; fi; } | sha256sum | cut -c1-16)
  [[ $(cat "$out/$name/.done" 2>/dev/null) == "$pins" ]] && return 0
  rm -rf "$tmp" "$out/$name"; mkdir -p "$tmp"
  if ! "$@" >"$out/$name.log" 2>&1; then cat "$out/$name.log" >&2; exit 1; fi
  if declare -F committed >/dev/null; then (cd "$tmp" && committed); fi
  mv "$tmp" "$out/$name"; echo "$pins" >"$out/$name/.done"
}
lib_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# Java and Kotlin: `-sources.jar`s from Maven Central.
maven_sources() {
  local coords=$1
  mvn -B -q dependency:get -Dtransitive=false -Dartifact="$coords:jar:sources"
  local g=${coords%%:*} rest=${coords#*:}; local a=${rest%%:*} v=${rest#*:}
  (cd "$tmp" && unzip -q -o "$HOME/.m2/repository/${g//.//}/$a/$v/$a-$v-sources.jar")
}

# Debian: a source package's upstream tarball from Debian's archive, checked against
# the sha256 given, unpacked with its top directory dropped.
debian_orig() {
  local path=$1 sha=$2
  curl -fsSL --retry 3 -o "$tmp/orig" "http://deb.debian.org/debian/pool/main/$path"
  echo "$sha  $tmp/orig" | sha256sum -c --quiet
  tar -xf "$tmp/orig" -C "$tmp" --strip-components=1
  rm "$tmp/orig"
}

# debian_sources EXTS [DIR KEEP PATH SHA256]...: upstream tarballs (`debian_orig`),
# each into a directory DIR of its own, keeping only the regular files named `*.EXT`
# (EXTS comma-separated: the language's extensions) under the paths KEEP matches
# (`*`: all, `src/*`: a library without its tests and fixtures).
debian_sources() {
  local -a exts names=()
  IFS=, read -ra exts <<<"$1"; shift
  local e
  for e in "${exts[@]}"; do names+=(-o -name "*.$e"); done
  while (($# >= 4)); do
    (
      tmp=$tmp/$1; mkdir -p "$tmp"
      debian_orig "$3" "$4"
      cd "$tmp"
      find . -type f -path "./$2" \( -false "${names[@]}" \) -o ! -type d -delete
      find . -type d -empty -delete
    )
    shift 4
  done
}
