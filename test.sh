#!/usr/bin/env bash
# test.sh - the jpmpi test command: install/check prerequisites, pick a JDK >= 22,
# then run the whole Maven reactor through `verify`. Extra arguments go to Maven,
# e.g. ./test.sh -pl layering -am   or   ./test.sh -Dtest=SomeTest
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/scripts/lib.sh"
jpmpi_allow_root

jpmpi_ensure_packages || exit 1
jpmpi_find_jdk || exit 1
jpmpi_mvn verify "$@"
