package builtin

// Seed data of the docstore server. Everything here is a pure function of the
// constants in this file: a fixed-seed PRNG fills text templates and table
// rows. The PRNG and every derived number use integer arithmetic only, so the
// documents are byte-for-byte identical on every run, platform and Go release.
// No files, no clock.

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Seeds of the generated documents. Changing one changes the document bytes
// and the digest pinned in the tests.
const (
	handbookSeed  uint64 = 0x68616e64626f6f6b
	accessLogSeed uint64 = 0x6163636573736c67
)

// accessLogRows is the number of data rows in the access-log document.
const accessLogRows = 10000

// accessLogStart is where the access log starts: 2025-03-11T00:00:00Z. Its
// 10,000 rows end on the evening of 13 March.
const accessLogStart int64 = 1741651200

// accessLogColumns is the header of the access-log document.
var accessLogColumns = []string{
	"timestamp", "request_id", "region", "customer", "method", "path",
	"status", "latency_ms", "bytes",
}

// seedDocuments returns the documents every docstore starts with. Documents
// are immutable, so all servers share one generated set.
var seedDocuments = sync.OnceValue(generateDocuments)

// generateDocuments builds the seed documents, sorted by id.
func generateDocuments() []*document {
	return []*document{
		newCSVDocument("access-log", "API access log, 11-13 March 2025", generateAccessLog()),
		newTextDocument("glossary", "Glossary of operations terms", generateGlossary()),
		newTextDocument("handbook", "Operations handbook", generateHandbook()),
		newTextDocument("meeting-notes", "Platform sync, 14 March 2025", generateMeetingNotes()),
		newTextDocument("readme", "About this document store", generateReadme()),
	}
}

// newCSVDocument wraps generated CSV text, which needs no quoting, in a
// document. The cells of its table share the text's memory.
func newCSVDocument(id, title, text string) *document {
	return &document{id: id, title: title, kind: kindCSV, text: text, lines: countLines(text), table: splitTable(text)}
}

// splitTable splits CSV text without quoted fields (generated data only;
// parseTable handles any CSV) into a header and rows.
func splitTable(text string) *table {
	n := countLines(text)
	lines := make([]string, 0, n)
	for line := range strings.Lines(text) {
		lines = append(lines, strings.TrimSuffix(line, "\n"))
	}
	columns := strings.Split(lines[0], ",")
	cells := make([]string, 0, (n-1)*len(columns))
	rows := make([][]string, 0, n-1)
	for _, line := range lines[1:] {
		start := len(cells)
		for field := range strings.SplitSeq(line, ",") {
			cells = append(cells, field)
		}
		rows = append(rows, cells[start:len(cells):len(cells)])
	}
	return &table{columns: columns, rows: rows}
}

// newTextDocument wraps generated text in a document.
func newTextDocument(id, title, text string) *document {
	return &document{id: id, title: title, kind: kindText, text: text, lines: countLines(text)}
}

// rng is splitmix64: tiny, fast, and fully specified, so its output never
// depends on the Go release the way math/rand's helpers may.
type rng struct{ state uint64 }

func (r *rng) next() uint64 {
	r.state += 0x9e3779b97f4a7c15
	z := r.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// intn returns a number in [0, n). The modulo bias is irrelevant here.
func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

// between returns a number in [lo, hi].
func (r *rng) between(lo, hi int) int { return lo + r.intn(hi-lo+1) }

// chance reports true with probability perMille/1000.
func (r *rng) chance(perMille int) bool { return r.intn(1000) < perMille }

// weighted returns an index into weights, chosen in proportion to its weight.
func (r *rng) weighted(weights []int) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	n := r.intn(total)
	for i, w := range weights {
		if n < w {
			return i
		}
		n -= w
	}
	return len(weights) - 1
}

func pick[T any](r *rng, xs []T) T { return xs[r.intn(len(xs))] }

// pickN returns n distinct elements of xs in a random order.
func pickN[T any](r *rng, xs []T, n int) []T {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	out := make([]T, 0, n)
	for i := 0; i < n && i < len(xs); i++ {
		j := i + r.intn(len(xs)-i)
		idx[i], idx[j] = idx[j], idx[i]
		out = append(out, xs[idx[i]])
	}
	return out
}

// ---------------------------------------------------------------------------
// Access log

type endpoint struct {
	method, path string // path may hold one {id}, filled per row
	idPrefix     string
	weight       int
	latency      int // typical latency in ms
	size         int // typical response size in bytes
}

var endpoints = []endpoint{
	{"GET", "/v1/orders", "", 18, 45, 5200},
	{"GET", "/v1/orders/{id}", "ord_", 20, 25, 1400},
	{"POST", "/v1/orders", "", 8, 120, 900},
	{"DELETE", "/v1/orders/{id}", "ord_", 1, 60, 0},
	{"GET", "/v1/invoices", "", 10, 60, 7400},
	{"GET", "/v1/invoices/{id}", "inv_", 8, 35, 2100},
	{"POST", "/v1/payments", "", 6, 210, 650},
	{"GET", "/v1/customers/{id}", "cus_", 10, 30, 1100},
	{"PUT", "/v1/customers/{id}", "cus_", 3, 70, 1100},
	{"GET", "/v1/search", "", 9, 140, 9800},
	{"POST", "/v1/auth/token", "", 5, 35, 420},
	{"GET", "/v1/reports/export", "", 2, 1800, 48000},
}

type region struct {
	name   string
	weight int
	extra  int // added network latency in ms
}

var regions = []region{
	{"us-east", 30, 0},
	{"us-west", 15, 5},
	{"eu-west", 20, 8},
	{"eu-central", 12, 10},
	{"ap-south", 10, 40},
	{"ap-northeast", 13, 30},
}

