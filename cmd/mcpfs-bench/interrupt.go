package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// A bench that is interrupted (Ctrl-C, or SIGTERM from a harness) must not
// leave FUSE mounts behind: a killed run's mounts stay as dead mounts that
// hang whoever stats them. Whatever makes a mount registers its clean-up
// with onInterrupt; the first SIGINT or SIGTERM runs every registered
// clean-up (bounded in time) and ends the bench with status 130.

var interrupts struct {
	mu   sync.Mutex
	next int
	fns  map[int]func()
}

// onInterrupt registers f to run when the bench is interrupted; remove
// unregisters it (call it once the thing f cleans up is gone).
func onInterrupt(f func()) (remove func()) {
	interrupts.mu.Lock()
	defer interrupts.mu.Unlock()
	if interrupts.fns == nil {
		interrupts.fns = map[int]func(){}
	}
	id := interrupts.next
	interrupts.next++
	interrupts.fns[id] = f
	return func() {
		interrupts.mu.Lock()
		delete(interrupts.fns, id)
		interrupts.mu.Unlock()
	}
}

// cleanupGrace bounds the clean-ups of an interrupted bench.
const cleanupGrace = 20 * time.Second

// handleInterrupts returns a context that ends at the first SIGINT or
// SIGTERM, when the registered clean-ups run and the process exits 130.
// stop ends the handling.
func handleInterrupts(parent context.Context, stderr *os.File) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
			return
		case sig := <-sigs:
			fmt.Fprintf(stderr, "mcpfs-bench: %v: unmounting and stopping what the bench started\n", sig)
			cancel()
			runInterruptCleanups(cleanupGrace)
			os.Exit(130)
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}

// runInterruptCleanups runs every registered clean-up at once and waits
// for them, at most grace.
func runInterruptCleanups(grace time.Duration) {
	interrupts.mu.Lock()
	var fns []func()
	for _, f := range interrupts.fns {
		fns = append(fns, f)
	}
	interrupts.fns = nil
	interrupts.mu.Unlock()
	var wg sync.WaitGroup
	for _, f := range fns {
		wg.Add(1)
		go func() { defer wg.Done(); f() }()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(grace):
	}
}
