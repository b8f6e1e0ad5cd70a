package discovery

import (
	"context"
	"os"
	"reflect"
	"syscall"
	"time"
)

// DefaultWatchInterval is how often WatchConfig looks at the config file.
const DefaultWatchInterval = 500 * time.Millisecond

// WatchConfig watches the file cfg was read from and calls onChange with
// the new config each time the file changes in a way that changes its
// servers or its settings (the "mcpfs" object), and onError when an edit
// leaves the file invalid (or unreadable); the caller keeps using the last
// good config meanwhile, and onChange is called again once the file is
// fixed. It polls, so it follows editors that replace the file by
// renaming, and it runs until ctx is done. A config without a file (the
// built-in default) is not watched.
//
// Variables in the file are expanded with getenv (nil means os.LookupEnv),
// as Load does.
func WatchConfig(ctx context.Context, cfg *Config, interval time.Duration, getenv func(string) (string, bool), onChange func(*Config), onError func(error)) {
	if cfg == nil || cfg.Path == "" {
		return
	}
	if interval <= 0 {
		interval = DefaultWatchInterval
	}
	if getenv == nil {
		getenv = os.LookupEnv
	}
	// The first look re-reads the file: it may have changed between
	// loading cfg and this call.
	var last fileState
	good := cfg
	var lastErr string
	t := time.NewTicker(interval)
	defer t.Stop()
	for first := true; ; first = false {
		if !first {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
		st := statConfig(cfg.Path)
		if st == last {
			continue
		}
		last = st
		next, err := loadFile(cfg.Path, cfg.Source, getenv)
		if err != nil {
			// Report each distinct problem once, not on every tick.
			if err.Error() != lastErr {
				lastErr = err.Error()
				onError(err)
			}
			continue
		}
		lastErr = ""
		if reflect.DeepEqual(next.Servers, good.Servers) && next.Settings.Equal(good.Settings) {
			continue
		}
		good = next
		onChange(next)
	}
}

// fileState is what WatchConfig compares between ticks.
type fileState struct {
	exists     bool
	size       int64
	mtime      time.Time
	dev, inode uint64
}

func statConfig(path string) fileState {
	fi, err := os.Stat(path)
	if err != nil {
		return fileState{}
	}
	st := fileState{exists: true, size: fi.Size(), mtime: fi.ModTime()}
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		st.dev, st.inode = uint64(sys.Dev), sys.Ino
	}
	return st
}
