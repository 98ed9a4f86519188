#!/usr/bin/env bash
# run_badinput.sh - programs that cannot start: for each row a file ./f is
# made by the row's recipe (elf_patch.py changes one field of an ELF
# program); `bash -c ./f` (the oracle: the shell over the real
# kernel's execve) and `pmusim exec ./f` must give the same exit status and
# the same one-line message after the program name. Usage:
# run_badinput.sh PMUSIM PROGS_DIR
set -u
PMUSIM=$(realpath "$1")
PROGS=$(realpath "$2")
PATCH=$(realpath "$(dirname "$0")/elf_patch.py")

# cut_at_tail PROG: ./f is PROG up to its symbol tail (a static non-PIE
# program: its first PT_LOAD maps file offset 0 at 0x400000)
cut_at_tail() {
	local a
	a=$(nm "$1" | sed -n 's/^\([0-9a-f]*\) T tail$/0x\1/p')
	head -c $((a - 0x400000)) "$1" > f && chmod +x f
}
export -f cut_at_tail

# name<TAB>check (msg: status and message; status: status only)<TAB>recipe
read -r -d '' TABLE <<'ROWS'
missing	msg	true
no_exec_permission	msg	cp /bin/true f && chmod -x f
directory	msg	mkdir f
binary_not_elf	msg	printf '\x00\x01\x02binary data\n' > f && chmod +x f
wrong_arch	msg	cp /bin/true f && printf '\xb7\x00' | dd of=f bs=1 seek=18 conv=notrunc 2>/dev/null
elf32	msg	cp /bin/true f && printf '\x01' | dd of=f bs=1 seek=4 conv=notrunc 2>/dev/null
truncated_header	msg	head -c 100 /bin/true > f && chmod +x f
truncated_phdrs	msg	head -c 200 /bin/true > f && chmod +x f
malformed_magic_only	msg	printf '\x7fELF\x02\x01\x01\x00garbage garbage garbage garbage garbage garbage garbage\n' > f && chmod +x f
not_executable_type	msg	cp $PROGS/reloc.o f && chmod +x f
missing_interpreter	msg	cp $PROGS/badinterp f
missing_script_interpreter	msg	printf '#!/nonexistent/interp\necho hi\n' > f && chmod +x f
truncated_segments	status	head -c 3000 /bin/true > f && chmod +x f
empty_file	status	: > f && chmod +x f
script_ok	msg	printf '#!/bin/sh\necho script ran "$0"\nexit 5\n' > f && chmod +x f
load_offset_misaligned	status	$PATCH $PROGS/hello_static f 1 p_offset 'v + 0x10'
load_filesz_over_memsz	status	$PATCH $PROGS/hello_static f 3 p_filesz 'v + 0x100000'
load_offset_past_lfs	status	$PATCH $PROGS/hello_static f 1 p_offset 'v | 0xf5 << 56'
readonly_bss_too_big	status	$PATCH $PROGS/hello_static f 2 p_memsz 'v + (0x53 << 40)'
ei_version_ignored	msg	$PATCH $PROGS/hello_static f ident 6 '53'
truncated_tail_load	status	cut_at_tail $PROGS/truncated_tail_load
truncated_tail_store	status	cut_at_tail $PROGS/truncated_tail_store
truncated_tail_mprotect	status	cut_at_tail $PROGS/truncated_tail_mprotect
truncated_tail_remap	status	cut_at_tail $PROGS/truncated_tail_remap
ROWS

fail=0
n=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
while IFS=$'\t' read -r name check recipe; do
	[[ -z "$name" ]] && continue
	d="$tmp/$name"
	mkdir -p "$d"
	if ! (cd "$d" && PROGS="$PROGS" PATCH="$PATCH" bash -c "$recipe"); then
		echo "FAIL $name: the recipe failed"
		fail=$((fail + 1))
		continue
	fi
	(cd "$d" && bash -c ./f > native.out 2> native.err; echo $? > native.st)
	(cd "$d" && "$PMUSIM" exec ./f > emu.out 2> emu.err; echo $? > emu.st)
	n=$((n + 1))
	# the message after the program name: "bash: line 1: ./f: X" / "pmusim: ./f: X"
	nmsg=$(sed -n 's|^.*\./f: ||p' "$d/native.err" | head -1)
	emsg=$(sed -n 's|^.*\./f: ||p' "$d/emu.err" | head -1)
	ok=1
	if ! cmp -s "$d/native.st" "$d/emu.st"; then
		ok=0
		echo "FAIL $name: status native $(cat "$d/native.st") pmusim $(cat "$d/emu.st")"
	fi
	if [[ $check == msg ]]; then
		if [[ "$nmsg" != "$emsg" ]] || ! cmp -s "$d/native.out" "$d/emu.out"; then
			ok=0
			echo "FAIL $name: message native '$nmsg' pmusim '$emsg'"
		fi
		if [[ $(wc -l < "$d/emu.err") -gt 1 ]]; then
			ok=0
			echo "FAIL $name: more than one line on stderr"
		fi
	fi
	if [[ $ok == 1 ]]; then echo "ok   $name (status $(cat "$d/emu.st")${emsg:+, \"$emsg\"})"; else fail=$((fail + 1)); fi
done <<< "$TABLE"
echo "badinput: $n rows, $fail failed"
[[ $fail == 0 ]]
