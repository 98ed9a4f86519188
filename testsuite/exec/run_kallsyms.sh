#!/usr/bin/env bash
# run_kallsyms.sh - the simulated kernel's symbols (sim/cpu/kernel_symbols.c).
# The guest's /proc/kallsyms must be exactly the host's lines for _text,
# _stext, entry_SYSCALL_64, default_idle and _etext, in the host's order (the oracle is
# the host's file, filtered here); and perf recording kernel-mode
# instructions in the guest must sample the modelled syscall path at the
# host's entry_SYSCALL_64, which perf resolves by that name.
# Usage: run_kallsyms.sh PMUSIM
set -u
PMUSIM=$(realpath "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

want=$(grep -E '^[0-9a-f]+ . (_text|_stext|entry_SYSCALL_64|default_idle|_etext)$' /proc/kallsyms)
got=$("$PMUSIM" exec -- /bin/cat /proc/kallsyms)
if [[ "$got" == "$want" && -n "$want" ]]; then
	echo "ok   guest /proc/kallsyms: $(wc -l <<< "$got") host lines"
else
	echo "FAIL guest /proc/kallsyms:"; diff <(echo "$want") <(echo "$got"); fail=1
fi

# a host that hides its addresses (kptr_restrict, not root) shows 0, and
# perf then cannot name kernel samples: nothing to compare them with
addr=$(awk '$3 == "entry_SYSCALL_64" { print $1 }' <<< "$want")
if [[ -z "$addr" || "$addr" =~ ^0+$ ]]; then
	echo "skip kernel samples: the host hides kernel addresses"
	exit $fail
fi
cd "$tmp" || exit 1
"$PMUSIM" exec -- perf record -q -e instructions:k -c 1000 -o k.data -- /bin/true 2>/dev/null
samples=$(perf script -i k.data -F ip,sym 2>/dev/null)
n=$(grep -c . <<< "$samples")
bad=$(grep -vcE "^ *$addr +entry_SYSCALL_64$" <<< "$samples")
if [[ $n -gt 0 && $bad == 0 ]]; then
	echo "ok   $n kernel samples at $addr entry_SYSCALL_64"
else
	echo "FAIL kernel samples (want all at $addr entry_SYSCALL_64):"; head <<< "$samples"; fail=1
fi
exit $fail
