# same_as_native.sh - sourced by the native-vs-emulated row runners
# (run_corpus.sh, run_signals_threads.sh, ../aarch64/run_aarch64.sh): one
# row's two runs compared, and the loop over rows.
#
# same_as_native DIR NAME LABEL: DIR holds NAME.{native,emu}.{out,err,st};
# the emulated stderr names pmusim where the shell named itself. Prints
# "ok   LABEL", or a FAIL line and the diff per part that differs; returns
# 0 when all three parts are equal.
same_as_native() {
	local dir=$1 name=$2 label=$3 part ok=0
	sed -i "s|$PMUSIM|pmusim|g" "$dir/$name.emu.err"
	for part in out err st; do
		if ! cmp -s "$dir/$name.native.$part" "$dir/$name.emu.$part"; then
			ok=1
			echo "FAIL $label: $part differs"
			diff "$dir/$name.native.$part" "$dir/$name.emu.$part" | head -10
		fi
	done
	[[ $ok == 0 ]] && echo "ok   $label"
	return $ok
}

# run_rows SUITE ROWS [ROW_NAME...]: the row runner. ROWS holds lines
# "name<TAB>kernel behaviour<TAB>snippet"; each row (or only those named)
# runs its snippet twice, in a scratch directory per mode, under
# `timeout 60 bash -c`, after the exports `row_env MODE` prints (MODE
# native or emu), and same_as_native compares the two. Optional hooks the
# caller defines: row_skip NAME prints why and returns 0 to skip the row;
# row_fix FILE edits a stderr file before the comparison. Prints
# "SUITE: N rows, M failed"; returns 0 when none failed.
run_rows() {
	local suite=$1 rows=$2 name what snippet mode d fail=0 ran=0 tmp
	shift 2
	tmp=$(mktemp -d)
	while IFS=$'\t' read -r name what snippet; do
		[[ -z "$name" ]] && continue
		if [[ $# -gt 0 ]] && [[ " $* " != *" $name "* ]]; then continue; fi
		if declare -F row_skip > /dev/null && row_skip "$name"; then continue; fi
		for mode in native emu; do
			d="$tmp/$name.$mode"
			mkdir -p "$d"
			(cd "$d" && timeout 60 bash -c "$(row_env "$mode") $snippet" \
				> "$tmp/$name.$mode.out" 2> "$tmp/$name.$mode.err"
			 echo $? > "$tmp/$name.$mode.st")
			if declare -F row_fix > /dev/null; then row_fix "$tmp/$name.$mode.err"; fi
		done
		ran=$((ran + 1))
		same_as_native "$tmp" "$name" "$name ($what)" || fail=$((fail + 1))
	done <<< "$rows"
	rm -rf "$tmp"
	echo "$suite: $ran rows, $fail failed"
	[[ $fail == 0 ]]
}
