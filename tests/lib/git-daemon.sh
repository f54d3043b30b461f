# SPDX-License-Identifier: GPL-2.0-only
#
# A real `git daemon` on a free loopback port, for end-to-end tests
# (source this file). It serves every repository under a base folder over
# git:// (read-only: upload-pack).
#
#   git_daemon_start BASE
#       start it, logging to BASE.log; sets GIT_DAEMON_PID, GIT_DAEMON_PORT
#       and GIT_DAEMON_URL (git://127.0.0.1:PORT). Returns once the
#       daemon says it listens (bounded wait); a port taken meanwhile by
#       someone else is retried with another one.
#   git_daemon_stop
#       stop it by pid (safe to call twice, from a trap)

GIT_DAEMON_PID=

_git_daemon_free_port() {
	/usr/bin/python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

git_daemon_start() {
	_base=$(cd "$1" && pwd) || return 1
	for _try in 1 2 3 4 5; do
		GIT_DAEMON_PORT=$(_git_daemon_free_port) || return 1
		: >"$_base.log"
		git daemon --reuseaddr --verbose --export-all \
			--listen=127.0.0.1 --port="$GIT_DAEMON_PORT" \
			--base-path="$_base" --informative-errors "$_base" \
			</dev/null >>"$_base.log" 2>&1 &
		GIT_DAEMON_PID=$!
		_i=0
		while [ $_i -lt 200 ]; do
			kill -0 "$GIT_DAEMON_PID" 2>/dev/null || break
			if grep -q "Ready to rumble" "$_base.log" 2>/dev/null; then
				GIT_DAEMON_URL=git://127.0.0.1:$GIT_DAEMON_PORT
				export GIT_DAEMON_PID GIT_DAEMON_PORT GIT_DAEMON_URL
				return 0
			fi
			sleep 0.05
			_i=$((_i + 1))
		done
		git_daemon_stop
		grep -q "Address already in use" "$_base.log" || break
	done
	echo "git_daemon_start: the daemon did not start:" >&2
	cat "$_base.log" >&2
	return 1
}

git_daemon_stop() {
	[ -n "${GIT_DAEMON_PID:-}" ] || return 0
	kill "$GIT_DAEMON_PID" 2>/dev/null || true
	_i=0
	while kill -0 "$GIT_DAEMON_PID" 2>/dev/null && [ $_i -lt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	kill -9 "$GIT_DAEMON_PID" 2>/dev/null || true
	wait "$GIT_DAEMON_PID" 2>/dev/null || true
	GIT_DAEMON_PID=
	return 0
}
