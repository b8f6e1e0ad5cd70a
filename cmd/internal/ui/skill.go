package ui

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strings"

	"github.com/mcpfs/mcpfs/skills"
)

// SkillFiles turns a snippet into the files of skill name: the package
// clause becomes "package <name>", func main becomes the exported Main
// that snippets call, and a SKILL.md with the description and how to call
// it is added. The snippet must parse.
func SkillFiles(name, description string, src []byte) (map[string][]byte, error) {
	if err := skills.CheckName(name); err != nil {
		return nil, err
	}
	description = strings.Join(strings.Fields(description), " ")
	if description == "" {
		return nil, fmt.Errorf("a skill needs a description: say what it does and when to use it")
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name+".go", src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("the snippet does not parse: %w", err)
	}
	type edit struct {
		off, end int
		text     string
	}
	edits := []edit{{fset.Position(f.Name.Pos()).Offset, fset.Position(f.Name.End()).Offset, name}}
	hasMain := false
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "main" {
			edits = append(edits, edit{fset.Position(fd.Name.Pos()).Offset, fset.Position(fd.Name.End()).Offset, "Main"})
			hasMain = true
		}
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].off > edits[j].off })
	out := append([]byte(nil), src...)
	for _, e := range edits {
		out = append(out[:e.off:e.off], append([]byte(e.text), out[e.end:]...)...)
	}
	var md strings.Builder
	fmt.Fprintf(&md, "---\nname: %s\ndescription: >\n  %s\n---\n# %s\n\n%s\n", name, description, name, description)
	if hasMain {
		fmt.Fprintf(&md, "\nSaved from the mcpfs page. Call it from a snippet:\n\n"+
			"    import \"mcpfs/skills/%s\"\n\n    func main() { %s.Main() }\n", name, name)
	}
	return map[string][]byte{skills.SkillFile: []byte(md.String()), name + ".go": out}, nil
}
