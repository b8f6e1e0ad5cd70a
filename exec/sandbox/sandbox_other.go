//go:build !linux

package sandbox

// Apply reports every layer as unavailable: the sandbox needs Linux.
func Apply(lim Limits, uid, gid int, skip ...string) []Layer {
	const why = "needs Linux"
	return []Layer{
		{Name: LayerRlimits, Detail: why},
		{Name: LayerUser, Detail: why},
		{Name: LayerLandlock, Detail: why},
		{Name: LayerSeccomp, Detail: why},
	}
}

// CloseInherited reports the layer as unavailable: it needs Linux.
func CloseInherited(keep ...int) Layer { return Layer{Name: LayerFDs, Detail: "needs Linux"} }

// OwnProc reports the layer as unavailable: it needs Linux.
func OwnProc() Layer { return Layer{Name: LayerPIDNS, Detail: "needs Linux"} }
