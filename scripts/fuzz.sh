#!/usr/bin/env bash
# fuzz.sh runs every fuzz target of the module, one after the other, each for
# a set time. Not part of CI: fuzzing takes minutes and wants idle cores.
#
# Usage (from the module root):
#
#   scripts/fuzz.sh [-t DURATION] [-p PKG-PATTERN] [-f TARGET-REGEXP] [-j WORKERS] [-l]
#
#   -t  time per target, as go test -fuzztime takes it (default $FUZZTIME or 30s;
#       "500x" runs 500 inputs)
#   -p  package pattern to search (default $FUZZ_PKGS or ./...)
#   -f  only targets whose name matches this extended regexp (default: all)
#   -j  fuzzing workers per target (default $FUZZ_WORKERS or go test's, GOMAXPROCS)
#   -l  list the targets and exit
#
# Targets are discovered, not listed here: every package whose _test.go
# files declare a func FuzzXxx is asked for its targets with
# `go test -list '^Fuzz'`, so targets added later are run too.
#
# A failing input is written by go test to PKG/testdata/fuzz/FuzzXxx/; the
# summary names each target that failed. Exit status: 0 if every target
# passed, 1 if any failed, 2 on a usage error.
set -euo pipefail

fuzztime=${FUZZTIME:-30s}
pkgs=${FUZZ_PKGS:-./...}
filter=
workers=${FUZZ_WORKERS:-}
list=false

usage() {
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}

while getopts "t:p:f:j:lh" opt; do
	case $opt in
	t) fuzztime=$OPTARG ;;
	p) pkgs=$OPTARG ;;
	f) filter=$OPTARG ;;
	j) workers=$OPTARG ;;
	l) list=true ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage
if [ -n "$workers" ] && ! [[ $workers =~ ^[1-9][0-9]*$ ]]; then
	echo "fuzz.sh: -j $workers: want a positive number of workers" >&2
	exit 2
fi

# Packages with a fuzz target: a cheap grep over the test files first, so
# that only those packages' test binaries are built for -list.
candidates=$(go list -f '{{$d := .Dir}}{{range .TestGoFiles}}{{$d}}/{{.}} {{end}}{{range .XTestGoFiles}}{{$d}}/{{.}} {{end}}' $pkgs |
	tr ' ' '\n' | grep -v '^$' | xargs -r grep -l '^func Fuzz[A-Z_0-9]' | xargs -r -n1 dirname | sort -u)

targets=() # "package-dir target" pairs
for dir in $candidates; do
	rel=./${dir#"$PWD"/}
	while read -r name; do
		[[ $name =~ ^Fuzz ]] || continue
		if [ -n "$filter" ] && ! [[ $name =~ $filter ]]; then
			continue
		fi
		targets+=("$rel $name")
	done < <(go test -list '^Fuzz' "$rel")
done

if [ ${#targets[@]} -eq 0 ]; then
	echo "fuzz.sh: no fuzz target found in $pkgs${filter:+ matching $filter}" >&2
	exit 1
fi
if $list; then
	printf '%s\n' "${targets[@]}"
	exit 0
fi

echo "fuzz.sh: ${#targets[@]} targets, $fuzztime each (load: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown))"
failed=()
for t in "${targets[@]}"; do
	read -r pkg name <<<"$t"
	echo "=== $pkg $name"
	# -run '^$' skips the package's other tests; the seed corpus of the
	# target still runs first, as part of fuzzing.
	if ! go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" ${workers:+-parallel "$workers"} "$pkg"; then
		failed+=("$pkg $name")
	fi
done

echo
if [ ${#failed[@]} -gt 0 ]; then
	echo "fuzz.sh: ${#failed[@]} of ${#targets[@]} targets failed (inputs under PKG/testdata/fuzz/):"
	printf '  %s\n' "${failed[@]}"
	exit 1
fi
echo "fuzz.sh: all ${#targets[@]} targets passed"
