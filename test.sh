#!/bin/sh
# The whole test suite, as CI runs it. On a fresh machine with Go, node and
# npm it installs what the tests need first: the pinned MCP servers (into the
# git-ignored testenv/node_modules) and staticcheck (a pinned version).
set -eu
cd "$(dirname "$0")"

STATICCHECK_VERSION=v0.8.2

echo "== installing pinned test servers (testenv/)"
if [ ! -d testenv/node_modules/@modelcontextprotocol/server-everything ] ||
   [ testenv/package-lock.json -nt testenv/node_modules/.package-lock.json ]; then
	npm ci --prefix testenv --no-audit --no-fund --loglevel=error
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
