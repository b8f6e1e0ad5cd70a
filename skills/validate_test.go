package skills_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpfs/mcpfs/skills"
)

func TestValidate(t *testing.T) {
	tree := baseTree()
	good := skillFiles("shout", "import \"strings\"\n\n// Shout upper-cases s.\nfunc Shout(s string) string { return strings.ToUpper(s) }\n")
	with := func(base map[string][]byte, name, data string) map[string][]byte {
		out := map[string][]byte{}
		for k, v := range base {
			out[k] = v
		}
		if data == "" {
			delete(out, name)
		} else {
			out[name] = []byte(data)
		}
		return out
	}
	tests := []struct {
		name  string
		skill string
		files map[string][]byte
		want  []string // substrings of the error; none means valid
	}{
		{"valid", "shout", good, nil},
		{"calls a server", "find", skillFiles("find", "import \"mcpfs/servers/notes\"\n\nfunc Find(q string) (string, error) {\n\tout, err := notes.Search(notes.SearchArgs{Query: q})\n\tif err != nil {\n\t\treturn \"\", err\n\t}\n\treturn out.Text(), nil\n}\n"), nil},
		{"bad name", "Shout", good, []string{`skill name "Shout"`}},
		{"keyword", "func", skillFiles("func", ""), []string{"reserved"}},
		{"no SKILL.md", "shout", with(good, "SKILL.md", ""), []string{"skills/shout/SKILL.md is missing"}},
		{"no front matter", "shout", with(good, "SKILL.md", "# Shout\n"), []string{"skills/shout/SKILL.md:1:1: SKILL.md must start with YAML front matter"}},
		{"no description", "shout", with(good, "SKILL.md", "---\nname: shout\n---\n"), []string{"no description"}},
		{"name mismatch", "shout", with(good, "SKILL.md", "---\nname: yell\ndescription: x\n---\n"), []string{`front matter name "yell" does not match the folder skills/shout`}},
		{"wrong package", "shout", with(good, "shout.go", "package main\n\nfunc F() {}\n"), []string{"skills/shout/shout.go:1:9: package main; the Go files of skills/shout are package shout"}},
		{"syntax error", "shout", with(good, "shout.go", "package shout\n\nfunc F( {}\n"), []string{"skills/shout/shout.go:3:", "syntax error"}},
		{"type error", "shout", with(good, "shout.go", "package shout\n\nfunc F() int {\n\treturn \"s\"\n}\n"), []string{"skills/shout/shout.go:4:9: ", "cannot use"}},
		{"unknown tool", "find", skillFiles("find", "import \"mcpfs/servers/notes\"\n\nvar _ = notes.Lookup\n"), []string{"skills/find/find.go:5:15: undefined: notes.Lookup"}},
		{"refused import", "shout", with(good, "shout.go", "package shout\n\nimport \"os\"\n\nfunc Host() string { h, _ := os.Hostname(); return h }\n"), []string{`skills/shout/shout.go:3:8: import "os" is not allowed in skills`, "filesystem server"}},
		{"no Go files", "shout", with(good, "shout.go", ""), []string{"skills/shout has no Go files"}},
		{"scratch file", "shout", with(good, "notes.txt", "x"), []string{"skills/shout/notes.txt is not a skill file"}},
		{"bad Run", "shout", with(good, "run.go", "package shout\n\nfunc Run(a, b string) error { return nil }\n"), []string{"skills/shout/run.go:3:6: func Run takes 2 arguments"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sk, err := skills.Validate(tree, tt.skill, tt.files, nil)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				if sk.Name != tt.skill || sk.Description == "" {
					t.Errorf("got skill %q with description %q", sk.Name, sk.Description)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate succeeded, want an error with %q", tt.want)
			}
			var ve *skills.ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, skills.ErrInvalid) {
				t.Errorf("error %T is not a *ValidationError wrapping ErrInvalid", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

// TestValidateDependents refuses a change that breaks a skill importing
// the changed one.
func TestValidateDependents(t *testing.T) {
	tree := baseTree()
	base, err := skills.Validate(tree, "base", skillFiles("base", "func Twice(s string) string { return s + s }\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	user, err := skills.Validate(tree, "user", skillFiles("user", "import \"mcpfs/skills/base\"\n\nfunc Four(s string) string { return base.Twice(base.Twice(s)) }\n"), []skills.Skill{base})
	if err != nil {
		t.Fatal(err)
	}
	_, err = skills.Validate(tree, "base", skillFiles("base", "func Thrice(s string) string { return s + s + s }\n"), []skills.Skill{base, user})
	if err == nil || !strings.Contains(err.Error(), "skills/user/user.go:5:42: undefined: base.Twice (skill user imports base)") {
		t.Errorf("breaking a dependent: got %v", err)
	}
}

func TestFrontMatter(t *testing.T) {
	tests := []struct {
		in         string
		name, desc string
		problem    string
	}{
		{"---\nname: a\ndescription: Does a.\n---\n", "a", "Does a.", ""},
		{"---\nname: \"a\"\ndescription: 'It''s a.'\nlicense: MIT\nmetadata:\n  k: v\n---\n", "a", "It's a.", ""},
		{"---\nname: a\ndescription: >\n  Folded\n  text.\n---\n", "a", "Folded text.", ""},
		{"---\nname: a # comment\ndescription: x\n---\n", "a", "x", ""},
		{"---\nname: a\n", "", "", "not closed"},
		{"---\nname: a\nname: b\ndescription: x\n---\n", "", "", "name is given twice"},
	}
	for _, tt := range tests {
		fm, probs := skills.ParseFrontMatter("SKILL.md", []byte(tt.in))
		if tt.problem != "" {
			if len(probs) == 0 || !strings.Contains(probs[0].Error(), tt.problem) {
				t.Errorf("%q: problems %v, want %q", tt.in, probs, tt.problem)
			}
			continue
		}
		if len(probs) > 0 || fm.Name != tt.name || fm.Description != tt.desc {
			t.Errorf("%q: got %+v %v, want name %q description %q", tt.in, fm, probs, tt.name, tt.desc)
		}
	}
}
