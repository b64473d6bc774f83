#!/usr/bin/env bash
# Regenerates specs/mpi-functions.json from the installed MPI headers and the MPI Forum's
# apis.json. Usage: specs/regenerate.sh PATH/TO/mpi-forum-apis.json
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
forum=${1:?usage: specs/regenerate.sh PATH/TO/mpi-forum-apis.json (pympistandard apis.json)}
forum=$(cd "$(dirname "$forum")" && pwd)/$(basename "$forum")
source "$root/scripts/lib.sh"
jpmpi_find_jdk
"$root/mvnw" -q -B -f "$root/pom.xml" -pl specs compile dependency:build-classpath \
  -Dmdep.outputFile="$here/target/classpath.txt" -Dmdep.includeScope=runtime
exec "$JAVA_HOME/bin/java" -cp "$here/target/classes:$(cat "$here/target/classpath.txt")" \
  io.jpmpi.specs.tool.SpecTool --forum "$forum" --overrides "$here/overrides.jsonc" \
  --out "$here/mpi-functions.json"
