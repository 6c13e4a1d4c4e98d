// The official TypeScript SDK client, on its default revision and
// declaring form elicitation (every question is accepted), runs the steps
// in MCP_STEPS (a JSON array) in one connection, over Streamable HTTP
// (MCP_URL, MCP_TOKEN) or, with MCP_TRANSPORT=stdio, over its own stdin
// and stdout, which the Go test serves with ServeIO. A step is
// { list: true } (tools/list), { code } (execute_code), { tool, args } (a
// tools/call; a protocol error is reported as protocolError) or { waitChanged: true } (until one more
// notifications/tools/list_changed has come). It writes one JSON line on
// stderr: the questions asked, the notifications counted and each step's
// outcome.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

// The stdio framing of the SDK's own transports, on this process's pipes.
class ParentStdio {
  #buf = new ReadBuffer();
  async start() {
    process.stdin.on("data", (chunk) => {
      this.#buf.append(chunk);
      for (let m; (m = this.#buf.readMessage()) !== null; ) this.onmessage?.(m);
    });
    process.stdin.on("end", () => this.onclose?.());
  }
  async send(message) {
    process.stdout.write(serializeMessage(message));
  }
  async close() {
    process.stdin.destroy();
    this.onclose?.();
  }
}

const transport =
  process.env.MCP_TRANSPORT === "stdio"
    ? new ParentStdio()
    : new StreamableHTTPClientTransport(new URL(process.env.MCP_URL), {
        requestInit: { headers: { Authorization: `Bearer ${process.env.MCP_TOKEN}` } },
      });
const client = new Client({ name: "ts-saved", version: "1" }, { capabilities: { elicitation: { form: {} } } });
const asked = [];
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  asked.push(req.params.message);
  return { action: "accept", content: {} };
});
let changed = 0;
let waiting = null;
client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
  changed++;
  waiting?.();
});
await client.connect(transport);
const steps = [];
let seen = 0;
for (const step of JSON.parse(process.env.MCP_STEPS)) {
  if (step.list) {
    const res = await client.listTools();
    steps.push({ tools: res.tools });
  } else if (step.waitChanged) {
    while (changed <= seen) await new Promise((resolve) => (waiting = resolve));
    seen = changed;
    steps.push({ changed });
  } else {
    let res;
    try {
      res = await client.callTool({ name: step.tool ?? "execute_code", arguments: step.args ?? { code: step.code } });
    } catch (e) {
      steps.push({ isError: true, protocolError: true, text: e.message });
      continue;
    }
    steps.push({
      isError: !!res.isError,
      result: res.structuredContent?.result,
      text: res.content.filter((c) => c.type === "text").map((c) => c.text).join("\n"),
    });
  }
}
process.stderr.write(JSON.stringify({ asked, changed, steps }) + "\n");
await client.close();
process.exit(0);
