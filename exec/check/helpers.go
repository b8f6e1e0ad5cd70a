package check

// stdHelpers are the replacements for functions of slices, maps and cmp
// that yaegi v0.16.1 lacks or gets wrong. Each is a template: $F is the
// helper's name, $S/$E the slice and element types of a slices function
// (its type arguments, in order; $T the third, the target of
// slices.BinarySearchFunc), $M/$K/$V those of a maps function,
// $M1/$M2 the two map types of maps.Copy and maps.Equal, $T the type of a
// cmp function, $sort the name of the sort package, and $min/$max the min/max helpers of
// the element type. Ordered
// comparisons treat NaN as less than every number, as cmp.Less does.
var stdHelpers = map[string]string{
	// sync's generic helpers run f once, under a sync.Once ($sync); a
	// panic of f is not kept for the later calls (Go panics again).
	"sync.OnceFunc": `func $F(f func()) func() {
	var once $sync.Once
	return func() { once.Do(f) }
}`,
	"sync.OnceValue": `func $F(f func() $T) func() $T {
	var once $sync.Once
	var v $T
	return func() $T {
		once.Do(func() { v = f() })
		return v
	}
}`,
	"sync.OnceValues": `func $F(f func() ($T1, $T2)) func() ($T1, $T2) {
	var once $sync.Once
	var v1 $T1
	var v2 $T2
	return func() ($T1, $T2) {
		once.Do(func() { v1, v2 = f() })
		return v1, v2
	}
}`,
	"slices.Sort":           `func $F(x $S) { $sort.Slice(x, func(i, j int) bool { return x[i] < x[j] || (x[i] != x[i] && x[j] == x[j]) }) }`,
	"slices.SortFunc":       `func $F(x $S, cmp func(a, b $E) int) { $sort.SliceStable(x, func(i, j int) bool { return cmp(x[i], x[j]) < 0 }) }`,
	"slices.SortStableFunc": `func $F(x $S, cmp func(a, b $E) int) { $sort.SliceStable(x, func(i, j int) bool { return cmp(x[i], x[j]) < 0 }) }`,
	"slices.IsSorted": `func $F(x $S) bool {
	for i := len(x) - 1; i > 0; i-- {
		if x[i] < x[i-1] || (x[i] != x[i] && x[i-1] == x[i-1]) {
			return false
		}
	}
	return true
}`,
	"slices.IsSortedFunc": `func $F(x $S, cmp func(a, b $E) int) bool {
	for i := len(x) - 1; i > 0; i-- {
		if cmp(x[i], x[i-1]) < 0 {
			return false
		}
	}
	return true
}`,
	"slices.BinarySearch": `func $F(x $S, target $E) (int, bool) {
	i, j := 0, len(x)
	for i < j {
		h := int(uint(i+j) >> 1)
		if x[h] < target || (x[h] != x[h] && target == target) {
			i = h + 1
		} else {
			j = h
		}
	}
	return i, i < len(x) && (x[i] == target || (x[i] != x[i] && target != target))
}`,
	"slices.BinarySearchFunc": `func $F(x $S, target $T, cmp func($E, $T) int) (int, bool) {
	i, j := 0, len(x)
	for i < j {
		h := int(uint(i+j) >> 1)
		if cmp(x[h], target) < 0 {
			i = h + 1
		} else {
			j = h
		}
	}
	return i, i < len(x) && cmp(x[i], target) == 0
}`,
	"slices.Repeat": `func $F(x $S, count int) $S {
	if count < 0 {
		panic("cannot be negative")
	}
	out := make($S, 0, len(x)*count)
	for i := 0; i < count; i++ {
		out = append(out, x...)
	}
	return out
}`,
	"slices.Contains": `func $F(s $S, v $E) bool {
	for i := range s {
		if v == s[i] {
			return true
		}
	}
	return false
}`,
	"slices.ContainsFunc": `func $F(s $S, f func($E) bool) bool {
	for i := range s {
		if f(s[i]) {
			return true
		}
	}
	return false
}`,
	"slices.Index": `func $F(s $S, v $E) int {
	for i := range s {
		if v == s[i] {
			return i
		}
	}
	return -1
}`,
	"slices.IndexFunc": `func $F(s $S, f func($E) bool) int {
	for i := range s {
		if f(s[i]) {
			return i
		}
	}
	return -1
}`,
	"slices.Reverse": `func $F(s $S) {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}`,
	"slices.Max": `func $F(x $S) $E {
	if len(x) < 1 {
		panic("slices.Max: empty list")
	}
	m := x[0]
	for i := 1; i < len(x); i++ {
		m = $max(m, x[i])
	}
	return m
}`,
	"slices.Min": `func $F(x $S) $E {
	if len(x) < 1 {
		panic("slices.Min: empty list")
	}
	m := x[0]
	for i := 1; i < len(x); i++ {
		m = $min(m, x[i])
	}
	return m
}`,
	"slices.MaxFunc": `func $F(x $S, cmp func(a, b $E) int) $E {
	if len(x) < 1 {
		panic("slices.MaxFunc: empty list")
	}
	m := x[0]
	for i := 1; i < len(x); i++ {
		if cmp(x[i], m) > 0 {
			m = x[i]
		}
	}
	return m
}`,
	"slices.MinFunc": `func $F(x $S, cmp func(a, b $E) int) $E {
	if len(x) < 1 {
		panic("slices.MinFunc: empty list")
	}
	m := x[0]
	for i := 1; i < len(x); i++ {
		if cmp(x[i], m) < 0 {
			m = x[i]
		}
	}
	return m
}`,
	"slices.Equal": `func $F(s1, s2 $S) bool {
	if len(s1) != len(s2) {
		return false
	}
	for i := range s1 {
		if s1[i] != s2[i] {
			return false
		}
	}
	return true
}`,
	"slices.Clone": `func $F(s $S) $S {
	if s == nil {
		return nil
	}
	return append($S{}, s...)
}`,
	"slices.Clip": `func $F(s $S) $S {
	return s[:len(s):len(s)]
}`,
	"slices.Compact": `func $F(s $S) $S {
	if len(s) < 2 {
		return s
	}
	w := 1
	for r := 1; r < len(s); r++ {
		if s[r] != s[w-1] {
			s[w] = s[r]
			w++
		}
	}
	var zero $E
	for i := w; i < len(s); i++ {
		s[i] = zero
	}
	return s[:w]
}`,
	"slices.Insert": `func $F(s $S, i int, v ...$E) $S {
	_ = s[i:]
	m := len(v)
	if m == 0 {
		return s
	}
	n := len(s)
	if i == n {
		return append(s, v...)
	}
	if n+m > cap(s) {
		s2 := append(s[:i], make($S, n+m-i)...)
		copy(s2[i:], v)
		copy(s2[i+m:], s[i:])
		return s2
	}
	v = append(make($S, 0, m), v...)
	s = s[:n+m]
	copy(s[i+m:], s[i:])
	copy(s[i:], v)
	return s
}`,
	"slices.Replace": `func $F(s $S, i, j int, v ...$E) $S {
	_ = s[i:j]
	var zero $E
	// With i == j this is slices.Insert: v is copied first, so the
	// general steps below insert it as Insert does.
	v = append(make($S, 0, len(v)), v...)
	if j == len(s) {
		s2 := append(s[:i], v...)
		for k := len(s2); k < len(s); k++ {
			s[k] = zero
		}
		return s2
	}
	tot := i + len(v) + len(s) - j
	if tot > cap(s) {
		s2 := append(s[:i], make($S, tot-i)...)
		copy(s2[i:], v)
		copy(s2[i+len(v):], s[j:])
		return s2
	}
	r := s[:tot]
	if i+len(v) <= j {
		copy(r[i:], v)
		copy(r[i+len(v):], s[j:])
		for k := tot; k < len(s); k++ {
			s[k] = zero
		}
		return r
	}
	copy(r[i+len(v):], s[j:])
	copy(r[i:], v)
	return r
}`,
	"slices.Grow": `func $F(s $S, n int) $S {
	if n < 0 {
		panic("cannot be negative")
	}
	if n -= cap(s) - len(s); n > 0 {
		s = append(s[:cap(s)], make($S, n)...)[:len(s)]
	}
	return s
}`,
	"slices.Delete": `func $F(s $S, i, j int) $S {
	_ = s[i:j:len(s)]
	if i == j {
		return s
	}
	n := len(s)
	s = append(s[:i], s[j:]...)
	var zero $E
	for k := len(s); k < n; k++ {
		s[:n][k] = zero
	}
	return s
}`,
	"slices.Concat": `func $F(slices ...$S) $S {
	n := 0
	for _, s := range slices {
		n += len(s)
	}
	if n == 0 {
		return nil
	}
	out := make($S, 0, n)
	for _, s := range slices {
		out = append(out, s...)
	}
	return out
}`,
	"maps.Clone": `func $F(m $M) $M {
	if m == nil {
		return nil
	}
	out := make($M, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}`,
	"maps.Copy": `func $F(dst $M1, src $M2) {
	for k, v := range src {
		dst[k] = v
	}
}`,
	"maps.Equal": `func $F(m1 $M1, m2 $M2) bool {
	if len(m1) != len(m2) {
		return false
	}
	for k, v1 := range m1 {
		if v2, ok := m2[k]; !ok || v1 != v2 {
			return false
		}
	}
	return true
}`,
	"maps.DeleteFunc": `func $F(m $M, del func($K, $V) bool) {
	for k, v := range m {
		if del(k, v) {
			delete(m, k)
		}
	}
}`,
	"cmp.Compare": `func $F(x, y $T) int {
	xNaN, yNaN := x != x, y != y
	if xNaN {
		if yNaN {
			return 0
		}
		return -1
	}
	if yNaN {
		return +1
	}
	if x < y {
		return -1
	}
	if x > y {
		return +1
	}
	return 0
}`,
	"cmp.Less": `func $F(x, y $T) bool { return (x != x && y == y) || x < y }`,
	"cmp.Or": `func $F(vals ...$T) $T {
	var zero $T
	for _, v := range vals {
		if v != zero {
			return v
		}
	}
	return zero
}`,
}

