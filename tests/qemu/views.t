#!/usr/bin/env bash
# btdecode's views on a real capture: the example program (examples/branches.c) traced with BTS
# and LBR (Skylake), and its static-PIE build placed at 0x7e0000000000, each with stream=text.
# The stream's own HEADER names the program (path, build id as readelf reads it, bias); the
# perf view goes through llvm-profgen, which must make an AutoFDO profile for the program's
# functions (nm's); the folded stacks and trace events parse, count every record once and name
# only functions nm knows; the JSON names every program address as nm's symbol table does.
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'case $BASHPID in $$) rm -rf "$work" ;; esac' EXIT
dec=$build/btdecode
profgen=$(command -v llvm-profgen-14 || command -v llvm-profgen || true)

# FUNCS ELF BIAS: "start name" of the ELF's functions, at their run addresses
funcs() {
	nm "$1" | while read -r a t s; do
		case "$t" in T | t) printf '%x %s\n' $((0x$a + $2)) "$s" ;; esac
	done
}

check_program() { # check_program ELF BIAS LABEL
	local elf=$1 bias=$2 label=$3 id
	printf '%s\n' "$out" >"$work/$label.log"
	"$dec" --program "$elf" "$work/$label.log" >"$work/$label.text" 2>"$work/$label.err"
	ok $? "$label: the capture decodes whole, digests matching"
	id=$(readelf -n "$elf" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
	grep -q "^stream-header cpu=0 program=.*$(basename "$elf") program-build-id=$id program-bias=$bias\$" \
		"$work/$label.text"
	ok $? "$label: the stream's header names the program, its build id ($id) and bias ($bias)"

	# perf -> llvm-profgen
	"$dec" --view perf --program "$elf" "$work/$label.log" >"$work/$label.perf"
	if [ -n "$profgen" ]; then
		"$profgen" --perfscript="$work/$label.perf" --binary="$elf" --format=text \
			--output="$work/$label.prof" >"$work/$label.pg" 2>&1
		local rc=$? top
		nm "$elf" | awk '$2 ~ /^[Tt]$/ { print $3 }' | sort -u >"$work/$label.names"
		top=$(grep -o '^[A-Za-z_][A-Za-z_0-9.]*' "$work/$label.prof" | sort -u)
		[ "$rc" = 0 ] && [ -n "$top" ] && grep -qx main <<<"$top" &&
			! grep -vxFf "$work/$label.names" <<<"$top" | grep -q .
		ok $? "$label: llvm-profgen makes a profile of the perf view, of the program's own functions ($(echo $top))"
	else
		echo "ok $((tap_n += 1)) # SKIP no llvm-profgen (Debian's llvm-14)"
	fi

	# folded: every record counted once, frames named by nm (program or kernel) or hex
	"$dec" --view folded --program "$elf" "$work/$label.log" >"$work/$label.folded"
	local records sum unknown
	records=$(grep -c '^\(bts\|lbr\) ' "$work/$label.text")
	sum=$(awk '{ s += $NF } END { print s + 0 }' "$work/$label.folded")
	{ nm "$elf"; nm "$build/kernel.elf"; } | awk '{ print $3 }' | sort -u >"$work/$label.all"
	unknown=$(sed 's/ [0-9]*$//' "$work/$label.folded" | tr ';' '\n' | grep -v '^\(bts\|lbr\):' |
		sed 's/+0x[0-9a-f]*$//' | grep -v '^0x' | sort -u | grep -vxFf "$work/$label.all")
	[ "$records" -gt 0 ] && [ "$sum" = "$records" ] && [ -z "$unknown" ] &&
		grep -q '^bts:program@skylake_cpu=0;.*;main' "$work/$label.folded"
	ok $? "$label: folded stacks count each of the $records records once ($sum), name only nm's functions${unknown:+ (not: $unknown)}, and pass through main"

	# trace events: JSON, nested
	"$dec" --view trace --program "$elf" "$work/$label.log" |
		perl -MJSON::PP -e '
		my $t = decode_json(do { local $/; <STDIN> }); my (%st, $bad, $n);
		for my $e (@{$t->{traceEvents}}) {
			next if $e->{ph} eq "M"; my $k = "$e->{pid}/$e->{tid}";
			if ($e->{ph} eq "B") { push @{$st{$k}}, $e->{name}; $n++; next }
			my $b = pop @{$st{$k}}; $bad++ if !defined $b || $b ne $e->{name};
		}
		$bad++ for grep { @{$st{$_}} } keys %st;
		exit(($bad || !$n) ? 1 : 0);'
	ok $? "$label: the trace events parse as JSON and every slice nests"

	# json: every program address named as nm's symbol table names it
	funcs "$elf" "$bias" | sort >"$work/$label.funcs"
	"$dec" --view json --program "$elf" "$work/$label.log" |
		perl -MJSON::PP -e '
		open my $f, "<", $ARGV[0] or die; my @fn = map { [split] } <$f>;
		@fn = sort { hex($a->[0]) <=> hex($b->[0]) } @fn;
		my ($checked, $bad) = (0, 0);
		while (<STDIN>) { my $o = decode_json($_);
			next unless $o->{type} eq "bts" || $o->{type} eq "lbr";
			for my $w ("from", "to") { my $a = hex $o->{$w};
				next unless $a >= 0x7e0000000000 && $a < 0x7e8000000000;
				my $want; for (@fn) { $want = $_->[1] if hex($_->[0]) <= $a }
				(my $got = $o->{"${w}_sym"} // "") =~ s/\+0x[0-9a-f]+$//;
				$checked++; if ($got ne $want) { $bad++; print STDERR "$o->{$w}: $got, nm: $want\n" } } }
		print "$checked\n"; exit($bad || !$checked);' "$work/$label.funcs" >"$work/$label.n" 2>"$work/$label.jerr"
	ok $? "$label: json names all $(cat "$work/$label.n") program addresses by nm's functions $(head -c 200 "$work/$label.jerr")"
}

boot --timeout 120 --program "$build/examples/branches.elf" -- workload=program trace=bts,lbr \
	spmu=skylake stream=text
status_is 0 "the example program traced with BTS and LBR, stream=text"
check_program "$build/examples/branches.elf" 0 exec

boot --timeout 120 --program "$build/examples/branches-pie.elf" -- workload=program trace=bts,lbr \
	spmu=skylake stream=text
status_is 0 "its static PIE traced the same way"
check_program "$build/examples/branches-pie.elf" 0x7e0000000000 pie
done_testing
