package exec

import "fmt"

// ExitError is the end of a run whose snippet called mcp.Exit with a
// code other than 0 (mcp.Exit(0) ends a run without an error). What the
// snippet printed before is in the Result as usual.
type ExitError struct {
	Code int // the snippet's exit status, 1 to 125
}

func (e *ExitError) Error() string {
	return fmt.Sprintf("the snippet exited with status %d (mcp.Exit)", e.Code)
}
