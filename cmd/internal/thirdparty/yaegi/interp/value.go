package interp

import (
	"go/constant"
	"reflect"
	"sync"
	"unsafe"

	"github.com/traefik/yaegi/internal/unsafe2"
)

const (
	notInFrame  = -1 // value of node.findex for literal values (not in frame)
	globalFrame = -1 // value of node.level for global symbols
)

func valueGenerator(n *node, i int) func(*frame) reflect.Value {
	switch n.level {
	case globalFrame:
		return func(f *frame) reflect.Value { return valueOf(f.root.data, i) }
	case 0:
		return func(f *frame) reflect.Value { return valueOf(f.data, i) }
	case 1:
		return func(f *frame) reflect.Value { return valueOf(f.anc.data, i) }
	case 2:
		return func(f *frame) reflect.Value { return valueOf(f.anc.anc.data, i) }
	default:
		return func(f *frame) reflect.Value {
			for level := n.level; level > 0; level-- {
				f = f.anc
			}
			return valueOf(f.data, i)
		}
	}
}

// valueOf safely recovers the ith element of data. This is necessary
// because a cancellation prior to any evaluation result may leave
// the frame's data empty.
func valueOf(data []reflect.Value, i int) reflect.Value {
	if i < 0 || i >= len(data) {
		return reflect.Value{}
	}
	return data[i]
}

func genValueRecv(n *node) func(*frame) reflect.Value {
	var v func(*frame) reflect.Value
	if n.recv.node == nil {
		v = func(*frame) reflect.Value { return n.recv.val }
	} else {
		v = genValue(n.recv.node)
	}
	fi := n.recv.index

	if len(fi) == 0 {
		return v
	}

	return func(f *frame) reflect.Value {
		r := v(f)
		for _, i := range fi {
			if r.Kind() == reflect.Ptr {
				r = r.Elem()
			}
			// Note that we can't use reflect FieldByIndex method, as we may
			// traverse valueInterface wrappers to access the embedded receiver.
			r = r.Field(i)
			vi, ok := r.Interface().(valueInterface)
			if ok {
				r = vi.value
			}
		}
		return r
	}
}

func genValueAsFunctionWrapper(n *node) func(*frame) reflect.Value {
	value := genValue(n)
	typ := n.typ.TypeOf()

	return func(f *frame) reflect.Value {
		v := value(f)
		if v.IsNil() {
			return reflect.New(typ).Elem()
		}
		if v.Kind() == reflect.Func {
			return v
		}
		vn, ok := v.Interface().(*node)
		if ok && vn.rval.Kind() == reflect.Func {
			// The node value is already a callable func, no need to wrap it.
			return vn.rval
		}
		return genFunctionWrapper(vn)(f)
	}
}

func genValueAs(n *node, t reflect.Type) func(*frame) reflect.Value {
	value := genValue(n)

	return func(f *frame) reflect.Value {
		v := value(f)
		switch v.Kind() {
		case reflect.Chan, reflect.Func, reflect.Interface, reflect.Ptr, reflect.Map, reflect.Slice, reflect.UnsafePointer:
			if v.IsNil() {
				return reflect.New(t).Elem()
			}
		}
		return v.Convert(t)
	}
}

func genValue(n *node) func(*frame) reflect.Value {
	switch n.kind {
	case basicLit:
		convertConstantValue(n)
		v := n.rval
		if !v.IsValid() {
			v = reflect.New(emptyInterfaceType).Elem()
		}
		return func(f *frame) reflect.Value { return v }
	case funcDecl:
		var v reflect.Value
		if w, ok := n.val.(reflect.Value); ok {
			v = w
		} else {
			v = reflect.ValueOf(n.val)
		}
		return func(f *frame) reflect.Value { return v }
	default:
		if n.rval.IsValid() {
			convertConstantValue(n)
			v := n.rval
			return func(f *frame) reflect.Value { return v }
		}
		if n.sym != nil {
			i := n.sym.index
			if i < 0 && n != n.sym.node {
				return genValue(n.sym.node)
			}
			if n.sym.global {
				return func(f *frame) reflect.Value { return f.root.data[i] }
			}
			return valueGenerator(n, i)
		}
		if n.findex == notInFrame {
			var v reflect.Value
			if w, ok := n.val.(reflect.Value); ok {
				v = w
			} else {
				v = reflect.ValueOf(n.val)
			}
			return func(f *frame) reflect.Value { return v }
		}
		return valueGenerator(n, n.findex)
	}
}

