// The official TypeScript SDK client runs a script that charts, declaring
// the MCP Apps extension when APPS=1, and prints what it got: the tool's
// _meta, the result's content types and, with Apps, the view it reads.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const apps = process.env.APPS === "1";
const transport = new StreamableHTTPClientTransport(new URL(process.env.MCP_URL), {
  requestInit: { headers: { Authorization: `Bearer ${process.env.MCP_TOKEN}` } },
});
const capabilities = apps ? { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } } : {};
const client = new Client({ name: "ts-charts", version: "1" }, { capabilities });
await client.connect(transport);

const { tools } = await client.listTools();
const tool = tools.find((t) => t.name === "execute_code");
const res = await client.callTool({
  name: "execute_code",
  arguments: {
    code: `await codemode.chart({ title: "Lap times", x: { title: "Lap" }, y: { title: "Time", unit: "s" },
  series: [{ name: "best", x: [1, 2, 3, 4], y: [92.4, 91.8, 91.5, 91.2] }] });
return "ok";`,
  },
});
const out = {
  resourceUri: tool._meta?.ui?.resourceUri ?? null,
  content: res.content.map((c) => c.type + (c.mimeType ? ":" + c.mimeType : "")),
  imageBytes: res.content.filter((c) => c.type === "image").map((c) => Buffer.from(c.data, "base64").length),
  charts: res.structuredContent?.charts?.length ?? 0,
  text: res.content.find((c) => c.type === "text")?.text.split("\n")[0],
};
if (out.resourceUri) {
  const view = await client.readResource({ uri: out.resourceUri });
  out.view = { mimeType: view.contents[0].mimeType, bytes: view.contents[0].text.length, csp: view.contents[0]._meta?.ui?.csp ?? null };
}
console.log(JSON.stringify(out));
await transport.terminateSession(); // DELETE: the server ends the session now
await client.close();
