#!/usr/bin/env bash
# A test or script removes only what it made, and only once, in the shell that made it. Bash
# (Debian 12's 5.2) runs a script's EXIT trap in a subshell too when the subshell is ended by a
# signal right after its fork, before it has reset the traps it inherited (bash(1), "COMMAND
# EXECUTION ENVIRONMENT": a subshell resets trapped signals; here the signal wins the race):
# `(sleep 20) & kill $!` is enough. A trap `rm -rf "$work"` then removes the folder while its
# owner still runs: runner.t, whose helpers start and kill such subshells (a watchdog, each
# boot), lost its work folder that way under `prove -j2` and failed 13 of 15 checks. So every
# trap that removes something goes through `case $BASHPID in $$)` (BASHPID is the current
# process, $$ the script's own, also in its subshells: bash(1), "Shell Variables" and "Special
# Parameters"); a `case` is syntax, with no builtin to look up in the dying subshell.
# 1. Every such trap in tests/ and scripts/ (bash files: /bin/sh has no BASHPID) is guarded,
#    whether its body is quoted in the trap or a function the trap names.
# 2. The guard holds where the plain trap does not: 100 subshells killed right after their fork
#    leave the folder, and the owner's own exit removes it.
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'case $BASHPID in $$) rm -rf "$work" ;; esac' EXIT

# ---- 1. every removing trap guarded ------------------------------------------------------------
bash_files() {
	git ls-files tests scripts | while read -r f; do
		case "$f" in tests/fuzz/corpus/*) continue ;; *.sh) echo "$f"; continue ;; esac
		head -n 1 "$f" 2>/dev/null | grep -q '^#!.*bash' && echo "$f"
	done
}
# "FILE:LINE: why" for a trap on EXIT whose commands (quoted, or the function it names) remove
# something without the guard
unguarded() {
	perl -e '
	for my $f (@ARGV) {
		open my $fh, "<", $f or next;
		my @l = <$fh>;
		for my $i (0 .. $#l) {
			next unless $l[$i] =~ /^\s*trap\s+(.*?)\s+(?:EXIT|0)\s*(?:#.*)?$/;
			my $body = $1;
			if ($body =~ /^([A-Za-z_][A-Za-z0-9_]*)$/) { # a function: its body, to the "}" that closes it
				my $name = $1;
				$body = "";
				for my $j (0 .. $#l) {
					next unless $l[$j] =~ /^\s*\Q$name\E\s*\(\)\s*\{/;
					for my $k ($j .. $#l) { # one line (NAME() { ...; }), or to the "}" at column 0
						$body .= $l[$k];
						last if $k == $j ? $l[$k] =~ /\}\s*$/ : $l[$k] =~ /^\}/;
					}
					last;
				}
			}
			next unless $body =~ /\brm\s/;
			printf "%s:%d: %s\n", $f, $i + 1, "removes without case \$BASHPID in \$\$)" unless $body =~ /case \$BASHPID in \$\$\)/;
		}
	}' "$@"
}
mapfile -t files < <(bash_files)
bad=$(unguarded "${files[@]}")
[ "${#files[@]}" -gt 40 ] && [ -z "$bad" ]
ok $? "every EXIT trap that removes, in the ${#files[@]} bash files of tests/ and scripts/, is its owner's only (case \$BASHPID in \$\$)) ${bad:+: $(printf '%s\n' "$bad" | head -n 5 | tr '\n' ' ')}"
# the check itself finds both forms of an unguarded trap
printf '#!/usr/bin/env bash\ntrap '\''rm -rf "$w"'\'' EXIT\n' >"$work/quoted.sh"
printf '#!/usr/bin/env bash\nbye() {\n\tkill "$p"\n\trm -f "$f"\n}\ntrap bye EXIT\n' >"$work/function.sh"
[ "$(unguarded "$work/quoted.sh" "$work/function.sh" | wc -l)" = 2 ]
ok $? "the check finds an unguarded quoted trap and an unguarded trap function"

# ---- 2. the guard at work -------------------------------------------------------------------------
# race GUARD: a script that makes a folder, removes it on EXIT (with the guard or without),
# starts and at once kills 100 subshells; prints the try that lost the folder (0: none) and the
# folder's name
race() {
	local trap_cmd='rm -rf "$d"'
	[ "$1" = guarded ] && trap_cmd='case $BASHPID in $$) rm -rf "$d" ;; esac'
	cat >"$work/race.sh" <<EOF
d=\$(mktemp -d "$work/owned.XXXXXX")
trap '$trap_cmd' EXIT
lost=0
for i in \$(seq 100); do
	(sleep 20) 2>/dev/null &
	kill \$!
	wait \$! 2>/dev/null
	[ -d "\$d" ] || { lost=\$i; break; }
done
echo "\$lost \$d"
EOF
	bash "$work/race.sh" 2>/dev/null
}
read -r lost dir <<<"$(race guarded)"
[ "$lost" = 0 ] && [ -n "$dir" ] && [ ! -e "$dir" ]
ok $? "guarded: 100 subshells killed right after their fork leave the folder (lost at try ${lost:-?}), the owner's exit removes it"
read -r lost _ <<<"$(race plain)"
echo "# unguarded, the same script lost its folder at try $lost (0: not in 100 tries; the race is the host's)"
echo "1..$n"
exit $failed
