// The examples are snippets and skills for an mcpfs tree (module mcpfs),
// not part of this repository's module: this file keeps go build, go vet
// and staticcheck of the repository away from them. They are run against
// real servers by cmd/mcpfs's TestExamples.
module github.com/mcpfs/mcpfs/examples

go 1.21
