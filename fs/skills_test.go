package fs_test

import (
	"strings"
	"testing"
	"testing/fstest"
	"time"

	mcpfs "github.com/mcpfs/mcpfs/fs"
)

func testSkills() []mcpfs.Skill {
	return []mcpfs.Skill{
		{Name: "report", Description: "Summarises files.", Saved: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
			Files:  map[string][]byte{"SKILL.md": []byte("---\nname: report\ndescription: Summarises files.\n---\n"), "report.go": []byte("package report\n")},
			HasRun: true},
		{Name: "Bad Name", Files: map[string][]byte{"x.go": nil}},
	}
}

func TestTreeSkills(t *testing.T) {
	tree := mcpfs.New(testCatalog(), mcpfs.Options{Skills: testSkills()})
	if err := fstest.TestFS(tree, "skills/report/SKILL.md", "skills/report/report.go", "servers/files/doc.go"); err != nil {
		t.Fatal(err)
	}
	entries, _ := tree.ReadDir("skills")
	if len(entries) != 1 || entries[0].Name() != "report" {
		t.Errorf("skills/ lists %v, want only report (an invalid name is left out)", entries)
	}
	readme, _ := tree.ReadFile("README.md")
	if !strings.Contains(string(readme), "- skills/report/ — Summarises files. (has Run)") {
		t.Errorf("README.md does not list the skill:\n%s", readme)
	}
	info, _ := tree.Stat("skills/report/report.go")
	if !info.ModTime().Equal(testSkills()[0].Saved) {
		t.Errorf("mod time %v, want the save time", info.ModTime())
	}

	// WithSkills shares the catalog and replaces the skills.
	empty := tree.WithSkills(nil)
	if _, err := empty.Stat("skills/report"); err == nil {
		t.Error("WithSkills(nil) still has skills/report")
	}
	if _, ok := tree.Skill("report"); !ok {
		t.Error("WithSkills changed the original tree")
	}
	if empty.Catalog() != tree.Catalog() {
		t.Error("WithSkills changed the catalog")
	}
	if err := fstest.TestFS(empty, "servers/files/doc.go"); err != nil {
		t.Fatal(err)
	}
}
