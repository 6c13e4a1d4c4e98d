// The official MCP TypeScript SDK client, on its default protocol
// revision and declaring elicitation, against the gateway over Streamable
// HTTP (GATEWAY_URL, bearer token GATEWAY_TOKEN): it stores an entity in
// server-memory, deletes it (a destructive tool, so the user is asked and
// answers MCP_ACTION), reads the graph back, and prints what it saw as one
// JSON object.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const transport = new StreamableHTTPClientTransport(new URL(process.env.GATEWAY_URL), {
  requestInit: { headers: { Authorization: `Bearer ${process.env.GATEWAY_TOKEN}` } },
});
const client = new Client({ name: "ts-gateway-approval", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
const asked = [];
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  asked.push(req.params.message);
  const action = process.env.MCP_ACTION;
  return action === "accept" ? { action, content: {} } : { action };
});
await client.connect(transport);
const sessionId = transport.sessionId ?? null;
const run = async (code) => {
  const r = await client.callTool({ name: "execute_code", arguments: { code } });
  return { isError: r.isError ?? false, structured: r.structuredContent, text: r.content.map((c) => c.text).join("\n") };
};
const created = await run(`await memory.create_entities({ entities: [{ name: "draft", entityType: "note", observations: ["to delete"] }] }); return "created";`);
const deleted = await run(`await memory.delete_entities({ entityNames: ["draft"] }); return "deleted";`);
const graph = await run(`return (await memory.read_graph({})).entities.map((e) => e.name);`);
console.log(JSON.stringify({ protocolVersion: transport.protocolVersion, sessionId, asked, created, deleted, graph }));
await transport.terminateSession();
await client.close();
