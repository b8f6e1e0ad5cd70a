package naming

import (
	"go/token"
	"strings"
	"testing"
)

func TestExported(t *testing.T) {
	long := strings.Repeat("a", 10000)
	tests := []struct{ in, want string }{
		{"create_issue", "CreateIssue"},
		{"get-file", "GetFile"},
		{"readGraph", "ReadGraph"},
		{"HTTPServer", "HTTPServer"},
		{"2fa", "X2fa"},
		{"type", "Type"},
		{"a.b c/d", "ABCD"},
		{"__x__", "X"},
		{"", "Unnamed"},
		{"ünïcode", "NCode"},
		{"検索", "X" + hash8("検索")},
		{long, "A" + long[:54] + "_" + hash8(long)},
	}
	for _, tt := range tests {
		got := Exported(tt.in)
		if got != tt.want {
			t.Errorf("Exported(%.20q) = %q, want %q", tt.in, got, tt.want)
		}
		if !token.IsIdentifier(got) || !token.IsExported(got) || len(got) > maxIdent {
			t.Errorf("Exported(%.20q) = %q: not a short exported identifier", tt.in, got)
		}
	}
	if Exported(long) == Exported(long+"b") {
		t.Errorf("two long names that differ at the end map to the same identifier %q", Exported(long))
	}
}

func TestFileBase(t *testing.T) {
	tests := []struct{ in, want string }{
		{"read_file", "read_file"},
		{"get-file", "get_file"},
		{"readGraph", "read_graph"},
		{"GetFile", "get_file"},
		{"_hidden", "hidden"},
		{".dot", "dot"},
		{"x_linux", "x_linux_tool"},
		{"y_windows_arm64", "y_windows_arm64_tool"},
		{"z_amd64", "z_amd64_tool"},
		{"a_test", "a_test_tool"},
		{"x_386", "x_386_tool"},
		{"linux", "linux"},
		{"doc", "doc"},
		{"", "unnamed"},
		{"検索", "tool_" + hash8("検索")},
		{"a/../../etc", "a_etc"},
	}
	for _, tt := range tests {
		if got := FileBase(tt.in); got != tt.want {
			t.Errorf("FileBase(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	long := FileBase(strings.Repeat("x", 10000))
	if len(long) > maxFileBase || specialFile(long) {
		t.Errorf("FileBase of a long name = %q: too long or special", long)
	}
}

func TestValidTag(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"path", true}, {"x-y", true}, {"$ref", true}, {"a b", true}, {"ünïcode", true}, {"a.b:c", true},
		{"", false}, {"-", false}, {`a"b`, false}, {"a,b", false}, {`a\b`, false}, {"a`b", false},
		{" lead", false}, {"trail ", false}, {"a\nb", false}, {"a\x00", false}, {"a'b", false},
	}
	for _, tt := range tests {
		if got := ValidTag(tt.in); got != tt.want {
			t.Errorf("ValidTag(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestSetUnique(t *testing.T) {
	s := NewSet()
	steps := []struct {
		base     string
		suffixes []string
		want     string
	}{
		{"Foo", []string{"Args", "Result"}, "Foo"},
		{"FooArgs", []string{"Args", "Result"}, "FooArgs2"}, // FooArgs is Foo's type
		{"GetFile", []string{"Args", "Result"}, "GetFile"},
		{"GetFile", []string{"Args", "Result"}, "GetFile2"},
		{"GetFile2Args", nil, "GetFile2Args2"},
		{"Foo", nil, "Foo2"},
	}
	for _, st := range steps {
		if got := s.Unique(st.base, st.suffixes...); got != st.want {
			t.Errorf("Unique(%q, %q) = %q, want %q", st.base, st.suffixes, got, st.want)
		}
	}

	f := NewFileSet("doc")
	fileSteps := []struct{ base, want string }{
		{"doc", "doc_2"},
		{"DOC", "doc_3"},
		{"read", "read"},
		{"READ", "read_2"},
		{"x_38", "x_38"},
	}
	for _, st := range fileSteps {
		if got := f.Unique(st.base); !strings.EqualFold(got, st.want) {
			t.Errorf("file Unique(%q) = %q, want %q", st.base, got, st.want)
		}
	}
	// x_38_2 ... never lands on an architecture name.
	for i := 0; i < 400; i++ {
		if got := f.Unique("x_3"); specialFile(got) {
			t.Fatalf("file Unique handed out special name %q", got)
		}
	}
}
