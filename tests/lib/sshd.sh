# SPDX-License-Identifier: GPL-2.0-only
#
# A real sshd on a free loopback port, for end-to-end tests. Source it:
#
#   . "$TOP/tests/lib/sshd.sh"
#   trap sshd_stop EXIT
#   sshd_start "$E2E_TMP/sshd" box1     # DIR, Host alias
#   ssh -F "$SSHD_CONFIG" box1 true
#   sshd_stop                           # the box goes away
#   sshd_restart                        # and comes back (same port, keys)
#
# sshd_start writes into DIR: a host key and a client key of their own,
# authorized_keys, sshd_config (key auth only, StrictModes no, the sftp
# subsystem internal-sftp), known_hosts pinning the host key to the alias,
# and ssh_config with a `Host ALIAS` entry. It sets:
#   SSHD_PORT    the port sshd listens on (127.0.0.1)
#   SSHD_PID     sshd's pid (it runs in the foreground, -D, as our child)
#   SSHD_CONFIG  the client ssh_config (pass it as ssh -F, or as a lab's
#                ssh_config)
#   SSHD_DIR     DIR
#   SSHD_LOG     sshd's log
#
# As root, sshd runs under `unshare -m` with an empty file bind-mounted
# over /root/.bashrc: root's .bashrc on the test machine starts pyenv,
# which costs seconds per ssh command. The host is left untouched.
#
# Both work under `set -e`.
#
# sshd_stop ends sshd and every process under it (its per-connection
# children, so that multiplexed ssh masters lose their connection too),
# each by pid, and waits for sshd. Calling it twice is harmless.

SSHD_PID=
SSHD_PORT=
SSHD_CONFIG=
SSHD_DIR=
SSHD_LOG=

