package mcp

// Ptr returns a pointer to v, for any optional argument:
// Args{Head: mcp.Ptr(10), Mode: mcp.Ptr("fast")}. An untyped constant
// takes its default type: for a *float64 field write mcp.Ptr(10.0).
func Ptr[T any](v T) *T { return &v }

// String returns a pointer to v, for optional string arguments:
// Args{Mode: mcp.String("fast")}.
func String(v string) *string { return &v }

// Int returns a pointer to v, for optional integer arguments:
// Args{Head: mcp.Int(10)}.
func Int(v int) *int { return &v }

// Float returns a pointer to v, for optional number arguments.
func Float(v float64) *float64 { return &v }

// Bool returns a pointer to v, for optional boolean arguments.
func Bool(v bool) *bool { return &v }