var customers = []string{
	"acme-corp", "globex", "initech", "umbrella-health", "stark-logistics",
	"wayne-retail", "tyrell-labs", "soylent-foods", "cyberdyne", "hooli",
	"pied-piper", "vandelay-imports", "wonka-sweets", "gringotts-bank",
	"oceanic-air", "monarch-travel", "nakatomi-trading", "massive-dynamic",
	"aperture-science", "black-mesa", "blue-sun", "dunder-mifflin",
	"los-pollos", "prestige-worldwide", "sterling-cooper", "virtucon",
	"wernham-hogg", "krusty-krab", "bluth-company", "zorg-industries",
}

// The eu-west incident recorded in the meeting notes (INC-2291):
// 2025-03-13 14:00 to 16:30 UTC.
const (
	incidentStart int64 = accessLogStart + 2*86400 + 14*3600
	incidentEnd   int64 = incidentStart + 150*60
)

// generateAccessLog builds the access-log CSV text.
func generateAccessLog() string {
	r := &rng{state: accessLogSeed}
	customerWeights := make([]int, len(customers))
	for i := range customers {
		customerWeights[i] = 600 / (i + 2)
	}
	endpointWeights := make([]int, len(endpoints))
	for i, e := range endpoints {
		endpointWeights[i] = e.weight
	}
	regionWeights := make([]int, len(regions))
	for i, rg := range regions {
		regionWeights[i] = rg.weight
	}

	buf := make([]byte, 0, 900<<10)
	buf = append(buf, strings.Join(accessLogColumns, ",")...)
	buf = append(buf, '\n')
	ts := accessLogStart
	for range accessLogRows {
		// Busier from 07:00 to 19:00 UTC.
		if hour := ts % 86400 / 3600; hour >= 7 && hour < 19 {
			ts += int64(r.between(5, 30))
		} else {
			ts += int64(r.between(20, 60))
		}
		rg := regions[r.weighted(regionWeights)]
		cust := customers[r.weighted(customerWeights)]
		ep := endpoints[r.weighted(endpointWeights)]
		id := 0
		if ep.idPrefix != "" {
			id = r.between(100000, 999999)
		}
		inIncident := rg.name == "eu-west" && ts >= incidentStart && ts < incidentEnd

		status := successStatus(ep.method)
		switch {
		case inIncident && r.chance(300):
			status = 503
		case inIncident && r.chance(80):
			status = 504
		case r.chance(15):
			status = 401
		case ep.idPrefix != "" && ep.method == "GET" && r.chance(40):
			status = 404
		case ep.method != "GET" && r.chance(25):
			status = 400
		case ep.method == "POST" && ep.path == "/v1/orders" && r.chance(8):
			status = 409
		case r.chance(cust429PerMille(cust)):
			status = 429
		case r.chance(6):
			status = 500
		case r.chance(3):
			status = 502
		case r.chance(4):
			status = 503
		case r.chance(2):
			status = 504
		}

		latency := ep.latency*r.between(50, 150)/100 + rg.extra + r.between(0, 9)
		if r.chance(20) {
			latency *= r.between(3, 12)
		}
		if inIncident {
			latency *= r.between(4, 8)
		}
		size := ep.size * r.between(70, 130) / 100
		switch {
		case status == 204:
			size = 0
		case status >= 400:
			size = r.between(80, 220)
		}
		switch status {
		case 401, 429:
			latency = r.between(3, 15) + rg.extra
		case 504:
			latency = r.between(29000, 31000)
		}

		buf = time.Unix(ts, 0).UTC().AppendFormat(buf, time.RFC3339)
		buf = append(buf, ",req-"...)
		buf = appendHex8(buf, uint32(r.next()))
		buf = append(buf, ',')
		buf = append(buf, rg.name...)
		buf = append(buf, ',')
		buf = append(buf, cust...)
		buf = append(buf, ',')
		buf = append(buf, ep.method...)
		buf = append(buf, ',')
		if ep.idPrefix != "" {
			buf = append(buf, strings.TrimSuffix(ep.path, "{id}")...)
			buf = append(buf, ep.idPrefix...)
			buf = strconv.AppendInt(buf, int64(id), 10)
		} else {
			buf = append(buf, ep.path...)
		}
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, int64(status), 10)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, int64(latency), 10)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, int64(size), 10)
		buf = append(buf, '\n')
	}
	return string(buf)
}

// appendHex8 appends v as eight lowercase hex digits.
func appendHex8(buf []byte, v uint32) []byte {
	const digits = "0123456789abcdef"
	for shift := 28; shift >= 0; shift -= 4 {
		buf = append(buf, digits[(v>>uint(shift))&0xf])
	}
	return buf
}

func successStatus(method string) int {
	switch method {
	case "POST":
		return 201
	case "DELETE":
		return 204
	}
	return 200
}

// cust429PerMille makes the two busiest customers hit rate limits more often.
func cust429PerMille(customer string) int {
	switch customer {
	case "globex":
		return 45
	case "acme-corp":
		return 20
	}
	return 6
}

// ---------------------------------------------------------------------------
// Text helpers

// textBuilder writes Markdown-like text wrapped at wrapWidth columns.
type textBuilder struct{ b strings.Builder }

const wrapWidth = 78

func (t *textBuilder) heading(level int, s string) {
	t.b.WriteString(strings.Repeat("#", level))
	t.b.WriteByte(' ')
	t.b.WriteString(s)
	t.b.WriteString("\n\n")
}

// para writes a wrapped paragraph followed by a blank line.
func (t *textBuilder) para(s string) {
	t.wrap(s, "", "")
	t.b.WriteByte('\n')
}

// item writes a wrapped list item with a hanging indent; call end after the list.
func (t *textBuilder) item(marker, s string) {
	t.wrap(s, marker, strings.Repeat(" ", len(marker)))
}

// line writes s as one unwrapped line.
func (t *textBuilder) line(s string) {
	t.b.WriteString(s)
	t.b.WriteByte('\n')
}

func (t *textBuilder) end() { t.b.WriteByte('\n') }

