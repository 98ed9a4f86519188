#!/usr/bin/env bash
# The core is sealed: outside sim/core, only its public headers are
# included. Every header of sim/core not listed here is private to it.
# The core's own white-box unit tests (testsuite/core, ring, attr) may look
# inside. Usage: sealed_core.sh SOURCE_ROOT
set -euo pipefail
root=$1
public="perf_core.h perf_epoll.h sample_data.h sched_trace.h arena.h fd_place.h list.h tracepoints.h"
private=()
for h in "$root"/sim/core/*.h; do
  name=${h##*/}
  [[ " $public " == *" $name "* ]] || private+=("$name")
done
pattern="#[[:space:]]*include[[:space:]]*\"sim/core/($(IFS='|'; echo "${private[*]}" | sed 's/\./\\./g'))\""
found=$(cd "$root" && grep -rEn "$pattern" --include='*.c' --include='*.h' \
          sim syscall_shim pmu_models testsuite \
          --exclude-dir=core --exclude-dir=ring --exclude-dir=attr || true)
# --exclude-dir drops sim/core and the core's test folders; nothing else
# is named so
if [[ -n $found ]]; then
  echo "a core-private header is included outside sim/core:" >&2
  echo "$found" >&2
  echo "(ask the core through perf_core.h instead)" >&2
  exit 1
fi
echo "sealed: ${#private[@]} private headers (${private[*]}), none included outside sim/core"
