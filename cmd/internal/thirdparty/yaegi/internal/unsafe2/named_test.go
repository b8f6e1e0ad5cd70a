//go:build go1.24

package unsafe2

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// TestNamedType checks the copies against what Go does with defined
// types: a change of internal/abi's layouts fails here first.
func TestNamedType(t *testing.T) {
	str := reflect.TypeOf("")
	key, ok := NamedType(str, "main.key", "test.key")
	if !ok {
		t.Fatal("NamedType(string) refused")
	}
	if again, _ := NamedType(str, "main.key", "test.key"); again != key {
		t.Errorf("same key, another type: %v", again)
	}
	if key.String() != "main.key" || key.Name() != "key" || key.Kind() != reflect.String || key.Size() != str.Size() {
		t.Errorf("got %s (name %q, kind %v, size %d), want main.key (key, string, %d)", key, key.Name(), key.Kind(), key.Size(), str.Size())
	}
	if key.AssignableTo(str) || str.AssignableTo(key) || !key.ConvertibleTo(str) {
		t.Errorf("main.key assignable to string (or back), or not convertible")
	}
	k := reflect.ValueOf("u").Convert(key)
	var a, b any = k.Interface(), "u"
	if a == b {
		t.Errorf("key(%q) == %q in an interface", "u", "u")
	}
	if got := fmt.Sprintf("%T %v", a, a); got != "main.key u" {
		t.Errorf("fmt: %q, want %q", got, "main.key u")
	}
	m := map[any]int{a: 1, b: 2}
	if len(m) != 2 {
		t.Errorf("map[any] with both keys has %d entries, want 2", len(m))
	}
	if p := reflect.PointerTo(key); p.Elem() != key || p.String() != "*main.key" {
		t.Errorf("pointer type %s, elem %s", p, p.Elem())
	}

	st := reflect.StructOf([]reflect.StructField{{Name: "X", Type: reflect.TypeOf(0)}, {Name: "Tag", Type: key, Tag: `json:"tag"`}})
	pt, ok := NamedType(st, "main.Point", "test.Point")
	if !ok {
		t.Fatal("NamedType(struct) refused")
	}
	v := reflect.New(pt).Elem()
	v.Field(0).SetInt(3)
	v.Field(1).SetString("t")
	out, err := json.Marshal(v.Interface())
	if err != nil || string(out) != `{"X":3,"tag":"t"}` {
		t.Errorf("json: %s, %v", out, err)
	}
	if got := fmt.Sprintf("%T %+v", v.Interface(), v.Interface()); got != "main.Point {X:3 Tag:t}" {
		t.Errorf("fmt: %q", got)
	}
	if v.Interface() == reflect.ValueOf(v.Interface()).Convert(st).Interface() {
		t.Error("a Point equals the unnamed struct of its fields in an interface")
	}
	for _, typ := range []reflect.Type{reflect.TypeOf([]int(nil)), reflect.TypeOf(map[string]int(nil)), reflect.TypeOf([2]int{}), reflect.TypeOf(make(chan int)), reflect.TypeOf(1.5)} {
		nt, ok := NamedType(typ, "main.T"+typ.Kind().String(), "test."+typ.String())
		if !ok || nt.Kind() != typ.Kind() || !reflect.Zero(nt).Type().ConvertibleTo(typ) {
			t.Errorf("%s: %v %v", typ, nt, ok)
			continue
		}
		z := reflect.New(nt).Elem()
		if typ.Kind() == reflect.Map {
			z.Set(reflect.MakeMap(nt))
			z.SetMapIndex(reflect.ValueOf("a"), reflect.ValueOf(1))
			if z.Len() != 1 {
				t.Errorf("%s: map of the copy has %d entries", typ, z.Len())
			}
		}
		if !IsNamedType(nt) || IsNamedType(typ) {
			t.Errorf("%s: IsNamedType wrong", typ)
		}
	}
	if _, ok := NamedType(reflect.TypeOf(func() {}), "main.F", "test.F"); ok {
		t.Error("a func type was copied")
	}
}
