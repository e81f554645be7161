#!/bin/sh
# Runs the HTML report's tests in headless Chromium (report/htmlreport/browsertest),
# installing Debian's chromium package first when no Chromium is on PATH.
# Without root or a package source the tests still run and skip with the reason.
# Usage: scripts/browser-test.sh [go test flags...]
set -eu
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "browser-test: chromium not on PATH; installing Debian's chromium package" >&2
		# A failed install is not a test failure: the tests skip and say why.
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium >&2 ||
			{ apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium >&2; } ||
			echo "browser-test: could not install chromium; the browser tests will skip" >&2
	else
		echo "browser-test: chromium not on PATH and cannot be installed here (need root and apt-get); the browser tests will skip" >&2
	fi
fi
exec go test "$@" ./report/htmlreport/browsertest/
