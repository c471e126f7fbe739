import { toolsFor } from '../dist/mcp/mcp-server.js';

for (const [kind, plan, role] of [
  ['key', 'partner', 'owner'],
  ['user', 'agency', 'owner'],
  ['user', 'agency', 'member'],
  ['user', 'pro', 'owner'],
]) {
  const t = toolsFor({
    kind,
    plan,
    role,
    scope: null,
    userId: 'u',
    accountId: 'a',
    email: 'x',
    keyId: 'k',
  });
  let i = 0,
    o = 0;
  for (const x of t.list) {
    i += JSON.stringify(x.inputSchema).length;
    o += JSON.stringify(x.outputSchema ?? '').length;
  }
  console.log(
    kind,
    plan,
    role,
    t.list.length,
    JSON.stringify({ tools: t.list }).length,
    'in',
    i,
    'out',
    o,
  );
}
