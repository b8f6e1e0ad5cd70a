package search

// Ordering among candidates (docs/BENCHMARKS.md, "Ninth round"): three
// general signals, each off by default (params), that reorder documents
// the words already found: the query's action against the action of a
// tool's name, a preference for the base of a family of names
// (navigate over navigate_back), and query words near each other in one
// field of a document.

// action is the kind of thing a tool does, as its name's verb says.
type action int

const (
	noAction action = iota
	readAction
	writeAction
	deleteAction
	// createAction and updateAction are writes that make something new
	// and change something there; with aoSplit they disagree with each
	// other, but both agree with a write that says neither.
	createAction
	updateAction
)

// actionVerbs are the verbs tool names start with, by the kind of action
// they name: reading changes nothing, writing creates or changes, deleting
// removes. They are the verbs of tool naming (CRUD), not of any query.
var actionVerbs = func() map[string]action {
	m := map[string]action{}
	for a, ws := range map[action]string{
		readAction:   "get read list search find fetch query view show open look describe inspect retrieve",
		writeAction:  "write post push merge reply comment send fill",
		createAction: "create add make new insert upload fork",
		updateAction: "update edit set change modify rename replace move",
		deleteAction: "delete remove erase clear destroy unlink",
	} {
		for _, w := range terms(ws) {
			m[w] = a
		}
	}
	return m
}()

// questionWords open a question: a query that asks something wants to
// read, whatever verb follows ("what changed", "did anyone approve").
var questionWords = set(`what which who whom whose how when where why did does do is are was were has have`)

// queryAction is the action the query asks for: with aoQuestion, reading
// for a question; otherwise the action of its first concept that names one
// through its best alternative naming any (the word itself, or the
// vocabulary's word for it: "erase" is delete). noAction when none does,
// or when its alternatives of the best weight disagree.
func (x *Index) queryAction(query string, cs []concept) action {
	if x.p.aoQuestion {
		if rs := runs(query); len(rs) > 0 && len(rs[0]) == 1 && questionWords[rs[0][0]] {
			return readAction
		}
	}
	for _, c := range cs {
		if c.expansion {
			continue
		}
		best, found := 0.0, noAction
		for _, a := range c.alts {
			if len(a.terms) == 0 {
				continue
			}
			act := actionVerbs[a.terms[0]]
			switch {
			case act == noAction:
			case a.weight > best:
				best, found = a.weight, act
			case a.weight == best && act != found:
				found = noAction
			}
		}
		if best > 0 {
			return found
		}
	}
	return noAction
}

// nameAction is the action of a document's name: its first word that
// names one (the words of the server's prefix left out).
func nameAction(name []string) (action, int) {
	for i, t := range name {
		if a := actionVerbs[t]; a != noAction {
			return a, i
		}
	}
	return noAction, -1
}

// agree reports whether a query's action and a name's agree: the same
// kind, or two writes (with aoSplit, unless one creates and the other
// updates).
func (x *Index) agree(q, d action) bool {
	write := func(a action) bool { return a == writeAction || a == createAction || a == updateAction }
	switch {
	case q == d:
		return true
	case write(q) && write(d):
		return !x.p.aoSplit || q == writeAction || d == writeAction
	}
	return false
}

// actionFactor scales document i by how its name's action meets the
// query's: up by aoBonus when they agree and the query also asks for a
// word of the name besides its verb (its object), down by aoPenalty when
// they differ; when the query names no action, down by delPenalty if the
// name deletes.
func (x *Index) actionFactor(i int, qa action, cs []concept) float64 {
	name := x.names[i]
	if x.p.aoFullName {
		name = x.fullNames[i]
	}
	da, at := nameAction(name)
	switch {
	case qa == noAction && da == deleteAction:
		return 1 - x.p.delPenalty
	case qa == noAction, da == noAction:
		return 1
	case !x.agree(qa, da):
		return 1 - x.p.aoPenalty
	}
	for j, t := range name {
		if j == at {
			continue
		}
		for _, c := range cs {
			if c.expansion {
				continue
			}
			for _, a := range c.alts {
				if contains(a.terms, t) {
					return 1 + x.p.aoBonus
				}
			}
		}
	}
	return 1
}

// fullNames returns the distinct stems of each document's whole name
// but the words of its server's field (slack_, puppeteer_): with the
// words most of a server's tools share (file of read_file), which
// nameTerms leaves out.
func fullNames(docs []Doc, server []map[string]bool) [][]string {
	out := make([][]string, len(docs))
	for i, d := range docs {
		seen := map[string]bool{}
		for _, r := range runs(d.Tool) {
			for _, w := range r {
				if t := stem(w); !stopWords[w] && !seen[t] && !server[i][t] {
					seen[t] = true
					out[i] = append(out[i], t)
				}
			}
		}
	}
	return out
}