// seqHelpers turn an iterator-producing call into a slice, for
// slices.Collect/Sorted/SortedFunc and range.
var seqHelpers = map[string]string{
	"maps.Keys": `func $F(m $M) []$K {
	out := make([]$K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}`,
	"maps.Values": `func $F(m $M) []$V {
	out := make([]$V, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}`,
	"slices.Values": `func $F(s $S) []$E {
	out := make([]$E, len(s))
	copy(out, s)
	return out
}`,
}

// Helpers for the min and max builtins: ordered non-float types, and
// floats, where a NaN argument makes the result NaN and min prefers -0
// (max +0), as the builtins do.
const (
	minHelper = `func $F(x $T, y ...$T) $T {
	for _, v := range y {
		if v < x {
			x = v
		}
	}
	return x
}`
	maxHelper = `func $F(x $T, y ...$T) $T {
	for _, v := range y {
		if v > x {
			x = v
		}
	}
	return x
}`
	minFloatHelper = `func $F(x $T, y ...$T) $T {
	for _, v := range y {
		if x != x {
			return x
		}
		if v != v || v < x {
			x = v
		} else if v == x && v == 0 && 1/v < 0 {
			x = v
		}
	}
	return x
}`
	maxFloatHelper = `func $F(x $T, y ...$T) $T {
	for _, v := range y {
		if x != x {
			return x
		}
		if v != v || v > x {
			x = v
		} else if v == x && v == 0 && 1/x < 0 {
			x = v
		}
	}
	return x
}`
)

