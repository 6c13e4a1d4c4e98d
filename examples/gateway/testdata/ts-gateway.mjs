// Drives the gateway with the official MCP TypeScript SDK client, over
// stdio (GATEWAY_BIN, GATEWAY_CONFIG) or Streamable HTTP (GATEWAY_URL, with
// the bearer token GATEWAY_TOKEN),
// and prints what it saw as one JSON object.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const transport = process.env.GATEWAY_URL
  ? new StreamableHTTPClientTransport(new URL(process.env.GATEWAY_URL), {
      requestInit: process.env.GATEWAY_TOKEN ? { headers: { Authorization: `Bearer ${process.env.GATEWAY_TOKEN}` } } : {},
    })
  : new StdioClientTransport({
      command: process.env.GATEWAY_BIN,
      args: ["-stdio", "-config", process.env.GATEWAY_CONFIG, "-dev-user", "ts-user"],
      stderr: "inherit",
    });
const client = new Client({ name: "ts-gateway-test", version: "1.0.0" });
await client.connect(transport);
const { tools } = await client.listTools();
const code = `
const text = await files.read_text_file({ path: ${JSON.stringify(process.env.NOTE_PATH)} });
await memory.create_entities({ entities: [{ name: "note", entityType: "file", observations: [String(text.content ?? text)] }] });
const graph = await memory.read_graph({});
return graph.entities.map(e => e.name + ": " + e.observations.join(" | "));
`;
const result = await client.callTool({ name: "execute_code", arguments: { code } });
console.log(JSON.stringify({
  tools: tools.map((t) => t.name),
  description: tools[0].description,
  isError: result.isError ?? false,
  structured: result.structuredContent,
  text: result.content.map((c) => c.text).join("\n"),
}));
await client.close();
