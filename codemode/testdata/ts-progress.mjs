// The official TypeScript SDK client calls execute_code with the code in
// MCP_CODE and an onprogress callback, over Streamable HTTP (MCP_URL,
// MCP_TOKEN) or, with MCP_TRANSPORT=stdio, over its own stdin and stdout,
// which the Go test serves with ServeIO. It writes the progress it saw, the
// result and the error's kind on stderr (stdout is the protocol's over stdio).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";

// The stdio framing of the SDK's own transports, on this process's pipes.
class ParentStdio {
  #buf = new ReadBuffer();
  async start() {
    // One message per macrotask: the client handles a notification in a
    // microtask, so a response read in the same chunk would otherwise
    // retire the call's onprogress before the notifications before it
    // reach it (seen under the race detector's slow writes).
    let queue = Promise.resolve();
    process.stdin.on("data", (chunk) => {
      this.#buf.append(chunk);
      for (let m; (m = this.#buf.readMessage()) !== null; ) {
        queue = queue.then(() => new Promise((resolve) => setImmediate(() => resolve(this.onmessage?.(m)))));
      }
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
const client = new Client({ name: "ts-progress", version: "1" });
await client.connect(transport);
const progress = [];
const res = await client.callTool({ name: "execute_code", arguments: { code: process.env.MCP_CODE } }, undefined, {
  onprogress: (p) => progress.push(p),
  resetTimeoutOnProgress: true,
});
process.stderr.write(JSON.stringify({ progress, isError: !!res.isError, result: res.structuredContent?.result, error: res.structuredContent?.error?.kind }) + "\n");
await client.close();
process.exit(0);