func genDestValue(typ *itype, n *node) func(*frame) reflect.Value {
	convertLiteralValue(n, typ.TypeOf())
	switch {
	case isInterfaceSrc(typ) && (!isEmptyInterface(typ) || len(n.typ.method) > 0):
		return genValueInterface(n)
	case isNamedFuncSrc(n.typ):
		return genFunctionWrapper(n)
	case isInterfaceBin(typ):
		return genInterfaceWrapper(n, typ.rtype)
	case n.kind == basicLit && n.val == nil:
		return func(*frame) reflect.Value { return reflect.New(typ.rtype).Elem() }
	case n.typ.untyped && isComplex(typ.TypeOf()):
		return genValueComplex(n)
	case n.typ.untyped && !typ.untyped:
		return genValueAs(n, typ.TypeOf())
	}
	return genValue(n)
}

func genFuncValue(n *node) func(*frame) reflect.Value {
	value := genValue(n)
	return func(f *frame) reflect.Value {
		v := value(f)
		if nod, ok := v.Interface().(*node); ok {
			return genFunctionWrapper(nod)(f)
		}
		return v
	}
}

func genValueArray(n *node) func(*frame) reflect.Value {
	value := genValue(n)
	// dereference array pointer, to support array operations on array pointer
	if n.typ.TypeOf().Kind() == reflect.Ptr {
		return func(f *frame) reflect.Value {
			return value(f).Elem()
		}
	}
	return value
}

func genValueRangeArray(n *node) func(*frame) reflect.Value {
	value := genValue(n)

	switch {
	case n.typ.TypeOf().Kind() == reflect.Ptr:
		// dereference array pointer, to support array operations on array pointer
		return func(f *frame) reflect.Value {
			return value(f).Elem()
		}
	case n.typ.val != nil && n.typ.val.cat == interfaceT:
		if len(n.typ.val.field) > 0 {
			return func(f *frame) reflect.Value {
				val := value(f)
				v := []valueInterface{}
				for i := 0; i < val.Len(); i++ {
					switch av := val.Index(i).Interface().(type) {
					case []valueInterface:
						v = append(v, av...)
					case valueInterface:
						v = append(v, av)
					default:
						panic(n.cfgErrorf("invalid type %v", val.Index(i).Type()))
					}
				}
				return reflect.ValueOf(v)
			}
		}
		// empty interface, do not wrap.
		fallthrough
	default:
		return func(f *frame) reflect.Value {
			// This is necessary to prevent changes in the returned
			// reflect.Value being reflected back to the value used
			// for the range expression.
			return reflect.ValueOf(value(f).Interface())
		}
	}
}

func genValueInterface(n *node) func(*frame) reflect.Value {
	value := genValue(n)

	return func(f *frame) reflect.Value {
		v := value(f)
		nod := n

		for v.IsValid() {
			// traverse interface indirections to find out concrete type
			vi, ok := v.Interface().(valueInterface)
			if !ok {
				break
			}
			v = vi.value
			nod = vi.node
		}

		// A struct or an array put in an interface is a copy: the
		// variable it came from may change afterwards.
		v = copyAggregate(v)

		// empty interface, do not wrap.
		if nod != nil && isEmptyInterface(nod.typ) {
			return v
		}

		return reflect.ValueOf(valueInterface{nod, v})
	}
}

// copyAggregate returns a copy of v when v is an addressable struct or
// array (a variable, a field, an element), so that the interface value
// made of it does not change with the variable.
func copyAggregate(v reflect.Value) reflect.Value {
	if !v.IsValid() || !v.CanAddr() {
		return v
	}
	if k := v.Kind(); k != reflect.Struct && k != reflect.Array {
		return v
	}
	c := reflect.New(v.Type()).Elem()
	c.Set(v)
	return c
}

func getConcreteValue(val reflect.Value) reflect.Value {
	v := val
	for {
		vi, ok := v.Interface().(valueInterface)
		if !ok {
			break
		}
		v = vi.value
	}
	if v.NumMethod() > 0 {
		return v
	}
	if v.Kind() != reflect.Struct || unsafe2.IsNamedType(v.Type()) {
		// A struct of a type the program defines is the value itself,
		// not an emulated interface: upstream took VE{"name"} returned
		// as error for its last field, the string "name".
		return v
	}
	// Search a concrete value in fields of an emulated interface.
	for i := v.NumField() - 1; i >= 0; i-- {
		vv := v.Field(i)
		if vv.Kind() == reflect.Interface {
			vv = vv.Elem()
		}
		if vv.IsValid() {
			return vv
		}
	}
	return v
}

