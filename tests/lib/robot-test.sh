# SPDX-License-Identifier: GPL-2.0-only
#
# Shell helpers for end-to-end tests (POSIX sh; source it).
#
#   fail MSG...            print and exit 1
#   make_tree DIR N        a git repository with N linear commits, each
#                          changing file.c; prints nothing
#   short_workdir          a short temp dir for a workdir (ssh control
#                          sockets live under it); remove it yourself
#   sql DB QUERY           sqlite3 in batch mode

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
	sqlite3 -batch -noheader "$1" "$2"
}
