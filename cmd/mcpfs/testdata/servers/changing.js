// A small MCP server over stdio whose tools change between listings: each
// tools/list reads the tools' descriptions from the JSON file named by
// its first argument ({"echo": "...", "extra": "..."}; a tool with no
// entry is not listed), and it sends notifications/tools/list_changed when
// the file changes. Tests use it to change a tool under a pin.
const fs = require("fs");
const readline = require("readline");

const file = process.argv[2];
const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");

function tools() {
  const desc = JSON.parse(fs.readFileSync(file, "utf8"));
  return Object.keys(desc).sort().map((name) => ({
    name,
    description: desc[name],
    inputSchema: { type: "object", properties: { text: { type: "string" } } },
    annotations: { readOnlyHint: true },
  }));
}

fs.watchFile(file, { interval: 50 }, () =>
  send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" }));

const rl = readline.createInterface({ input: process.stdin });
rl.on("close", () => process.exit(0));
rl.on("line", (line) => {
  let m;
  try { m = JSON.parse(line); } catch { return; }
  if (m.id === undefined) return;
  switch (m.method) {
    case "initialize":
      send({ jsonrpc: "2.0", id: m.id, result: {
        protocolVersion: "2025-06-18", capabilities: { tools: { listChanged: true } },
        serverInfo: { name: "changing", version: "1" } } });
      break;
    case "tools/list":
      send({ jsonrpc: "2.0", id: m.id, result: { tools: tools() } });
      break;
    case "tools/call":
      send({ jsonrpc: "2.0", id: m.id, result: {
        content: [{ type: "text", text: m.params.name + ":" + JSON.stringify(m.params.arguments || {}) }] } });
      break;
    default:
      send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "no method " + m.method } });
  }
});