// families marks, per document, whether its name extends the name of
// another tool of its server by words at the end (browser_navigate_back
// of browser_navigate, list_directory_with_sizes of list_directory), and
// the words it adds.
func families(docs []Doc) [][]string {
	out := make([][]string, len(docs))
	byServer := map[string][]int{}
	for i, d := range docs {
		if d.Kind == KindTool {
			byServer[d.Server] = append(byServer[d.Server], i)
		}
	}
	words := func(d Doc) []string {
		var ws []string
		for _, r := range runs(d.Tool) {
			ws = append(ws, r...)
		}
		return ws
	}
	for _, is := range byServer {
		for _, i := range is {
			long := words(docs[i])
			for _, j := range is {
				short := words(docs[j])
				if i == j || len(short) == 0 || len(short) >= len(long) {
					continue
				}
				ok := true
				for k, w := range short {
					ok = ok && long[k] == w
				}
				if ok && (out[i] == nil || len(long)-len(short) < len(out[i])) {
					var extra []string
					for _, w := range long[len(short):] {
						if !stopWords[w] {
							extra = append(extra, stem(w))
						}
					}
					if len(extra) > 0 {
						out[i] = extra
					}
				}
			}
		}
	}
	return out
}

// familyFactor scales down, by famPenalty, a document whose name extends
// a sibling's when the query asks for none of the words it adds: the
// variant (navigate back, with sizes) is for a query that says so.
func (x *Index) familyFactor(i int, cs []concept) float64 {
	extra := x.extends[i]
	if len(extra) == 0 || x.p.famPenalty == 0 {
		return 1
	}
	for _, t := range extra {
		for _, c := range cs {
			if c.expansion {
				continue
			}
			for _, a := range c.alts {
				if contains(a.terms, t) {
					return 1
				}
			}
		}
	}
	return 1 - x.p.famPenalty
}

// proxFields are the fields whose word positions proximity looks at:
// name, title, summary and description.
const proxFields = 4

// positions returns, per document, each term's positions in the name,
// title, summary and description, the fields apart by more than any
// window.
func positions(docs []Doc) []map[string][]int {
	out := make([]map[string][]int, len(docs))
	for i := range docs {
		m := map[string][]int{}
		for f := 0; f < proxFields; f++ {
			for k, t := range terms(fields[f](&docs[i])) {
				m[t] = append(m[t], f*100000+k)
			}
		}
		out[i] = m
	}
	return out
}

// proximityFactor scales document i up by proxBoost times the share of
// pairs of the query's word concepts (any two, not only neighbours) that
// occur within proxWindow words of each other in one of its fields.
func (x *Index) proximityFactor(i int, cs []concept) float64 {
	var ws []concept
	for _, c := range cs {
		if c.word && !c.expansion {
			ws = append(ws, c)
		}
	}
	if len(ws) < 2 {
		return 1
	}
	pos := x.pos[i]
	at := func(c concept) []int {
		var ps []int
		for _, a := range c.alts {
			if len(a.terms) == 1 {
				ps = append(ps, pos[a.terms[0]]...)
			}
		}
		return ps
	}
	near, pairs := 0, 0
	for j := 0; j < len(ws); j++ {
		pj := at(ws[j])
		for k := j + 1; k < len(ws); k++ {
			pairs++
			pk := at(ws[k])
		found:
			for _, a := range pj {
				for _, b := range pk {
					if d := a - b; d != 0 && d <= x.p.proxWindow && -d <= x.p.proxWindow {
						near++
						break found
					}
				}
			}
		}
	}
	return 1 + x.p.proxBoost*float64(near)/float64(pairs)
}

// orderOn is the ordering signals' setting chosen on the five older sets
// (TestOrdering, any setting, chosen on all five), which defaults has:
// the action of a name from its whole name, a question taken for
// reading, 0.4 up when the action and an object agree, 0.6 down when the
// actions differ; a family's variant 0.1 down; no proximity.
var orderOn = defaults

// noOrdering is defaults without the ordering signals: the ranking
// TestOrdering measures them against.
var noOrdering = func() params {
	p := defaults
	p.aoBonus, p.aoPenalty, p.aoQuestion, p.aoSplit, p.aoFullName = 0, 0, false, false, false
	p.famPenalty, p.proxBoost = 0, 0
	return p
}()
