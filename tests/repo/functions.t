#!/usr/bin/env bash
# No C function over 100 lines in arch/, kernel/, lib/, boot/ or tools/: a longer one does
# several things, each of which wants a name. A function is counted from the first line of its
# definition (at column 0, with its name's parenthesis) to the "}" at column 0 that closes its
# body (clang-format's Linux braces put its "{" there too); this agrees with universal-ctags'
# start and end lines on every function of the tree, without needing ctags.
. "$(dirname "$0")/lib.sh"
MAX=100

# "FILE:NAME LINES" for every function longer than $1 lines in the files named after it.
long_functions() {
	perl -e '
	my $max = shift;
	for my $f (@ARGV) {
		open my $fh, "<", $f or die "$f: $!\n";
		my @l = map { (my $x = $_) =~ s{/\*.*?\*/}{}g; $x =~ s{//.*}{}; $x } <$fh>;
		for (my $i = 0; $i < @l; $i++) {
			next unless $l[$i] =~ /^[A-Za-z_].*\(/ && $l[$i] !~ /;\s*$/;
			my $body;
			for (my $j = $i; $j < @l; $j++) {
				if ($l[$j] =~ /^\{/) { $body = $j; last; }
				last if $l[$j] =~ /;\s*$/ || $l[$j] =~ /^\s*$/;
			}
			next unless defined $body;
			my $k = $body + 1;
			$k++ while $k < @l && $l[$k] !~ /^\}/;
			(my $sig = join " ", @l[$i .. $body - 1]) =~ s/__attribute__\s*\(\(.*?\)\)//g;
			my ($name) = $sig =~ /(\w+)\s*\(/;
			print "$f:$name ", $k - $i + 1, "\n" if $k - $i + 1 > $max;
			$i = $k;
		}
	}' "$@"
}

long=$(long_functions "$MAX" $(git ls-files 'arch/*.[ch]' 'kernel/*.[ch]' 'lib/*.[ch]' 'boot/*.[ch]' 'tools/*.[ch]'))
bad=$(printf '%s\n' "$long" | while read -r fn lines; do
	[ -n "$fn" ] && printf '%s (%s lines) ' "$fn" "$lines"
done)
ok "$([ -z "$bad" ] && echo 0 || echo 1)" "no C function over $MAX lines in arch/, kernel/, lib/, boot/, tools/${bad:+: $bad}"
# The scanner itself, on a function it must find: a two-line signature, braces in comments,
# $MAX + 4 lines in all.
sample=$(mktemp)
trap 'case $BASHPID in $$) rm -f "$sample" ;; esac' EXIT
{ echo 'static int sample(int a,'; echo '		  int b) /* ( */'; echo '{'
  for _ in $(seq 1 "$MAX"); do echo '	a += b; /* } */'; done; echo '}'; } >"$sample"
got=$(long_functions "$MAX" "$sample")
want="$sample:sample $((MAX + 4))"
[ "$got" = "$want" ]
ok $? "the scanner counts a function of $((MAX + 4)) lines, its signature on two lines$([ "$got" = "$want" ] || echo " (got: '$got')")"
echo "1..$n"
exit $failed
