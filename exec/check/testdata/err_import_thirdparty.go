package main

import "github.com/traefik/yaegi/interp"

func main() { _ = interp.New }

// Error:
// snippet.go:3:8: import "github.com/traefik/yaegi/interp" is not allowed in snippets
