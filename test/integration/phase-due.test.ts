import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, createAccount } from '../../src/domain/accounts.js';
import { addBrand, requireBrandByHost } from '../../src/domain/brands.js';
import { grantDelegation } from '../../src/domain/delegations.js';
import { importStory } from '../../src/domain/import-story.js';
import { startService, type TestService } from '../support/harness.js';
import { manualClock } from '../support/manual-clock.js';
import { PortalClient } from '../support/portal-client.js';
import { article } from '../support/world.js';

/** Due dates of the response plan's phases: set, shown, overdue once the day passed. */
const clock = manualClock('2026-11-26T09:00:00.000Z');
let svc: TestService;
let owner: PortalClient;
let partner: PortalClient;
let page: string;
const PASSWORD = 'correct horse battery';

beforeAll(async () => {
  svc = await startService({}, { runJobs: false, clock });
  const acme = await createAccount(svc.app, 'Acme', 'pro');
  const agency = await createAccount(svc.app, 'Agency', 'agency');
  await addUser(svc.app, {
    accountId: acme,
    email: 'owner@acme.example',
    password: PASSWORD,
    role: 'owner',
  });
  await addUser(svc.app, {
    accountId: agency,
    email: 'owner@agency.example',
    password: PASSWORD,
    role: 'owner',
  });
  await addBrand(svc.app, { accountId: acme, host: 'acme.example', name: 'Acme', verified: true });
  await grantDelegation(svc.app, {
    partnerId: agency,
    clientId: acme,
    host: 'acme.example',
    actor: 'test',
  });
  const brand = await requireBrandByHost(svc.app, 'acme.example');
  const { event_uri } = await importStory(svc.app, {
    brand,
    article: article('Acme', 1),
    actor: 'operator',
  });
  page = `/app/stories/acme.example/${encodeURIComponent(event_uri)}`;
  owner = new PortalClient(svc.url);
  await owner.signIn('owner@acme.example', PASSWORD);
  partner = new PortalClient(svc.url);
  await partner.signIn('owner@agency.example', PASSWORD);
  await owner.get(page);
  await owner.post(`${page}/unlock`);
});
afterAll(() => svc.close());

const phase1 = async (c: PortalClient) =>
  /<strong>Phase 1: [^<]*<\/strong> <span class="badge">[a-z]+<\/span>( <span class="badge[^"]*">[^<]+<\/span>)?/.exec(
    (await c.get(page)).html,
  )?.[1] ?? '';

describe('due dates of phases', () => {
  it('set, shown as due, then overdue once the day has passed; cleared; done phases are not due', async () => {
    expect(await phase1(owner)).toBe('');
    expect(
      (await owner.post(`${page}/phase-due`, { phase: '1', due: '2026-11-28' })).location,
    ).toBe(`${page}?done=due`);
    expect(await phase1(owner)).toBe(' <span class="badge">due 2026-11-28</span>');
    await clock.advance(2 * 86_400_000);
    expect(await phase1(owner)).toBe(' <span class="badge sev-medium">due today</span>');
    await clock.advance(86_400_000);
    expect(await phase1(owner)).toBe(
      ' <span class="badge sev-critical">overdue since 2026-11-28</span>',
    );
    expect((await owner.get(page)).html).toContain(
      'owner@acme.example set phase 1 due on 2026-11-28.',
    );

    // Cleared with an empty date.
    await owner.post(`${page}/phase-due`, { phase: '1', due: '' });
    expect(await phase1(owner)).toBe('');
    // A done phase shows no due date and takes none.
    await owner.post(`${page}/phase-due`, { phase: '1', due: '2026-12-30' });
    await owner.post(`${page}/assign-phase`, { phase: '1', assignee: 'owner@acme.example' });
    await owner.post(`${page}/phase-done`, { phase: '1' });
    expect(await phase1(owner)).toBe('');
    expect((await owner.post(`${page}/phase-due`, { phase: '1', due: '2026-12-31' })).status).toBe(
      409,
    );
  });

  it('refuses a date in the past, past a year, or not a date; a partner sets none', async () => {
    await owner.get(page);
    for (const due of ['2020-01-01', '2030-01-01', '2026-02-30', 'soon']) {
      const r = await owner.post(`${page}/phase-due`, { phase: '2', due });
      expect(r.status, due).toBe(400);
    }
    await partner.get(page);
    expect((await partner.get(page)).html).not.toContain(`action="${page}/phase-due"`);
    expect(
      (await partner.post(`${page}/phase-due`, { phase: '2', due: '2027-01-05' })).status,
    ).toBe(403);
  });
});
