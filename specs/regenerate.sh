#!/usr/bin/env bash
# Regenerates specs/mpi-functions.json from the installed MPI headers as clang reads them, and
# the MPI Forum's apis.json; then jextract's bindings of exactly what the spec uses, per MPI, into
# specs/jextract/<impl>/ (committed: the bindings' unit test compares against them).
# A development-time step: the build never runs it, and it alone needs jextract.
#   Usage: specs/regenerate.sh PATH/TO/mpi-forum-apis.json
#   JEXTRACT_HOME: a jextract built with build.sh PREFIX (its PREFIX); default specs/target/jextract,
#   built there from JEXTRACT_SRC (default ../shared/tools/jextract, the folder holding build.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
forum=${1:?usage: specs/regenerate.sh PATH/TO/mpi-forum-apis.json (pympistandard apis.json)}
forum=$(cd "$(dirname "$forum")" && pwd)/$(basename "$forum")
source "$root/scripts/lib.sh"
jpmpi_find_jdk
die() { echo "regenerate.sh: $*" >&2; exit 1; }
"$JAVA_HOME/bin/java" -version 2>&1 | grep -qE 'version "(2[5-9]|[3-9][0-9])' \
  || die "jextract needs a JDK >= 25; JAVA_HOME is $JAVA_HOME"

jx=${JEXTRACT_HOME:-$here/target/jextract}
if [[ ! -x "$jx/bin/jextract" ]]; then
  src=${JEXTRACT_SRC:-$(dirname "$root")/shared/tools/jextract}
  [[ -x "$src/build.sh" ]] || die "no jextract in $jx and no $src/build.sh: set JEXTRACT_HOME to a jextract's PREFIX"
  "$src/build.sh" "$jx" "$JAVA_HOME" >&2
fi
clang_inc=$(ls -d /usr/lib/llvm-14/lib/clang/*/include 2>/dev/null | head -1)
[[ -n "$clang_inc" ]] || die "needs clang's own headers: apt-get install -y libclang1-14 libclang-common-14-dev"

# One clang parse per installed MPI: its wrapper's -I flags, mpi.h and mpi-ext.h where it has one.
facts=$here/target/clang
rm -rf "$facts" && mkdir -p "$facts"
declare -A includes headers
impls=()
for t in openmpi:mpicc.openmpi:-showme mpich:mpicc.mpich:-show; do
  IFS=: read -r id cc show <<<"$t"
  command -v "$cc" >/dev/null || continue
  includes[$id]=$("$cc" "$show" | tr ' ' '\n' | grep '^-I' | tr '\n' ' ')
  headers[$id]=mpi.h
  if echo '#include <mpi-ext.h>' | "$cc" -E -x c -include mpi.h - >/dev/null 2>&1; then
    headers[$id]=mpi.h,mpi-ext.h
  fi
  # shellcheck disable=SC2086 # the -I flags are words
  "$JAVA_HOME/bin/java" --enable-native-access=org.openjdk.jextract -Djava.library.path="$jx/lib" \
    -p "$jx/classes" --add-modules org.openjdk.jextract \
    --add-exports org.openjdk.jextract/org.openjdk.jextract.clang=ALL-UNNAMED \
    "$here/jextract/HeaderFacts.java" "$facts/$id.json" "${headers[$id]}" -I "$clang_inc" ${includes[$id]}
  impls+=(--impl "$id")
done
((${#impls[@]})) || die "no MPI found: install openmpi-bin libopenmpi-dev and/or mpich libmpich-dev"

"$root/mvnw" -q -B -f "$root/pom.xml" -pl specs compile dependency:build-classpath \
  -Dmdep.outputFile="$here/target/classpath.txt" -Dmdep.includeScope=runtime
"$JAVA_HOME/bin/java" -cp "$here/target/classes:$(cat "$here/target/classpath.txt")" \
  io.jpmpi.specs.tool.SpecTool --forum "$forum" --overrides "$here/overrides.jsonc" --clang "$facts" \
  --out "$here/mpi-functions.json" "${impls[@]}"

# jextract's own bindings of what the spec uses (SpecTool wrote the filters: target/clang/<impl>.jextract).
for ((i = 1; i < ${#impls[@]}; i += 2)); do
  id=${impls[i]}
  out=$here/jextract/$id
  rm -rf "$out"
  hs=()
  for h in ${headers[$id]//,/ }; do  # the header's path: the first -I directory that has it
    for d in ${includes[$id]}; do
      [[ -f "${d#-I}/$h" ]] && { hs+=("${d#-I}/$h"); break; }
    done
  done
  # shellcheck disable=SC2086
  "$jx/bin/jextract" --output "$out" -t "io.jpmpi.jextract.$id" --header-class-name mpi_h \
    ${includes[$id]} @"$facts/$id.jextract" "${hs[@]}" 2> >(grep -v ': warning: Skipping ' >&2)
  echo "regenerate.sh: $out: jextract $(find "$out" -name '*.java' | wc -l) files, $(du -sk "$out" | cut -f1) kB" >&2
done