func zeroInterfaceValue() reflect.Value {
	n := &node{kind: basicLit, typ: &itype{cat: nilT, untyped: true, str: "nil"}}
	v := reflect.New(emptyInterfaceType).Elem()
	return reflect.ValueOf(valueInterface{n, v})
}

func wantEmptyInterface(n *node) bool {
	return isEmptyInterface(n.typ) ||
		n.anc.action == aAssign && n.anc.typ.cat == interfaceT && len(n.anc.typ.field) == 0 ||
		n.anc.kind == returnStmt && n.anc.val.(*node).typ.ret[0].cat == interfaceT && len(n.anc.val.(*node).typ.ret[0].field) == 0
}

func genValueOutput(n *node, t reflect.Type) func(*frame) reflect.Value {
	value := genValue(n)
	switch {
	case n.anc.action == aAssign && n.anc.typ.cat == interfaceT && writesToDest(n):
		if len(n.anc.typ.field) == 0 {
			// empty interface, do not wrap
			return value
		}
		fallthrough
	case n.anc.kind == returnStmt && n.anc.val.(*node).typ.ret[0].cat == interfaceT:
		if nod, ok := n.anc.val.(*node); !ok || len(nod.typ.ret[0].field) == 0 {
			// empty interface, do not wrap
			return value
		}
		// The result of the builtin has to be returned as an interface type.
		// Wrap it in a valueInterface and return the dereferenced value.
		return func(f *frame) reflect.Value {
			d := value(f)
			v := reflect.New(t).Elem()
			d.Set(reflect.ValueOf(valueInterface{n, v}))
			return v
		}
	}
	return value
}

// writesToDest reports whether n, a source of an assignment, was set to
// write straight into its destination's frame location (mcpfs patch):
// an assignment of several values keeps its own assign step, which
// converts the source to an interface destination itself, and wrapping
// it here put the wrapper in the source's own location (var s1, s2 Shape
// = Sq{2}, Sq{3} panicked in reflect.Set).
func writesToDest(n *node) bool {
	a := n.anc
	i := childPos(n) - (len(a.child) - a.nright)
	if a.nright == 0 || i < 0 || i >= a.nleft {
		return true
	}
	d := a.child[i]
	return n.findex == d.findex && n.level == d.level
}

func getBinValue(getMapType func(*itype) reflect.Type, value func(*frame) reflect.Value, f *frame) reflect.Value {
	v := value(f)
	if getMapType == nil {
		return v
	}
	val, ok := v.Interface().(valueInterface)
	if !ok || val.node == nil {
		return v
	}
	if rt := getMapType(val.node.typ); rt != nil {
		return genInterfaceWrapper(val.node, rt)(f)
	}
	return v
}

func valueInterfaceValue(v reflect.Value) reflect.Value {
	for {
		vv, ok := v.Interface().(valueInterface)
		if !ok {
			break
		}
		if !vv.value.IsValid() {
			// mcpfs patch: a nil interface of the snippet's is a nil
			// interface{} (upstream panicked on the empty value).
			return reflect.Zero(reflect.TypeOf((*any)(nil)).Elem())
		}
		v = vv.value
	}
	return v
}

func genValueInterfaceValue(n *node) func(*frame) reflect.Value {
	value := genValue(n)

	return func(f *frame) reflect.Value {
		v := value(f)
		if vi, ok := v.Interface().(valueInterface); ok && vi.node == nil {
			// Uninitialized interface value, set it to a correct zero value.
			v.Set(zeroInterfaceValue())
			v = value(f)
		}
		return valueInterfaceValue(v)
	}
}

func vInt(v reflect.Value) (i int64) {
	if c := vConstantValue(v); c != nil {
		i, _ = constant.Int64Val(constant.ToInt(c))
		return i
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i = v.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		i = int64(v.Uint())
	case reflect.Float32, reflect.Float64:
		i = int64(v.Float())
	case reflect.Complex64, reflect.Complex128:
		i = int64(real(v.Complex()))
	}
	return
}

