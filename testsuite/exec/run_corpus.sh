#!/usr/bin/env bash
# run_corpus.sh - the corpus test of `pmusim exec`: each row of the table is
# a shell snippet run twice in a scratch directory, once natively ($RUN
# empty) and once emulated ($RUN = "pmusim exec"); stdout, stderr and the
# exit status must be identical. Rows may use $PROGS (the guest programs
# built by meson). Usage: run_corpus.sh PMUSIM PROGS_DIR [ROW_NAME...]
# Add rows to CORPUS below (name<TAB>snippet); keep each fast.
set -u
PMUSIM=$(realpath "$1")
PROGS=$(realpath "$2")
# shellcheck source=testsuite/exec/same_as_native.sh
source "$(dirname "$0")/same_as_native.sh"
shift 2
export PROGS

read -r -d '' CORPUS <<'ROWS'
true	$RUN /bin/true
false	$RUN /bin/false
exit_status	$RUN $PROGS/hello_dynamic 42 a b
hello_static	$RUN $PROGS/hello_static 0 x y
hello_static_pie	$RUN $PROGS/hello_static_pie 3 x y
hello_dynamic_pie	HELLO_VAR=set $RUN $PROGS/hello_dynamic 0 x y
hello_dynamic_nopie	$RUN $PROGS/hello_nopie 7 x y
auxv_dynamic	$RUN $PROGS/auxv_dynamic one two
auxv_static	$RUN $PROGS/auxv_static one two
smc_jit	$RUN $PROGS/smc
sysv_shm	$RUN $PROGS/shm
float_libc	$RUN $PROGS/float_libc 10; $RUN $PROGS/float_libc 0.5e-3
python_int_float	$RUN /usr/bin/python3 -c 'import math; print(int("5"), math.log(10), float("2.5") * 4, "%.3f" % math.pi)'
ls	$RUN ls -la /usr/bin
sort	$RUN sort data.txt
sha256sum	$RUN sha256sum data.txt tree/linux/perf_event.h
gzip_gunzip	$RUN gzip -c data.txt > d.gz && $RUN gunzip -c d.gz | $RUN sha256sum
grep_r	$RUN grep -r -n -c perf tree
find	$RUN find tree -name '*.h' -size +8k
tar	$RUN tar cf t.tar tree && mkdir -p x && $RUN tar xf t.tar -C x && diff -r tree x/tree && echo same
sqlite3	$RUN sqlite3 db.sqlite < query.sql
python3	$RUN /usr/bin/python3 -c 'import hashlib,json,re; d={str(i):i*i for i in range(3000)}; s=json.dumps(d,sort_keys=True); print(hashlib.sha256(s.encode()).hexdigest(), len(re.findall(r"\d+", s)), sum(sorted(d.values())[::7]))'
awk_sed_cut	$RUN awk '{ s += $1 } END { print s, NR }' data.txt; $RUN sed -n '100,105p;$p' data.txt; $RUN cut -c1-2 data.txt | $RUN sort -u | $RUN wc -l
perl	$RUN perl -e 'my %h; $h{$_ % 97}++ for 1..50000; print join(",", map { "$_=$h{$_}" } sort { $a <=> $b } keys %h), "\n"'
xz_bzip2	$RUN xz -c data.txt | $RUN xz -dc | $RUN md5sum; $RUN bzip2 -c data.txt | $RUN bzip2 -dc | $RUN md5sum
identity	$RUN id; $RUN uname -s -m; $RUN env -i /usr/bin/env; $RUN date -u -d @86400
proc_self_exe	$RUN readlink /proc/self/exe; $RUN $PROGS/hello_static 0 | head -1
proc_self_maps	$RUN cat /proc/self/maps | awk '$6 ~ /bin\/cat$/ { print $2, $3, ($5 > 0) } $6 ~ /^\[(heap|stack)\]$/ { print $6 }' | sort
proc_self_files	env -i A=1 BB=22 $RUN $PROGS/procself one 'two words'; env -i $RUN $PROGS/procself_static
proc_self_tools	$RUN cat /proc/self/comm; $RUN bash -c 'cat /proc/self/cmdline | tr "\0" " "; read -r -d "" a < /proc/self/cmdline; echo "$a"'; env -i X=1 $RUN cat /proc/self/environ; echo; $RUN ls /proc/self/fd /proc/self/fdinfo; $RUN ls /proc/self/task | wc -l; $RUN cat /proc/self/stat | awk '{ print $2, $20 }'
efault	$RUN $PROGS/efault
breakpoint	$RUN $PROGS/breakpoint
perf_test_breakpoints	$RUN perf test 20 21 22 23
robust_mutex	$RUN $PROGS/robust
proc_self_across_exec	$RUN bash -c 'tr "\0" " " < /proc/self/cmdline; echo; exec 3< /proc/self/stat 4< /proc/self/environ; X=1 exec cat /proc/self/fd/3 /proc/self/fd/4' | tr '\0' '\n' | awk '$2 ~ /^\(/ { print $2, $20; next } /^(X=1|tr )/'
proc_self_auxv	$RUN od -A d -t d8 /proc/self/auxv | awk 'NR % 4 == 2 { print $2 }' | grep -x -e 6 -e 17 -e 23 -e 33
vdso	$RUN cat /proc/self/maps | awk '$6 == "[vdso]" { print $2, $3, $4, $5, $6 }'; $RUN $PROGS/vdso_time
perf_mmap_records	$RUN $PROGS/perf_records mmap; $RUN $PROGS/perf_records mmap 2
perf_exit_by_signal	$RUN $PROGS/perf_records exit 11; $RUN $PROGS/perf_records exit 9; $RUN $PROGS/perf_records killed
perf_fd_across_exec	$RUN $PROGS/perf_files exec
perf_fd_scm_rights	$RUN $PROGS/perf_files scm
perf_fd_closed_mmapped	$RUN $PROGS/perf_files mmap
perf_fd_file_ops	$RUN $PROGS/perf_fileops
bash_pipeline	$RUN /bin/bash -c 'seq 1 200 | grep 7 | wc -l; (cd tree && ls | head -3); echo $((6*7))'
ROWS

setup() {
	seq 1 30000 | awk '{ print ($1 * 7919) % 30011 }' > data.txt
	mkdir -p tree
	cp -r /usr/include/linux tree/
	printf 'create table t(a integer, b text);\n' > query.sql
	for i in $(seq 1 200); do printf "insert into t values(%d, 'r%d');\n" $((i * 37 % 101)) "$i"; done >> query.sql
	printf 'select count(*), sum(a), max(b) from t;\nselect a, count(*) from t group by a order by 2 desc, 1 limit 5;\n' >> query.sql
}

fail=0
ran=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/template"
(cd "$tmp/template" && setup)
while IFS=$'\t' read -r name snippet; do
	[[ -z "$name" ]] && continue
	if [[ $# -gt 0 ]] && [[ " $* " != *" $name "* ]]; then continue; fi
	for mode in native emu; do
		d="$tmp/$name.$mode"
		cp -al "$tmp/template" "$d"   # hard links: rows only create files
		if [[ $mode == native ]]; then RUN=""; else RUN="$PMUSIM exec"; fi
		(cd "$d" && RUN="$RUN" bash -c "RUN=\"$RUN\"; $snippet" > "$tmp/$name.$mode.out" 2> "$tmp/$name.$mode.err"; echo $? > "$tmp/$name.$mode.st")
	done
	ran=$((ran + 1))
	same_as_native "$tmp" "$name" "$name" || fail=$((fail + 1))
done <<< "$CORPUS"
echo "corpus: $ran rows, $fail failed"
[[ $fail == 0 ]]
