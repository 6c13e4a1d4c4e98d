// The official TypeScript SDK client cancels a running execute_code call
// with an AbortSignal (it POSTs notifications/cancelled), then makes one
// more call. The Go test writes a line on stdin once the execution runs.
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const transport = new StreamableHTTPClientTransport(new URL(process.env.MCP_URL), {
  requestInit: { headers: { Authorization: `Bearer ${process.env.MCP_TOKEN}` } },
});
const client = new Client({ name: "ts-cancel", version: "1" });
await client.connect(transport);

const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const ac = new AbortController();
const call = client.callTool(
  { name: "execute_code", arguments: { code: "await slow.wait({}); while (true) {}" } },
  undefined,
  { signal: ac.signal },
);
await lines.next(); // the execution is running
ac.abort("user stopped it");
let aborted = false;
try {
  await call;
} catch {
  aborted = true;
}
const next = await client.callTool({ name: "execute_code", arguments: { code: "return await slow.ping({})" } });
console.log(JSON.stringify({ protocolVersion: transport.protocolVersion, aborted, next: next.structuredContent }));
await client.close();
process.exit(0);
