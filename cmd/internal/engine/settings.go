package engine

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/exec"
	"github.com/mcpfs/mcpfs/exec/check"
)

// Where an effective setting came from.
const (
	FromDefault = "default"
	FromConfig  = "config"
)

// FlagError is the error of a command-line flag beyond what the config
// allows: a usage error.
type FlagError struct{ Err error }

func (e *FlagError) Error() string { return e.Err.Error() }
func (e *FlagError) Unwrap() error { return e.Err }

func flagErrorf(format string, args ...any) error {
	return &FlagError{fmt.Errorf(format, args...)}
}

// Settings are how snippets run: the defaults, then the config's
// "mcpfs" section, then command-line flags. Options is complete for the
// fields the section covers (Logger, OutputDir, User and Executable are
// the caller's).
type Settings struct {
	Allow   []string // the standard packages snippets may import, sorted
	Options exec.Options
	// From says where each setting came from: fromDefault, fromConfig or
	// the flag ("--timeout"), by the setting's key in the section.
	From map[string]string
}

// Flags are the command-line flags that override settings; a zero
// field was not given.
type Flags struct {
	Timeout time.Duration // --timeout
	Sandbox string        // --sandbox: "auto" or "strict"
	// DefaultTimeout is a run's time when the config sets none (`mcpfs
	// serve --timeout`, whose default always comes); capped by maxTimeout.
	DefaultTimeout time.Duration
}

// SettingKeys are the settings doctor lists, in order.
var SettingKeys = []string{"imports", "timeout", "maxTimeout", "memory", "output", "outputFile", "concurrentCalls", "sandbox", "pool"}

// SettingsFor returns the settings of cfg with flags applied. An error is
// a *discovery.ConfigError (a package the config may not allow) or a
// usage error (a flag beyond the config's bounds).
func SettingsFor(cfg *discovery.Config, flags Flags) (*Settings, error) {
	s := cfg.Settings
	if err := cfg.CheckImports(check.CanAllow); err != nil {
		return nil, err
	}
	allow, err := check.Allowlist(s.Allow, s.Deny)
	if err != nil {
		return nil, &discovery.ConfigError{File: cfg.Path, JSONPath: "mcpfs.imports", Msg: err.Error(), Err: err}
	}
	rs := &Settings{Allow: allow, From: map[string]string{}}
	o := &rs.Options
	set := func(key string, fromCfg bool) {
		if fromCfg {
			rs.From[key] = FromConfig
		} else {
			rs.From[key] = FromDefault
		}
	}
	set("imports", len(s.Allow) > 0 || len(s.Deny) > 0)

	o.MaxTimeout = exec.DefaultMaxTimeout
	if s.MaxTimeout > 0 {
		o.MaxTimeout = s.MaxTimeout
	}
	set("maxTimeout", s.MaxTimeout > 0)
	o.Timeout = exec.DefaultTimeout
	switch {
	case s.Timeout > 0:
		o.Timeout = s.Timeout
		if s.MaxTimeout == 0 && o.Timeout > o.MaxTimeout {
			o.MaxTimeout = o.Timeout // a long default needs a cap at least as long
		}
	case flags.DefaultTimeout > 0:
		o.Timeout = min(flags.DefaultTimeout, o.MaxTimeout)
	default:
		o.Timeout = min(o.Timeout, o.MaxTimeout) // a short cap shortens the default too
	}
	set("timeout", s.Timeout > 0)
	if flags.Timeout > 0 {
		if flags.Timeout > o.MaxTimeout {
			where := "the default"
			if s.MaxTimeout > 0 {
				where = fmt.Sprintf("mcpfs.limits.maxTimeout in %s", ConfigName(cfg.Path))
			}
			return nil, flagErrorf("--timeout %v is over the longest a run may take, %v (%s); raise mcpfs.limits.maxTimeout in the config to allow more", flags.Timeout, o.MaxTimeout, where)
		}
		o.Timeout = flags.Timeout
		rs.From["timeout"] = "--timeout"
	}

	o.Memory = exec.DefaultMemory
	if s.Memory > 0 {
		o.Memory = s.Memory
	}
	set("memory", s.Memory > 0)
	o.MaxOutput = exec.DefaultMaxOutput
	if s.Output > 0 {
		o.MaxOutput = int(s.Output)
	}
	set("output", s.Output > 0)
	o.MaxOutputFile = exec.DefaultMaxOutputFile
	if s.OutputFile > 0 {
		o.MaxOutputFile = s.OutputFile
	}
	set("outputFile", s.OutputFile > 0)
	if int64(o.MaxOutput) > o.MaxOutputFile {
		// Only one of the two is set: the file holds the whole output.
		if s.Output > 0 {
			o.MaxOutputFile = int64(o.MaxOutput)
		} else {
			o.MaxOutput = int(o.MaxOutputFile)
		}
	}
	o.MaxConcurrentCalls = exec.DefaultMaxConcurrentCalls
	if s.ConcurrentCalls > 0 {
		o.MaxConcurrentCalls = s.ConcurrentCalls
	}
	set("concurrentCalls", s.ConcurrentCalls > 0)

	o.Strict = s.Sandbox == "strict"
	set("sandbox", s.Sandbox != "")
	if flags.Sandbox != "" {
		o.Strict = flags.Sandbox == "strict"
		rs.From["sandbox"] = "--sandbox"
	}

	o.PoolSize = exec.DefaultPoolSize
	if s.Pool != nil {
		o.PoolSize = *s.Pool
		if o.PoolSize == 0 {
			o.PoolSize = -1 // exec.Options: negative is none, zero the default
		}
	}
	set("pool", s.Pool != nil)
	return rs, nil
}