func (t *textBuilder) wrap(s, first, rest string) {
	prefix := first
	col := 0
	for _, w := range strings.Fields(s) {
		if col > 0 && col+1+len(w) > wrapWidth {
			t.b.WriteByte('\n')
			col = 0
			prefix = rest
		}
		if col == 0 {
			t.b.WriteString(prefix)
			col = len(prefix)
		} else {
			t.b.WriteByte(' ')
			col++
		}
		t.b.WriteString(w)
		col += len(w)
	}
	t.b.WriteByte('\n')
}

// String returns the text with exactly one trailing newline.
func (t *textBuilder) String() string {
	return strings.TrimRight(t.b.String(), "\n") + "\n"
}

// ---------------------------------------------------------------------------
// Small documents

func generateReadme() string {
	var t textBuilder
	t.heading(1, "About this document store")
	t.para(`docstore is a small in-memory document store that ships inside mcpfs. It
exists so that the first command in the mcpfs README works on a machine with
no MCP configuration at all, and so that examples have something realistic to
chain: a handbook too large to read into a model's context, and a CSV access
log worth filtering in code.`)
	t.heading(2, "Documents")
	t.item("- ", "readme: this note.")
	t.item("- ", "meeting-notes: notes from the weekly platform sync, with action items.")
	t.item("- ", "glossary: short definitions of the operations terms used elsewhere.")
	t.item("- ", "handbook: the operations handbook, one chapter per service, with alerts, runbooks and incident history. It is large (over 250 KB): search it or page through it with offset and limit instead of reading it whole.")
	t.item("- ", "access-log: three days of API requests as CSV, 10,000 rows with the columns timestamp, request_id, region, customer, method, path, status, latency_ms and bytes.")
	t.end()
	t.heading(2, "Tools")
	t.item("- ", "list_documents shows every document with its size.")
	t.item("- ", "read_document returns a document's text, optionally a range of lines.")
	t.item("- ", "search finds lines containing a phrase, as a substring or as whole words.")
	t.item("- ", "query_rows returns CSV rows whose columns equal the given values.")
	t.item("- ", "write_document creates or replaces a document; writes live as long as the server.")
	t.item("- ", "word_count counts the lines, words and characters of a text.")
	t.end()
	t.heading(2, "A typical chain")
	t.para(`Ask query_rows for the eu-west rows with status 503, group them by hour in
code, and write the summary back with write_document as a new document called
eu-west-errors. Only the summary needs to be printed; the 10,000 rows never
have to pass through a model's context.`)
	return t.String()
}

func generateMeetingNotes() string {
	var t textBuilder
	t.heading(1, "Platform sync, 14 March 2025")
	t.line("Attendees: Priya N. (chair), Marcus O., Lena K., Tomás R., Aiko S., Dev P.")
	t.line("Notes: Lena K.")
	t.end()
	t.heading(2, "Agenda")
	t.item("1. ", "INC-2291: eu-west latency and 503s on Thursday 13 March")
	t.item("2. ", "Rate limiting for the largest customers")
	t.item("3. ", "Report export timeouts")
	t.item("4. ", "Handbook review for the Q2 on-call rotation")
	t.end()
	t.heading(2, "1. INC-2291")
	t.para(`Between 14:00 and 16:30 UTC on 13 March the api-gateway in eu-west returned
503 and 504 responses to a large share of requests, and p99 latency rose four
to eight times. The cause was connection pool exhaustion between the gateway
and orders-service after a configuration push halved the pool size. The change
was rolled back at 16:25 UTC. Marcus asked for the exact number of failed
requests per customer before the customer update goes out; the access log in
this store covers the whole window.`)
	t.heading(2, "2. Rate limiting")
	t.para(`globex hits 429 responses far more often than anyone else, mostly on
GET /v1/orders. acme-corp is second. Aiko proposed raising their burst limit
from 50 to 120 requests per second instead of the blanket increase discussed
last week. Agreed, pending the numbers from the access log.`)
	t.heading(2, "3. Report export timeouts")
	t.para(`GET /v1/reports/export is slow by design (about two seconds) but the tail
reaches tens of seconds. Tomás will move exports to the async job queue; until
then the runbook for ReportExporterHighLatency in the handbook stays as is.`)
	t.heading(2, "4. Handbook review")
	t.para(`Every team reviews its chapter of the operations handbook before the Q2
rotation starts. Owners should check that each alert still points at a
runbook that exists and that escalation contacts are current.`)
	t.heading(2, "Decisions")
	t.item("- ", "Pool size changes to the api-gateway need a second reviewer from Core Infrastructure.")
	t.item("- ", "Burst limit for globex and acme-corp goes to 120 requests per second.")
	t.item("- ", "Exports move to the async job queue this quarter.")
	t.end()
	t.heading(2, "Action items")
	t.item("- ", "[ ] Priya N.: count eu-west 503 and 504 responses per customer during INC-2291 (due 18 March)")
	t.item("- ", "[ ] Aiko S.: ship the burst limit change behind the rate-limit-v2 flag (due 21 March)")
	t.item("- ", "[ ] Tomás R.: design note for async exports (due 28 March)")
	t.item("- ", "[ ] Dev P.: add a pool size check to the api-gateway deploy checklist (due 18 March)")
	t.item("- ", "[ ] All owners: review handbook chapters (due 4 April)")
	t.end()
	return t.String()
}

