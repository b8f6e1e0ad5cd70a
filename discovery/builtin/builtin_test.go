package builtin

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestNames(t *testing.T) {
	got := Names()
	if want := []string{"docstore"}; !slices.Equal(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	if !slices.IsSorted(got) {
		t.Errorf("Names() = %v, want sorted", got)
	}
}

func TestNew(t *testing.T) {
	tests := []struct {
		name    string
		wantErr string // substring; "" means success
	}{
		{name: "docstore"},
		{name: "nope", wantErr: `built-in server "nope": unknown built-in server; built-in servers are: docstore`},
		{name: "", wantErr: "built-in servers are: docstore"},
		{name: "Docstore", wantErr: "unknown built-in server"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, err := New(tt.name)
			if tt.wantErr == "" {
				if err != nil || srv == nil {
					t.Fatalf("New(%q) = %v, %v; want a server", tt.name, srv, err)
				}
				return
			}
			if !errors.Is(err, ErrUnknownServer) {
				t.Fatalf("New(%q) error = %v, want one wrapping ErrUnknownServer", tt.name, err)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("New(%q) error = %q, want it to contain %q", tt.name, err, tt.wantErr)
			}
		})
	}
}

func TestServerInfo(t *testing.T) {
	srv, err := New("docstore")
	if err != nil {
		t.Fatal(err)
	}
	_, init := connect(t, srv)
	if init.ServerInfo.Name != "docstore" || init.ServerInfo.Version != DocstoreVersion {
		t.Errorf("server info = %+v, want name docstore, version %s", init.ServerInfo, DocstoreVersion)
	}
	if !strings.Contains(init.Instructions, "list_documents") {
		t.Errorf("instructions = %q, want them to mention list_documents", init.Instructions)
	}
	if init.Capabilities.Tools == nil {
		t.Error("capabilities declare no tools")
	}
}
