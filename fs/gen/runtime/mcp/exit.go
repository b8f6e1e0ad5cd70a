package mcp

import "fmt"

// Exit ends the snippet at once with the exit status code, as os.Exit
// ends a program: deferred functions do not run, and what the snippet
// printed before stays. `mcpfs run` exits with code and prints nothing
// more; the exec tool of `mcpfs serve` reports it. code is 0 to 125;
// 1 to 8 mean what they mean for `mcpfs run` (its README's table), so
// pick 9 and above for a snippet's own outcomes:
//
//	if len(open) > 0 {
//		fmt.Println(len(open), "open issues")
//		mcp.Exit(10)
//	}
func Exit(code int) {
	if code < 0 || code > 125 {
		panic(fmt.Sprintf("mcp.Exit(%d): the exit code must be 0 to 125", code))
	}
	if Exiter == nil {
		panic(fmt.Sprintf("mcp.Exit(%d): %v", code, ErrNoEngine))
	}
	Exiter(code)
	select {} // Exiter does not return
}

// Exiter ends the run with an exit status and does not return. The engine
// that runs a snippet sets it.
var Exiter func(code int)
