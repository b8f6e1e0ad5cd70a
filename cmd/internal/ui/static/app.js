// mcpfs page: plain JavaScript, no library. The server pushes updates as
// server-sent events (/api/events); the page fetches state once on load.
"use strict";

const $ = (id) => document.getElementById(id);
const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};
const esc = (s) => s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
const plural = (n, w) => n + " " + w + (n === 1 ? "" : "s");
const bytes = (n) => n < 1024 ? n + " B" : n < 1048576 ? (n / 1024).toFixed(1) + " KB" : (n / 1048576).toFixed(1) + " MB";
// tokens says a run's figures: t is {results, printed, estimated}, counted
// as the benchmark counts (o200k_base); "≈" where part is estimated.
const tokenCount = (n) => n.toLocaleString("en-US") + " token" + (n === 1 ? "" : "s");
function tokensLine(t) {
  const a = t.estimated ? "≈ " : "";
  const kept = Math.max(t.results - t.printed, 0);
  return a + tokenCount(kept) + " kept out of the model's context (calls returned " + a + tokenCount(t.results) + ", the snippet printed " + a + tokenCount(t.printed) + ")";
}
// FACES says where a run the page did not start came from.
const FACES = { serve: "agent (serve)", cli: "mcpfs run", mount: "mount run/", ui: "another page" };

async function api(path, body) {
  const opts = body === undefined ? {} : { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
  const r = await fetch(path, opts);
  let data = {};
  try { data = await r.json(); } catch (e) { data = { error: r.status + " " + r.statusText }; }
  data._status = r.status;
  return data;
}

// ---- Go highlighting (one line at a time: simple, and enough here)

const KEYWORDS = new Set("break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var".split(" "));
const TYPES = new Set("any bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8 uint16 uint32 uint64 uintptr true false nil iota".split(" "));
const TOKEN = /(\/\/.*$)|(\/\*.*?(?:\*\/|$))|("(?:[^"\\]|\\.)*"?|`[^`]*`?|'(?:[^'\\]|\\.)*'?)|(\b\d[\d_.xXa-fA-FeE]*\b)|([A-Za-z_]\w*)(?=\s*\()|([A-Za-z_]\w*)/g;

function highlight(line) {
  let out = "", last = 0, m;
  TOKEN.lastIndex = 0;
  while ((m = TOKEN.exec(line)) !== null) {
    out += esc(line.slice(last, m.index));
    const t = esc(m[0]);
    if (m[1] || m[2]) out += '<span class="c">' + t + "</span>";
    else if (m[3]) out += '<span class="s">' + t + "</span>";
    else if (m[4]) out += '<span class="n">' + t + "</span>";
    else if (m[5]) out += KEYWORDS.has(m[5]) ? '<span class="k">' + t + "</span>" : TYPES.has(m[5]) ? '<span class="t">' + t + "</span>" : '<span class="f">' + t + "</span>";
    else if (KEYWORDS.has(m[6])) out += '<span class="k">' + t + "</span>";
    else if (TYPES.has(m[6])) out += '<span class="t">' + t + "</span>";
    else out += t;
    last = TOKEN.lastIndex;
    if (m[0] === "") TOKEN.lastIndex++;
  }
  return out + esc(line.slice(last));
}

function highlightGo(text) {
  return text.split("\n").map(highlight).join("\n");
}

// ---- editor: a textarea over a highlighted backdrop

const DEFAULT_SNIPPET = `package main

// Import a server's package, call its functions, print a summary:
// import "mcpfs/servers/<server>" (see the tree on the left).

import (
	"fmt"
)

func main() {
	fmt.Println("hello from mcpfs")
}
`;

const ed = $("editor"), backdrop = $("backdrop"), gutter = $("gutter");
let problems = [];
let checkTimer = 0, checkSeq = 0;

