package policy

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func pats(globs ...string) []Pattern {
	var out []Pattern
	for i, g := range globs {
		out = append(out, Pattern{Glob: g, At: "at" + string(rune('0'+i))})
	}
	return out
}

const (
	readOnly    = `{"name":"t","annotations":{"readOnlyHint":true}}`
	destructive = `{"name":"t","annotations":{"destructiveHint":true}}`
	additive    = `{"name":"t","annotations":{"readOnlyHint":false,"destructiveHint":false,"openWorldHint":false}}`
	bare        = `{"name":"t"}`
)

func TestCheck(t *testing.T) {
	tests := []struct {
		name   string
		p      Policy
		tool   string
		raw    string
		denied bool
		rule   string
	}{
		{"zero policy allows", Policy{}, "delete_all", destructive, false, ""},
		{"global deny exact", Policy{Global: Scope{Deny: pats("delete_all")}}, "delete_all", readOnly, true, `at0 "delete_all"`},
		{"global deny glob", Policy{Global: Scope{Deny: pats("x", "delete_*")}}, "delete_all", readOnly, true, `at1 "delete_*"`},
		{"glob misses", Policy{Global: Scope{Deny: pats("delete_*")}}, "read", readOnly, false, ""},
		{"server/tool glob", Policy{Global: Scope{Deny: pats("docs/*")}}, "read", readOnly, true, `"docs/*"`},
		{"server/tool by config name", Policy{Global: Scope{Deny: pats("my-docs/read")}}, "read", readOnly, true, `"my-docs/read"`},
		{"server/tool other server", Policy{Global: Scope{Deny: pats("github/*")}}, "read", readOnly, false, ""},
		{"server deny", Policy{Servers: map[string]Scope{"docs": {Deny: pats("read")}}}, "read", readOnly, true, `"read"`},
		{"server deny by key", Policy{Servers: map[string]Scope{"my-docs": {Deny: pats("read")}}}, "read", readOnly, true, `"read"`},
		{"other server's deny", Policy{Servers: map[string]Scope{"github": {Deny: pats("read")}}}, "read", readOnly, false, ""},
		{"allow list keeps", Policy{Global: Scope{Allow: pats("read*"), AllowAt: "mcpfs.tools.allow"}}, "read", bare, false, ""},
		{"allow list drops", Policy{Global: Scope{Allow: pats("read*"), AllowAt: "mcpfs.tools.allow"}}, "write", bare, true, "not in mcpfs.tools.allow"},
		{"server allow list drops", Policy{Servers: map[string]Scope{"docs": {Allow: pats("list"), AllowAt: "A"}}}, "read", bare, true, "not in A"},
		{"both allow lists must pass", Policy{Global: Scope{Allow: pats("*"), AllowAt: "G"}, Servers: map[string]Scope{"docs": {Allow: pats("list"), AllowAt: "S"}}}, "read", bare, true, "not in S"},
		{"deny beats allow", Policy{Global: Scope{Allow: pats("*"), Deny: pats("read")}}, "read", readOnly, true, `"read"`},
		{"refuse destructive", Policy{Global: Scope{Refuse: pats(Destructive)}}, "t", destructive, true, "destructiveHint true"},
		{"refuse destructive: spec default", Policy{Global: Scope{Refuse: pats(Destructive)}}, "t", bare, true, "not read-only and no destructiveHint"},
		{"refuse destructive: read-only passes", Policy{Global: Scope{Refuse: pats(Destructive)}}, "t", readOnly, false, ""},
		{"refuse destructive: additive passes", Policy{Global: Scope{Refuse: pats(Destructive)}}, "t", additive, false, ""},
		{"refuse notReadOnly", Policy{Global: Scope{Refuse: pats(NotReadOnly)}}, "t", additive, true, "readOnlyHint false"},
		{"refuse openWorld", Policy{Global: Scope{Refuse: pats(OpenWorld)}}, "t", bare, true, "no openWorldHint"},
		{"refuse openWorld: closed passes", Policy{Global: Scope{Refuse: pats(OpenWorld)}}, "t", additive, false, ""},
		{"except exempts", Policy{Global: Scope{Refuse: pats(Destructive), Except: pats("t")}}, "t", destructive, false, ""},
		{"server except exempts global refuse", Policy{Global: Scope{Refuse: pats(Destructive)}, Servers: map[string]Scope{"docs": {Except: pats("*")}}}, "t", destructive, false, ""},
		{"except does not beat deny", Policy{Global: Scope{Deny: pats("t"), Except: pats("t")}}, "t", readOnly, true, `"t"`},
		{"server refuse", Policy{Servers: map[string]Scope{"docs": {Refuse: pats(NotReadOnly)}}}, "t", bare, true, "no readOnlyHint"},
		{"unlisted tool counts as unannotated", Policy{Global: Scope{Refuse: pats(Destructive)}}, "t", "", true, "no destructiveHint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := Tool{Server: "docs", ServerKey: "my-docs", Name: tt.tool}
			if tt.raw != "" {
				tool.Raw = json.RawMessage(tt.raw)
			}
			d := tt.p.Check(tool)
			if d.Denied != tt.denied || !strings.Contains(d.Rule, tt.rule) {
				t.Errorf("got %+v, want denied %v by a rule containing %q", d, tt.denied, tt.rule)
			}
			err := tt.p.CheckCall(tool)
			if (err != nil) != tt.denied {
				t.Errorf("CheckCall: got %v, want denied %v", err, tt.denied)
			}
			if err != nil && (!errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), d.Rule)) {
				t.Errorf("CheckCall: got %v, want ErrDenied naming %q", err, d.Rule)
			}
		})
	}
}

func TestPinning(t *testing.T) {
	off, on := false, true
	tests := []struct {
		name string
		p    *Policy
		want bool
	}{
		{"nil", nil, true},
		{"zero", &Policy{}, true},
		{"global off", &Policy{Global: Scope{Pin: &off}}, false},
		{"server off", &Policy{Servers: map[string]Scope{"my-docs": {Pin: &off}}}, false},
		{"server on over global off", &Policy{Global: Scope{Pin: &off}, Servers: map[string]Scope{"docs": {Pin: &on}}}, true},
		{"other server off", &Policy{Servers: map[string]Scope{"github": {Pin: &off}}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.Pinning("docs", "my-docs"); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestEqual(t *testing.T) {
	off := false
	a := Policy{Global: Scope{Deny: pats("x")}, Servers: map[string]Scope{"s": {Pin: &off}}}
	b := Policy{Global: Scope{Deny: pats("x")}, Servers: map[string]Scope{"s": {Pin: &off}}}
	if !a.Equal(&b) {
		t.Error("equal policies: Equal = false")
	}
	b.Servers["s"] = Scope{}
	if a.Equal(&b) {
		t.Error("different pin: Equal = true")
	}
	if !(&Policy{}).Equal(nil) || !(&Policy{}).IsZero() || a.IsZero() {
		t.Error("zero policy and nil: not equal")
	}
}

func TestCheckGlob(t *testing.T) {
	for glob, bad := range map[string]bool{
		"delete_*": false, "github/merge_*": false, "*": false, "[ab]*": false,
		"": true, " ": true, "a/b/c": true, "/x": true, "x/": true, "[": true,
	} {
		if err := CheckGlob(glob); (err != nil) != bad {
			t.Errorf("CheckGlob(%q) = %v, want error %v", glob, err, bad)
		}
	}
}
