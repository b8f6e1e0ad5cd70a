package trust

import (
	"go/build"
	"strings"
	"testing"
)

// TestImports: the catalog, the policy and the standard library; no
// network, processes, FUSE or generator.
func TestImports(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{
		"github.com/mcpfs/mcpfs/discovery":        true,
		"github.com/mcpfs/mcpfs/discovery/policy": true,
	}
	denied := map[string]bool{"os/exec": true, "net": true, "net/http": true, "syscall": true, "unsafe": true}
	for _, imp := range pkg.Imports {
		std := !strings.Contains(strings.SplitN(imp, "/", 2)[0], ".")
		if (std && denied[imp]) || (!std && !allowed[imp]) {
			t.Errorf("package trust imports %s", imp)
		}
	}
}
