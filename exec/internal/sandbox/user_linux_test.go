package sandbox

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestLastCap checks the capability count found with PR_CAPBSET_READ
// against the kernel's own file.
func TestLastCap(t *testing.T) {
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err != nil {
		t.Skipf("no /proc/sys/kernel/cap_last_cap to compare with: %v", err)
	}
	want, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("cap_last_cap %q: %v", b, err)
	}
	if got := lastCap(); got != want {
		t.Fatalf("lastCap() = %d, the kernel says %d", got, want)
	}
}
