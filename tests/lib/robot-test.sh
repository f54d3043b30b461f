# SPDX-License-Identifier: GPL-2.0-only
#
# Shell helpers for end-to-end tests (POSIX sh; source it).
#
#   fail MSG...            print and exit 1
#   make_tree DIR N        a git repository with N linear commits, each
#                          changing file.c; prints nothing
#   short_workdir          a short temp dir for a workdir (ssh control
#                          sockets live under it); remove it yourself
#   sql DB QUERY           sqlite3 in batch mode; waits up to 60 s for a
#                          robot that holds the database (busy timeout)
#                          rather than failing with "database is locked"
#   sql_num DB QUERY       the same for a query whose answer is one
#                          non-negative integer: prints it, or says what
#                          came back and returns 1 (so that arithmetic on
#                          it never meets an empty string)
#   is_num VALUE           VALUE is a non-negative integer

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

make_tree() {
	_d=$1
	_n=$2
	git init -q -b master "$_d" || return 1
	_i=1
	while [ "$_i" -le "$_n" ]; do
		echo "int commit_$_i;" >>"$_d/file.c"
		git -C "$_d" add file.c
		GIT_AUTHOR_DATE="2026-01-01T00:00:$(printf %02d "$_i")Z" \
		GIT_COMMITTER_DATE="2026-01-01T00:00:$(printf %02d "$_i")Z" \
			git -C "$_d" -c user.name=Dev -c user.email=dev@example.org \
			commit -q -m "commit $_i" || return 1
		_i=$((_i + 1))
	done
}

short_workdir() {
	mktemp -d /tmp/rbw.XXXXXX
}

sql() {
	sqlite3 -batch -noheader -cmd '.timeout 60000' "$1" "$2"
}

is_num() {
	case "$1" in
	'' | *[!0-9]*) return 1 ;;
	esac
	return 0
}

sql_num() {
	_v=$(sql "$1" "$2") || {
		echo "sql_num: '$2' on '$1' failed" >&2
		return 1
	}
	is_num "$_v" || {
		echo "sql_num: '$2' on '$1' gave '$_v', not a number" >&2
		return 1
	}
	echo "$_v"
}
