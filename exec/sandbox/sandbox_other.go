//go:build !linux

package sandbox

// Apply reports every layer as unavailable: the sandbox needs Linux.
func Apply(lim Limits) []Layer {
	const why = "needs Linux"
	return []Layer{
		{Name: LayerRlimits, Detail: why},
		{Name: LayerLandlock, Detail: why},
		{Name: LayerSeccomp, Detail: why},
	}
}
