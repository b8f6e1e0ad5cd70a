package shim

import (
	"encoding/json"
	"errors"
	"strings"
)

// Unmarshal is json.Unmarshal that names the snippet's struct types in
// its errors as Go does ("Go struct field Order.items.price"): the
// interpreter's struct types have no names. names holds "path=Name" for
// each struct type of the target, path being the dotted JSON keys that
// lead to it ("" for the top).
func Unmarshal(data []byte, v any, names []string) error {
	return nameStruct(json.Unmarshal(data, v), names)
}

// Decode is (*json.Decoder).Decode with Unmarshal's names.
func Decode(d *json.Decoder, v any, names []string) error {
	return nameStruct(d.Decode(v), names)
}

func nameStruct(err error, names []string) error {
	var ute *json.UnmarshalTypeError
	if !errors.As(err, &ute) || ute.Struct != "" || ute.Field == "" {
		return err
	}
	parent := ""
	if i := strings.LastIndexByte(ute.Field, '.'); i >= 0 {
		parent = ute.Field[:i]
	}
	for _, n := range names {
		if p, name, ok := strings.Cut(n, "="); ok && p == parent {
			ute.Struct = name
			break
		}
	}
	return err
}
