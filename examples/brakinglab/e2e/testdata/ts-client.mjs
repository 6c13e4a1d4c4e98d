// BrakingLab end-to-end client on the official MCP TypeScript SDK.
//
// It connects over Streamable HTTP with the SDK's OAuth client provider
// flow: 401 → discovery → dynamic registration → authorization with PKCE
// (sign-in and consent are performed here with fetch and a cookie jar, as a
// person would in a browser) → finishAuth → tools/list → execute_code.
// It prints one JSON object describing what happened; the Go test checks it.
//
// Environment: MCP_URL, MCP_USER, MCP_PASSWORD.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { randomBytes } from "node:crypto";

const mcpURL = new URL(process.env.MCP_URL);
const user = process.env.MCP_USER;
const password = process.env.MCP_PASSWORD;
const redirectUrl = "http://127.0.0.1:53684/callback"; // never contacted: the Location header is read instead

// A cookie jar just big enough for the authorization server's session cookie.
const cookies = new Map();
function storeCookies(res) {
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(";");
    const i = pair.indexOf("=");
    cookies.set(pair.slice(0, i).trim(), pair.slice(i + 1).trim());
  }
}
const cookieHeader = () => [...cookies].map(([k, v]) => `${k}=${v}`).join("; ");

const attr = (tag, name) => {
  const m = tag.match(new RegExp(`\\b${name}\\s*=\\s*("([^"]*)"|'([^']*)'|([^\\s>]+))`, "i"));
  return m ? decode(m[2] ?? m[3] ?? m[4]) : undefined;
};
const decode = (s) =>
  s.replace(/&#(\d+);/g, (_, n) => String.fromCharCode(+n)).replace(/&quot;/g, '"').replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");

// signInAndAllow walks the authorization URL like a browser: it follows
// redirects on the server, fills the sign-in form, presses Allow on the
// consent form, and returns the query of the final redirect to redirectUrl.
async function signInAndAllow(authorizationUrl) {
  let req = { url: authorizationUrl.href, init: { method: "GET" } };
  for (let step = 0; step < 10; step++) {
    const res = await fetch(req.url, { ...req.init, redirect: "manual", headers: { ...req.init.headers, cookie: cookieHeader() } });
    storeCookies(res);
    if (res.status >= 300 && res.status < 400) {
      const loc = new URL(res.headers.get("location"), req.url);
      if (loc.href.startsWith(redirectUrl)) return loc.searchParams;
      req = { url: loc.href, init: { method: "GET" } };
      continue;
    }
    const page = await res.text();
    if (res.status !== 200) throw new Error(`${req.url}: status ${res.status}: ${page.slice(0, 300)}`);
    const form = page.match(/<form\b([^>]*)>([\s\S]*?)<\/form>/i);
    if (!form) throw new Error(`no form at ${req.url}`);
    const fields = new URLSearchParams();
    for (const [tag] of form[2].matchAll(/<input\b[^>]*>/gi)) {
      const type = (attr(tag, "type") ?? "text").toLowerCase();
      const name = attr(tag, "name");
      if (!name) continue;
      if (type === "password") fields.set(name, password);
      else if (type === "text" || type === "email") fields.set(name, user);
      else if (type === "hidden") fields.set(name, attr(tag, "value") ?? "");
    }
    if (!/type\s*=\s*"?password/i.test(form[2])) {
      const allow = [...form[2].matchAll(/<button\b([^>]*)>([\s\S]*?)<\/button>/gi)].find((b) => b[2].trim() === "Allow");
      if (!allow) throw new Error(`no Allow button at ${req.url}`);
      fields.set(attr(allow[1], "name"), attr(allow[1], "value"));
    }
    const action = new URL(attr(form[1], "action") ?? "", req.url);
    req = {
      url: action.href,
      init: { method: "POST", body: fields.toString(), headers: { "content-type": "application/x-www-form-urlencoded", origin: action.origin } },
    };
  }
  throw new Error("authorization did not finish in 10 steps");
}

const report = { registered: false, authorized: false, stateMatched: false, iss: "", tools: [], result: null, isError: null };

class Provider {
  _client = undefined;
  _tokens = undefined;
  _verifier = undefined;
  _state = undefined;
  code = undefined;
  get redirectUrl() { return redirectUrl; }
  get clientMetadata() {
    return {
      client_name: "BrakingLab e2e (TypeScript SDK)",
      redirect_uris: [redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state() { this._state = randomBytes(16).toString("hex"); return this._state; }
  clientInformation() { return this._client; }
  saveClientInformation(info) { this._client = info; report.registered = !!info.client_id; }
  tokens() { return this._tokens; }
  saveTokens(tokens) { this._tokens = tokens; }
  saveCodeVerifier(v) { this._verifier = v; }
  codeVerifier() { return this._verifier; }
  async redirectToAuthorization(url) {
    report.pkce = url.searchParams.get("code_challenge_method");
    report.resource = url.searchParams.get("resource");
    const q = await signInAndAllow(url);
    if (q.get("error")) throw new Error(`authorization failed: ${q.get("error")}: ${q.get("error_description")}`);
    report.stateMatched = q.get("state") === this._state;
    report.iss = q.get("iss");
    this.code = q.get("code");
  }
}

const provider = new Provider();
const client = new Client({ name: "brakinglab-e2e-ts", version: "1.0.0" });
try {
  await client.connect(new StreamableHTTPClientTransport(mcpURL, { authProvider: provider }));
  throw new Error("connected without authorization");
} catch (err) {
  if (!(err instanceof UnauthorizedError)) throw err;
}
if (!provider.code) throw new Error("redirectToAuthorization produced no code");
const transport = new StreamableHTTPClientTransport(mcpURL, { authProvider: provider });
await transport.finishAuth(provider.code);
report.authorized = !!provider.tokens()?.access_token;
await client.connect(transport);

report.tools = (await client.listTools()).tools.map((t) => t.name);
const res = await client.callTool({
  name: "execute_code",
  arguments: {
    code: `const sessions = await brakinglab.getSessions({ trackName: "Spa", limit: 3 });
console.log("sessions:", sessions.length);
return sessions.map((s: any) => ({ id: s.id, trackName: s.trackName, bestLapMs: s.bestLapMs }));`,
  },
});
report.isError = !!res.isError;
report.result = res.structuredContent ?? null;
report.text = res.content?.filter((c) => c.type === "text").map((c) => c.text).join("\n");
await client.close();
console.log(JSON.stringify(report));