var glossaryTerms = [][2]string{
	{"Availability", "The share of requests, over a window, that succeed. Usually measured at the api-gateway."},
	{"Burn rate", "How fast a service spends its error budget, relative to spending it evenly over the SLO window. A burn rate of 1 uses the budget exactly by the end of the window."},
	{"Canary", "A deploy to a small slice of traffic (usually 5%) that must stay healthy for a fixed time before the rollout continues."},
	{"Error budget", "The failures an SLO allows: with a 99.9% target over 30 days, 0.1% of requests may fail."},
	{"Escalation", "Handing an incident to a secondary on-call or another team when the primary cannot resolve it in time."},
	{"Incident commander", "The person who coordinates an incident response: assigns roles, decides, and keeps the timeline."},
	{"INC number", "The identifier of an incident record, such as INC-2291. Postmortems and follow-up tickets refer to it."},
	{"Latency percentile", "p50, p95 and p99 are the latencies that 50%, 95% and 99% of requests stay under."},
	{"Pool exhaustion", "All connections of a client-side pool are busy, so new requests queue or fail. A common cause of sudden 503s."},
	{"Postmortem", "A blameless written review of an incident: timeline, impact, root cause and follow-ups."},
	{"Rate limit", "A cap on requests per customer per second. Requests over the limit get status 429."},
	{"Region", "A deployment location: us-east, us-west, eu-west, eu-central, ap-south or ap-northeast."},
	{"Rollback", "Returning a service to its previous version or configuration. The first mitigation to try after a bad change."},
	{"Runbook", "The step-by-step procedure for one alert. Every alert in the handbook names its runbook (RB-number)."},
	{"Saturation", "How full a resource is: CPU, memory, connection pools, queue depth."},
	{"Severity", "SEV1 (customer-facing outage) to SEV4 (no customer impact). Severity decides who is paged and how fast."},
	{"SLO", "Service level objective: a target for a service level indicator over a window, such as 99.9% availability over 30 days."},
	{"Toil", "Manual, repetitive operational work that scales with traffic and could be automated."},
}

func generateGlossary() string {
	var t textBuilder
	t.heading(1, "Glossary of operations terms")
	for _, term := range glossaryTerms {
		t.item("", term[0])
		t.item(": ", term[1])
		t.end()
	}
	return t.String()
}

// ---------------------------------------------------------------------------
// Handbook

type service struct {
	name, title, team, kind string // kind: api, worker, store
	deps                    []string
}

var handbookServices = []service{
	{"api-gateway", "API gateway", "Core Infrastructure", "api", []string{"auth-service", "orders-service", "search-service", "customer-profile", "session-cache", "feature-flags"}},
	{"auth-service", "Authentication service", "Identity", "api", []string{"session-cache", "customer-profile", "event-bus", "feature-flags"}},
	{"orders-service", "Orders service", "Storefront", "api", []string{"ledger-db", "inventory-sync", "pricing-engine", "event-bus", "payments-worker"}},
	{"invoice-service", "Invoice service", "Finance Systems", "api", []string{"ledger-db", "orders-service", "notification-service", "event-bus"}},
	{"payments-worker", "Payments worker", "Payments", "worker", []string{"ledger-db", "event-bus", "notification-service", "feature-flags"}},
	{"search-service", "Search service", "Search and Discovery", "api", []string{"inventory-sync", "pricing-engine", "session-cache", "feature-flags"}},
	{"customer-profile", "Customer profile service", "Identity", "api", []string{"ledger-db", "session-cache", "event-bus"}},
	{"notification-service", "Notification service", "Messaging", "worker", []string{"event-bus", "customer-profile", "feature-flags"}},
	{"report-exporter", "Report exporter", "Data Platform", "worker", []string{"ledger-db", "orders-service", "invoice-service", "event-bus"}},
	{"inventory-sync", "Inventory sync", "Storefront", "worker", []string{"event-bus", "ledger-db", "pricing-engine"}},
	{"pricing-engine", "Pricing engine", "Storefront", "api", []string{"session-cache", "feature-flags", "event-bus"}},
	{"ledger-db", "Ledger database", "Core Infrastructure", "store", []string{"event-bus"}},
	{"session-cache", "Session cache", "Core Infrastructure", "store", []string{"feature-flags"}},
	{"event-bus", "Event bus", "Messaging", "store", []string{"ledger-db"}},
	{"feature-flags", "Feature flag service", "Core Infrastructure", "api", []string{"session-cache"}},
	{"checkout-api", "Checkout API", "Payments", "api", []string{"orders-service", "payments-worker", "pricing-engine", "auth-service", "feature-flags"}},
}

var people = []string{
	"Priya N.", "Marcus O.", "Lena K.", "Tomás R.", "Aiko S.", "Dev P.",
	"Fatima A.", "Jonas W.", "Grace L.", "Ravi M.", "Sofia B.", "Kwame D.",
	"Hannah C.", "Mateo G.", "Yuki T.", "Oliver H.",
}

var weekdays = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday"}

var months = []string{
	"January", "February", "March", "April", "May", "June", "July",
	"August", "September", "October", "November", "December",
}

// chapter carries what the templates of one service chapter refer to.
type chapter struct {
	r      *rng
	svc    service
	owner  string
	backup string
}

// expand replaces {key} placeholders in tmpl. Numeric keys draw a fresh
// random value on every use.
func (c *chapter) expand(tmpl string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			b.WriteString(tmpl)
			return b.String()
		}
		j := strings.IndexByte(tmpl[i:], '}')
		if j < 0 {
			b.WriteString(tmpl)
			return b.String()
		}
		b.WriteString(tmpl[:i])
		b.WriteString(c.value(tmpl[i+1 : i+j]))
		tmpl = tmpl[i+j+1:]
	}
}

func (c *chapter) value(key string) string {
	r := c.r
	switch key {
	case "svc":
		return c.svc.name
	case "title":
		return c.svc.title
	case "team":
		return c.svc.team
	case "owner":
		return c.owner
	case "backup":
		return c.backup
	case "dep":
		return pick(r, c.svc.deps)
	case "region":
		return pick(r, regions).name
	case "person":
		return pick(r, people)
	case "weekday":
		return pick(r, weekdays)
	case "ms":
		return strconv.Itoa(r.between(4, 40) * 50)
	case "min":
		return strconv.Itoa(r.between(1, 6) * 5)
	case "pct":
		return strconv.Itoa(r.between(1, 15))
	case "cpu":
		return strconv.Itoa(r.between(70, 92))
	case "n":
		return strconv.Itoa(r.between(2, 12))
	case "rps":
		return strconv.Itoa(r.between(4, 90) * 100)
	case "podrps":
		return strconv.Itoa(r.between(2, 18) * 50)
	case "rise":
		from := r.between(2, 16) * 50
		return fmt.Sprintf("from %d ms to %d ms", from, from*r.between(3, 8))
	case "pods":
		return strconv.Itoa(r.between(3, 48))
	case "ticket":
		return "OPS-" + strconv.Itoa(r.between(1000, 9999))
	case "version":
		return fmt.Sprintf("%d.%d.%d", r.between(1, 9), r.between(0, 40), r.between(0, 20))
	case "hour":
		return fmt.Sprintf("%02d:%02d", r.between(0, 23), r.between(0, 11)*5)
	}
	return "{" + key + "}"
}

