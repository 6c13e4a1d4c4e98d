// Dumps an MCP server's tools/list as JSON: node dump.mjs <command> [args...]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
const [command, ...args] = process.argv.slice(2);
const client = new Client({ name: "dump", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command, args, stderr: "ignore" }));
const tools = [];
let cursor;
do {
  const res = await client.listTools(cursor ? { cursor } : {});
  tools.push(...res.tools);
  cursor = res.nextCursor;
} while (cursor);
process.stdout.write(JSON.stringify({ tools }, null, 2) + "\n");
await client.close();
