// Package skills owns saved skills: folders skills/<name>/ with a SKILL.md
// (Agent Skills front matter: name, description, then usage) and Go files
// of package <name>, importable by snippets as mcpfs/skills/<name>.
//
// A Store keeps skills as plain files in a data dir and versions every
// change:
//
//	<dir>/<name>/SKILL.md, *.go, *.md     the current version, for people and git
//	<dir>/.history/<name>/v<N>/...        every version, immutable once written
//	<dir>/.history/<name>/v<N>/.meta.json when and how version N was made
//
// The history is the truth: a skill's current version is its highest
// complete version directory. A version is written into a temporary
// directory, every file and the directory are fsynced, and the directory is
// renamed into place, so a crash (kill -9, power loss) at any moment leaves
// either the old version or the new one, never a mix. The plain folder is
// then replaced by an atomic directory exchange; Open repairs it if a crash
// came in between. Removing a skill writes a version that marks it removed,
// so removals are restorable too. Writers in several processes are
// serialized by a lock file.
//
// Every save is validated first (Validate): the name, the SKILL.md front
// matter, the package clause of each Go file, and a type-check of the skill
// and of every saved skill that imports it against the current tree
// (exec/check), including the standard-library allowlist that snippets
// have. An invalid save is refused with a *ValidationError listing
// positioned problems (file:line:col: message), and the last good version
// stays current.
//
// A skill that declares `func Run(args A) (R, error)` (or `func Run() (R,
// error)`) has an entry point (Skill.Run) that can be offered as a tool:
// RunSnippet builds the snippet that calls it, DecodeRunOutput reads what
// it printed.
//
// It must not import exec's worker or cmd.
package skills