_sshd_free_port() {
	/usr/bin/python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# The pids under $1, deepest first (a subshell: recursion keeps its _c).
_sshd_descendants() (
	for _c in $(ps -o pid= --ppid "$1" 2>/dev/null || true); do
		_sshd_descendants "$_c"
		echo "$_c"
	done
)

_sshd_wait_listening() {
	_i=0
	while [ "$_i" -lt 200 ]; do
		if ! kill -0 "$SSHD_PID" 2>/dev/null; then
			return 1
		fi
		if grep -q "Server listening on 127.0.0.1 port $SSHD_PORT" \
			"$SSHD_LOG" 2>/dev/null &&
			nc -z 127.0.0.1 "$SSHD_PORT" 2>/dev/null; then
			return 0
		fi
		sleep 0.05
		_i=$((_i + 1))
	done
	return 1
}

_sshd_launch() {
	: >"$SSHD_LOG"
	if [ "$(id -u)" = 0 ] && [ -e /root/.bashrc ]; then
		unshare -m --propagation private sh -c \
			'mount --bind "$1" /root/.bashrc && exec "$2" -D -f "$3" -E "$4"' \
			sh "$SSHD_DIR/empty" /usr/sbin/sshd \
			"$SSHD_DIR/sshd_config" "$SSHD_LOG" \
			</dev/null >"$SSHD_DIR/sshd.out" 2>&1 &
	else
		/usr/sbin/sshd -D -f "$SSHD_DIR/sshd_config" \
			-E "$SSHD_LOG" </dev/null >"$SSHD_DIR/sshd.out" 2>&1 &
	fi
	SSHD_PID=$!
}

# Start a stopped sshd again on the same port with the same keys (a test
# box coming back after a crash). Fails if the port was taken meanwhile.
sshd_restart() {
	[ -z "$SSHD_PID" ] || return 0
	_sshd_launch
	_sshd_wait_listening
}

sshd_start() {
	SSHD_DIR=$1
	_alias=${2:-box1}
	_user=$(id -un)
	mkdir -p "$SSHD_DIR"
	rm -f "$SSHD_DIR/hostkey" "$SSHD_DIR/hostkey.pub" \
		"$SSHD_DIR/client_key" "$SSHD_DIR/client_key.pub"
	ssh-keygen -q -t ed25519 -N '' -C robot-test-host \
		-f "$SSHD_DIR/hostkey" || return 1
	ssh-keygen -q -t ed25519 -N '' -C robot-test-client \
		-f "$SSHD_DIR/client_key" || return 1
	cp "$SSHD_DIR/client_key.pub" "$SSHD_DIR/authorized_keys"
	echo "$_alias $(cut -d' ' -f1,2 "$SSHD_DIR/hostkey.pub")" \
		>"$SSHD_DIR/known_hosts"
	: >"$SSHD_DIR/empty"
	# privilege separation folder of Debian's sshd
	if [ "$(id -u)" = 0 ]; then
		mkdir -p /run/sshd
	fi
	SSHD_LOG=$SSHD_DIR/sshd.log
	# a port picked free may be taken before sshd binds it: retry
	for _try in 1 2 3 4 5; do
		SSHD_PORT=$(_sshd_free_port) || return 1
		cat >"$SSHD_DIR/sshd_config" <<EOF
Port $SSHD_PORT
ListenAddress 127.0.0.1
HostKey $SSHD_DIR/hostkey
PidFile $SSHD_DIR/sshd.pid
AuthorizedKeysFile $SSHD_DIR/authorized_keys
StrictModes no
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
PrintMotd no
PermitUserEnvironment no
MaxStartups 64
Subsystem sftp internal-sftp
LogLevel INFO
EOF
		/usr/sbin/sshd -t -f "$SSHD_DIR/sshd_config" || return 1
		_sshd_launch
		if _sshd_wait_listening; then
			break
		fi
		# the port is someone else's: do not wait for it to close
		SSHD_PORT=
		sshd_stop
	done
	if [ -z "$SSHD_PORT" ]; then
		echo "sshd_start: sshd did not start; its log:" >&2
		cat "$SSHD_LOG" "$SSHD_DIR/sshd.out" >&2
		return 1
	fi
	SSHD_CONFIG=$SSHD_DIR/ssh_config
	cat >"$SSHD_CONFIG" <<EOF
Host $_alias
	HostName 127.0.0.1
	Port $SSHD_PORT
	User $_user
	IdentityFile $SSHD_DIR/client_key
	IdentitiesOnly yes
	HostKeyAlias $_alias
	UserKnownHostsFile $SSHD_DIR/known_hosts
	GlobalKnownHostsFile /dev/null
	StrictHostKeyChecking yes
	PasswordAuthentication no
	KexAlgorithms curve25519-sha256
	LogLevel ERROR
EOF
}

# Whether pid $1 still runs (a zombie has ended: it holds no socket).
_sshd_running() {
	_st=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
	case "$_st" in
	'' | Z*) return 1 ;;
	esac
	return 0
}

sshd_stop() {
	[ -n "$SSHD_PID" ] || return 0
	_pids=$(_sshd_descendants "$SSHD_PID")
	for _p in $_pids $SSHD_PID; do
		kill "$_p" 2>/dev/null || true
	done
	wait "$SSHD_PID" 2>/dev/null || true
	# a session child that outlived SIGTERM
	for _p in $_pids; do
		kill -KILL "$_p" 2>/dev/null || true
	done
	# The caller may not be sshd's parent (a unit test stops it from a
	# shell of its own), so wait returned at once: the box is gone only
	# once sshd and its children have ended and the port refuses. Until
	# then a client could still reach a listener whose SIGTERM is pending
	# on a loaded machine. Bounded: KILL after 10 s.
	_i=0
	while :; do
		_left=
		for _p in $_pids $SSHD_PID; do
			_sshd_running "$_p" && _left="$_left $_p"
		done
		if [ -z "$_left" ] && { [ -z "$SSHD_PORT" ] ||
			! nc -z 127.0.0.1 "$SSHD_PORT" 2>/dev/null; }; then
			break
		fi
		_i=$((_i + 1))
		if [ "$_i" -eq 200 ]; then
			for _p in $_left; do
				kill -KILL "$_p" 2>/dev/null || true
			done
		fi
		if [ "$_i" -ge 400 ]; then
			echo "sshd_stop: still up after 20 s:$_left" >&2
			break
		fi
		sleep 0.05
	done
	SSHD_PID=
	return 0
}
