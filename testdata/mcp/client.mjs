// Drives `agentbox mcp` with the official MCP TypeScript SDK client: lists the tools and
// calls read, glob and edit, printing one JSON line per step for mcp_client_test.go.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [bin, workdir] = process.argv.slice(2);
const transport = new StdioClientTransport({ command: bin, args: ["mcp"], cwd: workdir, env: { ...process.env, AGENTBOX_ROOT: workdir } });
const client = new Client({ name: "agentbox-test-client", version: "1.0.0" });
await client.connect(transport);
const out = (step, value) => console.log(JSON.stringify({ step, value }));

const { tools } = await client.listTools();
out("list", tools.map((t) => ({ name: t.name, readOnly: t.annotations?.readOnlyHint, destructive: t.annotations?.destructiveHint, hasSchema: t.inputSchema?.type === "object" })));
out("read", await client.callTool({ name: "read", arguments: { file_path: "hello.txt" } }));
out("glob", await client.callTool({ name: "glob", arguments: { pattern: "**/*.txt" } }));
out("edit", await client.callTool({ name: "edit", arguments: { file_path: "hello.txt", old_string: "world", new_string: "MCP" } }));
out("missing", await client.callTool({ name: "read", arguments: { file_path: "missing.txt" } }));
out("invalid", await client.callTool({ name: "read", arguments: { file_path: 42 } }));
await client.close();
