package check

import (
	"regexp"
	"sync"
)

// lazyRegexp is a regular expression compiled on first use. The check's
// hints match the type checker's messages against about a hundred
// patterns; compiled at package initialisation they cost every mcpfs
// process (each command, and each snippet worker) a millisecond or more at
// start, used or not.
type lazyRegexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

// lazyExprs is every lazyRegexp, for the test that compiles them all.
var lazyExprs []*lazyRegexp

func lazyRE(expr string) *lazyRegexp {
	l := &lazyRegexp{expr: expr}
	lazyExprs = append(lazyExprs, l)
	return l
}

func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.expr) })
	return l.re
}

func (l *lazyRegexp) MatchString(s string) bool { return l.get().MatchString(s) }

func (l *lazyRegexp) FindStringSubmatch(s string) []string { return l.get().FindStringSubmatch(s) }

func (l *lazyRegexp) FindAllStringSubmatch(s string, n int) [][]string {
	return l.get().FindAllStringSubmatch(s, n)
}
