package shim

import (
	"bytes"
	"encoding/json"
	"errors"
	"sort"
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

// JSONValue returns the one JSON value in data without the white space
// around it, or the error json.Unmarshal returns for data that is not
// valid JSON: what encoding/json gives a type's UnmarshalJSON method.
func JSONValue(data []byte) ([]byte, error) {
	var raw json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	return raw, nil
}

// TypeError reports whether err is a *json.UnmarshalTypeError, after
// which encoding/json goes on decoding the rest.
func TypeError(err error) bool {
	var ute *json.UnmarshalTypeError
	return errors.As(err, &ute)
}

// Order returns, for each of a struct's JSON field names, where in the
// JSON object data the member that encoding/json decodes into that field
// stands (the last one, as the last wins), or -1: a member goes to the
// field of exactly its name, else to the first whose name matches it
// without regard to case. data that is not an object gives all -1.
func Order(data []byte, names []string) []int {
	pos := make([]int, len(names))
	for i := range pos {
		pos[i] = -1
	}
	d := json.NewDecoder(bytes.NewReader(data))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return pos
	}
	for n := 0; d.More(); n++ {
		t, err := d.Token()
		if err != nil {
			return pos
		}
		key, _ := t.(string)
		field := -1
		for i, name := range names {
			if name == key {
				field = i
				break
			}
		}
		if field < 0 {
			for i, name := range names {
				if strings.EqualFold(name, key) {
					field = i
					break
				}
			}
		}
		if field >= 0 {
			pos[field] = n
		}
		var skip json.RawMessage
		if err := d.Decode(&skip); err != nil {
			return pos
		}
	}
	return pos
}

// ByPos returns the indexes of pos whose value is not negative, in the
// order of their values: the fields present in a JSON object in the
// order encoding/json decodes them.
func ByPos(pos []int) []int {
	var out []int
	for i, p := range pos {
		if p >= 0 {
			out = append(out, i)
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return pos[out[a]] < pos[out[b]] })
	return out
}