func vUint(v reflect.Value) (i uint64) {
	if c := vConstantValue(v); c != nil {
		i, _ = constant.Uint64Val(constant.ToInt(c))
		return i
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i = uint64(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		i = v.Uint()
	case reflect.Float32, reflect.Float64:
		i = uint64(v.Float())
	case reflect.Complex64, reflect.Complex128:
		i = uint64(real(v.Complex()))
	}
	return
}

func vComplex(v reflect.Value) (c complex128) {
	if c := vConstantValue(v); c != nil {
		c = constant.ToComplex(c)
		rel, _ := constant.Float64Val(constant.Real(c))
		img, _ := constant.Float64Val(constant.Imag(c))
		return complex(rel, img)
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		c = complex(float64(v.Int()), 0)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		c = complex(float64(v.Uint()), 0)
	case reflect.Float32, reflect.Float64:
		c = complex(v.Float(), 0)
	case reflect.Complex64, reflect.Complex128:
		c = v.Complex()
	}
	return
}

func vFloat(v reflect.Value) (i float64) {
	if c := vConstantValue(v); c != nil {
		i, _ = constant.Float64Val(constant.ToFloat(c))
		return i
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i = float64(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		i = float64(v.Uint())
	case reflect.Float32, reflect.Float64:
		i = v.Float()
	case reflect.Complex64, reflect.Complex128:
		i = real(v.Complex())
	}
	return
}

func vString(v reflect.Value) (s string) {
	if c := vConstantValue(v); c != nil {
		s = constant.StringVal(c)
		return s
	}
	return v.String()
}

func vConstantValue(v reflect.Value) (c constant.Value) {
	if v.Type().Implements(constVal) {
		c = v.Interface().(constant.Value)
	}
	return
}

func genValueInt(n *node) func(*frame) (reflect.Value, int64) {
	value := genValue(n)

	switch n.typ.TypeOf().Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(f *frame) (reflect.Value, int64) { v := value(f); return v, v.Int() }
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return func(f *frame) (reflect.Value, int64) { v := value(f); return v, int64(v.Uint()) }
	case reflect.Float32, reflect.Float64:
		return func(f *frame) (reflect.Value, int64) { v := value(f); return v, int64(v.Float()) }
	case reflect.Complex64, reflect.Complex128:
		if n.typ.untyped && n.rval.IsValid() && imag(n.rval.Complex()) == 0 {
			return func(f *frame) (reflect.Value, int64) { v := value(f); return v, int64(real(v.Complex())) }
		}
	}
	return nil
}

func genValueUint(n *node) func(*frame) (reflect.Value, uint64) {
	value := genValue(n)

	switch n.typ.TypeOf().Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(f *frame) (reflect.Value, uint64) { v := value(f); return v, uint64(v.Int()) }
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return func(f *frame) (reflect.Value, uint64) { v := value(f); return v, v.Uint() }
	case reflect.Float32, reflect.Float64:
		return func(f *frame) (reflect.Value, uint64) { v := value(f); return v, uint64(v.Float()) }
	case reflect.Complex64, reflect.Complex128:
		if n.typ.untyped && n.rval.IsValid() && imag(n.rval.Complex()) == 0 {
			return func(f *frame) (reflect.Value, uint64) { v := value(f); return v, uint64(real(v.Complex())) }
		}
	}
	return nil
}

func genValueFloat(n *node) func(*frame) (reflect.Value, float64) {
	value := genValue(n)

	switch n.typ.TypeOf().Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(f *frame) (reflect.Value, float64) { v := value(f); return v, float64(v.Int()) }
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return func(f *frame) (reflect.Value, float64) { v := value(f); return v, float64(v.Uint()) }
	case reflect.Float32, reflect.Float64:
		return func(f *frame) (reflect.Value, float64) { v := value(f); return v, v.Float() }
	case reflect.Complex64, reflect.Complex128:
		if n.typ.untyped && n.rval.IsValid() && imag(n.rval.Complex()) == 0 {
			return func(f *frame) (reflect.Value, float64) { v := value(f); return v, real(v.Complex()) }
		}
	}
	return nil
}

func genValueComplex(n *node) func(*frame) reflect.Value {
	vc := genComplex(n)
	return func(f *frame) reflect.Value { return reflect.ValueOf(vc(f)) }
}

func genComplex(n *node) func(*frame) complex128 {
	value := genValue(n)

	switch n.typ.TypeOf().Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(f *frame) complex128 { return complex(float64(value(f).Int()), 0) }
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return func(f *frame) complex128 { return complex(float64(value(f).Uint()), 0) }
	case reflect.Float32, reflect.Float64:
		return func(f *frame) complex128 { return complex(value(f).Float(), 0) }
	case reflect.Complex64, reflect.Complex128:
		return func(f *frame) complex128 { return value(f).Complex() }
	}
	return nil
}

