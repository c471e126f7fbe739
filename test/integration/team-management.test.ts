import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, createAccount } from '../../src/domain/accounts.js';
import { addBrand, requireBrandByHost } from '../../src/domain/brands.js';
import { importStory } from '../../src/domain/import-story.js';
import { subjectOf } from '../../src/oauth/subject.js';
import { startService, type TestService } from '../support/harness.js';
import { PortalClient } from '../support/portal-client.js';
import { article } from '../support/world.js';

/** Taking people out of a team, cancelling and resending invitations. */
let svc: TestService;
let acme: string;
const PASSWORD = 'correct horse battery';

async function person(email: string, role: 'owner' | 'admin' | 'member') {
  await addUser(svc.app, { accountId: acme, email, password: PASSWORD, role });
  const c = new PortalClient(svc.url);
  await c.signIn(email, PASSWORD);
  await c.get('/app/team');
  return c;
}

const rowOf = (html: string, email: string) =>
  new RegExp(`<tr><td>${email.replace('.', '\\.')}</td>.*?</tr>`, 's').exec(html)?.[0];

async function userId(email: string) {
  return (
    await svc.app.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', email)
      .executeTakeFirstOrThrow()
  ).id;
}

beforeAll(async () => {
  svc = await startService({}, { runJobs: false });
  acme = await createAccount(svc.app, 'Acme', 'partner');
  await addBrand(svc.app, { accountId: acme, host: 'acme.example', name: 'Acme', verified: true });
});
afterAll(() => svc.close());

describe('removing a teammate', () => {
  it('is asked first; then their access ends, their work goes back to nobody, done work keeps their name', async () => {
    const owner = await person('owner@acme.example', 'owner');
    const mia = await person('mia@acme.example', 'member');
    const brand = await requireBrandByHost(svc.app, 'acme.example');
    const { event_uri } = await importStory(svc.app, {
      brand,
      article: article('Acme', 1),
      actor: 'operator',
    });
    const page = `/app/stories/acme.example/${encodeURIComponent(event_uri)}`;
    await owner.get(page);
    await owner.post(`${page}/unlock`);
    await owner.post(`${page}/assign-story`, { assignee: 'mia@acme.example' });
    await owner.post(`${page}/assign-phase`, { phase: '1', assignee: 'mia@acme.example' });
    await owner.post(`${page}/assign-phase`, { phase: '2', assignee: 'mia@acme.example' });
    await mia.get(page);
    await mia.post(`${page}/phase-done`, { phase: '1' });
    // An MCP grant of hers in this team, as the OAuth store keeps it.
    const subject = subjectOf(acme, await userId('mia@acme.example'));
    await svc.app.db
      .insertInto('oauth_records')
      .values([
        {
          kind: 'Grant',
          id: 'grant-digest',
          payload: JSON.stringify({ clientId: 'claude', jti: 'grant-1', iat: 1 }),
          grant_id: null,
          uid: null,
          consumed_at: null,
          expires_at: null,
          subject,
          last_used_at: null,
        },
        {
          kind: 'AccessToken',
          id: 'token-digest',
          payload: '{}',
          grant_id: 'grant-1',
          uid: null,
          consumed_at: null,
          expires_at: null,
          subject: null,
          last_used_at: null,
        },
      ])
      .execute();

    const team = (await owner.get('/app/team')).html;
    expect(rowOf(team, 'mia@acme.example')).toContain('>Remove<');
    // Nobody is offered to remove themselves.
    expect(rowOf(team, 'owner@acme.example')).not.toContain('>Remove<');
    const asked = await owner.post('/app/team/remove', { email: 'mia@acme.example' });
    expect(asked.status).toBe(200);
    expect(asked.html).toContain('Remove mia@acme.example from the team?');
    expect(asked.html).toContain('Stories and open phases assigned to them go back to nobody');
    expect(rowOf((await owner.get('/app/team')).html, 'mia@acme.example')).toBeDefined();

    const done = await owner.post('/app/team/remove', {
      email: 'mia@acme.example',
      confirmed: 'yes',
    });
    expect(done.location).toBe('/app/team?done=removed');
    const after = (await owner.get('/app/team')).html;
    expect(rowOf(after, 'mia@acme.example')).toBeUndefined();

    // Her session no longer reaches the team.
    expect((await mia.get('/app')).status).not.toBe(200);
    const story = (await owner.get(page)).html;
    expect(story).toMatch(/<dt>Assignee<\/dt><dd><span class="muted">nobody<\/span>/);
    expect(story).toContain('done by mia@acme.example');
    expect(story).toMatch(/<strong>Phase 2: [^<]*<\/strong> <span class="badge">open<\/span>/);
    expect(
      await svc.app.db
        .selectFrom('oauth_records')
        .select('id')
        .where((eb) => eb.or([eb('subject', '=', subject), eb('grant_id', '=', 'grant-1')]))
        .execute(),
    ).toEqual([]);
    expect((await owner.get('/app/activity')).html).toContain(
      'owner@acme.example removed mia@acme.example from the team.',
    );
  });

  it('an admin removes members and admins, never an owner; nobody removes themselves', async () => {
    const admin = await person('admin@acme.example', 'admin');
    await person('owner2@acme.example', 'owner');
    await person('ana@acme.example', 'admin');
    const team = (await admin.get('/app/team')).html;
    expect(rowOf(team, 'owner2@acme.example')).not.toContain('>Remove<');
    const owner = await admin.post('/app/team/remove', {
      email: 'owner2@acme.example',
      confirmed: 'yes',
    });
    expect(owner.status).toBe(403);
    const self = await admin.post('/app/team/remove', {
      email: 'admin@acme.example',
      confirmed: 'yes',
    });
    expect(self.status).toBe(409);
    expect(self.html).toContain('you cannot remove yourself');
    expect(
      (await admin.post('/app/team/remove', { email: 'ana@acme.example', confirmed: 'yes' }))
        .location,
    ).toBe('/app/team?done=removed');
    expect(
      (await admin.post('/app/team/remove', { email: 'nobody@acme.example', confirmed: 'yes' }))
        .status,
    ).toBe(404);
    // A member sees no actions and is refused the same.
    const member = await person('max@acme.example', 'member');
    expect((await member.get('/app/team')).html).not.toContain('/app/team/remove');
    expect(
      (await member.post('/app/team/remove', { email: 'ana@acme.example', confirmed: 'yes' }))
        .status,
    ).toBe(403);
  });
});

