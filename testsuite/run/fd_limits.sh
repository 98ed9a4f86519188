#!/usr/bin/env bash
# Descriptors under an ordinary account's limits (docs/shim.md, "Descriptors
# and RLIMIT_NOFILE"): `pmusim exec` and `pmusim run` with a soft
# RLIMIT_NOFILE of 1024 and 256; a hard limit too small for pmusim (one
# line, exit 1, unless the caller may raise it); a program with 3000 files
# open calling perf_event_open; programs that close every fd they did not
# open (close_range, a /proc/self/fd sweep, Python's subprocess) before
# running a monitored child. Counts of loop.S from arithmetic: 2N+4
# instructions, N = 1000000.
set -uo pipefail
pmusim=$1 loop=$2 fdstress=$3
want=2000004
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

# perf stat's instructions:u count from -x, output on stdin
stat_count() { awk -F, '$3 == "instructions:u" { print $1 }'; }

for lim in 1024 256; do
  (
    ulimit -Sn "$lim" || exit 3
    hard=$(ulimit -Hn)
    err=$("$pmusim" exec -- /bin/true 2>&1)
    [[ $? == 0 && -z $err ]] || { echo "exec /bin/true: '$err'"; exit 1; }
    got=$("$pmusim" exec -- /bin/sh -c 'echo $(ulimit -Sn) $(ulimit -Hn)' 2>&1)
    [[ $got == "$lim $hard" ]] || { echo "the guest's limits: '$got', want '$lim $hard'"; exit 1; }
    got=$("$pmusim" run -- perf stat -x, -e instructions:u -- "$loop" 2>&1 >/dev/null | stat_count)
    [[ $got == "$want" ]] || { echo "run perf stat: '$got', want $want"; exit 1; }
    # a native program's perf fd lies above its soft limit, which stays
    out=$("$pmusim" run -- "$fdstress" open 0 2>&1)
    [[ $out == *"read 8"*"soft limit $lim"* ]] || { echo "run native open: '$out'"; exit 1; }
  ) && ok "soft limit $lim: exec, its getrlimit, run perf stat, a native open" ||
    fail "soft limit $lim"
done

# pmusim exec under a hard limit of 1024 or 256 (bash's plain ulimit -n
# sets both): its own fds fit below the limit, the guest's view is the
# caller's
for lim in 1024 256; do
  (
    ulimit -n $lim || exit 3
    got=$("$pmusim" exec -- /bin/sh -c 'echo $(ulimit -Sn) $(ulimit -Hn)' 2>&1)
    [[ $got == "$lim $lim" ]] || { echo "exec under ulimit -n $lim: '$got'"; exit 1; }
    out=$("$pmusim" exec -- "$fdstress" open 0 2>&1)
    [[ $out == *"read 8"* ]] || { echo "exec self-monitoring under ulimit -n $lim: '$out'"; exit 1; }
  ) && ok "exec under ulimit -n $lim (soft and hard)" || fail "exec under ulimit -n $lim"
done

# a hard limit below what pmusim run needs (its window of perf fds is
# [1024, 2048)): one line and exit 1, unless this caller may raise it
# (CAP_SYS_RESOURCE), when pmusim raises it and runs
(
  ulimit -n 256 || exit 3
  if (ulimit -Hn 2048) 2>/dev/null; then can_raise=1; else can_raise=0; fi
  for cmd in "run -- /bin/true"; do
    err=$("$pmusim" $cmd 2>&1); st=$?
    if [[ $can_raise == 1 ]]; then
      [[ $st == 0 && -z $err ]] || { echo "$cmd with a raisable hard limit: $st '$err'"; exit 1; }
    else
      lines=$(printf '%s\n' "$err" | wc -l)
      [[ $st == 1 && $lines == 1 && $err == *"hard limit on open files (ulimit -Hn) is 256"* ]] ||
        { echo "$cmd: status $st, '$err'"; exit 1; }
    fi
  done
) && ok "hard limit 256" || fail "hard limit 256"

# 3000 files of the program's own, then perf_event_open: a descriptor
(
  if ! ulimit -Sn 4096 2>/dev/null; then
    echo "skip 3000 files: the hard limit $(ulimit -Hn) is below 4096" >&2
    exit 0
  fi
  out=$("$pmusim" exec -- "$fdstress" open 3000 2>&1)
  read -r _ next _ fd _ r _ c <<< "$(grep '^next ' <<< "$out")"
  # the kernel's answer: the lowest free fd, what a dup gave just before
  [[ $fd == "$next" && $r == 8 && $c == nonzero && $out == *"closes ok"* ]] ||
    { echo "exec: '$out'"; exit 1; }
  out=$("$pmusim" run -- "$fdstress" open 3000 2>&1)
  read -r _ next _ fd _ r _ c <<< "$(grep '^next ' <<< "$out")"
  [[ $fd =~ ^[0-9]+$ && $r == 8 && $out == *"closes ok"* ]] || { echo "run: '$out'"; exit 1; }
  got=$("$pmusim" run -- "$fdstress" hog 3000 -- perf stat -x, -e instructions:u -- "$loop" \
        2>&1 >/dev/null | stat_count)
  [[ $got == "$want" ]] || { echo "run perf stat beside 3000 files: '$got', want $want"; exit 1; }
) && ok "3000 files, then perf_event_open" || fail "3000 files"

# programs that close every fd they did not open (or mark them
# close-on-exec, or dup2 their own files onto every number of [1024, 2048)),
# then run a monitored child
(
  for how in closerange sweep cloexec dup2top; do
    out=$("$pmusim" run -- "$fdstress" $how -- perf stat -x, -e instructions:u -- "$loop" \
          2>&1 >/dev/null)
    got=$(stat_count <<< "$out")
    [[ $got == "$want" ]] || { echo "run $how: '$out'"; exit 1; }
    out=$("$pmusim" exec -- "$fdstress" $how -- "$fdstress" open 0 2>&1)
    [[ $out == *"read 8 count nonzero"* ]] || { echo "exec $how: '$out'"; exit 1; }
  done
  py=$(command -v /usr/bin/python3 || command -v python3) || { echo "skip python: none" >&2; exit 0; }
  out=$("$pmusim" run -- "$py" -c 'import subprocess, sys
subprocess.run(["perf", "stat", "-x,", "-e", "instructions:u", "--", sys.argv[1]], close_fds=True)' \
        "$loop" 2>&1 >/dev/null)
  got=$(stat_count <<< "$out")
  [[ $got == "$want" ]] || { echo "python subprocess close_fds=True: '$out'"; exit 1; }
) && ok "close_range, /proc/self/fd sweep, subprocess close_fds" || fail "closing sweeps"

[[ $fails == 0 ]] || exit 1
echo "fd limits: all rows pass"