func genValueString(n *node) func(*frame) (reflect.Value, string) {
	value := genValue(n)

	return func(f *frame) (reflect.Value, string) { v := value(f); return v, v.String() }
}

// ifaceEqual is == with an interface operand, as Go has it (dynamic type
// and value), looking through the interpreter's wrappers: a valueInterface
// (a value of a type with methods in an interface{}) and the wrapper of a
// compiled interface (an E in an error). Upstream compared the wrappers,
// so err == E{"a"}, a == any(k) and two equal Level(2) in any were false.
// t0 and t1 are the operands' static types: a wrapper against a value of a
// static type with methods is equal when the types are the same and the
// values equal.
func ifaceEqual(i0, i1 interface{}, t0, t1 *itype) bool {
	c0, c1 := ifaceConcrete(i0), ifaceConcrete(i1)
	if c0 == c1 {
		return true
	}
	if c0 != nil && c1 != nil {
		// Structs or arrays holding interface{} values: compare what
		// the wrappers in them hold (unwrapAggregate).
		if r0, r1 := reflect.ValueOf(c0), reflect.ValueOf(c1); r0.Type() == r1.Type() && r0.Kind() != reflect.Interface && holdsEmptyIface(r0.Type()) {
			return unwrapAggregate(r0).Interface() == unwrapAggregate(r1).Interface()
		}
	}
	w0, ok0 := i0.(valueInterface)
	w1, ok1 := i1.(valueInterface)
	switch {
	case ok0 && !ok1:
		return wrappedEqual(w0, i1, t1)
	case ok1 && !ok0:
		return wrappedEqual(w1, i0, t0)
	}
	return false
}

// wrappedEqual is == of a wrapper and a plain value v of static type t.
func wrappedEqual(w valueInterface, v interface{}, t *itype) bool {
	for w.value.IsValid() && w.value.CanInterface() {
		inner, ok := w.value.Interface().(valueInterface)
		if !ok {
			break
		}
		w = inner
	}
	if !w.value.IsValid() {
		return v == nil
	}
	if v == nil || w.node == nil || w.node.typ == nil || t == nil || isInterface(t) || w.node.typ.id() != t.id() {
		return false
	}
	rv := reflect.ValueOf(v)
	if rv.Type() != w.value.Type() {
		if !rv.Type().ConvertibleTo(w.value.Type()) {
			return false
		}
		rv = rv.Convert(w.value.Type())
	}
	return w.value.Interface() == rv.Interface()
}

func ifaceConcrete(x interface{}) interface{} {
	for {
		switch v := x.(type) {
		case valueInterface:
			if !v.value.IsValid() {
				return nil
			}
			x = v.value.Interface()
			continue
		case nil:
			return nil
		}
		if cv, ok := wrappedValue(x); ok {
			x = cv.Interface()
			continue
		}
		return x
	}
}

// mapKey returns the key k stands for in a map whose keys are of type kt.
// In a map with interface{} keys, a value of a type with methods is held
// as itself, not as the interpreter's wrapper (valueInterface): wrappers
// of equal values are different keys (each holds its own node and copy),
// so m[k] with k an any holding Level(1) missed m[Level(1)]. Values of
// the program's types have run-time types of their own (definedRType), so
// the unwrapped key keeps its type; rangeMap wraps it again. Keys of a
// struct or array type holding interface{} values (struct{ A any; B int
// }, [2]any) have those unwrapped the same way (unwrapAggregate).
func mapKey(kt reflect.Type, k reflect.Value) reflect.Value {
	if compiledIfaceKey(kt) {
		return internIfaceKey(kt, k)
	}
	if kt == valueInterfaceType && k.IsValid() {
		if vi, ok := k.Interface().(valueInterface); ok {
			return reflect.ValueOf(internWrapper(vi))
		}
		return k
	}
	if !k.IsValid() || !holdsEmptyIface(kt) {
		return k
	}
	if kt.Kind() != reflect.Interface {
		return unwrapAggregate(k)
	}
	v := k
	for v.IsValid() {
		if v.Kind() == reflect.Interface {
			if v.IsNil() {
				break
			}
			v = v.Elem()
			continue
		}
		if v.Type() != valueInterfaceType {
			break
		}
		v = v.Interface().(valueInterface).value
	}
	if !v.IsValid() || (v.Kind() == reflect.Interface && v.IsNil()) {
		return reflect.Zero(kt)
	}
	return unwrapAggregate(v)
}

