package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

func run(name, body string) {
	src := "package main\nimport (\n"
	for _, p := range []string{"fmt", "slices", "maps", "sort", "cmp", "strings"} {
		if strings.Contains(body, p+".") {
			src += "\"" + p + "\"\n"
		}
	}
	src += ")\n" + body
	var out bytes.Buffer
	defer func() {
		if r := recover(); r != nil {
			fmt.Printf("%-20s PANIC %v\n", name, strings.Split(fmt.Sprint(r), "\n")[0])
		}
	}()
	i := interp.New(interp.Options{Stdout: &out, Stderr: &out})
	i.Use(stdlib.Symbols)
	_, err := i.Eval(src)
	if err != nil {
		fmt.Printf("%-20s ERR %v\n", name, strings.Split(err.Error(), "\n")[0])
		return
	}
	fmt.Printf("%-20s OK %q\n", name, out.String())
}

func main() {
	tests := [][2]string{
		{"Sort", `func main(){ s:=[]int{3,1,2}; slices.Sort(s); fmt.Println(s) }`},
		{"SortFunc", `func main(){ s:=[]string{"bb","a","ccc"}; slices.SortFunc(s, func(a,b string) int { return cmp.Compare(len(a),len(b)) }); fmt.Println(s) }`},
		{"SortStableFunc", `func main(){ s:=[]string{"bb","a","ccc"}; slices.SortStableFunc(s, func(a,b string) int { return len(a)-len(b) }); fmt.Println(s) }`},
		{"Contains", `func main(){ s:=[]int{3,1,2}; fmt.Println(slices.Contains(s, 2), slices.Contains(s, 5)) }`},
		{"ContainsStr", `func main(){ s:=[]string{"a"}; fmt.Println(slices.Contains(s, "a")) }`},
		{"Index", `func main(){ s:=[]int{3,1,2}; fmt.Println(slices.Index(s, 2)) }`},
		{"IndexFunc", `func main(){ s:=[]int{3,1,2}; fmt.Println(slices.IndexFunc(s, func(x int) bool { return x<3 })) }`},
		{"Reverse", `func main(){ s:=[]int{3,1,2}; slices.Reverse(s); fmt.Println(s) }`},
		{"Max", `func main(){ s:=[]int{3,1,2}; fmt.Println(slices.Max(s), slices.Min(s)) }`},
		{"Equal", `func main(){ fmt.Println(slices.Equal([]int{1}, []int{1})) }`},
		{"BinarySearch", `func main(){ fmt.Println(slices.BinarySearch([]int{1,2,3}, 2)) }`},
		{"Compact", `func main(){ fmt.Println(slices.Compact([]int{1,1,2})) }`},
		{"Insert", `func main(){ fmt.Println(slices.Insert([]int{1,2}, 1, 9)) }`},
		{"Delete", `func main(){ fmt.Println(slices.Delete([]int{1,2,3}, 0, 1)) }`},
		{"Clone", `func main(){ fmt.Println(slices.Clone([]int{1,2,3})) }`},
		{"IsSorted", `func main(){ fmt.Println(slices.IsSorted([]int{1,2,3})) }`},
		{"Sorted", `func main(){ m:=map[string]int{"b":1,"a":2}; fmt.Println(slices.Sorted(maps.Keys(m))) }`},
		{"Collect", `func main(){ m:=map[string]int{"b":1}; fmt.Println(slices.Collect(maps.Keys(m))) }`},
		{"mapsKeys", `func main(){ m:=map[string]int{"b":1}; k := maps.Keys(m); _ = k }`},
		{"mapsClone", `func main(){ m:=map[string]int{"b":1}; fmt.Println(maps.Clone(m)) }`},
		{"mapsCopy", `func main(){ m:=map[string]int{"b":1}; n:=map[string]int{}; maps.Copy(n, m); fmt.Println(n) }`},
		{"mapsEqual", `func main(){ m:=map[string]int{"b":1}; fmt.Println(maps.Equal(m, m)) }`},
		{"mapsDeleteFunc", `func main(){ m:=map[string]int{"b":1}; maps.DeleteFunc(m, func(k string, v int) bool { return v==1 }); fmt.Println(m) }`},
		{"cmpCompare", `func main(){ fmt.Println(cmp.Compare(1,2), cmp.Compare("b","a"), cmp.Less(1.0, 2.0)) }`},
		{"sortSlice", `func main(){ s:=[]int{3,1,2}; sort.Slice(s, func(i,j int) bool { return s[i]<s[j] }); fmt.Println(s) }`},
		{"genMap", `func Map[T, U any](s []T, f func(T) U) []U { r := make([]U, 0, len(s)); for _, v := range s { r = append(r, f(v)) }; return r }
func main(){ fmt.Println(Map([]int{1,2}, func(x int) string { return fmt.Sprint(x*2) })) }`},
		{"genFilter", `func Filter[T any](s []T, f func(T) bool) []T { var r []T; for _, v := range s { if f(v) { r = append(r, v) } }; return r }
func main(){ fmt.Println(Filter([]int{1,2,3}, func(x int) bool { return x>1 })) }`},
		{"genExplicit", `func Map[T, U any](s []T, f func(T) U) []U { r := make([]U, 0, len(s)); for _, v := range s { r = append(r, f(v)) }; return r }
func main(){ fmt.Println(Map[int,string]([]int{1,2}, func(x int) string { return fmt.Sprint(x*2) })) }`},
		{"genConstraint", `type Number interface { ~int | ~float64 }
func Sum[T Number](s []T) T { var t T; for _, v := range s { t += v }; return t }
func main(){ fmt.Println(Sum([]int{1,2}), Sum([]float64{1.5})) }`},
		{"genType", `type Stack[T any] struct { items []T }
func (s *Stack[T]) Push(v T) { s.items = append(s.items, v) }
func (s *Stack[T]) Len() int { return len(s.items) }
func main(){ var s Stack[int]; s.Push(1); fmt.Println(s.Len()) }`},
		{"genReduce", `func Reduce[T, A any](s []T, init A, f func(A, T) A) A { acc := init; for _, v := range s { acc = f(acc, v) }; return acc }
func main(){ fmt.Println(Reduce([]int{1,2,3}, 0, func(a, v int) int { return a+v })) }`},
		{"genKeys", `func Keys[K comparable, V any](m map[K]V) []K { r := make([]K, 0, len(m)); for k := range m { r = append(r, k) }; return r }
func main(){ fmt.Println(len(Keys(map[string]int{"a":1}))) }`},
		{"loopvar", `func main(){ var fs []func(); for i := 0; i < 3; i++ { i := i; fs = append(fs, func(){ fmt.Print(i) }) }; for _, f := range fs { f() }; fmt.Println() }`},
		{"loopvarRange", `func main(){ var fs []func(); for _, v := range []int{1,2,3} { v := v; fs = append(fs, func(){ fmt.Print(v) }) }; for _, f := range fs { f() }; fmt.Println() }`},
		{"loopvarPtr", `func main(){ var ps []*int; for i := 0; i < 3; i++ { p := &i; i := i; ps = append(ps, &i); *p = i }; for _, p := range ps { fmt.Print(*p) }; fmt.Println() }`},
		{"goto", `func main(){ i := 0; L: i++; if i < 3 { goto L }; fmt.Println(i) }`},
		{"minBuiltin", `func main(){ fmt.Println(min(1,2)) }`},
		{"rangeInt", `func main(){ for i := range 3 { fmt.Print(i) } }`},
		{"structEmbed", `type A struct{ X int }
func (a A) Hi() string { return fmt.Sprint("hi", a.X) }
type B struct { A; Y int }
func main(){ b := B{A{1}, 2}; fmt.Println(b.Hi(), b.X) }`},
		{"errorsAs", `type E struct{ m string }
func (e *E) Error() string { return e.m }
func main(){ var err error = fmt.Errorf("w: %w", &E{"x"}); var e *E; fmt.Println(errorsAs(err, &e)) }
func errorsAs(err error, t **E) bool { return false }`},
	}
	for _, t := range tests {
		if len(os.Args) > 1 && !strings.Contains(t[0], os.Args[1]) {
			continue
		}
		run(t[0], t[1])
	}
}