// sentences expands n distinct templates of pool into one paragraph.
func (c *chapter) sentences(pool []string, n int) string {
	return c.join(pickN(c.r, pool, n))
}

// paragraphs expands distinct templates of pool into paragraphs of the given
// numbers of sentences, so no sentence repeats within a section.
func (c *chapter) paragraphs(pool []string, sizes ...int) []string {
	total := 0
	for _, n := range sizes {
		total += n
	}
	parts := pickN(c.r, pool, total)
	out := make([]string, 0, len(sizes))
	for _, n := range sizes {
		out = append(out, c.join(parts[:n]))
		parts = parts[n:]
	}
	return out
}

func (c *chapter) join(templates []string) string {
	parts := make([]string, len(templates))
	for i, p := range templates {
		parts[i] = c.expand(p)
	}
	return strings.Join(parts, " ")
}

var overviewPool = []string{
	"{svc} is owned by the {team} team, with {owner} as the primary contact and {backup} as the secondary.",
	"It runs in all six regions behind the api-gateway, with between {pods} and {pods} pods per region depending on the time of day.",
	"Most of its traffic arrives between 08:00 and 20:00 local time, with a second peak on {weekday} evenings when batch jobs run.",
	"The service keeps no state of its own beyond short-lived caches; anything durable goes through {dep}.",
	"Configuration lives in the platform config repository and is rolled out with the same canary process as code.",
	"Requests carry a request id from the gateway, so a single call can be followed across {svc}, {dep} and {dep} in the tracing UI.",
	"The current major version was rolled out in {version} and replaced the older synchronous design.",
	"Dashboards for {svc} are linked from the service catalog; the most useful one is the golden signals view, which shows traffic, errors, latency and saturation side by side.",
	"Logs are kept for 14 days in the hot tier and 90 days in the archive.",
	"A change freeze applies during the last three business days of each quarter, when finance closes the books.",
	"Known weak spots are documented in the FAQ at the end of this chapter; read them before your first on-call shift.",
	"{title} was split out of the old monolith in 2021 and still shares a database schema with {dep} for historical reasons.",
}

var capacityPool = []string{
	"At peak {svc} serves about {rps} requests per second across all regions.",
	"Each pod handles roughly {podrps} requests per second before p99 latency starts to climb, so the autoscaler targets {cpu}% CPU.",
	"The autoscaler adds pods when CPU stays above {cpu}% for {min} minutes and removes them after 30 quiet minutes.",
	"Memory usage grows with the number of open connections to {dep}; plan for 600 MB per pod plus 2 MB per connection.",
	"Load tests run every {weekday} against the staging copy in {region}, at twice the previous month's peak.",
	"Regional failover doubles the load on the surviving region for a while, so each region keeps {pct}% headroom above its own peak.",
	"The connection pool to {dep} is sized at {n} connections per pod; changing it needs a review from Core Infrastructure.",
	"Capacity reviews happen quarterly; the last one raised the minimum pod count in {region} after a marketing campaign doubled traffic there.",
	"Cold starts take about {n} seconds, most of it spent warming caches from {dep}.",
}

var deployPool = []string{
	"Deploys go out through the standard pipeline: build, unit tests, staging, a 5% canary, then regions in waves of two.",
	"The canary must stay within 10% of the baseline error rate and p99 latency for {min} minutes before the rollout continues.",
	"Deploys are not allowed on {weekday} afternoons, during the quarter-end freeze, or while a SEV1 or SEV2 incident is open anywhere.",
	"Schema migrations are deployed separately from code, at least one release ahead, and must be backwards compatible.",
	"Feature work ships dark behind feature-flags and is enabled per region once the on-call engineer agrees.",
	"Rollbacks use the previous image and configuration together; never roll back one without the other.",
	"Every deploy posts to #deploys with the version, the author and a link to the change.",
}

var deployChecklist = []string{
	"Check the golden signals dashboard for {svc} in every region before starting.",
	"Confirm that no incident is open and no freeze is in effect.",
	"Read the diff of configuration changes, not only the code diff; pool sizes and timeouts live there.",
	"Watch the canary for the full bake time; do not skip it for small changes.",
	"After the last wave, compare error rates with the same hour of the previous day.",
	"Note the version in the service catalog and close the change ticket.",
}

type alertKind struct {
	suffix, trigger string
	severity        string
	steps           []string
}

