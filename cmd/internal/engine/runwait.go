package engine

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/discovery/naming"
)

// connectingImports returns the names of the servers of cat that a run
// imports (imports holds package names) and that are connecting; with
// noTools, only those with no tools known (a run waits for them).
func connectingImports(cat *discovery.Catalog, imports map[string]bool, noTools bool) []string {
	var names []string
	for _, s := range cat.Servers {
		if imports[naming.Package(s.Name)] && s.State == discovery.StateConnecting && (!noTools || len(s.Tools) == 0) {
			names = append(names, s.Name)
		}
	}
	return names
}

// waitImports waits until no server a run imports is connecting without
// tools, bounded by the connect timeout, as WaitFor does.
func (e *Engine) waitImports(ctx context.Context, imports map[string]bool) {
	if len(connectingImports(e.sup.Catalog(), imports, true)) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, e.connectTimeout+5*time.Second)
	defer cancel()
	updates, stop := e.sup.Watch()
	defer stop()
	for {
		select {
		case cat, ok := <-updates:
			if !ok || len(connectingImports(cat, imports, true)) == 0 {
				return
			}
		case <-ctx.Done():
			return
		}
	}
}

// watchImports tells report, until stop is called, the servers a run
// imports that are connecting (whether the run waits for them or its
// calls do, the tree having their tools from the cache): at once when
// there are some, then each time the set changes, and nil at the end if
// it told any.
func (e *Engine) watchImports(imports map[string]bool, report func(servers []string)) (stop func()) {
	if report == nil || len(imports) == 0 {
		return func() {}
	}
	updates, unwatch := e.sup.Watch()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		last := connectingImports(e.sup.Catalog(), imports, false)
		if len(last) > 0 {
			report(last)
		}
		for {
			select {
			case cat, ok := <-updates:
				if !ok {
					updates = nil
					continue
				}
				now := connectingImports(cat, imports, false)
				if !slices.Equal(now, last) {
					report(now)
					last = now
				}
			case <-done:
				if len(last) > 0 {
					report(nil)
				}
				return
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
		unwatch()
	}
}
