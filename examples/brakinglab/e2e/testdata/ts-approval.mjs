// The official MCP TypeScript SDK client, on its default protocol
// revision, declaring form elicitation: it runs execute_code with the code
// in MCP_CODE against MCP_URL with the bearer token MCP_TOKEN and answers
// every approval request with MCP_ACTION (accept, decline or cancel). It
// prints one JSON object: the revision, the session id, what the user was
// asked and the tool result.
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
  const action = process.env.MCP_ACTION;
  return action === "accept" ? { action, content: {} } : { action };
});
await client.connect(transport);
const sessionId = transport.sessionId ?? null;
const res = await client.callTool({ name: "execute_code", arguments: { code: process.env.MCP_CODE } });
console.log(JSON.stringify({
  protocolVersion: transport.protocolVersion,
  sessionId,
  asked,
  isError: !!res.isError,
  result: res.structuredContent,
  text: res.content.filter((c) => c.type === "text").map((c) => c.text).join("\n"),
}));
await transport.terminateSession(); // the session ends now, not at its idle timeout
await client.close();
process.exit(0);
