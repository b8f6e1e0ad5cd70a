module github.com/mcpfs/mcpfs

go 1.26.8

require (
	github.com/chromedp/chromedp v0.23.0
	github.com/dgraph-io/badger/v4 v4.9.6
	github.com/dgraph-io/ristretto/v2 v2.2.0
	github.com/elastic/go-seccomp-bpf v1.6.0
	github.com/hanwen/go-fuse/v2 v2.12.1
	github.com/landlock-lsm/go-landlock v0.11.2
	github.com/mark3labs/mcp-go v1.2.1
	github.com/rogpeppe/go-internal v1.16.0
	github.com/spf13/cobra v1.10.2
	github.com/tiktoken-go/tokenizer v0.10.0
	github.com/traefik/yaegi v0.16.1
	golang.org/x/sys v0.49.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/chromedp/cdproto v0.159.0 // indirect
	github.com/dlclark/regexp2/v2 v2.5.1 // indirect
	github.com/dustin/go-humanize v1.0.1 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/go-logr/logr v1.4.3 // indirect
	github.com/go-logr/stdr v1.2.2 // indirect
	github.com/google/flatbuffers v25.2.10+incompatible // indirect
	github.com/google/jsonschema-go v0.4.2 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/klauspost/compress v1.18.0 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2 // indirect
	github.com/spf13/cast v1.7.1 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	go.opentelemetry.io/auto/sdk v1.2.1 // indirect
	go.opentelemetry.io/otel v1.41.0 // indirect
	go.opentelemetry.io/otel/metric v1.41.0 // indirect
	go.opentelemetry.io/otel/trace v1.41.0 // indirect
	golang.org/x/net v0.41.0 // indirect
	golang.org/x/text v0.26.0 // indirect
	golang.org/x/tools v0.33.0 // indirect
	google.golang.org/protobuf v1.36.7 // indirect
	kernel.org/pub/linux/libs/security/libcap/psx v1.2.78 // indirect
)

// The metaschemas compile when first used, not at every process start:
// see cmd/internal/thirdparty/README.md.
replace github.com/santhosh-tekuri/jsonschema/v6 => ./cmd/internal/thirdparty/jsonschema

// Badger returns a full disk met while writing as an error instead of
// ending the process: see cmd/internal/thirdparty/README.md.
replace github.com/dgraph-io/badger/v4 => ./cmd/internal/thirdparty/badger

// Badger's mapped files get real blocks when made or grown, so that a full
// disk is an error, not a SIGBUS: see cmd/internal/thirdparty/README.md.
replace github.com/dgraph-io/ristretto/v2 => ./cmd/internal/thirdparty/ristretto

// A run-time panic is located at the expression that panicked, not at
// the function's first line: see cmd/internal/thirdparty/README.md.
replace github.com/traefik/yaegi => ./cmd/internal/thirdparty/yaegi
