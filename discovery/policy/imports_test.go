package policy

import (
	"go/build"
	"strings"
	"testing"
)

// TestImports keeps the package kernel-free: the standard library only,
// nothing that touches files, processes or the network.
func TestImports(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	denied := map[string]bool{"os": true, "os/exec": true, "net": true, "net/http": true, "syscall": true, "io/ioutil": true, "unsafe": true}
	for _, imp := range pkg.Imports {
		std := !strings.Contains(strings.SplitN(imp, "/", 2)[0], ".")
		if !std || denied[imp] {
			t.Errorf("package policy imports %s", imp)
		}
	}
}
