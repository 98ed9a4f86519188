#!/usr/bin/env bash
# run_trace_exec.sh - `pmusim exec --trace-out FILE` writes the schedule
# when PROGRAM's process ends, however many times that process replaced
# its image with execve (usage text of pmusim exec). Usage:
# run_trace_exec.sh PMUSIM
set -u
PMUSIM=$1
tmp=$(mktemp -d /tmp/pmusim-trace-exec-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0

# name<TAB>the process's command line (sh -c)
while IFS=$'\t' read -r name cmd; do
	rm -f "$tmp/t.json"
	"$PMUSIM" exec --trace-out "$tmp/t.json" -- /bin/sh -c "$cmd" || {
		echo "FAIL $name: status $?"; fail=1; continue; }
	if ! python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["otherData"]["pmusim"]' \
	     "$tmp/t.json" 2>/dev/null; then
		echo "FAIL $name: no trace in $tmp/t.json"
		fail=1
	fi
done <<'ROWS'
sh -c true	/bin/true
exec true	exec /bin/true
exec sh, exec true	exec /bin/sh -c 'exec /bin/true'
exec sh twice, exec true	exec /bin/sh -c 'exec /bin/sh -c "exec /bin/true"'
ROWS
[[ $fail == 0 ]] && echo "ok: the trace after 1 to 3 execves"
exit $fail