function renderEditor() {
  const lines = ed.value.split("\n");
  const byLine = new Map();
  for (const p of problems) if (p.line && (!p.file || p.file === "snippet.go")) {
    if (!byLine.has(p.line)) byLine.set(p.line, []);
    byLine.get(p.line).push(p);
  }
  let html = "", gut = "";
  lines.forEach((line, i) => {
    const ps = byLine.get(i + 1);
    if (!ps) {
      html += highlight(line);
      gut += (i + 1);
    } else {
      const col = Math.max(0, Math.min(line.length, (ps[0].col || 1) - 1));
      const word = /^[\w.]*/.exec(line.slice(col))[0] || line.slice(col, col + 1) || " ";
      const title = esc(ps.map((p) => p.msg).join("\n"));
      html += '<span class="errline" data-line="' + (i + 1) + '">' + highlight(line.slice(0, col)) +
        '<span class="errtok" title="' + title + '">' + highlight(word) + "</span>" +
        highlight(line.slice(col + word.length)) + "</span>";
      gut += '<span class="bad" title="' + title + '">' + (i + 1) + "</span>";
    }
    html += "\n";
    gut += "\n";
  });
  backdrop.innerHTML = html + " ";
  gutter.innerHTML = gut;
  syncScroll();
}

function syncScroll() {
  backdrop.scrollTop = ed.scrollTop;
  backdrop.scrollLeft = ed.scrollLeft;
  gutter.scrollTop = ed.scrollTop;
}

function renderProblems(resp) {
  const list = $("problems");
  list.textContent = "";
  if (resp.error) {
    list.append(el("li", "", resp.error));
  }
  for (const p of problems) {
    const li = el("li", "problem");
    li.textContent = (p.line ? p.line + ":" + p.col + ": " : "") + p.msg;
    if (p.hint) li.append(el("span", "hint", "hint: " + p.hint));
    li.addEventListener("click", () => gotoPos(p.line, p.col));
    list.append(li);
  }
}

function gotoPos(line, col) {
  if (!line) return;
  const lines = ed.value.split("\n");
  let off = 0;
  for (let i = 0; i < line - 1 && i < lines.length; i++) off += lines[i].length + 1;
  off += Math.max(0, (col || 1) - 1);
  ed.focus();
  ed.setSelectionRange(off, off);
}

// scheduleCheck keeps the text (a reload or a new tab starts from it)
// and checks it once typing pauses.
function scheduleCheck() {
  localStorage.setItem("mcpfs.snippet", ed.value);
  clearTimeout(checkTimer);
  $("check-state").textContent = "…";
  checkTimer = setTimeout(checkNow, 250);
}

async function checkNow() {
  const seq = ++checkSeq;
  const src = ed.value;
  const resp = await api("api/check", { source: src });
  if (seq !== checkSeq) return; // a newer check is on its way
  problems = resp.problems || [];
  const st = $("check-state");
  if (resp.ok) { st.textContent = "✓ type-checks (" + resp.ms.toFixed(1) + " ms)"; st.className = "ok-text muted"; }
  else { st.textContent = (problems.length || 1) + " problem" + (problems.length > 1 ? "s" : ""); st.className = "bad-text muted"; }
  renderProblems(resp);
  renderEditor();
}

ed.addEventListener("input", () => { renderEditor(); scheduleCheck(); });
ed.addEventListener("scroll", syncScroll);
ed.addEventListener("keydown", (e) => {
  if (e.key === "Tab" && !e.shiftKey) {
    e.preventDefault();
    document.execCommand("insertText", false, "\t");
  } else if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
    e.preventDefault();
    runSnippet();
  }
});

// ---- runs

let current = 0; // the run shown in the Run panel

// The events of a run can arrive before the answer to the POST that
// started it: those of runs not shown are kept a while, and replayed when
// the run is shown.
const early = new Map(); // run id → [[kind, data], ...]

function runEvent(kind, d) {
  const id = d.id;
  if (kind === "run") {
    runs.set(d.id, summarize(d));
    renderHistory();
  }
  if (id === current) {
    applyRunEvent(kind, d);
    return;
  }
  if (!early.has(id)) early.set(id, []);
  const list = early.get(id);
  if (list.length < 5000) list.push([kind, d]);
  if (kind === "run" && d.state !== "running") setTimeout(() => { if (id !== current) early.delete(id); }, 10000);
}

function applyRunEvent(kind, d) {
  if (kind === "output") appendOutput(d.stream, d.text);
  else if (kind === "call") renderCall(d.call);
  else if (kind === "run" && d.state !== "running") showRun(d);
}

