import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../../src/domain/accounts.js';
import { subscribe } from '../../src/domain/billing-admin.js';
import { successStatus } from '../../src/operations/execute.js';
import { operations, restOperations } from '../../src/operations/index.js';
import { type Operation, type RestOperation, ruleFor } from '../../src/operations/operation.js';
import type { Access } from '../../src/policy.js';
import { run, type View } from '../../src/web/portal/guard.js';
import { startService, type TestService } from '../support/harness.js';
import { signIn } from '../support/oauth-browser.js';
import { PortalClient } from '../support/portal-client.js';
import { seedWorld, type World } from '../support/world.js';

let svc: TestService;
let w: World;
const PASSWORD = 'correct horse battery';
type Role = 'owner' | 'admin' | 'member';
/** The agency's people, signed in over MCP (OAuth) and in the portal, one per role. */
const agents = {} as Record<Role, Client>;
const browsers = {} as Record<Role, PortalClient>;

beforeAll(async () => {
  svc = await startService();
  w = await seedWorld(svc.app);
  // Unlocks past the included unit are metered, so every success row can unlock.
  await subscribe(svc.app, w.accounts.agency, 'test');
  await addUser(svc.app, {
    accountId: w.accounts.agency,
    email: 'admin@northwind.example',
    password: PASSWORD,
    role: 'admin',
  });
  await addUser(svc.app, {
    accountId: w.accounts.agency,
    email: 'member@northwind.example',
    password: PASSWORD,
    role: 'member',
  });
  for (const role of ['owner', 'admin', 'member'] as const) {
    const email = `${role}@northwind.example`;
    const { access_token } = await signIn(svc.url, { email, password: PASSWORD });
    agents[role] = new Client({ name: 'access-table', version: '1.0.0' });
    await agents[role].connect(
      new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${access_token}` } },
      }),
    );
    browsers[role] = new PortalClient(svc.url);
    expect((await browsers[role].signIn(email, PASSWORD)).status).toBe(303);
  }
});
afterAll(async () => {
  for (const c of Object.values(agents)) await c.close();
  await svc.close();
});

/** A valid input for each operation on northwind.example, the agency's own brand. */
function validInput(op: Operation): Record<string, unknown> {
  const story = { brand: 'northwind.example', event_uri: w.stories.northwind };
  const inputs: Record<string, Record<string, unknown>> = {
    list_brands: {},
    list_stories: { brand: 'northwind.example' },
    list_mentions: { brand: 'northwind.example' },
    search_stories: { brand: 'northwind.example', q: 'northwind' },
    get_story: { brand: 'northwind.example', event_uri: w.stories.northwind },
    post_brand_note: {
      brand: 'northwind.example',
      event_uri: w.stories.northwind,
      text: 'Statement',
    },
    delete_brand_note: { brand: 'northwind.example', event_uri: w.stories.northwind },
    list_delegations: {},
    grant_delegation: {},
    create_api_key: {},
    trigger_advisory: story,
    add_story_context: { ...story, context: 'The recall was resolved on Monday.' },
    apply_advisory_proposal: story,
    dismiss_advisory_proposal: story,
    assign_story: { ...story, assignee: 'owner@northwind.example' },
    unassign_story: story,
    assign_phase: { ...story, phase: 1, assignee: 'owner@northwind.example' },
    unassign_phase: { ...story, phase: 1 },
    complete_phase: { ...story, phase: 1 },
    // The success row drops a fresh client brand (readyInput); the refusal rows use this.
    drop_delegation: { brand: 'northwind.example' },
    create_delegation_invite: {
      brand: 'prospect.example',
      return_url: 'https://partner.example/back',
    },
    revoke_delegation_invite: { token: `inv_${'a'.repeat(43)}` },
    create_share: { ...story, access: 'public', mode: 'briefing' },
    create_story_from_url: { brand: 'northwind.example', url: 'https://news.example/story' },
    get_story_from_url_job: { brand: 'northwind.example', job: 'job_unknown' },
  };
  const input = inputs[op.id];
  if (!input) throw new Error(`add a valid input for ${op.id} to the access table`);
  return input;
}

let clients = 0;

/**
 * A valid input on a fresh story in the state the operation needs (unlocked, with a
 * pending or ready proposal), so each success row stands on its own.
 */
async function readyInput(op: RestOperation): Promise<Record<string, unknown>> {
  const input = validInput(op);
  if (op.id === 'drop_delegation') return { brand: await w.clientBrand() };
  if (op.id === 'get_story_from_url_job') {
    const r = await svc.request('POST', '/v1/stories/from-url', {
      key: w.keys.owner,
      body: { brand: 'northwind.example', url: 'https://news.example/for-the-job' },
    });
    return { brand: 'northwind.example', job: r.body.job };
  }
  if (op.id === 'revoke_delegation_invite') {
    const r = await svc.request('POST', '/v1/delegation-invites', {
      key: w.keys.owner,
      body: { brand: `invited-${++clients}.example`, return_url: 'https://partner.example/back' },
    });
    return { token: r.body.token };
  }
  if (!('event_uri' in input)) return input;
  const story = {
    brand: 'northwind.example',
    event_uri: await w.story('northwind.example', 100 + restOperations.indexOf(op)),
  };
  const needs = (...ids: string[]) => ids.includes(op.id);
  const post = (path: string, body: object) =>
    svc.request('POST', path, { key: w.keys.owner, body });
  if (
    needs(
      'add_story_context',
      'apply_advisory_proposal',
      'dismiss_advisory_proposal',
      'assign_phase',
      'unassign_phase',
      'complete_phase',
    )
  ) {
    expect((await post('/v1/advisory', story)).status).toBe(200);
  }
  if (needs('apply_advisory_proposal', 'dismiss_advisory_proposal')) {
    expect((await post('/v1/story/context', { ...story, context: 'New facts.' })).status).toBe(202);
    await svc.app.jobs.drain();
  }
  if (needs('unassign_phase')) {
    await post('/v1/story/phase-assign', {
      ...story,
      phase: 1,
      assignee: 'owner@northwind.example',
    });
  }
  return { ...input, ...story };
}

const call = (op: RestOperation, key: string, input = validInput(op)) =>
  op.rest.method === 'POST'
    ? svc.request('POST', op.rest.path, { key, body: input })
    : svc.request(op.rest.method, op.rest.path, { key, query: input as Record<string, string> });

/**
 * Decided from the schema: rows are chosen before the world is seeded. An invite names a
 * brand that is not the caller's yet (usually unknown to the service): no 404 row there.
 */
const takesBrand = (op: Operation) =>
  'brand' in ((op.input as unknown as { shape?: object }).shape ?? {}) &&
  op.id !== 'create_delegation_invite';
const keyRule = (op: Operation) => ruleFor(op.access, 'key');
const never = (op: Operation) => 'never' in keyRule(op);
const minRole = (op: Operation) => {
  const rule = keyRule(op);
  return 'minRole' in rule ? rule.minRole : undefined;
};

const FORBIDDEN = `{"error":"outside this key's brand scope"}`;
const NOT_FOUND = '{"error":"not found"}';

describe.each(restOperations.map((op) => [op.id, op] as const))('%s', (_id, op) => {
  it('answers 401 to a revoked key', async () => {
    const r = await call(op, w.keys.revoked);
    expect(r.status).toBe(401);
    expect(r.text).toBe('{"error":"unknown or revoked API key"}');
  });

  it('answers 403 to a key on a plan without API access', async () => {
    const r = await call(op, w.keys.starter);
    expect(r.status).toBe(403);
    expect(r.text).toBe(FORBIDDEN);
  });

  if (takesBrand(op) && !never(op))
    it('answers 404 to a key of another account, as for an unknown brand', async () => {
      const foreign = await call(op, w.keys.other);
      const unknown = await call(op, w.keys.owner, { ...validInput(op), brand: 'unknown.example' });
      expect(foreign.status).toBe(404);
      expect(foreign.text).toBe(NOT_FOUND);
      expect(unknown.text).toBe(foreign.text);
    });

  if (takesBrand(op) && !never(op))
    it('answers 403 to a key scoped to another brand', async () => {
      const r = await call(op, w.keys.scopedAcme);
      expect(r.status).toBe(403);
      expect(r.text).toBe(FORBIDDEN);
    });

  if (minRole(op) !== undefined)
    it('answers 403 to a member key where owner/admin is needed', async () => {
      const r = await call(op, w.keys.member);
      expect(r.status).toBe(403);
      expect(r.text).toBe(FORBIDDEN);
    });

  if (never(op))
    it('answers 403 to every key, owner and full scope included', async () => {
      for (const key of [w.keys.owner, w.keys.admin, w.keys.member, w.keys.other]) {
        const r = await call(op, key);
        expect(r.status).toBe(403);
        expect(r.text).toBe(FORBIDDEN);
      }
    });

  if (!never(op))
    it('succeeds for a full-scope owner key of the account', async () => {
      const r = await call(op, w.keys.owner, await readyInput(op));
      const expected = successStatus(op, r.body);
      expect(r.status).toBe(expected);
      expect(op.output.safeParse(r.body).success).toBe(true);
    });
});

/**
 * One rule per operation and actor kind, whatever the door: for every operation of the
 * registry, on every door it is mounted on, each role is refused (403) exactly where the
 * rule the operation states for that kind of caller says so. A door that applied another
 * rule, or an operation whose doors disagreed without saying so, fails here. The probe
 * input is refused by every input schema that has fields, so a caller the rule lets in
 * gets a 400 (or the answer of an operation without input), never a 403 of the handler.
 */
describe("every door applies the operation's rule for the caller's kind", () => {
  const PROBE = { probe: 'not a field of any operation' };
  const RANK = { member: 0, admin: 1, owner: 2 } as const;
  const refusedBy = (rule: Access, role: Role) =>
    'never' in rule ||
    (rule.plans !== undefined && !rule.plans.includes('agency')) ||
    (rule.minRole !== undefined && RANK[role] < RANK[rule.minRole]);

  const toolRefused = async (role: Role, name: string) => {
    const r = (await agents[role].callTool({ name, arguments: PROBE })) as {
      isError?: boolean;
      structuredContent: { status?: number };
    };
    return r.isError === true && r.structuredContent.status === 403;
  };
  const portalRefused = async (role: Role, op: Operation) => {
    const user = await svc.app.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', `${role}@northwind.example`)
      .executeTakeFirstOrThrow();
    const account = { id: w.accounts.agency, name: 'Northwind', plan: 'agency' as const, role };
    const view: View = {
      session: {
        tokenHash: '',
        userId: user.id,
        email: `${role}@northwind.example`,
        name: null,
        timeZone: null,
        account: { ...account, trial: null },
        workspaces: [],
      },
      csrf: '',
      section: null,
    };
    try {
      await run(svc.app, view, op, PROBE);
      return false;
    } catch (e) {
      return (e as { status?: number }).status === 403;
    }
  };

  const doors = operations.flatMap((op) => [
    ...(op.rest ? [[op.id, 'REST', op] as const] : []),
    ...(op.rest ? [[op.id, 'MCP partner tool', op] as const] : []),
    ...(op.userTool ? [[op.id, 'MCP user tool', op] as const] : []),
    ...(op.portal ? [[op.id, 'portal', op] as const] : []),
  ]);

  it.each(doors)('%s on %s', async (_id, door, op) => {
    for (const role of ['member', 'admin', 'owner'] as const) {
      const kind = door === 'REST' ? 'key' : 'user';
      const expected = refusedBy(ruleFor(op.access, kind), role);
      const refused =
        door === 'REST'
          ? (await call(op as RestOperation, w.keys[role], PROBE)).status === 403
          : door === 'MCP partner tool'
            ? await toolRefused(role, `v1_${op.id}`)
            : door === 'MCP user tool'
              ? await toolRefused(role, op.userTool!.name)
              : await portalRefused(role, op);
      expect(refused, `${role} ${kind}`).toBe(expected);
    }
  });

  it('the portal invite form follows create_delegation_invite: owners and admins only', async () => {
    const invite = async (role: Role) => {
      await browsers[role].get('/app/partners');
      return browsers[role].post('/app/partners/invite', {
        brand: `portal-${role}.example`,
        return_url: 'https://partner.example/back',
      });
    };
    const member = await invite('member');
    expect(member.status).toBe(403);
    expect(member.html).toContain('Not allowed: needs the owner or admin role.');
    expect((await browsers.member.get('/app/partners')).html).not.toContain('Invite a client');
    for (const role of ['admin', 'owner'] as const) {
      const r = await invite(role);
      expect(r.status).toBe(200);
      expect(r.html).toContain('/onboard/inv_');
    }
  });
});
