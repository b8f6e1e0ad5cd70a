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

// Members returns the keys and values of the JSON object data in the
// order they stand, or the error json.Unmarshal gives for data that is
// not an object.
func Members(data []byte) ([]string, []json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, nil, err
	}
	d := json.NewDecoder(bytes.NewReader(data))
	if _, err := d.Token(); err != nil {
		return nil, nil, err
	}
	var keys []string
	var vals []json.RawMessage
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return nil, nil, err
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, nil, err
		}
		k, _ := t.(string)
		keys = append(keys, k)
		vals = append(vals, v)
	}
	return keys, vals, nil
}

type namedTypeError struct {
	*json.UnmarshalTypeError
	msg string
}

func (e *namedTypeError) Error() string { return e.msg }
func (e *namedTypeError) Unwrap() error { return e.UnmarshalTypeError }

// Stop marks the error of an UnmarshalJSON method, which ends decoding
// (encoding/json goes on only after type errors of its own); Unstop
// takes the mark off at the top.
func Stop(err error) error {
	if err == nil {
		return nil
	}
	return &stopError{err}
}

// Stopped reports whether err ends decoding: a method's error, or any
// error but a type error of encoding/json's.
func Stopped(err error) bool {
	if _, ok := err.(*stopError); ok {
		return true
	}
	return err != nil && !TypeError(err)
}

// Unstop returns the error Stop marked, as the method returned it.
func Unstop(err error) error {
	if s, ok := err.(*stopError); ok {
		return s.err
	}
	return err
}

type stopError struct{ err error }

func (e *stopError) Error() string { return e.err.Error() }

// TypeAt is TypeName for a value decoded at the JSON path path ("items")
// of a struct named st: encoding/json reports the path, the struct and
// the type's Go name.
func TypeAt(err error, name, st, path string) error {
	var ute *json.UnmarshalTypeError
	if !errors.As(err, &ute) || ute.Field != "" || ute.Struct != "" || ute.Type == nil {
		return err
	}
	ute.Struct, ute.Field = st, path
	return &namedTypeError{ute, strings.Replace(ute.Error(), " of type "+ute.Type.String(), " of type "+name, 1)}
}

// Prefix puts path before the field path of a type error found while
// decoding the value at path.
func Prefix(err error, path string) error {
	var ute *json.UnmarshalTypeError
	if path != "" && errors.As(err, &ute) && ute.Field != "" {
		ute.Field = path + "." + ute.Field
	}
	return err
}

// Context gives a type error that an UnmarshalJSON method returned the
// place of the value, as encoding/json does: the struct st and the path.
func Context(err error, st, path string) error {
	var ute *json.UnmarshalTypeError
	if (st != "" || path != "") && errors.As(err, &ute) {
		ute.Struct, ute.Field = st, path
	}
	return err
}

// Join is path.key, or key at the top.
func Join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
