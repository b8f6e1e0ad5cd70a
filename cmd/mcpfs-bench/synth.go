package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mcpfs/mcpfs/discovery"
)

// The synthetic catalog: servers named after services, tools named verb_noun,
// each tool a real tool definition (from a server's live tools/list) with
// its name, title and description changed, so that schema shapes, sizes and
// annotations are those of real servers.
var (
	synthDomains = []string{
		"billing", "crm", "tickets", "inventory", "payments", "shipping", "analytics", "calendar",
		"mail", "chat", "docs", "wiki", "hr", "payroll", "recruiting", "marketing", "ads", "seo",
		"storage", "builds", "deploys", "alerts", "logs", "metrics", "search",
	}
	synthVerbs = []string{
		"get", "list", "create", "update", "delete", "archive", "restore", "export", "import", "search",
		"sync", "approve", "reject", "assign", "close", "reopen", "merge", "tag", "publish", "refund",
	}
	synthNouns = []string{
		"invoice", "customer", "ticket", "order", "payment", "shipment", "report", "event", "message", "channel",
		"document", "page", "employee", "candidate", "campaign", "keyword", "bucket", "build", "deployment", "alert",
		"log_entry", "metric", "query", "account", "subscription", "contract", "product", "warehouse", "coupon", "team",
		"project", "task", "comment", "label", "webhook", "user", "role", "token", "schedule", "quota",
	}
)

// synthSeed seeds the synthetic catalog; change it and every figure that
// depends on the catalog changes.
const synthSeed uint64 = 0x6d637066732d6265

// splitmix64 is a tiny PRNG with a fixed, documented sequence, so the
// catalog is the same on every Go version and platform.
type splitmix64 struct{ state uint64 }

func (r *splitmix64) next() uint64 {
	r.state += 0x9e3779b97f4a7c15
	z := r.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (r *splitmix64) intn(n int) int { return int(r.next() % uint64(n)) }

// synthTarget is the tool the discovery workload looks for.
type synthTarget struct {
	Server, Tool, Noun string
}

// synthCatalog builds servers × tools tools from the templates (raw tool
// objects from real tools/list results). The target is tool targetTool of
// server targetServer.
func synthCatalog(templates []json.RawMessage, servers, tools int) (*discovery.Catalog, synthTarget, error) {
	if len(templates) == 0 {
		return nil, synthTarget{}, fmt.Errorf("synthetic catalog: no template tools (no server listed any tool)")
	}
	if tools > len(synthVerbs)*len(synthNouns) {
		return nil, synthTarget{}, fmt.Errorf("synthetic catalog: %d tools per server is more than the %d verb_noun names", tools, len(synthVerbs)*len(synthNouns))
	}
	parsed := make([]map[string]json.RawMessage, len(templates))
	for i, t := range templates {
		if err := json.Unmarshal(t, &parsed[i]); err != nil {
			return nil, synthTarget{}, fmt.Errorf("synthetic catalog: template %d: %w", i, err)
		}
	}
	r := &splitmix64{state: synthSeed}
	listed := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cat := &discovery.Catalog{Version: 1, Servers: make([]discovery.ServerSnapshot, servers)}
	targetServer, targetTool := servers*57/100, tools*23/50
	var target synthTarget
	pairs := make([]int, len(synthVerbs)*len(synthNouns))
	for si := range cat.Servers {
		domain := synthDomains[si%len(synthDomains)]
		name := fmt.Sprintf("%s%d", domain, si/len(synthDomains)+1)
		// A fresh partial shuffle picks this server's verb_noun pairs.
		for i := range pairs {
			pairs[i] = i
		}
		snap := discovery.ServerSnapshot{
			Name: name, Key: name, Transport: "stdio", State: discovery.StateReady,
			ServerName: name + "-mcp", ServerVersion: "1.0.0", ProtocolVersion: "2025-06-18",
			ListedAt: listed, Since: listed,
			Tools: make([]discovery.Tool, tools),
		}
		for ti := range snap.Tools {
			j := ti + r.intn(len(pairs)-ti)
			pairs[ti], pairs[j] = pairs[j], pairs[ti]
			verb, noun := synthVerbs[pairs[ti]/len(synthNouns)], synthNouns[pairs[ti]%len(synthNouns)]
			tmpl := parsed[r.intn(len(parsed))]
			toolName := verb + "_" + noun
			obj := make(map[string]json.RawMessage, len(tmpl)+2)
			for k, v := range tmpl {
				obj[k] = v
			}
			human := strings.ReplaceAll(noun, "_", " ")
			title := strings.ToUpper(verb[:1]) + verb[1:] + " " + human
			var desc string
			if err := json.Unmarshal(tmpl["description"], &desc); err != nil {
				desc = ""
			}
			desc = fmt.Sprintf("%s a %s of the %s service (%s). %s", strings.ToUpper(verb[:1])+verb[1:], human, domain, name, desc)
			obj["name"], _ = json.Marshal(toolName)
			obj["title"], _ = json.Marshal(title)
			obj["description"], _ = json.Marshal(strings.TrimSpace(desc))
			raw, err := json.Marshal(obj)
			if err != nil {
				return nil, synthTarget{}, fmt.Errorf("synthetic catalog: tool %s/%s: %w", name, toolName, err)
			}
			snap.Tools[ti] = discovery.Tool{Name: toolName, Raw: raw}
			if si == targetServer && ti == targetTool {
				target = synthTarget{Server: name, Tool: toolName, Noun: noun}
			}
		}
		cat.Servers[si] = snap
	}
	sortServers(cat.Servers)
	return cat, target, nil
}

// sortServers sorts snapshots by Name, as a Catalog requires.
func sortServers(s []discovery.ServerSnapshot) {
	sort.Slice(s, func(i, j int) bool { return s[i].Name < s[j].Name })
}

// toolsListJSON is a server's tools/list result as the server sent it: the
// tools' raw objects in a {"tools": [...]} envelope. It is what an MCP
// client receives and turns into the model's tool definitions.
func toolsListJSON(s discovery.ServerSnapshot) string {
	var b strings.Builder
	b.WriteString(`{"tools":[`)
	for i, t := range s.Tools {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(t.Raw)
	}
	b.WriteString("]}")
	return b.String()
}

// apiToolsJSON is the smaller form a client sends a model API: each tool's
// name, description and input schema only (no title, annotations or
// output schema). It is the lower bound of the direct way's definitions.
func apiToolsJSON(s discovery.ServerSnapshot) string {
	type apiTool struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		InputSchema json.RawMessage `json:"input_schema"`
	}
	out := make([]apiTool, 0, len(s.Tools))
	for _, t := range s.Tools {
		var v struct {
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		_ = json.Unmarshal(t.Raw, &v)
		out = append(out, apiTool{Name: t.Name, Description: v.Description, InputSchema: v.InputSchema})
	}
	b, _ := json.Marshal(out)
	return string(b)
}
