package shape

import (
	"strings"
	"testing"
	"time"
)

func learn(t *testing.T, results ...string) *Learned {
	t.Helper()
	var l *Learned
	for _, r := range results {
		var ok bool
		if l, _, ok = l.Add([]byte(r), time.Unix(0, 0)); !ok {
			t.Fatalf("not JSON: %s", r)
		}
	}
	return l
}

func TestSignature(t *testing.T) {
	for _, c := range []struct {
		name    string
		results []string
		want    string
		varies  bool
	}{
		{"object", []string{`{"a":1,"b":"x"}`}, "object{a:number,b:string,}", false},
		{"missing once", []string{`{"a":1,"b":"x"}`, `{"a":2}`}, "object{a:number,b?:string,}", false},
		{"kinds disagree", []string{`{"a":1}`, `{"a":"1"}`}, "object{a:any,}", false},
		{"null then value", []string{`{"a":null}`, `{"a":[1]}`}, "object{a:array[number],}", false},
		{"keys are data", []string{`{"a.txt":1,"b.txt":2}`}, "objectmap(number)", true},
		{"keys differ", []string{`{"x":1,"y":1}`, `{"z":1,"w":1}`}, "objectmap(number)", true},
		{"array of objects", []string{`[{"id":"a"},{"id":"b","n":1}]`}, "array[object{id:string,n?:number,}]", false},
		{"scalar", []string{`"text"`}, "string", true},
		{"nested map of objects", []string{`{"users":{"u-1":{"id":1},"u-2":{"id":2}}}`}, "object{users:object{u-1:object{id:number,},u-2:object{id:number,},},}", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := learn(t, c.results...)
			if got := Signature(l.Root); got != c.want {
				t.Errorf("Signature = %s, want %s", got, c.want)
			}
			if l.Varies() != c.varies {
				t.Errorf("Varies = %v, want %v", l.Varies(), c.varies)
			}
		})
	}
}

// TestBounds: no result makes a shape past the bounds, and no value is kept.
func TestBounds(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 50) + `"secret-value"` + strings.Repeat("}", 50)
	l := learn(t, deep)
	if got := Signature(l.Root); strings.Count(got, "object") > MaxDepth+1 {
		t.Errorf("depth not bounded: %s", got)
	}
	var wide strings.Builder
	wide.WriteString("{")
	for i := range 500 {
		if i > 0 {
			wide.WriteString(",")
		}
		wide.WriteString(`"k` + strings.Repeat("x", i%60) + string(rune('a'+i%26)) + `":{"v":"secret-value"}`)
	}
	wide.WriteString("}")
	l = learn(t, wide.String())
	if !l.Root.Map {
		t.Errorf("an object of 500 keys is not a map")
	}
	for _, s := range []*Learned{learn(t, deep), l} {
		if b := GenInput(s); strings.Contains(string(b), "secret-value") {
			t.Errorf("a value was kept: %s", b)
		}
	}
	if _, changed, _ := l.Add([]byte(wide.String()), time.Unix(1, 0)); changed {
		t.Errorf("the same result again changed the type")
	}
}
