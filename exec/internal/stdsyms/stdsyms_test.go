package stdsyms

import (
	"maps"
	"path"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/traefik/yaegi/stdlib"

	"github.com/mcpfs/mcpfs/exec/check"
)

// TestSameAsYaegi checks that the tables are yaegi's own, for every
// package a snippet may import: regenerate (go generate) when yaegi or
// the allowlist changes.
func TestSameAsYaegi(t *testing.T) {
	got := Exports()
	allow := map[string]bool{}
	for _, p := range check.Allowable() {
		allow[p] = true
	}
	for k, want := range stdlib.Symbols {
		if k == "." || !allow[path.Dir(k)] {
			continue
		}
		g, ok := got[k]
		if !ok {
			t.Errorf("%s: missing (run go generate ./exec/internal/stdsyms)", k)
			continue
		}
		if gk, wk := slices.Sorted(maps.Keys(g)), slices.Sorted(maps.Keys(want)); !slices.Equal(gk, wk) {
			t.Errorf("%s: symbols %v, want %v", k, gk, wk)
		}
		for name, v := range want {
			// The interface wrappers are types of each package.
			if gt := strings.ReplaceAll(g[name].Type().String(), "stdsyms.", "stdlib."); gt != v.Type().String() {
				t.Errorf("%s.%s: type %v, want %v", k, name, g[name].Type(), v.Type())
			}
		}
	}
	for k := range got {
		if k != "." && !allow[path.Dir(k)] {
			t.Errorf("%s: not an allowable package", k)
		}
	}
	mt, ok := got["."]["MapTypes"]
	if !ok {
		t.Fatal(`no "." MapTypes entry`)
	}
	if n := len(mt.Interface().(map[reflect.Value][]reflect.Type)); n == 0 || n != len(MapTypes) {
		t.Errorf("MapTypes: %d entries in the export, %d in the table", n, len(MapTypes))
	}
	for fn, types := range MapTypes {
		if want := stdlib.MapTypes[fn]; !slices.Equal(types, want) {
			t.Errorf("MapTypes of %v: %v, want %v", fn, types, want)
		}
	}
}