var alertKinds = []alertKind{
	{"HighLatency", "p99 latency above {ms} ms for {min} minutes in any region", "SEV2", []string{
		"Open the latency panel of the golden signals dashboard and find out whether one region or all of them are affected.",
		"Compare the p50 with the p99: if only the tail moved, look for a slow dependency; if both moved, suspect saturation.",
		"Check the latency of calls from {svc} to {dep}; a slow dependency is the most common cause.",
	}},
	{"ErrorRate", "5xx responses above {pct}% of requests for {min} minutes", "SEV2", []string{
		"Break the errors down by status code: 503s usually mean pool exhaustion or an unhealthy dependency, 500s usually mean a code path that fails.",
		"Search the logs of {svc} for the request ids of failing requests and read the first error, not the last.",
		"Check whether a deploy or configuration change went out in the last hour; if so, roll it back first and investigate after.",
	}},
	{"Saturation", "CPU above {cpu}% on more than half of the pods for {min} minutes", "SEV3", []string{
		"Check whether traffic grew or whether each request became more expensive; the requests per second panel tells them apart.",
		"If the autoscaler is at its maximum, raise the maximum by 50% and open a ticket for a capacity review.",
		"Look for a single customer sending far more traffic than usual; rate limits are the right tool for that, not more pods.",
	}},
	{"QueueBacklog", "more than {rps} messages waiting on the event-bus for {min} minutes", "SEV3", []string{
		"Check whether consumers are running and how fast they acknowledge messages.",
		"If consumers are healthy but slow, scale them out; the queue drains in order, so the oldest messages go first.",
		"If a poison message blocks a partition, move it to the dead letter queue with the admin tool and note its id in the incident.",
	}},
	{"CertificateExpiry", "a TLS certificate used by {svc} expires in less than {n} days", "SEV4", []string{
		"Find the certificate in the certificate inventory and check why automatic renewal did not run.",
		"Renew it manually with the platform CLI and confirm that every pod picked up the new certificate.",
	}},
	{"DiskPressure", "free disk space below {pct}% on any node", "SEV3", []string{
		"Find the largest directories on the node; rotated logs that were never deleted are the usual culprit.",
		"Do not delete data files of {svc} by hand; expand the volume instead and open a ticket.",
	}},
	{"ReplicationLag", "replica lag above {n} seconds for {min} minutes", "SEV2", []string{
		"Check whether a long-running query or a bulk write on the primary is holding replication back.",
		"Route read traffic away from lagging replicas with the traffic tool while they catch up.",
		"If lag keeps growing for more than 30 minutes, rebuild the replica from the latest snapshot.",
	}},
	{"DependencyTimeouts", "more than {n}00 timeouts per minute from {svc} to {dep}", "SEV2", []string{
		"Check the health of {dep} first; if it is degraded, follow its runbook and page its owners.",
		"Check the connection pool metrics of {svc}: a pool that is always full means the pool is too small or calls are too slow.",
		"Lower the timeout only as a last resort; it turns slow requests into failed ones.",
	}},
	{"PodRestarts", "more than {n} pod restarts in {min} minutes", "SEV3", []string{
		"Read the termination reason of the restarted pods: OOMKilled, failed liveness probe, or a crash.",
		"For OOMKilled pods, compare memory usage with the limit over the last week before raising the limit.",
		"For crashes, find the stack trace in the logs of the previous container and open a ticket with it.",
	}},
	{"BudgetBurn", "error budget burn rate above {n} over one hour", "SEV2", []string{
		"Find out which endpoint spends the budget; the SLO dashboard breaks the burn down per route.",
		"Decide with the incident commander whether to freeze deploys until the burn rate falls below 1.",
	}},
}

var genericSteps = []string{
	"Acknowledge the page and post a short note in #ops-{svc} so others know someone is on it.",
	"Check the deploy log for {svc} and {dep}: most incidents start within an hour of a change.",
	"Check the status page of the cloud provider for {region} before digging deeper.",
	"If customers are affected for more than 15 minutes, declare an incident and name an incident commander.",
	"Capture graphs and log lines as you go; the postmortem needs a timeline.",
	"If the problem is limited to one region, drain that region with the traffic tool and confirm the others absorb the load.",
	"Restart pods one at a time only after capturing a heap profile from one of them.",
	"Compare the current state with the same time last {weekday}; weekly patterns explain many alerts.",
	"Ask in #ops-{dep} whether its owners see anything unusual on their side.",
	"When the alert clears, wait {min} minutes before closing the incident, then write a summary in the ticket.",
}

var incidentTitles = []string{
	"Elevated {svc} latency in {region} after a configuration push",
	"{svc} returning 503s because of connection pool exhaustion",
	"Partial outage of {svc} during a failover of {dep}",
	"Stale data served by {svc} after cache invalidation failed",
	"{svc} pods crash-looping after a dependency upgrade",
	"Slow {svc} responses caused by a missing database index",
	"Duplicate events from {svc} after a consumer rebalance",
	"{svc} unavailable in {region} during a network partition",
	"Expired certificate on the {svc} internal endpoint",
	"Disk full on {svc} nodes in {region}",
	"Runaway retries from {svc} overloading {dep}",
	"Wrong prices shown after a feature flag in {svc} was enabled globally",
}

var detectionPool = []string{
	"The {suffix} alert fired at {hour} UTC and {person} acknowledged it within {n} minutes.",
	"A customer reported the problem through support at {hour} UTC, {n} minutes before any alert fired.",
	"The synthetic checks in {region} failed first, at {hour} UTC.",
	"The on-call engineer, {person}, noticed the error rate climbing on the dashboard while investigating an unrelated ticket.",
}

var impactPool = []string{
	"About {pct}% of requests in {region} failed for {min} minutes.",
	"p99 latency rose {rise} for roughly {n}0 minutes; no requests were lost.",
	"{n} customers opened support tickets; two asked for service credits.",
	"Requests from {region} were retried by clients and most eventually succeeded, but checkout conversion dropped by {pct}% during the window.",
	"No customer-facing impact; the problem was caught in the canary stage.",
	"Background jobs were delayed by up to {n} hours and caught up overnight.",
}

var causePool = []string{
	"A configuration change reduced the connection pool to {dep} from {n}0 to {n} connections per pod.",
	"A new query in {version} did a full table scan on a table that had grown past 200 million rows.",
	"A retry loop without backoff in the {dep} client multiplied traffic during a brief outage.",
	"The autoscaler had reached its maximum of {pods} pods, set two years earlier and never revisited.",
	"A dependency upgrade changed the default timeout from 30 seconds to {n} seconds.",
	"A feature flag intended for {region} was enabled for every region because of a typo in the targeting rule.",
	"Log rotation stopped after a base image update removed the cron job that ran it.",
	"A certificate renewal job had been failing silently for three weeks because its alert was routed to an archived channel.",
}

