package exec

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/mcpfs/mcpfs/exec/check"
)

// TestPanicAtStatement: a run-time error the rewrite cannot see coming (a
// nil pointer dereference, a write to a nil map, a failed type
// assertion, a division by zero) is reported at the line of the
// statement that panicked, in Go's words, wherever that statement sits:
// in main, in a function or method several calls down, in a closure that
// compiled code (sort.Slice) calls, after an earlier panic was recovered.
// The line is the one Go's traceback gives for the same program; a
// goroutine's panic also names the functions it went through.
func TestPanicAtStatement(t *testing.T) {
	if raceEnabled {
		t.Skip("-race: the worker's interpreter runs without the race detector here (test.sh runs it)")
	}
	const nilDeref = "runtime error: invalid memory address or nil pointer dereference"
	tests := []struct {
		name, src, want string
	}{
		{"nil deref in main", `package main

import "fmt"

type user struct{ name string }

func main() {
	var u *user
	fmt.Println("start")
	fmt.Println(u.name)
}
`, "snippet.go:10: " + nilDeref},
		{"nil deref two calls down", `package main

import "fmt"

type user struct{ name string }

func show(u *user) string {
	s := "name:"
	return s + u.name
}

func list(us []*user) {
	for _, u := range us {
		fmt.Println(show(u))
	}
}

func main() {
	list([]*user{{"ann"}, nil})
}
`, "snippet.go:9: " + nilDeref},
		{"nil map write in a method", `package main

type store struct{ m map[string]int }

func (s *store) put(k string, v int) {
	if v > 0 {
		s.m[k] = v
	}
}

func main() {
	s := &store{}
	s.put("a",
		1)
}
`, "snippet.go:7: assignment to entry in nil map"},
		{"nil map write in a sort.Slice closure", `package main

import (
	"fmt"
	"sort"
)

func main() {
	var seen map[int]bool
	xs := []int{3, 1, 2}
	sort.Slice(xs, func(i, j int) bool {
		seen[xs[i]] = true
		return xs[i] < xs[j]
	})
	fmt.Println(xs)
}
`, "snippet.go:12: assignment to entry in nil map"},
		{"after a recovered panic", `package main

import "fmt"

type node struct{ next *node }

func try(f func()) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Println("recovered:", r)
		}
	}()
	f()
}

func main() {
	try(func() {
		var n *node
		fmt.Println(n.next)
	})
	counts := map[string]int{}
	counts["a"]++
	var totals map[string]int
	totals["a"] = counts["a"]
}
`, "snippet.go:24: assignment to entry in nil map"},
		{"type assertion", `package main

import "fmt"

func main() {
	var x any = "s"
	fmt.Println("x")
	n := x.(int)
	fmt.Println(n)
}
`, "snippet.go:8: interface conversion: interface {} is string, not int"},
		{"division by zero", `package main

import "fmt"

func ratio(a, b int) int {
	fmt.Println("ratio")
	return a / b
}

func main() {
	fmt.Println(ratio(1, 0))
}
`, "snippet.go:7: runtime error: integer divide by zero"},
	}
	tests = append(tests, struct{ name, src, want string }{"nil deref in a goroutine", `package main

import (
	"fmt"
	"time"
)

type T struct{ n int }

func work(t *T) {
	t.n = 3
}

func main() {
	go func() {
		var t *T
		fmt.Println("g")
		work(t)
	}()
	time.Sleep(5 * time.Second)
}
`, "in a goroutine: snippet.go:11: " + nilDeref + " (in main.work; called from main.main.func)"})
	r := newRunner(t, Options{})
	tree := fstest.MapFS{"mcp/mcp.go": &fstest.MapFile{Data: []byte("package mcp\n")}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prog, err := check.Check("snippet.go", []byte(tt.src), tree, check.Options{})
			if err != nil {
				t.Fatalf("check: %v", err)
			}
			_, err = r.Run(context.Background(), Request{Source: prog.Source, Tree: tree})
			var re *RunError
			if !errors.As(err, &re) || re.Kind != ErrPanic {
				t.Fatalf("got error %v, want a panic", err)
			}
			if re.Msg != tt.want {
				t.Errorf("got %q, want %q", re.Msg, tt.want)
			}
			if strings.Contains(re.Msg, "reflect") {
				t.Errorf("the message is in reflect's words: %q", re.Msg)
			}
		})
	}
}

// TestRecoveredPanicSilent: a panic that a recover ends prints nothing on
// stderr, as in Go, however many interpreted frames it left on the way
// (the interpreter holds the line of each frame until the panic ends the
// run or its goroutine; TestPanicAtStatement covers those).
func TestRecoveredPanicSilent(t *testing.T) {
	if raceEnabled {
		t.Skip("-race: the worker's interpreter runs without the race detector here (test.sh runs it)")
	}
	const src = `package main

import (
	"errors"
	"fmt"
)

type T struct{}

func (T) do(n int) int {
	if n > 2 {
		panic(errors.New("too big"))
	}
	return n
}

func twice(n int) int { return T{}.do(n) * 2 }

func safe(n int) (v int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return twice(n), nil
}

func main() {
	fmt.Println(safe(1))
	fmt.Println(safe(5))
	func() {
		defer func() { recover() }()
		var m map[string]int
		m["x"] = 1
	}()
	fmt.Println("done")
}
`
	r := newRunner(t, Options{})
	tree := fstest.MapFS{"mcp/mcp.go": &fstest.MapFile{Data: []byte("package mcp\n")}}
	prog, err := check.Check("snippet.go", []byte(src), tree, check.Options{})
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	res, err := r.Run(context.Background(), Request{Source: prog.Source, Tree: tree})
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Stdout) != "2 <nil>\n0 too big\ndone\n" || len(res.Stderr) != 0 {
		t.Errorf("stdout %q, stderr %q; want Go's output and nothing on stderr", res.Stdout, res.Stderr)
	}
}
