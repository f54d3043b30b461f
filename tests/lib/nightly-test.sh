# SPDX-License-Identifier: GPL-2.0-only
#
# Helpers for the `robot nightly` end-to-end cases (source after
# tests/lib/robot-test.sh, toy-kernel.sh, bisect-test.sh and
# smtp-sink.sh).
#
#   nightly_lab OUT URL TREE WORKDIR
#       a toy lab (one host) tracking URL's master into TREE, mailing to
#       the SMTP sink (auto_send), with a nightly: section running the
#       toy job on METRIC
#   nightly_once [args...]
#       robot nightly --lab lab.yaml --once; stdout to out, stderr to err,
#       both also appended to all.out / all.err; sets RC
#   field OUT EXPR
#       a python expression over the JSON file OUT (`r`)

nightly_lab() {
	toy_lab "$1" 1 "$3" "$4"
	sed -i '/^mail:/,$d' "$1"
	sed -i "s|^  branch: master|  branch: master\n  url: $2|" "$1"
	cat >>"$1" <<EOF2
mail:
  from: "kernel test robot <robot@lab.example.org>"
  to: [ "perf-reports@lists.example.org" ]
  smtp: ${SMTP_SINK_URL:?}
  auto_send: true
  archive_url: https://lab.example.org/archive
nightly:
  jobs:
    - job: $TOP/jobs/stress-ng-toy.yaml
      metric: $METRIC
  threshold: 10%
  min_runs: 3
  max_runs: 8
EOF2
}

nightly_once() {
	set +e
	"$ROBOT" nightly --lab lab.yaml --once "$@" >out 2>err
	RC=$?
	set -e
	cat out >>all.out
	cat err >>all.err
}

field() {
	/usr/bin/python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
v = eval(sys.argv[2])
print(v if not isinstance(v, (dict, list)) else json.dumps(v))' "$1" "$2"
}
