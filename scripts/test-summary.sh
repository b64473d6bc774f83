#!/usr/bin/env bash
# scripts/test-summary.sh - the closing summary of a test run: tests run, failed and skipped in
# each lane, from the surefire (unit) and failsafe (integration) reports of every module, and
# every skip with its reason, so that a run that tested less than it could says so.
#   scripts/test-summary.sh [ROOT]
set -uo pipefail
root=${1:-$(cd "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)}
summary() {
    local lane=$1 dir=$2 files
    # (not under target/it-runs: the projects the integration tests make and build there, such as
    # NewToolIT's, whose test is made to fail on purpose, have reports of their own)
    mapfile -t files < <(find "$root" -path "*/target/$dir/TEST-*.xml" -not -path "*/.git/*" \
        -not -path "*/target/it-runs/*" 2>/dev/null | sort)
    if ((${#files[@]} == 0)); then
        printf '%-12s no reports\n' "$lane"
        return
    fi
    # The <testsuite ...> line of each report carries its counts.
    grep -h -o '<testsuite [^>]*>' "${files[@]}" | awk -v lane="$lane" '
        { for (i = 1; i <= NF; i++) if (split($i, kv, "=") == 2) { gsub(/"/, "", kv[2]); n[kv[1]] += kv[2] } }
        END { printf "%-12s %5d run, %d failed, %d errors, %d skipped\n", lane, n["tests"], n["failures"], n["errors"],
                     n["skipped"] }'
    # Every skipped case: class, test, reason.
    awk '/<testcase / { match($0, /name="[^"]*"/); name = substr($0, RSTART + 6, RLENGTH - 7)
                        match($0, /classname="[^"]*"/); cls = substr($0, RSTART + 11, RLENGTH - 12) }
         /<skipped/ { reason = "(no reason given)"
                      if (match($0, /message="[^"]*"/)) reason = substr($0, RSTART + 9, RLENGTH - 10)
                      else if (match($0, /Assumption failed: .*/)) reason = substr($0, RSTART + 19, RLENGTH - 19)
                      printf "  skipped: %s#%s: %s\n", cls, name, reason }' "${files[@]}"
}
echo "jpmpi tests:"
summary unit surefire-reports
summary integration failsafe-reports
