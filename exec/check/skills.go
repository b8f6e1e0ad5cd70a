package check

import (
	"bytes"
	"strconv"
	"strings"
)

// rewriteSkill rewrites the files of the skill package tp for the
// interpreter, as Check rewrites a snippet: a skill is Go a model wrote, so
// it uses range over int, min and max, slices and maps helpers just the
// same. It records, once per type-checked package, the rewritten files that
// differ from the tree's (by tree path, "skills/<name>/<file>.go") and the
// problems that cannot be rewritten, positioned in the skill's files.
func (c *treeCache) rewriteSkill(tp *treePkg) {
	if tp.rewritten != nil || tp.info == nil {
		return
	}
	tp.rewritten = map[string][]byte{}
	for i, f := range tp.files {
		name := c.fset.Position(f.Pos()).Filename
		ch := &checker{
			filename: name,
			src:      tp.srcs[i],
			fset:     c.fset,
			file:     f,
			info:     tp.info,
			pkg:      tp.pkg,
			imports:  map[string]bool{},
		}
		out := ch.rewriteTagged("f" + strconv.Itoa(i))
		if len(ch.errs) > 0 {
			tp.rewriteErrs = append(tp.rewriteErrs, ch.errs...)
			continue
		}
		if !bytes.Equal(out, tp.srcs[i]) {
			tp.rewritten[name] = out
		}
	}
}

// rewriteSkills rewrites the skill packages among pkgs (import paths) and
// returns the rewritten files by tree path, or the problems found.
func (c *treeCache) rewriteSkills(pkgs []string) (map[string][]byte, ErrorList) {
	var files map[string][]byte
	var errs ErrorList
	for _, p := range pkgs {
		if !strings.HasPrefix(p, treePrefix+"skills/") {
			continue
		}
		tp := c.pkgs[p]
		if tp == nil || tp.pkg == nil {
			continue
		}
		c.rewriteSkill(tp)
		errs = append(errs, tp.rewriteErrs...)
		for name, src := range tp.rewritten {
			if files == nil {
				files = map[string][]byte{}
			}
			files[name] = src
		}
	}
	return files, errs
}