async function runSnippet() {
  $("run").disabled = true;
  $("output").textContent = "";
  $("calls").tBodies[0].textContent = "";
  $("run-state").textContent = "starting…";
  const resp = await api("api/run", { source: ed.value });
  $("run").disabled = false;
  if (!resp.id) { $("run-state").textContent = resp.error || "could not start"; return; }
  current = resp.id;
  $("run-state").textContent = "run " + resp.id + ": running…";
  $("stop").hidden = false;
  for (const [kind, d] of early.get(current) || []) applyRunEvent(kind, d);
  early.delete(current);
}
$("run").addEventListener("click", runSnippet);
$("stop").addEventListener("click", () => { if (current) api("api/runs/" + current + "/stop", {}); });

function appendOutput(stream, text) {
  const out = $("output");
  if (stream === "stderr") out.append(el("span", "err", text));
  else out.append(document.createTextNode(text));
  out.scrollTop = out.scrollHeight;
}

function renderCall(c) {
  const body = $("calls").tBodies[0];
  let tr = body.querySelector('tr[data-n="' + c.n + '"]');
  if (!tr) { tr = el("tr"); tr.dataset.n = c.n; body.append(tr); }
  tr.className = !c.done ? "running" : c.err ? "failed" : "done";
  tr.textContent = "";
  tr.append(el("td", "num", String(c.n)), el("td", "", c.server + "." + c.tool),
    el("td", "num", c.done ? c.ms.toFixed(1) : "…"), el("td", "num", bytes(c.argBytes)),
    el("td", "num", c.done ? bytes(c.resultBytes) : ""), el("td", "", c.err || ""));
}

function showRun(r) {
  current = r.id;
  $("stop").hidden = r.state !== "running";
  const out = $("output");
  out.textContent = "";
  if (r.stdout) appendOutput("stdout", r.stdout);
  if (r.stderr) appendOutput("stderr", r.stderr);
  if (r.problems && r.problems.length) appendOutput("stderr", r.problems.map((p) => p.line + ":" + p.col + ": " + p.msg).join("\n") + "\n");
  else if (r.error && r.state !== "ok") appendOutput("stderr", r.error + "\n");
  $("calls").tBodies[0].textContent = "";
  (r.calls || []).forEach(renderCall);
  $("run-state").textContent = runLine(r);
}

function runLine(r) {
  if (r.state === "running") return "run " + r.id + ": running…";
  let got = 0;
  for (const c of r.calls || []) got += c.resultBytes;
  const printed = (r.stdout || "").length + (r.stderr || "").length;
  let s = "run " + r.id + (r.face ? " by " + (FACES[r.face] || r.face) : "") + ": " + r.state + ", exit " + r.exit + ", " + r.ms.toFixed(0) + " ms, " + plural((r.calls || []).length, "call");
  if (r.tokens && r.tokens.results > 0) s += "; " + tokensLine(r.tokens);
  else if (got > 0) s += "; " + bytes(got) + " of results, " + bytes(printed) + " printed";
  return s;
}

const runs = new Map(); // id → summary

function renderHistory() {
  const list = $("history");
  list.textContent = "";
  const ids = [...runs.keys()].sort((a, b) => b - a);
  for (const id of ids) {
    const r = runs.get(id);
    const li = el("li", "click");
    li.dataset.run = id;
    if (r.face) li.dataset.face = r.face;
    const gist = el("span", "gist", r.first || "");
    if (r.face) gist.prepend(el("span", "face", FACES[r.face] || r.face));
    const kept = r.tokens && r.tokens.results > 0 ? " · " + (r.tokens.estimated ? "≈" : "") + Math.max(r.tokens.results - r.tokens.printed, 0).toLocaleString("en-US") + " tok kept" : "";
    li.append(el("span", "badge " + r.state, "#" + id + " " + r.state), gist,
      el("span", "muted", r.state === "running" ? "…" : plural(r.calls, "call") + " · " + r.ms.toFixed(0) + " ms" + kept));
    li.title = "exit " + r.exit + "; " + (r.tokens ? tokensLine(r.tokens) : bytes(r.resultBytes) + " of results, " + bytes(r.outBytes) + " printed");
    li.addEventListener("click", async () => {
      const full = await api("api/runs/" + id);
      if (!full.id) return;
      showRun(full);
      viewer("Run " + id + " (snippet)", highlightGo(full.source));
      const edit = $("viewer-edit");
      edit.hidden = false;
      edit.onclick = () => { ed.value = full.source; renderEditor(); scheduleCheck(); ed.focus(); };
    });
    list.append(li);
  }
}

