// The official MCP TypeScript SDK client over stdio: it starts BrakingLab
// (BRAKINGLAB_BIN -stdio -user demo -db BRAKINGLAB_DB), runs each of its
// arguments as code with execute_code, in order and in one connection,
// and prints one JSON array: each call's isError, structured result and
// text.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const transport = new StdioClientTransport({
  command: process.env.BRAKINGLAB_BIN,
  args: ["-stdio", "-user", "demo", "-db", process.env.BRAKINGLAB_DB],
  stderr: "ignore",
});
const client = new Client({ name: "ts-stdio", version: "1" });
await client.connect(transport);
const calls = [];
for (const code of process.argv.slice(2)) {
  const res = await client.callTool({ name: "execute_code", arguments: { code } });
  calls.push({
    isError: !!res.isError,
    result: res.structuredContent,
    text: res.content.filter((c) => c.type === "text").map((c) => c.text).join("\n"),
  });
}
console.log(JSON.stringify(calls));
await client.close();
process.exit(0);
