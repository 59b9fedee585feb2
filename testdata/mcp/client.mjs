// Drives `agentbox mcp` with the official MCP TypeScript SDK client, printing one JSON
// line per step for mcp_client_test.go. The client offers roots (the workspace it
// names, not the server's own AGENTBOX_ROOT) and elicitation (it answers ask's
// questions), and calls read, glob, grep, edit and bash, a long bash with progress, a
// bash it cancels, and task (progress, answer, cancel).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema, ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const [bin, workdir, serverRoot] = process.argv.slice(2);
const transport = new StdioClientTransport({ command: bin, args: ["mcp"], cwd: serverRoot, env: { ...process.env, AGENTBOX_ROOT: serverRoot } });
const client = new Client({ name: "agentbox-test-client", version: "1.0.0" }, { capabilities: { roots: { listChanged: true }, elicitation: {} } });
client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: "file://" + workdir, name: "work" }] }));
const elicitations = [];
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  elicitations.push({ message: req.params.message, schema: req.params.requestedSchema });
  // A permission prompt (bash in accept-edits mode) is granted for the session; a
  // question gets its answer.
  if (req.params.requestedSchema?.properties?.decision) return { action: "accept", content: { decision: "session" } };
  return { action: "accept", content: { q1: "SQLite" } };
});
await client.connect(transport);
const out = (step, value) => console.log(JSON.stringify({ step, value }));
const call = async (name, args, opts) => {
  try {
    return await client.callTool({ name, arguments: args }, undefined, opts);
  } catch (e) {
    return { thrown: String(e) };
  }
};

const { tools } = await client.listTools();
out("list", tools.map((t) => ({ name: t.name, readOnly: t.annotations?.readOnlyHint, destructive: t.annotations?.destructiveHint, idempotent: t.annotations?.idempotentHint, openWorld: t.annotations?.openWorldHint, hasSchema: t.inputSchema?.type === "object", hasOutputSchema: t.outputSchema?.type === "object" })));
// Relative paths resolve in the client's root, which the server was not started in.
out("read", await call("read", { file_path: "hello.txt" }));
out("glob", await call("glob", { pattern: "**/*.txt" }));
out("grep", await call("grep", { pattern: "wor.d", output_mode: "content" }));
out("edit", await call("edit", { file_path: "hello.txt", old_string: "world", new_string: "MCP" }));
out("bash", await call("bash", { command: "pwd; echo from-bash" }));
out("missing", await call("read", { file_path: "missing.txt" }));
out("invalid", await call("read", { file_path: 42 }));
out("ask", await call("ask", { questions: [{ text: "Which database?", choices: ["PostgreSQL", "SQLite"] }] }));
out("elicitations", elicitations);

const progress = [];
out("progress", { result: await call("bash", { command: "sleep 2.5; echo slept" }, { onprogress: (p) => progress.push(p), timeout: 20000 }), progress });

// Cancel a long call: the request is aborted at 500 ms, and the command (which would
// create late.txt after 8 s) must be killed, not left running: the test looks for late.txt
// only once 9 s have passed since the cancel, so a loaded machine's slowness can neither
// hide a command left running nor fail one that was killed.
const ac = new AbortController();
const started = Date.now();
setTimeout(() => ac.abort("test cancels"), 500);
const cancelled = await call("bash", { command: "sleep 8; touch late.txt" }, { signal: ac.signal });
const cancelMs = Date.now() - started;
const cancelAt = Date.now();
await new Promise((r) => setTimeout(r, 3000));
out("cancel", { cancelled, cancelMs, cancelAt });
out("after-cancel", await call("bash", { command: "ls late.txt 2>&1; true" }));

// task (the server has a fake agent configured): progress while it works, its answer,
// and a cancel that stops the subagent with everything it started (task-pids names them).
const taskProgress = [];
out("task", { result: await call("task", { description: "nap", prompt: "nap say rested format codex" }, { onprogress: (p) => taskProgress.push(p), timeout: 20000 }), progress: taskProgress });
const tc = new AbortController();
const taskStarted = Date.now();
setTimeout(() => tc.abort("test cancels the task"), 1000);
const taskCancelled = await call("task", { description: "sleeper", prompt: "sleep" }, { signal: tc.signal });
out("task-cancel", { cancelled: taskCancelled, cancelMs: Date.now() - taskStarted });
await new Promise((r) => setTimeout(r, 1500));
await client.close();
