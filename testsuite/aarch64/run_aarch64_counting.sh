#!/usr/bin/env bash
# run_aarch64_counting.sh - PMUv3 counts of AArch64 guests under `pmusim
# exec`, on each Arm model: a64_count checks every count against the
# arithmetic of its hand-written loops and exits 1 on a difference;
# a64_sample checks the IP, registers and callchain of samples of one;
# a64_cache checks L1D and DTLB events of a hand-written loop, fed by the
# memory hook (the access log serves x86-64 engines only);
# a64_user_read reads counters from EL0 with perf_user_access 1,
# a64_counter_regs what the counter registers hold (a64_counter_regs.c);
# a64_pmu_el0 checks the SIGILL of an EL0 access to the PMU registers
# while perf_user_access is 0 (do_el0_undef()); a64_exclude the
# exclude_* attributes by exception level (a64_exclude.c). The counts and
# samples are checked with inline counting (the interposed A64
# translator) and with the block hook (--no-inline-count); bench_compute
# counting itself gives the same counts both ways, with inline counting
# taking the slow path rarely (`pmusim exec -v`).
# Usage: run_aarch64_counting.sh PMUSIM PROGS_DIR
set -u
PMUSIM=$1
PROGS=$2
fail=0
for model in pmuv3 pmuv3p5; do
	for prog in a64_count a64_sample; do
		for way in "" --no-inline-count; do
			if "$PMUSIM" exec $way --model "$model" "$PROGS/$prog" "$model"; then
				echo "ok   $prog on $model $way"
			else
				echo "FAIL $prog on $model $way"
				fail=1
			fi
		done
	done
done
# inline counting is used: bench_compute (1 round, about 70M instructions)
# counting instructions, branches and cycles itself takes the slow path
# less than once per 10,000 instructions (a call per block would be one
# per ~6), and counts the same as with a call per block
inl=$("$PMUSIM" exec -v --model pmuv3p5 "$PROGS/bench_compute_counting" 1 2>&1 >/dev/null)
blk=$("$PMUSIM" exec --no-inline-count --model pmuv3p5 "$PROGS/bench_compute_counting" 1 2>&1 >/dev/null)
counts=$(grep '^perf_self:' <<< "$inl")
insns=$(sed -n 's/^perf_self: instructions \([0-9]*\) .*/\1/p' <<< "$inl")
slow=$(sed -n 's/.*inline counting: [0-9]* blocks translated, \([0-9]*\) slow-path calls/\1/p' <<< "$inl")
if [[ -n $counts && $counts == "$(grep '^perf_self:' <<< "$blk")" && -n $slow && -n $insns &&
      $((slow * 10000)) -lt $insns ]]; then
	echo "ok   inline counting on AArch64: $counts, $slow slow-path calls"
else
	echo "FAIL inline counting on AArch64: '$counts' vs '$(grep '^perf_self:' <<< "$blk")', slow-path calls '$slow'"
	fail=1
fi
for model in pmuv3 pmuv3p5; do
	# the loop's 4096 loads reach the cache model through the memory hook
	out=$("$PMUSIM" exec -v --model "$model" "$PROGS/a64_cache" 2>&1)
	if [[ $? == 0 && $out == *"memory hook saw 4096 reads, 0 writes"* ]]; then
		echo "ok   a64_cache on $model"
	else
		echo "$out"
		echo "FAIL a64_cache on $model"
		fail=1
	fi
	if "$PMUSIM" exec --model "$model" "$PROGS/a64_pmu_el0" "$model"; then
		echo "ok   a64_pmu_el0 on $model"
	else
		echo "FAIL a64_pmu_el0 on $model"
		fail=1
	fi
	# EL0 reads of the counters with kernel.perf_user_access = 1; the
	# counter registers themselves (chained halves, the upper half of a
	# 32-bit event, PMSELR_EL0 across a lock change)
	for prog in a64_user_read a64_counter_regs; do
		if "$PMUSIM" exec --model "$model" --perf-user-access 1 "$PROGS/$prog" "$model"; then
			echo "ok   $prog on $model"
		else
			echo "FAIL $prog on $model"
			fail=1
		fi
	done
done
# /proc/sys/kernel/perf_user_access of the simulated arm64 kernel
# (a64_sysctl.c: read, and written as root), from exec and from a
# `pmusim run` session started with --perf-user-access 1
for model in pmuv3 pmuv3p5; do
	for ua in 0 1; do
		if "$PMUSIM" exec --model "$model" --perf-user-access "$ua" "$PROGS/a64_sysctl" "$ua"; then
			echo "ok   a64_sysctl on $model, perf_user_access $ua"
		else
			echo "FAIL a64_sysctl on $model, perf_user_access $ua"
			fail=1
		fi
	done
done
if "$PMUSIM" run --model pmuv3 --perf-user-access 1 -- perf stat -x, -e instructions:u -- \
	"$PROGS/a64_sysctl" 1 2>/dev/null; then
	echo "ok   a64_sysctl under pmusim run --perf-user-access 1"
else
	echo "FAIL a64_sysctl under pmusim run --perf-user-access 1"
	fail=1
fi
# `pmusim run --sysroot DIR`: the emulated workload's loader finds a
# library only the tree has
tree=$(mktemp -d)
mkdir -p "$tree/usr/lib/aarch64-linux-gnu"
cp "$PROGS/libsysroot_probe.so" "$tree/usr/lib/aarch64-linux-gnu/"
got=$("$PMUSIM" run --model pmuv3 --sysroot "$tree" -- perf stat -x, -e instructions:u -- \
	"$PROGS/sysroot_probe" 2>/dev/null)
rm -rf "$tree"
if [[ $got == "found in the sysroot" ]]; then
	echo "ok   sysroot_probe under pmusim run --sysroot"
else
	echo "FAIL sysroot_probe under pmusim run --sysroot: '$got'"
	fail=1
fi
# exclude_* by exception level: a loop of getpid SVCs, the modelled
# kernel's instructions per syscall (entry and exit paths) from the
# machine's cost table; kernel counting needs perf_event_paranoid <= 1
here=$(cd "$(dirname "$0")" && pwd)
kpath=$(awk '/#define PMU_SYSCALL_(ENTRY|EXIT)_INSNS/ { n += $3 } END { print n }' \
	"$here/../../sim/cpu/pmu_machine.h")
for model in pmuv3 pmuv3p5; do
	if "$PMUSIM" exec --model "$model" --paranoid 1 "$PROGS/a64_exclude" "$kpath"; then
		echo "ok   a64_exclude on $model"
	else
		echo "FAIL a64_exclude on $model"
		fail=1
	fi
done
# the host's perf counting an AArch64 program under pmusim run: its
# instructions and branches from the first instruction to exit_group
# (a64_nolibc_loop.S: 100004 and 50000)
got=$("$PMUSIM" run --model pmuv3p5 -- perf stat -x, -e instructions:u,branches:u \
	"$PROGS/a64_nolibc_loop" 2>&1 >/dev/null | cut -d, -f1 | tr '\n' ' ')
if [[ $got == "100004 50000 " ]]; then
	echo "ok   perf stat of a64_nolibc_loop under pmusim run: $got"
else
	echo "FAIL perf stat of a64_nolibc_loop under pmusim run: '$got', expected 100004 50000"
	fail=1
fi
exit $fail
