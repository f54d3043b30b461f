# SPDX-License-Identifier: GPL-2.0-only
#
# A real SMTP server on loopback for end-to-end tests (source this file).
# It runs tests/lib/smtp-sink.py on Debian's /usr/bin/python3 (aiosmtpd).
#
#   smtp_sink_start DIR [--starttls | --smtps] [--auth USER PASSWORD]
#       Start a sink keeping its files under DIR: received mails in
#       DIR/spool/NNNN.eml (+ NNNN.json: mail_from, rcpt_tos, tls, login).
#       --starttls / --smtps make a self-signed certificate for 127.0.0.1
#       with openssl (DIR/cert.pem, the CA to trust). Sets SMTP_SINK_PORT,
#       SMTP_SINK_PID, SMTP_SINK_SPOOL, SMTP_SINK_CERT and SMTP_SINK_URL
#       (smtp://127.0.0.1:PORT or smtps://...). Returns once the server
#       accepts connections. A port taken meanwhile by someone else is
#       retried with another one.
#   smtp_sink_count     the number of mails received so far
#   smtp_sink_wait N    wait (bounded) until N mails were received
#   smtp_sink_stop      stop it by pid (safe to call twice, from a trap)
#
# $TOP is the checkout (tests/e2e/run-all exports it). Free ports come
# from binding port 0 and letting the kernel choose.

SMTP_SINK_PY=${SMTP_SINK_PY:-/usr/bin/python3}
SMTP_SINK_PID=

smtp_sink_free_port() {
	"$SMTP_SINK_PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

smtp_sink_start() {
	_dir=$1
	shift
	_tls= _user= _pass=
	while [ $# -gt 0 ]; do
		case $1 in
		--starttls | --smtps) _tls=$1 ;;
		--auth) _user=$2 _pass=$3; shift 2 ;;
		*) echo "smtp_sink_start: unknown option $1" >&2; return 1 ;;
		esac
		shift
	done
	mkdir -p "$_dir/spool" || return 1
	SMTP_SINK_SPOOL=$_dir/spool
	SMTP_SINK_CERT=
	set --
	if [ -n "$_tls" ]; then
		openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
			-nodes -keyout "$_dir/key.pem" -out "$_dir/cert.pem" \
			-days 2 -subj /CN=127.0.0.1 \
			-addext subjectAltName=IP:127.0.0.1 \
			>"$_dir/openssl.log" 2>&1 || {
			cat "$_dir/openssl.log" >&2
			return 1
		}
		SMTP_SINK_CERT=$_dir/cert.pem
		set -- "$_tls" "$_dir/cert.pem" "$_dir/key.pem"
	fi
	if [ -n "$_user" ]; then
		(umask 077 && printf '%s\n' "$_pass" >"$_dir/sink-password")
		set -- "$@" --auth "$_user" "$_dir/sink-password"
	fi
	for _try in 1 2 3 4 5; do
		SMTP_SINK_PORT=$(smtp_sink_free_port) || return 1
		rm -f "$_dir/ready"
		"$SMTP_SINK_PY" -u "${TOP:?}/tests/lib/smtp-sink.py" \
			--port "$SMTP_SINK_PORT" --spool "$SMTP_SINK_SPOOL" \
			--ready "$_dir/ready" "$@" >>"$_dir/sink.log" 2>&1 &
		SMTP_SINK_PID=$!
		# bounded wait for the ready file, or for the server to die
		_i=0
		while [ $_i -lt 300 ]; do
			[ -f "$_dir/ready" ] && break
			kill -0 "$SMTP_SINK_PID" 2>/dev/null || break
			sleep 0.1
			_i=$((_i + 1))
		done
		if [ -f "$_dir/ready" ]; then
			if [ "$_tls" = --smtps ]; then
				SMTP_SINK_URL=smtps://127.0.0.1:$SMTP_SINK_PORT
			else
				SMTP_SINK_URL=smtp://127.0.0.1:$SMTP_SINK_PORT
			fi
			export SMTP_SINK_PORT SMTP_SINK_PID SMTP_SINK_SPOOL \
				SMTP_SINK_CERT SMTP_SINK_URL
			return 0
		fi
		smtp_sink_stop
		# the port was taken between our pick and its bind: try another
		grep -q "Address already in use" "$_dir/sink.log" 2>/dev/null ||
			break
	done
	echo "smtp_sink_start: the sink did not start:" >&2
	cat "$_dir/sink.log" >&2
	return 1
}

smtp_sink_count() {
	find "$SMTP_SINK_SPOOL" -name '*.eml' | wc -l
}

smtp_sink_wait() {
	_i=0
	while [ "$(smtp_sink_count)" -lt "$1" ] && [ $_i -lt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	[ "$(smtp_sink_count)" -ge "$1" ]
}

smtp_sink_stop() {
	# safe under set -e and from an EXIT trap: every step may fail
	[ -n "${SMTP_SINK_PID:-}" ] || return 0
	kill "$SMTP_SINK_PID" 2>/dev/null || true
	_i=0
	while kill -0 "$SMTP_SINK_PID" 2>/dev/null && [ $_i -lt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	kill -9 "$SMTP_SINK_PID" 2>/dev/null || true
	wait "$SMTP_SINK_PID" 2>/dev/null || true
	SMTP_SINK_PID=
	return 0
}
