#!/usr/bin/env bash
# guard.sh: check that a change leaves every composition of the benchmark
# program as it was. It runs the recall, replay and external sections (which
# carry no timings) on the project's synthetic data and, when present, on the
# LoCoMo dev file, as JSON, and either records them or diffs them against the
# recording. To check a branch against another tree (main, say), record with
# the copy of this script in that tree and check with this one.
#
#   bench/guard.sh record [DIR]   # before a change (default DIR: /tmp/byheart-guard)
#   bench/guard.sh check  [DIR]   # after it: exits 1 and shows the diff if any number moved
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:?usage: guard.sh record|check [DIR]}
dir=${2:-/tmp/byheart-guard}
locomo=${BYHEART_LOCOMO:-../shared/locomo/locomo-dev.json}
mkdir -p "$dir"
go build -o "$dir/eval.bin" ./eval
runs=(synthetic)
[ -f "$locomo" ] && runs+=(locomo)
status=0
for name in "${runs[@]}"; do
  args=(-json -only recall,replay,external -svg=) # no pictures: the guard writes nothing into the tree
  [ "$name" = locomo ] && args+=(-locomo "$locomo")
  out="$dir/$name.new.json"
  # Where the data was read from is not a result.
  "$dir/eval.bin" "${args[@]}" 2>/dev/null | grep -v '^    "source": ' >"$out"
  case "$mode" in
  record) mv "$out" "$dir/$name.json"; echo "guard: recorded $name";;
  check)
    if diff -u "$dir/$name.json" "$out"; then
      echo "guard: $name identical"
    else
      echo "guard: $name CHANGED" >&2; status=1
    fi;;
  *) echo "usage: guard.sh record|check [DIR]" >&2; exit 2;;
  esac
done
exit $status
