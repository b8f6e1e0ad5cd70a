//go:build go1.24

package unsafe2

import (
	"reflect"
	"sync"
	"unsafe"
)

// The layouts below must match internal/abi/type.go (Go 1.24 and later:
// the map type is the swiss table's). Unlike abiType above they spell
// out which words are pointers, since values of them are allocated here.

type namedHeader struct {
	Size       uintptr
	PtrBytes   uintptr
	Hash       uint32
	TFlag      uint8
	Align      uint8
	FieldAlign uint8
	Kind       uint8
	Equal      unsafe.Pointer // func(unsafe.Pointer, unsafe.Pointer) bool
	GCData     unsafe.Pointer
	Str        int32
	PtrToThis  int32
}

type namedElem struct {
	namedHeader
	Elem unsafe.Pointer
}

type namedArray struct {
	namedHeader
	Elem  unsafe.Pointer
	Slice unsafe.Pointer
	Len   uintptr
}

type namedChan struct {
	namedHeader
	Elem unsafe.Pointer
	Dir  int
}

type namedMap struct {
	namedHeader
	Key       unsafe.Pointer
	Elem      unsafe.Pointer
	Group     unsafe.Pointer
	Hasher    unsafe.Pointer // func(unsafe.Pointer, uintptr) uintptr
	GroupSize uintptr
	SlotSize  uintptr
	ElemOff   uintptr
	Flags     uint32
}

type namedStruct struct {
	namedHeader
	PkgPath unsafe.Pointer
	Fields  []abiStructField
}

const (
	tflagUncommon  = 1 << 0
	tflagExtraStar = 1 << 1
	tflagNamed     = 1 << 2
)

// addReflectOff registers a pointer with the runtime, which then
// resolves the returned offset to it (how package reflect names the
// types it makes).
//
//go:linkname addReflectOff reflect.addReflectOff
func addReflectOff(ptr unsafe.Pointer) int32

var named struct {
	sync.Mutex
	types map[string]reflect.Type // by key
	base  sync.Map                // a named copy (reflect.Type) → the type it copies; read without the lock
}

// IsNamedType reports whether t was made by NamedType.
func IsNamedType(t reflect.Type) bool {
	if t == nil {
		return false
	}
	_, ok := named.base.Load(t)
	return ok
}

// NamedType returns a defined type named name (as reflect prints it:
// "main.key") with the layout, kind, fields and equality of t and no
// methods: a type of its own, as each type a Go program defines is,
// where reflect can only make unnamed ones. Values convert between it
// and t (reflect.Value.Convert), and it is neither assignable to nor
// identical with t, so interface values of the two never compare equal
// and a type assertion to one does not match the other. key identifies
// the defined type: the same key returns the same type. ok is false
// for func and interface kinds and for unnamed struct types with
// methods (promoted from an embedded field), which keep t. When t is itself a type made by NamedType, the
// copy is made of the type t copies.
func NamedType(t reflect.Type, name, key string) (reflect.Type, bool) {
	if t == nil {
		return nil, false
	}
	named.Lock()
	defer named.Unlock()
	if nt, ok := named.types[key]; ok {
		return nt, true
	}
	if b, ok := named.base.Load(t); ok {
		t = b.(reflect.Type)
	}
	switch t.Kind() {
	case reflect.Func, reflect.Interface, reflect.Invalid:
		return nil, false
	case reflect.Struct:
		if t.Name() == "" && t.NumMethod() > 0 {
			// Methods promoted from an embedded field: the defined
			// type has them too.
			return nil, false
		}
	}
	src := unsafe.Pointer(unpackType(t))
	var hdr *namedHeader
	var p unsafe.Pointer
	switch t.Kind() {
	case reflect.Array:
		c := new(namedArray)
		*c = *(*namedArray)(src)
		hdr, p = &c.namedHeader, unsafe.Pointer(c)
	case reflect.Chan:
		c := new(namedChan)
		*c = *(*namedChan)(src)
		hdr, p = &c.namedHeader, unsafe.Pointer(c)
	case reflect.Map:
		c := new(namedMap)
		*c = *(*namedMap)(src)
		hdr, p = &c.namedHeader, unsafe.Pointer(c)
	case reflect.Pointer, reflect.Slice:
		c := new(namedElem)
		*c = *(*namedElem)(src)
		hdr, p = &c.namedHeader, unsafe.Pointer(c)
	case reflect.Struct:
		c := new(namedStruct)
		*c = *(*namedStruct)(src)
		hdr, p = &c.namedHeader, unsafe.Pointer(c)
	default: // booleans, numbers, strings, unsafe.Pointer
		c := new(namedHeader)
		*c = *(*namedHeader)(src)
		hdr, p = c, unsafe.Pointer(c)
	}
	// A name as abi.NewName writes it: flags, varint length, bytes.
	b := []byte{0}
	for n := len(name); ; n >>= 7 {
		if n < 0x80 {
			b = append(b, byte(n))
			break
		}
		b = append(b, byte(n&0x7f|0x80))
	}
	b = append(b, name...)
	hdr.Str = addReflectOff(unsafe.Pointer(&b[0]))
	hdr.TFlag = hdr.TFlag&^(tflagUncommon|tflagExtraStar) | tflagNamed
	hdr.PtrToThis = 0 // reflect.PointerTo makes the pointer type anew

	var v any
	(*emptyInterface)(unsafe.Pointer(&v)).typ = (*abiType)(p)
	nt := reflect.TypeOf(v)
	if named.types == nil {
		named.types = map[string]reflect.Type{}
	}
	named.types[key] = nt
	named.base.Store(nt, t)
	return nt, true
}
