#!/bin/sh
# The whole test suite, as CI runs it. On a fresh machine with Go, node and
# npm it installs what the tests need first: the pinned MCP servers (into the
# git-ignored testenv/node_modules) and staticcheck (a pinned version).
#
# MCPFS_SYSTEM_PACKAGES=1 (CI sets it) also installs the Debian packages
# some tests use (postgresql, fuse3, chromium) when they are missing; without it,
# those tests run if the packages are there and skip, saying why, if not.
# The slow integration tests (npm servers, the real binary, the benchmark
# suite) run because this script sets MCPFS_INTEGRATION=1; a plain
# `go test ./...` leaves them out.
set -eu
cd "$(dirname "$0")"
export MCPFS_INTEGRATION=1
SYSTEM_PACKAGES=${MCPFS_SYSTEM_PACKAGES:-}
apt_install() {
	if [ -n "$SYSTEM_PACKAGES" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
		apt-get clean # the downloaded packages, no longer needed once installed
	else
		echo "not installing $* (set MCPFS_SYSTEM_PACKAGES=1 as root to install it); the tests that need it skip"
	fi
}

STATICCHECK_VERSION=v0.8.2

# Disk: from a cold start the suite writes about 3.5 GB (Go's build and
# module caches 1.6 GB, the npm packages 0.4 GB, test binaries and temp
# files up to 0.9 GB at once, the Debian packages when installed). The
# free space is printed first and again when the suite fails, so that a
# "no space left on device" is told apart from a failing test.
DISK_GOCACHE=$(go env GOCACHE)
DISK_GOMODCACHE=$(go env GOMODCACHE)
free_space() {
	for d in "$(pwd)" "${TMPDIR:-/tmp}" "$DISK_GOCACHE" "$DISK_GOMODCACHE"; do
		mkdir -p "$d" 2>/dev/null || true
		df -Pk "$d" 2>/dev/null | awk -v d="$d" 'NR == 2 {
			printf "  %s: %.1f GB free on %s%s\n", d, $4 / 1048576, $6, ($4 < 3670016 ? " (less than 3.5 GB)" : "") }'
	done
}
echo "== free disk space (the suite needs about 3.5 GB)"
space=$(free_space)
echo "$space"
case "$space" in *"less than"*)
	echo "warning: tests may fail with \"no space left on device\"; free space there, or point TMPDIR and GOCACHE at a larger disk" ;;
esac

PGTMP=
on_exit() {
	status=$?
	if [ -n "$PGTMP" ]; then
		as_pg "'$PGBIN/pg_ctl' -D '$PGTMP/data' -m fast stop >/dev/null 2>&1"  || true
		rm -rf "$PGTMP"
	fi
	if [ "$status" != 0 ]; then
		echo "== test.sh failed (exit $status); free disk space now:"
		free_space
	fi
	exit "$status"
}
trap on_exit EXIT
trap 'exit 130' INT TERM

echo "== installing pinned test servers (testenv/)"
if [ ! -d testenv/node_modules/@modelcontextprotocol/server-everything ] ||
   [ testenv/package-lock.json -nt testenv/node_modules/.package-lock.json ]; then
	# npm's download cache goes to a temp dir removed right after: the
	# packages are installed once per checkout, and the cache would double
	# their size on disk.
	NPMCACHE=$(mktemp -d /tmp/mcpfs-npm.XXXXXX)
	npm ci --prefix testenv --no-audit --no-fund --loglevel=error --cache "$NPMCACHE"
	rm -rf "$NPMCACHE"
fi

echo "== PostgreSQL for the data-analyst example (examples/analyst)"
# Debian's postgresql, installed when missing (CI runs as root on a fresh
# Debian machine), started on a unix socket in a temp dir with a loopback
# port, loaded with the example's 10,000-row table (examples/analyst/orders.sql),
# and stopped on exit.
# The tests read the connection URL from MCPFS_TEST_POSTGRES_URL; without
# PostgreSQL they skip that example and say why.
pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }
if [ -z "$(pg_bin)" ]; then
	apt_install postgresql
fi
PGBIN=$(pg_bin)
if [ -n "$PGBIN" ]; then
	PGTMP=$(mktemp -d /tmp/mcpfs-pg.XXXXXX)
	PGPORT=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close() })' 2>/dev/null || echo 55432)
	if [ "$(id -u)" = 0 ]; then
		chown postgres "$PGTMP"
		as_pg() { su postgres -s /bin/sh -c "$*"; }
	else
		as_pg() { sh -c "$*"; }
	fi
	as_pg "'$PGBIN/initdb' -D '$PGTMP/data' -U postgres --auth=trust -E UTF8 >'$PGTMP/initdb.log' 2>&1"
	as_pg "'$PGBIN/pg_ctl' -D '$PGTMP/data' -l '$PGTMP/server.log' -w -o \"-c listen_addresses=127.0.0.1 -p $PGPORT -k '$PGTMP'\" start >/dev/null"
	"$PGBIN/psql" -q -h 127.0.0.1 -p "$PGPORT" -U postgres -d postgres -v ON_ERROR_STOP=1 -f examples/analyst/orders.sql
	export MCPFS_TEST_POSTGRES_URL="postgresql://postgres@127.0.0.1:$PGPORT/postgres"
	echo "PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PGPORT"
else
	echo "PostgreSQL is not installed and cannot be installed here; the data-analyst example will skip"
fi

echo "== fuse3 (fusermount3, for the unprivileged mount test)"
# As root mcpfs mounts directly; other users mount through fusermount3.
# The fs/fuse tests mount once as nobody through it; without it that test
# skips and says why.
if ! command -v fusermount3 >/dev/null; then
	apt_install fuse3
fi

echo "== Chromium (the browser test of mcpfs ui)"
# The page's test drives Debian's chromium; without it that test skips and
# says why.
if ! command -v chromium >/dev/null; then
	apt_install chromium
fi

echo "== installing staticcheck $STATICCHECK_VERSION"
GOBIN="$(pwd)/.bin" go install "honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION"

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './testenv/*'))
if [ -n "$unformatted" ]; then
	echo "gofmt needed on:"; echo "$unformatted"; exit 1
fi

echo "== go vet"
go vet ./...

echo "== staticcheck"
./.bin/staticcheck ./...

echo "== go test (race)"
go test -race -count=1 -timeout 20m ./...

echo "== go test (no race): interpreted goroutine programs"
# yaegi's own goroutine closures race, so exec/check interprets the
# programs that start goroutines only without -race.
go test -count=1 -run TestPrograms ./exec/check

echo "== go test (no race): the snippet corpus against go run"
# Each corpus program runs in a worker; a worker built with -race does not
# fit its memory limits, so TestCorpus skips under -race and runs here.
go test -count=1 -run 'TestCorpus|TestGoModVersion' ./exec

echo "== go test: the interpreter fork's copies of Go's type layouts (its own module)"
(cd cmd/internal/thirdparty/yaegi && go test -count=1 ./internal/unsafe2)

echo "== go test (CGO_ENABLED=0): the worker's PID namespace and the escape corpus in a pure Go build"
# A cgo build confines threads through libpsx, a pure Go one through the
# runtime; both must reach the PID namespace (the suite above is cgo).
CGO_ENABLED=0 go test -count=1 -run 'TestPIDNamespace|TestEscapes$|TestStrict' ./exec

echo "== go test (no race): 1,000 snippet runs leak nothing"
MCPFS_LEAK_RUNS=1000 go test -count=1 -run TestNoLeaks -v ./exec