var mitigationPool = []string{
	"The change was rolled back at {hour} UTC and the service recovered within {min} minutes.",
	"Traffic was drained from {region} while the pods were replaced.",
	"The pool size was restored and the pods were restarted in waves.",
	"The feature flag was turned off; recovery was immediate.",
	"The missing index was added online; latency returned to normal as it built.",
	"{person} scaled the deployment out by hand and raised the autoscaler maximum.",
}

var followUpPool = []string{
	"Add a check for pool size changes to the deploy checklist ({ticket}).",
	"Alert on the canary's p99 latency, not only its error rate ({ticket}).",
	"Add exponential backoff with jitter to the {dep} client ({ticket}).",
	"Review autoscaler limits for every service owned by {team} ({ticket}).",
	"Route the renewal job's alerts to the {svc} on-call rotation ({ticket}).",
	"Load test {svc} with the production data volume before the next major release ({ticket}).",
	"Document the failover procedure for {dep} in this handbook ({ticket}).",
	"Add a dashboard panel for connection pool saturation ({ticket}).",
}

var faqPool = [][2]string{
	{"Can I restart all pods of {svc} at once?", "No. Restart them in waves of at most a quarter of the pods, and watch the error rate between waves. A full restart empties every cache at the same time and sends a burst of traffic to {dep}."},
	{"Who do I page when {dep} is the problem?", "The on-call engineer for {dep}, through the paging tool. Post in #ops-{dep} at the same time so the context is written down."},
	{"Where are the dashboards?", "Linked from the {svc} entry in the service catalog. The golden signals view is the place to start."},
	{"Is it safe to roll back during a schema migration?", "Only if the migration was backwards compatible, which the deploy rules require. If in doubt, ask {owner} before rolling back."},
	{"Why does {svc} get slower on {weekday} evenings?", "Batch jobs from report-exporter and inventory-sync run then and compete for {dep}. It is expected; the latency alert thresholds account for it."},
	{"How do I reproduce a customer's failing request?", "Take the request id from the access log or the customer's report and look it up in the tracing UI. It shows every hop and the time spent in each."},
	{"Can I change the rate limit for one customer?", "Yes, through the rate-limit-v2 flag in feature-flags, with a ticket. Raise it for a day at most without approval from {team}."},
	{"What does a 429 from {svc} mean?", "The caller exceeded its rate limit. It is not an incident unless many customers see it at once, which would point at a misconfigured limit."},
	{"How long are logs kept?", "14 days searchable, 90 days in the archive. Ask Data Platform to restore older logs for an investigation."},
	{"What if the runbook is wrong?", "Fix it after the incident: every chapter of this handbook has an owner, and pull requests against it are welcome from anyone."},
}

func generateHandbook() string {
	r := &rng{state: handbookSeed}
	var t textBuilder
	t.heading(1, "Operations handbook")
	t.line("Version 7.3. Maintained by the Platform Reliability group.")
	t.end()
	t.para(`This handbook is the reference for everyone on an on-call rotation. It has
one chapter per service with its owners, dependencies, service level
objectives, alerts and their runbooks, capacity notes, deploy rules, incident
history and frequently asked questions. Chapter 1 covers the practices that
apply to every service. The handbook is long on purpose: search it for an
alert name or a runbook number (RB-) instead of reading it from the start.`)

	t.heading(2, "Contents")
	t.item("1. ", "General practices")
	for i, svc := range handbookServices {
		t.item(strconv.Itoa(i+2)+". ", svc.title+" ("+svc.name+")")
	}
	t.item(strconv.Itoa(len(handbookServices)+2)+". ", "Handbook change log")
	t.end()

	generalPractices(&t)
	runbook := 1000
	incident := 1200
	for i, svc := range handbookServices {
		c := &chapter{r: r, svc: svc}
		c.owner = pick(r, people)
		c.backup = c.owner
		for c.backup == c.owner {
			c.backup = pick(r, people)
		}
		serviceChapter(&t, c, i+2, &runbook, &incident)
	}

	t.heading(2, strconv.Itoa(len(handbookServices)+2)+". Handbook change log")
	// Newest first: version 7.3 of February 2025, going back a month or two
	// per release.
	month := 2025*12 + 1
	for v := 73; v > 43; v-- {
		c := &chapter{r: r, svc: pick(r, handbookServices)}
		c.owner = pick(r, people)
		t.item("- ", fmt.Sprintf("%d.%d (%s %d, %s): %s", v/10, v%10, months[month%12], month/12, c.owner,
			c.expand(pick(r, []string{
				"updated the {svc} chapter after a runbook review.",
				"added the {svc} runbooks for the new alert thresholds.",
				"rewrote the escalation rules for {team}.",
				"removed alerts that had not fired in a year from the {svc} chapter.",
				"added incident summaries for {svc}.",
				"corrected dependency lists after the {dep} migration.",
			}))))
		month -= r.between(1, 2)
	}
	t.end()
	return t.String()
}

func generalPractices(t *textBuilder) {
	t.heading(2, "1. General practices")
	t.heading(3, "1.1 Severity levels")
	t.line("| Severity | Meaning | Page | Update cadence |")
	t.line("|----------|---------|------|----------------|")
	t.line("| SEV1 | Customer-facing outage in one or more regions | primary, secondary, incident commander | every 30 minutes |")
	t.line("| SEV2 | Degraded service or a failing critical path | primary and secondary | every hour |")
	t.line("| SEV3 | Internal impact, customers unaffected so far | primary | at resolution |")
	t.line("| SEV4 | No impact; fix during business hours | none, ticket only | none |")
	t.end()
	t.heading(3, "1.2 On call")
	t.para(`Rotations are one week long and hand over on Monday at 10:00 local time.
The outgoing engineer writes a handover note: open incidents, alerts that
fired more than twice, and anything unusual. The incoming engineer reads the
note and the last week's incident tickets before accepting the rotation.`)
	t.para(`Acknowledge a page within 5 minutes. If you cannot work on it, escalate to
the secondary straight away rather than holding it. Nobody is expected to be
on call for more than one week in four.`)
	t.heading(3, "1.3 Incidents")
	t.para(`Declare an incident as soon as customers are affected or you expect to need
help. The incident commander assigns a communications lead, keeps a
timeline in the incident channel, and decides on mitigations. Mitigate first:
roll back, drain a region, turn off a flag. Find the root cause afterwards.`)
	t.para(`Every SEV1 and SEV2 incident gets a blameless postmortem within five
business days. The postmortem lists follow-ups as tickets with owners and due
dates; the incident is closed when the last follow-up is done.`)
	t.heading(3, "1.4 Communication")
	t.para(`Status page updates are written by the communications lead, never by the
person debugging. Customer-specific updates go through support. Say what is
affected, what is being done and when the next update comes; do not guess at
causes in public.`)
}

