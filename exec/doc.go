// Package exec owns running agent-written Go snippets: it type-checks a
// `package main` snippet against the tree's generated packages and saved
// skills, rewrites the modern Go the interpreter does not understand, and
// runs it in a sandboxed worker process (yaegi) whose tool calls travel back
// to the discovery layer over a pipe.
//
// It reads packages from an fs.Tree and calls tools through discovery; it
// must not import cmd.
package exec
