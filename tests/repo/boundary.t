#!/usr/bin/env bash
# The single-step engine (arch/x86/step/) and the software PMU (arch/x86/model/) meet in one
# header, arch/x86/step/run.h (arch/x86/README.md): the model includes nothing else of
# the engine's folder, the engine nothing of the model's, run.h nothing of either, and neither
# calls the other. An include is followed as the compiler follows it (a quoted name first beside
# the including file, then from the top of the tree, -I.), so that a relative spelling does not
# slip through; calls are read from the built objects when there are any.
. "$(dirname "$0")/lib.sh"
step=arch/x86/step model=arch/x86/model run=arch/x86/step/run.h

# The old folder that held both is gone, in the index and in the tree.
bad=$(git ls-files 'arch/x86/spmu/*')
[ -z "$bad" ] && [ ! -e arch/x86/spmu ]
ok $? "arch/x86/spmu/ is gone (split into $step/ and $model/)${bad:+ (still tracked: $(echo $bad))}"
for d in "$step" "$model"; do
	[ -n "$(git ls-files "$d/*.[chS]")" ]
	ok $? "$d/ holds sources"
done
[ -f "$run" ] && git ls-files --error-unmatch "$run" >/dev/null 2>&1
ok $? "$run exists"

# includes FILE...: "FILE INCLUDED" for each #include of each file, INCLUDED the repository path
# it names as the compiler finds it (beside the file first for "", then from the top of the tree:
# the kernel's -I.), or the name as written where neither exists.
includes() {
	local f inc dir cand p
	for f in "$@"; do
		dir=$(dirname "$f")
		sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]\([^">]*\)[">].*/\1/p' "$f" |
			while IFS= read -r inc; do
				p=$inc
				for cand in "$dir/$inc" "$inc"; do
					if [ -e "$cand" ]; then
						p=$(realpath -m --relative-to=. "$cand")
						break
					fi
				done
				printf '%s %s\n' "$f" "$p"
			done
	done
}

# 1. The model includes of the engine's folder run.h alone.
bad=$(includes $(git ls-files "$model/*.[chS]") | awk -v s="$step/" -v r="$run" \
	'index($2, s) == 1 && $2 != r { printf "%s includes %s; ", $1, $2 }')
ok "$([ -z "$bad" ] && echo 0 || echo 1)" "$model/ includes nothing of $step/ but run.h${bad:+ ($bad)}"
# ... and does include it (the one crossing is used, not a copy of its types).
bad=$(includes $(git ls-files "$model/*.[chS]") | awk -v r="$run" '$2 == r' | head -n 1)
[ -n "$bad" ]
ok $? "$model/ takes the runs from $run"

# 2. The engine includes nothing of the model.
bad=$(includes $(git ls-files "$step/*.[chS]") | awk -v m="$model/" \
	'index($2, m) == 1 { printf "%s includes %s; ", $1, $2 }')
ok "$([ -z "$bad" ] && echo 0 || echo 1)" "$step/ includes nothing of $model/${bad:+ ($bad)}"

# 3. run.h brings nothing else of either folder with it (it is all the model sees of the engine).
bad=$(includes "$run" | awk -v s="$step/" -v m="$model/" \
	'index($2, s) == 1 || index($2, m) == 1 { printf "%s; ", $2 }')
ok "$([ -z "$bad" ] && echo 0 || echo 1)" "$run includes no header of $step/ or $model/${bad:+ ($bad)}"

# 4. Neither calls the other: no symbol one folder's objects use is defined by the other's (the
# session fills the engine's hooks with the model's functions).
obj=${BUILD:-build}/kernel-obj
if [ -d "$obj/$step" ] && [ -d "$obj/$model" ]; then
	objs() { git ls-files "$1/*.[cS]" | sed "s|^|$obj/|; s|$|.o|" | while read -r o; do [ -f "$o" ] && echo "$o"; done; }
	# shellcheck disable=SC2046
	calls() { nm $(objs "$1") 2>/dev/null | awk '$1 == "U" { print $2 }' | sort -u; }
	# shellcheck disable=SC2046
	defs() { nm --defined-only $(objs "$1") 2>/dev/null | awk 'NF == 3 && $2 ~ /[TDBRVW]/ { print $3 }' | sort -u; }
	bad=$(comm -12 <(calls "$model") <(defs "$step") | paste -sd' ')
	ok "$([ -z "$bad" ] && echo 0 || echo 1)" "$model/ calls nothing of $step/${bad:+ ($bad)}"
	bad=$(comm -12 <(calls "$step") <(defs "$model") | paste -sd' ')
	ok "$([ -z "$bad" ] && echo 0 || echo 1)" "$step/ calls nothing of $model/${bad:+ ($bad)}"
else
	echo "ok $((n += 1)) - $model/ calls nothing of $step/ # SKIP $obj missing: build the kernel first"
	echo "ok $((n += 1)) - $step/ calls nothing of $model/ # SKIP $obj missing: build the kernel first"
fi

echo "1..$n"
exit $failed
