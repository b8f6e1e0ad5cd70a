// Package skills owns saved skills: folders skills/<name>/ with a SKILL.md
// (Agent Skills front matter: name, description) and Go files of package
// <name>, importable by snippets as mcpfs/skills/<name>. Skills are stored
// as plain files in the data dir, validated on save and versioned.
//
// It must not import exec's worker or cmd.
package skills
