// The official MCP TypeScript SDK client, on its default protocol
// revision and declaring form elicitation, against MCP_URL with the bearer
// token MCP_TOKEN: it runs each of its arguments as code with
// execute_code, in order and in one connection, and answers every
// approval question with MCP_ACTION (accept, decline or cancel). It prints
// one JSON object: the revision, the session id (null without a session),
// the questions asked and each call's result. RunApproval in approval.go
// runs it.
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
const calls = [];
for (const code of process.argv.slice(2)) {
  const res = await client.callTool({ name: "execute_code", arguments: { code } });
  calls.push({
    isError: !!res.isError,
    result: res.structuredContent,
    text: res.content.filter((c) => c.type === "text").map((c) => c.text).join("\n"),
  });
}
console.log(JSON.stringify({ protocolVersion: transport.protocolVersion, sessionId, asked, calls }));
await transport.terminateSession(); // the session ends now, not at its idle timeout
await client.close();
process.exit(0);
