# SPDX-License-Identifier: GPL-2.0-only
#
# Helpers for the `robot bisect` end-to-end cases on the toy kernel
# (source after tests/lib/robot-test.sh and tests/lib/toy-kernel.sh).
#
#   METRIC                 the metric the toy cases bisect on: bogo ops per
#                          second of real time, set by the toy machine's
#                          mapping hardware (scripts/toy-kernel --cost),
#                          steady on a busy machine
#   bisect_toy LAB JSON [args...]
#                          robot bisect on jobs/stress-ng-toy.yaml from
#                          TOY_GOOD to TOY_BAD; stdout to out, stderr to err;
#                          sets RC
#   json_get JSON EXPR     print a field of the result (a python expression
#                          over `r`)
#   check_counts JSON WORKDIR
#                          the JSON's runs/builds/boots are what the store
#                          and the toy hooks' own logs counted
#   check_boot_reuse JSON WORKDIR
#                          a host booted only to change kernels: a run
#                          after a good run of the same commit on the same
#                          host used that run's boot (how many runs a step
#                          takes is the statistics' business, so this is
#                          not a ratio of boots to runs)

METRIC=stress-ng.mmapaddr.ops_per_sec

bisect_toy() {
	_lab=$1
	_json=$2
	shift 2
	set +e
	"$ROBOT" bisect --lab "$_lab" --job "$TOP/jobs/stress-ng-toy.yaml" \
		--good "$TOY_GOOD" --bad "$TOY_BAD" --metric "$METRIC" \
		--json "$_json" "$@" >out 2>err
	RC=$?
	set -e
}

json_get() {
	/usr/bin/python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
v = eval(sys.argv[2])
print(v if not isinstance(v, (dict, list)) else json.dumps(v))' "$1" "$2"
}

check_counts() {
	_id=$(json_get "$1" 'r["id"]')
	_db=$2/robot.db
	for _k in runs builds boots; do
		_j=$(json_get "$1" "r[\"$_k\"]")
		_s=$(sql "$_db" "select count(*) from $_k where bisection_id=$_id${3:+ $3}")
		[ "$_k" = boots ] &&
			_s=$(sql "$_db" "select count(*) from boots where bisection_id=$_id and log != ''")
		[ "$_j" = "$_s" ] || fail "$_k: json $_j, store $_s"
	done
	# the toy hooks log every real execution
	[ "$(wc -l <"$2/toy/builds.log")" -ge "$(json_get "$1" 'r["builds"]')" ] ||
		fail "fewer builds executed than counted"
}

check_boot_reuse() {
	_id=$(json_get "$1" 'r["id"]')
	_db=$2/robot.db
	_n=$(sql "$_db" "select count(*) from runs r join runs p on p.id =
		(select max(q.id) from runs q where q.host = r.host and
		 q.bisection_id = r.bisection_id and q.id < r.id)
		where r.bisection_id = $_id and p.commit_sha = r.commit_sha and
		p.status = 'ok' and r.boot_id != p.boot_id and
		(select log from boots where id = r.boot_id) != ''")
	[ "$_n" = 0 ] || fail "$_n runs booted their kernel again after a good run of it"
	# and there was something to reuse: a commit ran twice in a row
	_r=$(sql "$_db" "select count(*) from runs r join runs p on p.id =
		(select max(q.id) from runs q where q.host = r.host and
		 q.bisection_id = r.bisection_id and q.id < r.id)
		where r.bisection_id = $_id and p.commit_sha = r.commit_sha and
		r.boot_id = p.boot_id")
	[ "$_r" -gt 0 ] || fail "no run shared a boot with the run before it"
}