function summarize(r) {
  let rb = 0;
  for (const c of r.calls || []) rb += c.resultBytes;
  return { id: r.id, state: r.state, exit: r.exit, ms: r.ms, calls: (r.calls || []).length, resultBytes: rb,
    outBytes: (r.stdout || "").length + (r.stderr || "").length, first: gistOf(r.source), face: r.face, tokens: r.tokens };
}

function gistOf(src) {
  const m = /\b[a-z]\w*\.[A-Z]\w*\(/.exec(src.replace(/fmt\.\w+\(/g, ""));
  if (m) { const line = src.split("\n").find((l) => l.includes(m[0])); if (line) return line.trim(); }
  return "";
}

// ---- the audit log: every tool call, whichever face made it

const audit = [];

function renderAudit(recs, on) {
  audit.push(...recs);
  if (audit.length > 200) audit.splice(0, audit.length - 200);
  const ul = $("audit");
  ul.textContent = "";
  if (!audit.length) ul.append(el("li", "muted", on === false ? "calls are not audited (no data dir)" : "no tool calls yet"));
  for (let i = audit.length - 1; i >= 0; i--) {
    const r = audit[i];
    const li = el("li", r.outcome === "ok" ? "" : "bad");
    li.append(el("span", "muted", new Date(r.time).toLocaleTimeString()), el("span", "badge", r.face || "cli"),
      el("span", "call", r.server + "." + r.tool + (r.outcome === "ok" ? "" : " — " + r.outcome + (r.error ? ": " + r.error : ""))),
      el("span", "num", r.durationMs.toFixed(1) + " ms"), el("span", "num", bytes(r.resultBytes)));
    li.title = (r.run ? "run " + r.run + "; " : "") + "args " + bytes(r.argsBytes) + " " + r.argsHash;
    ul.append(li);
  }
}

// ---- servers

function renderServers(list) {
  const ul = $("servers");
  ul.textContent = "";
  if (!list.length) ul.append(el("li", "muted", "no servers in the config"));
  for (const s of list) {
    const li = el("li", "state-" + s.state);
    li.dataset.server = s.name;
    li.dataset.state = s.state;
    const name = el("span", "sname click", s.name);
    name.addEventListener("click", () => browse("servers/" + s.name));
    li.append(el("span", "dot"), name, el("span", "state", s.state));
    const meta = [s.transport, plural(s.tools, "tool") + (s.stale ? " (cached)" : "")];
    if (s.title || s.version) meta.push([s.title, s.version].filter(Boolean).join(" "));
    if (s.restarts) meta.push("restarted " + plural(s.restarts, "time"));
    if (s.nextRetry) meta.push("retry at " + new Date(s.nextRetry).toLocaleTimeString());
    li.append(el("span"), el("span", "smeta", meta.join(" · ")), el("span"));
    if (s.err) li.append(el("span", "serr", s.err));
    if (s.pinChanges) {
      const pins = el("span", "serr click pins", s.pinChanges === 1 ? "1 tool definition differs from its pin: see how" : s.pinChanges + " tool definitions differ from their pins: see how");
      pins.dataset.pins = s.name;
      pins.addEventListener("click", async () => {
        const r = await api("api/pins/" + encodeURIComponent(s.name));
        viewer("pinned definitions of " + s.name, esc(r.text || r.error || ""));
      });
      li.append(pins);
    }
    li.title = s.state + " since " + new Date(s.since).toLocaleTimeString();
    ul.append(li);
  }
}

// ---- tree

async function browse(path) {
  const r = await api("api/tree?path=" + encodeURIComponent(path));
  if (r.error) { viewer(path, esc(r.error)); return; }
  if (r.text !== undefined) {
    viewer(r.path, r.path.endsWith(".go") ? highlightGo(r.text) : esc(r.text));
    return;
  }
  renderTree(r);
}

function renderTree(r) {
  const crumbs = $("crumbs");
  crumbs.textContent = "";
  const parts = r.path === "." ? [] : r.path.split("/");
  const root = el("a", "", "/");
  root.addEventListener("click", () => browse("."));
  crumbs.append(root);
  parts.forEach((p, i) => {
    const a = el("a", "", p + "/");
    a.addEventListener("click", () => browse(parts.slice(0, i + 1).join("/")));
    crumbs.append(a);
  });
  const ul = $("tree");
  ul.textContent = "";
  for (const e of r.entries) {
    const full = (r.path === "." ? "" : r.path + "/") + e.name;
    const li = el("li", "click");
    li.dataset.path = full;
    li.append(el("span", e.dir ? "dir" : "", e.name + (e.dir ? "/" : "")), el("span", "size", e.dir ? "" : bytes(e.size)));
    li.addEventListener("click", () => browse(full));
    ul.append(li);
  }
}

// viewer shows html (already escaped or highlighted) under title.
function viewer(title, html) {
  $("viewer-title").textContent = title;
  $("viewer-edit").hidden = true;
  $("viewer").innerHTML = html;
  $("viewer").scrollTop = 0;
}
$("viewer-close").addEventListener("click", () => viewer("File", '<span class="muted">Pick a file in the tree, a search, a run or a skill.</span>'));

$("search-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const q = $("search").value.trim();
  if (!q) return;
  const r = await api("api/search?q=" + encodeURIComponent(q));
  viewer("Search: " + q, esc(r.text || r.error || ""));
});

// ---- skills

function renderSkills(list) {
  const ul = $("skills");
  ul.textContent = "";
  if (!list.length) ul.append(el("li", "muted", "no skills saved yet"));
  for (const s of list) {
    const li = el("li", "click");
    li.dataset.skill = s.name;
    li.append(el("b", "", s.name), document.createTextNode(" v" + s.version), el("span", "desc", s.description));
    li.addEventListener("click", () => showSkill(s.name));
    ul.append(li);
  }
}

async function showSkill(name) {
  const r = await api("api/skills/" + encodeURIComponent(name));
  const box = $("skill-detail");
  box.textContent = "";
  if (r.error) { box.append(el("div", "msg bad", r.error)); return; }
  if (r.files) {
    const go = Object.keys(r.files).filter((f) => f.endsWith(".go")).sort();
    viewer("skills/" + name + "/" + (go[0] || "SKILL.md"), go[0] ? highlightGo(r.files[go[0]]) : esc(r.files["SKILL.md"] || ""));
  }
  const t = el("table");
  for (const v of r.versions) {
    const tr = el("tr");
    const pending = [];
    const view = el("button", "small", "view");
    view.dataset.act = "view";
    view.dataset.v = v.version;
    view.addEventListener("click", async () => {
      const vr = await api("api/skills/" + encodeURIComponent(name) + "/" + v.version);
      if (!vr.files) return;
      const text = Object.keys(vr.files).sort().map((f) => "// ---- " + f + "\n" + vr.files[f]).join("\n");
      viewer("skills/" + name + " v" + v.version, highlightGo(text));
    });
    if (!v.removed && r.files && r.current && r.current.version !== v.version) {
      const diff = el("button", "small", "diff");
      diff.dataset.act = "diff";
      diff.dataset.v = v.version;
      diff.addEventListener("click", async () => {
        const vr = await api("api/skills/" + encodeURIComponent(name) + "/" + v.version);
        if (!vr.files) return;
        viewer("skills/" + name + ": v" + v.version + " → v" + r.current.version, diffFiles(vr.files, r.files));
      });
      pending.push(diff);
    }
    tr.append(el("td", "", "v" + v.version), el("td", "muted", new Date(v.saved).toLocaleString()), el("td", "muted", v.removed ? "removed" : (v.note || "")));
    const act = el("td");
    if (!v.removed) act.append(view, ...pending);
    if (!v.removed && (!r.current || r.current.version !== v.version)) {
      const restore = el("button", "small", "restore");
      restore.dataset.act = "restore";
      restore.dataset.v = v.version;
      restore.addEventListener("click", async () => {
        const rr = await api("api/skills/" + encodeURIComponent(name) + "/restore", { version: v.version });
        box.prepend(el("div", "msg " + (rr.error ? "bad" : "good"), rr.error || "restored as v" + rr.version));
        if (!rr.error) showSkill(name);
      });
      act.append(restore);
    }
    tr.append(act);
    t.append(tr);
  }
  box.append(t);
}

// diffFiles shows the line changes from files a to files b.
function diffFiles(a, b) {
  const names = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  let html = "";
  for (const n of names) {
    if (a[n] === b[n]) continue;
    html += '<span class="c">--- ' + esc(n) + "</span>\n" + diffLines((a[n] || "").split("\n"), (b[n] || "").split("\n"));
  }
  return html || '<span class="muted">no differences</span>';
}

// diffLines is a longest-common-subsequence line diff: enough for skills.
function diffLines(x, y) {
  const m = x.length, n = y.length;
  const lcs = Array.from({ length: m + 1 }, () => new Uint32Array(n + 1));
  for (let i = m - 1; i >= 0; i--) for (let j = n - 1; j >= 0; j--)
    lcs[i][j] = x[i] === y[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  let out = "", i = 0, j = 0;
  while (i < m || j < n) {
    if (i < m && j < n && x[i] === y[j]) { out += "  " + esc(x[i]) + "\n"; i++; j++; }
    else if (j < n && (i === m || lcs[i][j + 1] >= lcs[i + 1][j])) { out += '<span class="add">+ ' + esc(y[j]) + "</span>\n"; j++; }
    else { out += '<span class="del">- ' + esc(x[i]) + "</span>\n"; i++; }
  }
  return out;
}

$("save-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const msg = $("save-msg");
  msg.className = "msg";
  msg.textContent = "saving…";
  const r = await api("api/skills", { name: $("save-name").value.trim(), description: $("save-desc").value, source: ed.value });
  if (r.error) {
    msg.className = "msg bad";
    msg.textContent = r.error + (r.problems ? "\n" + r.problems.map((p) => (p.file ? p.file + ":" + p.line + ":" + p.col + ": " : "") + p.msg).join("\n") : "");
    return;
  }
  msg.className = "msg good";
  msg.textContent = "saved skill " + r.name + " v" + r.version + ": import \"mcpfs/skills/" + r.name + "\" and call " + r.name + ".Main()";
});

// ---- events

let es = null;
const streamed = { servers: false, skills: false };

function connect() {
  es = new EventSource("api/events");
  es.addEventListener("open", async () => {
    $("conn").textContent = "live";
    $("conn").className = "conn live";
    // After a reconnect, events of the run shown may have been missed.
    const r = current && runs.get(current);
    if (r && r.state === "running") {
      const full = await api("api/runs/" + current);
      if (full.id === current) showRun(full);
    }
  });
  es.addEventListener("error", () => { $("conn").textContent = "reconnecting…"; $("conn").className = "conn"; });
  // The stream starts with the servers and skills as they are, then
  // sends every change: it is newer than /api/state, which only fills in
  // what the stream has not sent yet.
  es.addEventListener("servers", (e) => { streamed.servers = true; renderServers(JSON.parse(e.data)); });
  es.addEventListener("skills", (e) => { streamed.skills = true; renderSkills(JSON.parse(e.data)); });
  es.addEventListener("audit", (e) => renderAudit(JSON.parse(e.data)));
  for (const kind of ["output", "call", "run"]) {
    es.addEventListener(kind, (e) => runEvent(kind, JSON.parse(e.data)));
  }
}

// load shows the state the page came with (or fetches it), then follows
// the event stream.
async function load() {
  ed.value = localStorage.getItem("mcpfs.snippet") || DEFAULT_SNIPPET;
  renderEditor();
  connect();
  const boot = document.getElementById("state");
  const st = boot ? JSON.parse(boot.textContent) : await api("api/state");
  if (!streamed.servers) renderServers(st.servers || []);
  if (!streamed.skills) renderSkills(st.skills || []);
  if (st.tree) renderTree(st.tree); else await browse("servers");
  for (const r of st.runs || []) runs.set(r.id, r);
  renderHistory();
  renderAudit(st.audit || [], st.auditOn);
  if (!st.skillsOn) { $("save").disabled = true; $("save-msg").textContent = "skills are not available (no data dir)"; }
  document.body.dataset.ready = "1";
  window.mcpfsReadyAt = performance.now(); // from the start of navigation
  checkNow();
}

load();
