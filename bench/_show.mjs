import { toolsFor } from '../dist/mcp/mcp-server.js';

const t = toolsFor({ kind: 'user', plan: 'agency', role: 'owner', scope: null });
console.log(JSON.stringify(t.list.find((x) => x.name === 'v1_list_stories').outputSchema));
console.log(JSON.stringify(t.list.find((x) => x.name === 'search_stories').inputSchema));
console.log(JSON.stringify(t.list.find((x) => x.name === 'v1_assign_story').outputSchema));
