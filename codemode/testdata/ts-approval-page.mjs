// The official TypeScript SDK client with no elicitation (MCP_MODE=none)
// or URL-mode elicitation only (MCP_MODE=url) runs the code in MCP_CODE.
// The user (this script, signed in with the cookie in MCP_COOKIE) opens
// the approval link and presses MCP_ACTION. With no elicitation the link
// comes in the tool result and the code is run again after answering;
// with URL mode it comes in elicitation/create. It prints what it saw.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const answerPage = async (link) => {
  const headers = { Cookie: process.env.MCP_COOKIE };
  const page = await (await fetch(link, { headers })).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1];
  if (!csrf) throw new Error(`no form on the approval page:\n${page}`);
  const body = new URLSearchParams({ csrf, action: process.env.MCP_ACTION });
  const res = await fetch(link, { method: "POST", headers: { ...headers, "Content-Type": "application/x-www-form-urlencoded" }, body });
  if (res.status !== 200) throw new Error(`answering the page: ${res.status}`);
};

const transport = new StreamableHTTPClientTransport(new URL(process.env.MCP_URL), {
  requestInit: { headers: { Authorization: `Bearer ${process.env.MCP_TOKEN}` } },
});
const url = process.env.MCP_MODE === "url";
const client = new Client({ name: "ts-page", version: "1" }, { capabilities: url ? { elicitation: { url: {} } } : {} });
const elicited = [];
if (url) {
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    elicited.push(req.params);
    await answerPage(req.params.url);
    return { action: "accept" };
  });
}
await client.connect(transport);
const call = async () => {
  const res = await client.callTool({ name: "execute_code", arguments: { code: process.env.MCP_CODE } });
  return { isError: !!res.isError, result: res.structuredContent };
};
const results = [await call()];
if (!url) {
  const link = results[0].result.approvalUrl;
  if (link) {
    await answerPage(link);
    results.push(await call());
  }
}
console.log(JSON.stringify({ elicited, results }));
await transport.terminateSession().catch(() => {});
await client.close();
process.exit(0);