describe('invitations', () => {
  it('an invitation given the owner role can be cancelled while one owner is active', async () => {
    const solo = await createAccount(svc.app, 'Solo', 'partner');
    await addUser(svc.app, {
      accountId: solo,
      email: 'one@solo.example',
      password: PASSWORD,
      role: 'owner',
    });
    const c = new PortalClient(svc.url);
    await c.signIn('one@solo.example', PASSWORD);
    await c.get('/app/team');
    await c.post('/app/team/invite', { email: 'two@solo.example' });
    await c.post('/app/team/role', { email: 'two@solo.example', role: 'owner', confirmed: 'yes' });
    expect(
      (await c.post('/app/team/remove', { email: 'two@solo.example', confirmed: 'yes' })).location,
    ).toBe('/app/team?done=invite-cancelled');
    // The one active owner stays.
    expect(
      (await c.post('/app/team/remove', { email: 'one@solo.example', confirmed: 'yes' })).status,
    ).toBe(409);
  });

  it('sends one again, or cancels it: the seat is free and its link joins nothing', async () => {
    const owner = await person('boss@acme.example', 'owner');
    await owner.post('/app/team/invite', { email: 'newbie@acme.example' });
    const links = async () =>
      (
        await svc.app.db
          .selectFrom('outgoing_emails')
          .select('text_body')
          .where('to_address', '=', 'newbie@acme.example')
          .execute()
      ).map((m) => new RegExp(`${svc.url}(/reset/[^\\s]+)`).exec(m.text_body)![1]!);
    const team = (await owner.get('/app/team')).html;
    expect(rowOf(team, 'newbie@acme.example')).toContain('>Send again<');
    expect(rowOf(team, 'newbie@acme.example')).toContain('>Cancel invitation<');
    expect((await owner.post('/app/team/resend', { email: 'newbie@acme.example' })).location).toBe(
      '/app/team?done=invite-resent',
    );
    expect(await links()).toHaveLength(2);
    // A few a day per address, then refused: no flooding someone's mailbox.
    await owner.post('/app/team/resend', { email: 'newbie@acme.example' });
    await owner.post('/app/team/resend', { email: 'newbie@acme.example' });
    expect((await owner.post('/app/team/resend', { email: 'newbie@acme.example' })).status).toBe(
      429,
    );
    expect(await links()).toHaveLength(4);
    // An active member is not invited again.
    expect((await owner.post('/app/team/resend', { email: 'boss@acme.example' })).status).toBe(409);

    const seats = (html: string) => Number(/<strong>(\d+) of \d+ seats<\/strong>/.exec(html)?.[1]);
    const before = seats((await owner.get('/app/team')).html);
    const asked = await owner.post('/app/team/remove', { email: 'newbie@acme.example' });
    expect(asked.html).toContain('Cancel the invitation of newbie@acme.example?');
    expect(
      (await owner.post('/app/team/remove', { email: 'newbie@acme.example', confirmed: 'yes' }))
        .location,
    ).toBe('/app/team?done=invite-cancelled');
    const after = (await owner.get('/app/team')).html;
    expect(seats(after)).toBe(before - 1);
    expect(rowOf(after, 'newbie@acme.example')).toBeUndefined();

    // Choosing a password from the old link makes a person of no team.
    const newbie = new PortalClient(svc.url);
    const link = (await links())[0]!;
    await newbie.get(link);
    await newbie.post(link, { password: 'my own password' });
    await newbie.signIn('newbie@acme.example', 'my own password');
    expect((await newbie.get('/app')).html).not.toContain('Acme');
  });
});
