package mcp

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