func serviceChapter(t *textBuilder, c *chapter, num int, runbook, incident *int) {
	r := c.r
	n := strconv.Itoa(num)
	prefix := alertPrefix(c.svc.name)
	t.heading(2, n+". "+c.svc.title+" ("+c.svc.name+")")

	t.heading(3, n+".1 Overview")
	for _, p := range c.paragraphs(overviewPool, 4, 3) {
		t.para(p)
	}

	t.heading(3, n+".2 Dependencies")
	for _, dep := range c.svc.deps {
		t.item("- ", dep+": "+c.expand(strings.ReplaceAll(pick(r, []string{
			"synchronous calls on the request path; a slow {dep} shows up directly in {svc} latency.",
			"asynchronous; {svc} tolerates an outage of up to {min} minutes by buffering.",
			"read mostly, with a local cache of {n} minutes.",
			"used for writes only; failures are retried with backoff for up to {min} minutes.",
			"configuration and feature flags, read at start-up and every 30 seconds.",
		}), "{dep}", dep)))
	}
	t.end()

	t.heading(3, n+".3 Service level objectives")
	t.line("| Objective | Target | Window |")
	t.line("|-----------|--------|--------|")
	t.line(fmt.Sprintf("| Availability | %s | 30 days |", pick(r, []string{"99.9%", "99.95%", "99.99%", "99.5%"})))
	t.line(fmt.Sprintf("| p99 latency | under %d ms | 7 days |", r.between(4, 30)*50))
	if c.svc.kind == "worker" {
		t.line(fmt.Sprintf("| Processing delay | under %d minutes | 7 days |", r.between(1, 12)*5))
	}
	if c.svc.kind == "store" {
		t.line(fmt.Sprintf("| Replication lag | under %d seconds | 7 days |", r.between(2, 30)))
	}
	t.end()

	t.heading(3, n+".4 Alerts and runbooks")
	// Every service has the latency and error rate alerts (the meeting notes
	// refer to ReportExporterHighLatency), plus a few others.
	kinds := append(alertKinds[:2:2], pickN(r, alertKinds[2:], r.between(3, 5))...)
	for ai, kind := range kinds {
		*runbook += r.between(1, 9)
		name := prefix + kind.suffix
		t.heading(4, fmt.Sprintf("%s.4.%d %s (RB-%d)", n, ai+1, name, *runbook))
		t.line("Severity: " + kind.severity)
		t.line("Trigger: " + c.expand(kind.trigger))
		t.line("Runbook: RB-" + strconv.Itoa(*runbook))
		t.end()
		step := 1
		t.item(strconv.Itoa(step)+". ", c.expand(genericSteps[0]))
		for _, s := range kind.steps {
			step++
			t.item(strconv.Itoa(step)+". ", c.expand(s))
		}
		for _, s := range pickN(r, genericSteps[1:], r.between(2, 4)) {
			step++
			t.item(strconv.Itoa(step)+". ", c.expand(s))
		}
		step++
		t.item(strconv.Itoa(step)+". ", c.expand("If the alert is still firing after {min} minutes, escalate to the {team} secondary ({backup})."))
		t.end()
	}

	t.heading(3, n+".5 Capacity")
	for _, p := range c.paragraphs(capacityPool, 4, 3) {
		t.para(p)
	}

	t.heading(3, n+".6 Deploys")
	t.para(c.sentences(deployPool, 4))
	for i, s := range deployChecklist {
		t.item(strconv.Itoa(i+1)+". ", c.expand(s))
	}
	t.end()

	t.heading(3, n+".7 Incident history")
	// Incidents are listed oldest first, from early 2022 to late 2024.
	month := 2022*12 + r.intn(6)
	for range r.between(6, 9) {
		*incident += r.between(1, 8)
		month += r.between(1, 3)
		title := c.expand(pick(r, incidentTitles))
		t.heading(4, fmt.Sprintf("INC-%d: %s (%d %s %d)", *incident, title, r.between(1, 28), months[month%12], month/12))
		kind := pick(r, kinds)
		detection := strings.ReplaceAll(pick(r, detectionPool), "{suffix}", prefix+kind.suffix)
		t.para("Detection. " + c.expand(detection))
		t.para("Impact. " + c.sentences(impactPool, 2))
		t.para("Root cause. " + c.sentences(causePool, 2))
		t.para("Mitigation. " + c.sentences(mitigationPool, 2))
		t.line("Follow-ups:")
		for _, f := range pickN(r, followUpPool, r.between(2, 4)) {
			t.item("- ", c.expand(f))
		}
		t.end()
	}

	t.heading(3, n+".8 Frequently asked questions")
	for _, qa := range pickN(r, faqPool, r.between(4, 6)) {
		t.para("Q: " + c.expand(qa[0]))
		t.para("A: " + c.expand(qa[1]))
	}
}

// alertPrefix turns "api-gateway" into "ApiGateway".
func alertPrefix(name string) string {
	var b strings.Builder
	for part := range strings.SplitSeq(name, "-") {
		if part == "" {
			continue
		}
		b.WriteString(strings.ToUpper(part[:1]))
		b.WriteString(part[1:])
	}
	return b.String()
}
