package discovery

import (
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestHugeToolList has a stdio server answer tools/list with a 50 MB line:
// the listing's bound (16 MiB by default) cuts it off while it is read, the
// server is published as failed with ErrListTooLarge and a message naming
// the setting, and memory stays near the bound. A server-level
// maxListBytes above the answer lets it through.
func TestHugeToolList(t *testing.T) {
	noLeaks(t)
	const huge = 50 << 20
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)

	s, _ := startSupervisor(t, fastRestarts(), faultServer("f", "huge-line=52428800"))
	began := time.Now()
	ss := mustServer(t, settle(t, s), "f", StateFailed)
	close(stop)
	<-sampled
	grew := int64(peak.Load()) - int64(before.HeapInuse)
	t.Logf("50 MB tools/list: failed after %v; heap in use grew by at most %d MiB; err: %s", time.Since(began).Round(time.Millisecond), grew>>20, ss.Err)
	if !strings.Contains(ss.Err, "tool list too large") || !strings.Contains(ss.Err, "maxListBytes") {
		t.Errorf("err: got %q, want the listing's bound named", ss.Err)
	}
	if grew > 5*DefaultMaxListBytes { // the line buffer doubles, and its old copies wait for the GC
		t.Errorf("heap grew by %d MiB reading a %d MiB listing over a %d MiB bound; want it near the bound", grew>>20, huge>>20, DefaultMaxListBytes>>20)
	}

	// Over the bound across pages, checked once read.
	opts := fastRestarts()
	opts.MaxListBytes = 64 << 10
	s2, _ := startSupervisor(t, opts, faultServer("g", "tools=2000,page=100"))
	ss = mustServer(t, settle(t, s2), "g", StateFailed)
	t.Logf("2000 tools in pages over a 64 KiB bound: %s", ss.Err)
	if !strings.Contains(ss.Err, "pages") {
		t.Errorf("err: got %q, want the page count named", ss.Err)
	}

	// Raised for one server: the 2 MB listing goes through.
	sc := faultServer("h", "huge-line=2000000")
	sc.MaxListBytes = 4 << 20
	opts.MaxListBytes = 1 << 20
	s3, _ := startSupervisor(t, opts, sc)
	mustServer(t, settle(t, s3), "h", StateReady)
	if _, err := s3.CallTool(t.Context(), "h", "echo", nil); err != nil && errors.Is(err, ErrListTooLarge) {
		t.Errorf("call: %v", err)
	}
}