// errorsAsHelper is errors.As for one target type $T declared in
// interpreted code, which the host's errors.As refuses. It converts err
// ($conv: the snippet's error types become shim.Errs that carry their
// Unwrap methods) and follows the chain with the host's errors.Unwrap
// ($errors), and the tree of an error with Unwrap() []error (errors.Join,
// fmt.Errorf with several %w) depth first, as errors.As does; $errors sees the wrappers of standard packages (fmt.Errorf's
// %w) and the shim's; a shim.Err ($shim.Err) holds the original value.
const errorsAsHelper = `func $F(err error, target *$T) bool {
	if target == nil {
		panic("errors: target must be a non-nil pointer")
	}
	err = $conv(err)
	for err != nil {
		if w, ok := err.(*$shim.Err); ok {
			if e, ok := w.V.($T); ok {
				*target = e
				return true
			}
		} else if e, ok := err.($T); ok {
			*target = e
			return true
		}
		if es := $shim.Unwrapped(err); es != nil {
			for _, e := range es {
				if $F(e, target) {
					return true
				}
			}
			return false
		}
		err = $errors.Unwrap(err)
	}
	return false
}`

// errorsAsIfaceHelper is errorsAsHelper for a target interface $T of the
// snippet's: each error of the chain (a shim.Err's original value, typed
// back by $typed) is matched with a type switch.
const errorsAsIfaceHelper = `func $F(err error, target *$T) bool {
	if target == nil {
		panic("errors: target must be a non-nil pointer")
	}
	err = $conv(err)
	for err != nil {
		var v any = err
		if w, ok := err.(*$shim.Err); ok {
			v = w.V
			$typed
		}
		switch e := v.(type) {
		case $T:
			*target = e
			return true
		}
		if es := $shim.Unwrapped(err); es != nil {
			for _, e := range es {
				if $F(e, target) {
					return true
				}
			}
			return false
		}
		err = $errors.Unwrap(err)
	}
	return false
}`
