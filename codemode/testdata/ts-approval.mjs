// The official TypeScript SDK client declares elicitation, answers the
// approval request with the action in MCP_ACTION and calls execute_code
// with the code in MCP_CODE. It prints what the user was asked and the
// tool result.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const transport = new StreamableHTTPClientTransport(new URL(process.env.MCP_URL), {
  requestInit: { headers: { Authorization: `Bearer ${process.env.MCP_TOKEN}` } },
});
const client = new Client({ name: "ts-approval", version: "1" }, { capabilities: { elicitation: { form: {} } } });
const asked = [];
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  asked.push(req.params.message);
  return process.env.MCP_ACTION === "accept" ? { action: "accept", content: {} } : { action: process.env.MCP_ACTION };
});
await client.connect(transport);
const res = await client.callTool({ name: "execute_code", arguments: { code: process.env.MCP_CODE } });
console.log(JSON.stringify({ protocolVersion: transport.protocolVersion, asked, isError: !!res.isError, result: res.structuredContent }));
await transport.terminateSession(); // a stateful session ends now, not at its idle timeout
await client.close();
process.exit(0);