var emptyIfaceHolders sync.Map // reflect.Type → bool

// holdsEmptyIface reports whether t is interface{}, or a struct or array
// holding one by value (what == and map keys compare).
func holdsEmptyIface(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Interface:
		return t.NumMethod() == 0
	case reflect.Struct, reflect.Array:
	default:
		return false
	}
	if t == valueInterfaceType {
		return false
	}
	if h, ok := emptyIfaceHolders.Load(t); ok {
		return h.(bool)
	}
	h := false
	if t.Kind() == reflect.Array {
		h = holdsEmptyIface(t.Elem())
	} else {
		for i := 0; i < t.NumField() && !h; i++ {
			h = holdsEmptyIface(t.Field(i).Type)
		}
	}
	emptyIfaceHolders.Store(t, h)
	return h
}

// unwrapAggregate returns v, a struct or an array, with the interface{}
// values it holds unwrapped (mapKey): a copy, or v itself when it holds
// none. == of such values compares these (ifaceEqual): upstream compared
// the wrappers, so Pair{a, 1} == Pair{Kind("x"), 1} with a an any
// holding Kind("x") was false.
func unwrapAggregate(v reflect.Value) reflect.Value {
	if !v.IsValid() || !holdsEmptyIface(v.Type()) {
		return v
	}
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		u := mapKey(v.Type(), v)
		out := reflect.New(v.Type()).Elem()
		out.Set(u)
		return out
	case reflect.Struct, reflect.Array:
		c := reflect.New(v.Type()).Elem()
		c.Set(accessible(v))
		n := v.Len
		if v.Kind() == reflect.Struct {
			n = v.NumField
		}
		for i := 0; i < n(); i++ {
			var e reflect.Value
			if v.Kind() == reflect.Struct {
				e = c.Field(i)
			} else {
				e = c.Index(i)
			}
			if !holdsEmptyIface(e.Type()) {
				continue
			}
			e = accessible(e)
			e.Set(unwrapAggregate(e))
		}
		return c
	}
	return v
}

