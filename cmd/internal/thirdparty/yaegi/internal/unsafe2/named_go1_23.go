//go:build !go1.24

package unsafe2

import "reflect"

// NamedType makes defined types only with the type layout of Go 1.24
// and later; before, defined types without methods keep their
// underlying type.
func NamedType(t reflect.Type, name, key string) (reflect.Type, bool) { return nil, false }

// IsNamedType reports whether t was made by NamedType.
func IsNamedType(t reflect.Type) bool { return false }
