// A real OpenID provider for TestOIDCProvider: panva's oidc-provider with
// resource indicators (RFC 8707), issuing RFC 9068 JWT access tokens by the
// client credentials grant. MCP_RESOURCE is the MCP endpoint's canonical
// URI, OTHER_RESOURCE another API the provider also serves. The client
// "perm-client" gets no scope claim; its grants travel in a non-standard
// "permissions" claim, as some providers (Auth0) do.
// Prints {"issuer": "..."} once listening on 127.0.0.1.
import http from 'node:http';
import Provider, { errors } from 'oidc-provider';

const resources = {
  [process.env.MCP_RESOURCE]: 'sessions:read reports:write',
  [process.env.OTHER_RESOURCE]: 'other:read',
};

const server = http.createServer();
server.listen(0, '127.0.0.1', () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, {
    clients: [
      { client_id: 'mcp-client', client_secret: 'mcp-secret', grant_types: ['client_credentials'], redirect_uris: [], response_types: [] },
      { client_id: 'perm-client', client_secret: 'perm-secret', grant_types: ['client_credentials'], redirect_uris: [], response_types: [] },
    ],
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        getResourceServerInfo(ctx, indicator) {
          const scope = resources[indicator];
          if (scope === undefined) throw new errors.InvalidTarget();
          return { scope, audience: indicator, accessTokenFormat: 'jwt', accessTokenTTL: 300, jwt: { sign: { alg: 'RS256' } } };
        },
      },
    },
    extraTokenClaims(ctx, token) {
      if (token.clientId === 'perm-client') return { permissions: ['sessions:read'] };
      return undefined;
    },
  });
  server.on('request', provider.callback());
  process.stdout.write(JSON.stringify({ issuer }) + '\n');
});
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