// Check returns the options that check snippets under these settings.
func (rs *Settings) Check() check.Options { return check.Options{Allow: rs.Allow} }

// Value renders the setting key for doctor and logs.
func (rs *Settings) Value(key string) string {
	o := rs.Options
	switch key {
	case "imports":
		added, removed := diffAllow(rs.Allow)
		switch {
		case len(added) == 0 && len(removed) == 0:
			return fmt.Sprintf("%d standard packages", len(rs.Allow))
		case len(removed) == 0:
			return fmt.Sprintf("%d standard packages (+%s)", len(rs.Allow), strings.Join(added, " +"))
		case len(added) == 0:
			return fmt.Sprintf("%d standard packages (-%s)", len(rs.Allow), strings.Join(removed, " -"))
		}
		return fmt.Sprintf("%d standard packages (+%s -%s)", len(rs.Allow), strings.Join(added, " +"), strings.Join(removed, " -"))
	case "timeout":
		return o.Timeout.String()
	case "maxTimeout":
		return o.MaxTimeout.String()
	case "memory":
		return discovery.FormatBytes(o.Memory)
	case "output":
		return discovery.FormatBytes(int64(o.MaxOutput))
	case "outputFile":
		return discovery.FormatBytes(o.MaxOutputFile)
	case "concurrentCalls":
		return fmt.Sprint(o.MaxConcurrentCalls)
	case "sandbox":
		if o.Strict {
			return "strict"
		}
		return "auto"
	case "pool":
		return fmt.Sprint(max(o.PoolSize, 0))
	}
	return ""
}

// diffAllow returns the packages allow adds to check.DefaultAllow and
// those it lacks.
func diffAllow(allow []string) (added, removed []string) {
	for _, p := range allow {
		if !slices.Contains(check.DefaultAllow, p) {
			added = append(added, p)
		}
	}
	for _, p := range check.DefaultAllow {
		if !slices.Contains(allow, p) {
			removed = append(removed, p)
		}
	}
	return added, removed
}

// equal reports whether two settings run snippets alike.
func (rs *Settings) equal(other *Settings) bool {
	a, b := rs.Options, other.Options
	return slices.Equal(rs.Allow, other.Allow) && a.Timeout == b.Timeout && a.MaxTimeout == b.MaxTimeout &&
		a.Memory == b.Memory && a.MaxOutput == b.MaxOutput && a.MaxOutputFile == b.MaxOutputFile &&
		a.MaxConcurrentCalls == b.MaxConcurrentCalls && a.Strict == b.Strict && a.PoolSize == b.PoolSize
}
