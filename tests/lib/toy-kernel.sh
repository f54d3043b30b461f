# SPDX-License-Identifier: GPL-2.0-only
#
# Shell helpers for tests on the toy kernel harness (POSIX sh; source it).
# TOP is the robot checkout (tests/e2e/run-all exports it).
#
#   toy_generate INFO DIR [scripts/toy-kernel options]
#       create the toy repository DIR, write its facts to INFO and source
#       them (TOY_GOOD, TOY_BAD, TOY_CULPRIT, TOY_UNBUILDABLE, ...)
#   toy_lab OUT NHOSTS TREE WORKDIR
#       write a lab file from tests/data/toy/lab.yaml with hosts box1..boxN
#   toy_ops_per_sec YAML
#       print the bogo ops/s (real time) of a stress-ng --yaml file
#   toy_stress TESTTIME YAML
#       run scripts/toy/stress-ng (ROBOT_HOST etc. from the caller) with the
#       lkp command line the robot builds for jobs/stress-ng-toy.yaml

: "${TOP:?TOP must name the robot checkout}"

toy_generate() {
	_info=$1
	_dir=$2
	shift 2
	"$TOP/scripts/toy-kernel" --info "$_info" "$@" "$_dir" || return 1
	case "$_info" in
	*/*) . "$_info" ;;
	*) . "./$_info" ;;
	esac
}

toy_lab() {
	awk -v top="$TOP" -v tree="$3" -v workdir="$4" -v nhosts="$2" '
	function subst(s, from, to,    i) {
		while ((i = index(s, from)) > 0)
			s = substr(s, 1, i - 1) to substr(s, i + length(from))
		return s
	}
	!/^#/ {
		$0 = subst($0, "@TOP@", top)
		$0 = subst($0, "@TREE@", tree)
		$0 = subst($0, "@WORKDIR@", workdir)
	}
	/^hosts:/ { inhosts = 1; print; next }
	inhosts && /^[^ #]/ { inhosts = 0 }
	inhosts && /^  - name: / {
		k++
		skip = k > nhosts
	}
	inhosts && skip { next }
	{ print }
	' "$TOP/tests/data/toy/lab.yaml" >"$1"
}

toy_ops_per_sec() {
	awk '$1 == "bogo-ops-per-second-real-time:" { print $2; n++ }
		END { exit n != 1 }' "$1"
}

toy_stress() {
	"$TOP/scripts/toy/stress-ng" --timeout "$1" --times --verify --metrics \
		--no-rand-seed --mmapaddr 1 --yaml "$2"
}
