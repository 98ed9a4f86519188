#!/usr/bin/env bash
# fileops.sh - the calls on a perf fd that perf_fops and the VFS answer
# (testsuite/exec/progs/perf_fileops.c) on a core event under pmusim run,
# through the shim, against the host's answers on a software event.
# Usage: fileops.sh PMUSIM PERF_FILEOPS
set -u
PMUSIM=$1 PROG=$2
# the shim's perf fds are numbers from 1024 up, the host's small ones: a
# dup2 onto one at or above the soft limit is EBADF (docs/shim.md,
# Descriptors and RLIMIT_NOFILE; run_fd_limits tests that), so the soft
# limit goes up to the hard one, as far as it may
ulimit -Sn "$(ulimit -Hn)" 2>/dev/null || true
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$PROG" > "$tmp/native" 2>/dev/null || { echo "FAIL: native run"; exit 1; }
"$PMUSIM" run -- "$PROG" hw > "$tmp/shim" 2>/dev/null || { echo "FAIL: pmusim run"; exit 1; }
if ! diff "$tmp/native" "$tmp/shim"; then
	echo "FAIL: the shim's answers differ from the host's (< host, > shim)"
	exit 1
fi
echo PASS