// accessible returns v, addressable, without the read-only flag of an
// unexported field.
func accessible(v reflect.Value) reflect.Value {
	if !v.CanAddr() {
		c := reflect.New(v.Type()).Elem()
		if v.CanInterface() {
			c.Set(v)
			return c
		}
		return v
	}
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

// genMapKey returns the key of a map index expression m[k] (mapKey).
func genMapKey(m, k *node) func(*frame) reflect.Value {
	value := genValue(k)
	if m.typ == nil {
		return value
	}
	mt := m.typ.frameType()
	if mt.Kind() == reflect.Ptr {
		mt = mt.Elem()
	}
	if mt.Kind() != reflect.Map {
		return value
	}
	kt := mt.Key()
	if kt == valueInterfaceType && k.typ != nil && !isInterfaceSrc(k.typ) && k.typ.cat != nilT {
		// A value of a concrete type indexing a map keyed by an
		// interface of the program's: wrapped as the keys are.
		value = genValueInterface(k)
	}
	if compiledIfaceKey(kt) && k.typ != nil && k.typ.cat != nilT {
		// A value indexing a map keyed by a compiled interface
		// (map[error]int): wrapped as the keys are (internIfaceKey).
		value = genInterfaceWrapper(k, kt)
	}
	if !canonKey(kt) {
		return value
	}
	return func(f *frame) reflect.Value { return mapKey(kt, value(f)) }
}

// canonKey reports whether keys of type kt are made canonical by mapKey.
func canonKey(kt reflect.Type) bool {
	return kt == valueInterfaceType || holdsEmptyIface(kt) || compiledIfaceKey(kt)
}

// compiledIfaceKey reports whether kt is a compiled interface with
// methods (error, fmt.Stringer): a value of the program's in it is held
// in a wrapper struct (genInterfaceWrapper) whose method fields cannot
// be hashed.
func compiledIfaceKey(kt reflect.Type) bool {
	return kt.Kind() == reflect.Interface && kt.NumMethod() > 0 && kt != valueInterfaceType
}

var ifaceKeys sync.Map // ifaceKeyID → reflect.Value (kt holding a *wrapper)

type ifaceKeyID struct {
	kt, t reflect.Type
	v     interface{}
}

// internIfaceKey returns the key k stands for in a map keyed by kt, a
// compiled interface (mcpfs patch): a value of the program's is held in
// it as a wrapper struct, which holds funcs and cannot be hashed, so
// map[error]int{E{1}: 1} panicked (hash of unhashable type
// interp._error). Such a key is held as a pointer to one wrapper per
// interface, type and value, which implements the interface too; a key
// read back (ifaceKeyOut) is the wrapper again. A value that cannot be a
// key panics as Go does (hash of unhashable type).
func internIfaceKey(kt reflect.Type, k reflect.Value) reflect.Value {
	v := k
	if !v.IsValid() || v.Kind() == reflect.Interface && v.IsNil() {
		// The nil key (m[nil]), however it is held.
		return reflect.Zero(kt)
	}
	if v.Kind() == reflect.Interface {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct || v.NumField() == 0 || v.Type().Field(0).Name != "IValue" {
		return k
	}
	cv := v.Field(0)
	for cv.IsValid() && cv.Kind() == reflect.Interface && !cv.IsNil() {
		cv = cv.Elem()
	}
	if vi, ok := valueInterfaceOf(cv); ok {
		cv = vi
	}
	if !cv.IsValid() || !cv.CanInterface() {
		return k
	}
	id := ifaceKeyID{kt, cv.Type(), unwrapAggregate(cv).Interface()}
	if w, ok := ifaceKeys.Load(id); ok {
		return w.(reflect.Value)
	}
	p := reflect.New(v.Type())
	p.Elem().Set(v)
	out := reflect.New(kt).Elem()
	out.Set(p)
	w, _ := ifaceKeys.LoadOrStore(id, out)
	return w.(reflect.Value)
}

// valueInterfaceOf returns what v holds when it is the interpreter's
// wrapper of a value (valueInterface).
func valueInterfaceOf(v reflect.Value) (reflect.Value, bool) {
	if !v.IsValid() || v.Type() != valueInterfaceType {
		return v, false
	}
	vi := v.Interface().(valueInterface)
	return vi.value, vi.value.IsValid()
}

// ifaceKeyOut returns a key read from a map keyed by a compiled
// interface as the interpreter holds such a value: the wrapper struct,
// not the pointer to it that internIfaceKey made the key.
func ifaceKeyOut(kt reflect.Type) func(reflect.Value) reflect.Value {
	return func(k reflect.Value) reflect.Value {
		v := k
		if v.Kind() == reflect.Interface && !v.IsNil() {
			v = v.Elem()
		}
		if v.Kind() != reflect.Ptr || v.IsNil() {
			return k
		}
		e := v.Elem()
		if e.Kind() != reflect.Struct || e.NumField() == 0 || e.Type().Field(0).Name != "IValue" {
			return k
		}
		out := reflect.New(kt).Elem()
		out.Set(e)
		return out
	}
}

var wrappedKeys sync.Map // wrappedKey → valueInterface

type wrappedKey struct {
	t reflect.Type
	v interface{}
}

// internWrapper returns the one wrapper the map keys of an interface of
// the program's use for vi's type and value (mcpfs patch): such keys are
// the wrappers themselves, and two wrappers of equal values differ (each
// holds its own node and copy), so m[s1] and m[s2] with s1, s2 Shapes
// holding Sq{2} were two entries. A value that cannot be a key panics as
// Go does (hash of unhashable type).
func internWrapper(vi valueInterface) valueInterface {
	for vi.value.IsValid() && vi.value.CanInterface() {
		inner, ok := vi.value.Interface().(valueInterface)
		if !ok {
			break
		}
		vi = inner
	}
	if !vi.value.IsValid() || !vi.value.CanInterface() {
		return vi
	}
	key := wrappedKey{vi.value.Type(), unwrapAggregate(vi.value).Interface()}
	if w, ok := wrappedKeys.Load(key); ok {
		return w.(valueInterface)
	}
	w, _ := wrappedKeys.LoadOrStore(key, vi)
	return w.(valueInterface)
}

// mapKeyOut returns a key read from a map with interface{} keys as the
// interpreter holds such a value: wrapped when its type has methods.
func mapKeyOut(k reflect.Value) reflect.Value {
	v := k
	if v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	if vi, ok := definedValue(v); ok {
		return reflect.ValueOf(vi)
	}
	return k
}
