#!/usr/bin/env bash
# Typed handles vs long through a Java level's call shape: benchmarks/typed-handles/TypedHandles.java
# (what it measures is said there), 1 to 4 interceptor classes, with upcall stubs and without.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../../scripts/lib.sh"
jpmpi_find_jdk
for mode in stub shared; do
    for levels in 1 2 3 4; do
        "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED "$here/TypedHandles.java" "$mode" "$levels"
    done
done
