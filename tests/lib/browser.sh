# SPDX-License-Identifier: GPL-2.0-only
#
# Headless Chromium for the end-to-end cases (source after
# tests/lib/robot-test.sh).
#
#   chrome PAGE [chromium options...]
#       load the local file PAGE in headless Chromium (no sandbox: the
#       tests run as root; a profile of its own under $E2E_TMP/chrome);
#       the browser's log (console messages included) goes to stderr
#   browser_check PAGE
#       PAGE loads with no console message (an error, a failed load: the
#       robot's pages have no script and fetch nothing), its DOM into
#       $E2E_TMP/dom.html

chrome() {
	_page=$1
	shift
	command -v chromium >/dev/null ||
		fail "no chromium: scripts/install-deps test installs it"
	timeout 300 chromium --headless=new --no-sandbox --disable-gpu \
		--no-first-run --disable-extensions --disable-dev-shm-usage \
		--user-data-dir="$E2E_TMP/chrome" --enable-logging=stderr --v=0 \
		"$@" "file://$_page"
}

browser_check() {
	chrome "$1" --dump-dom >"$E2E_TMP/dom.html" 2>"$E2E_TMP/chrome-dom.log" ||
		fail "chromium --dump-dom $1: $(tail -n 5 "$E2E_TMP/chrome-dom.log")"
	if grep "CONSOLE" "$E2E_TMP/chrome-dom.log" >"$E2E_TMP/console"; then
		fail "console messages of $1: $(head -n 5 "$E2E_TMP/console")"
	fi
	grep -q '<svg class="chart"' "$E2E_TMP/dom.html" || fail "no chart in the DOM of $1"
}
