# same_as_native.sh - sourced by the native-vs-emulated row runners
# (run_corpus.sh, run_signals_threads.sh): one row's two runs compared.
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
