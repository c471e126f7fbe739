import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscribe } from '../../src/domain/billing-admin.js';
import { queueEmail } from '../../src/email/outbox.js';
import { brs } from '../support/cli.js';
import { freePort, startService, type TestService } from '../support/harness.js';
import { PortalClient } from '../support/portal-client.js';
import { plainText, startSmtp } from '../support/smtp.js';
import { seedWorld, type World } from '../support/world.js';

/** Assignment emails: over real SMTP (smtp-server), retried when it is down, or the outbox. */
const dbUrl = (svc: TestService) => {
  const d = svc.app.config.database;
  return d.dialect === 'sqlite' ? `sqlite:${d.file}` : d.url;
};

/** The action link in a received message (quoted-printable soft breaks undone). */
const linkIn = (body: string) => {
  const text = body.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  return /(http:\/\/127\.0\.0\.1:\d+\/action\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)/.exec(text)![1]!;
};

let smtpPort: number;
let svc: TestService;
let w: World;
let n = 40;
const BRAND = 'northwind.example';

beforeAll(async () => {
  smtpPort = await freePort();
  svc = await startService(
    { SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, JOB_RETRY_BASE_MS: '20' },
    { runJobs: false },
  );
  w = await seedWorld(svc.app);
  await subscribe(svc.app, w.accounts.agency, 'test');
});
afterAll(() => svc.close());

const post = (path: string, body: object) =>
  svc.request('POST', path, { key: w.keys.owner, body: { brand: BRAND, ...body } });

async function unlockedStory() {
  const e = await w.story(BRAND, n++);
  await post('/v1/advisory', { event_uri: e });
  return e;
}

describe('assignment email', () => {
  it('with SMTP down the assignment succeeds, and the email is retried until it goes out', async () => {
    const e = await unlockedStory();
    const r = await post('/v1/story/phase-assign', {
      event_uri: e,
      phase: 2,
      assignee: 'newcomer@northwind.example',
      invite: true,
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ invited: true, status: 'in_progress' });

    await svc.app.jobs.drain(); // the SMTP server is not there yet
    const queued = await svc.app.db
      .selectFrom('outgoing_emails')
      .selectAll()
      .where('to_address', '=', 'newcomer@northwind.example')
      .executeTakeFirstOrThrow();
    expect(queued.status).toBe('queued');
    expect(queued.error).toMatch(/ECONNREFUSED|connect/i);

    const smtp = await startSmtp(smtpPort);
    try {
      await new Promise((r) => setTimeout(r, 50)); // past the first retry delay
      await svc.app.jobs.drain();
      expect(smtp.received).toHaveLength(1);
      const mail = smtp.received[0]!;
      expect(mail.to).toEqual(['newcomer@northwind.example']);
      expect(mail.body).toContain('invited to the Northwind team');

      // The link opens the phase for its assignee, with the plan's actions as context.
      const link = linkIn(mail.body);
      const page = await fetch(link);
      const html = await page.text();
      expect(page.status).toBe(200);
      expect(html).toContain('Phase 2: Protect customers');
      expect(html).toContain('Publish clear safety instructions for owners of the product');
      expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");

      // A tampered link, and the link once the phase is reassigned, open nothing.
      const tampered = `${link.slice(0, -2)}${link.endsWith('AA') ? 'BB' : 'AA'}`;
      expect((await fetch(tampered)).status).toBe(404);

      // The newcomer joins from the same email: a password, and they are a member, signed
      // in, on the phase, with its form to mark it done.
      const text = plainText(mail.body);
      const join = new RegExp(`${svc.url}(/reset/\\S+)`).exec(text)![1]!;
      const newcomer = new PortalClient(svc.url);
      await newcomer.get(join);
      const joined = await newcomer.post(join, { password: 'my own password' });
      expect(joined.location).toBe(new URL(link).pathname);
      const member = await svc.app.db
        .selectFrom('memberships as m')
        .innerJoin('users as u', 'u.id', 'm.user_id')
        .select('m.status')
        .where('u.email', '=', 'newcomer@northwind.example')
        .executeTakeFirstOrThrow();
      expect(member.status).toBe('active');
      expect((await newcomer.get('/app')).status).toBe(200);
      const phasePage = await newcomer.get(joined.location!);
      expect(phasePage.html).toContain('Phase 2: Protect customers');
      expect(phasePage.html).toContain('<button type="submit">Mark done</button>');
      await post('/v1/story/phase-assign', {
        event_uri: e,
        phase: 2,
        assignee: 'owner@northwind.example',
      });
      expect((await fetch(link)).status).toBe(404);
      await svc.app.jobs.drain();
      expect(smtp.received.map((m) => m.to[0])).toEqual([
        'newcomer@northwind.example',
        'owner@northwind.example',
      ]);
    } finally {
      await smtp.close();
    }
    const sent = await svc.app.db
      .selectFrom('outgoing_emails')
      .select(['status', 'sent_at'])
      .where('to_address', '=', 'newcomer@northwind.example')
      .executeTakeFirstOrThrow();
    expect(sent.status).toBe('sent');
  });
});

describe('an email sent on a partner’s behalf', () => {
  it('carries the partner’s name as the sender, at MAIL_FROM’s address', async () => {
    await queueEmail(
      svc.app.db,
      {
        accountId: null,
        to: 'ceo@client.example',
        kind: 'onboarding',
        fromName: 'Northwind Partners',
        subject: 'Confirm your email',
        text: 'Hello',
      },
      svc.app.clock.now().toISOString(),
    );
    const smtp = await startSmtp(smtpPort);
    try {
      await svc.app.jobs.drain();
      const mail = smtp.received.find((m) => m.to.includes('ceo@client.example'))!;
      expect(mail.body).toMatch(/^From: Northwind Partners <no-reply@stories\.localhost>\r?$/m);
    } finally {
      await smtp.close();
    }
  });
});

describe('without SMTP_URL: the outbox', () => {
  it('keeps the email for the operator, readable with brs outbox and brs audit', async () => {
    const local = await startService({}, { runJobs: false });
    try {
      const lw = await seedWorld(local.app);
      const e = await lw.story(BRAND, 1);
      const r = await local.request('POST', '/v1/story/assign', {
        key: lw.keys.owner,
        body: { brand: BRAND, event_uri: e, assignee: 'owner@northwind.example' },
      });
      expect(r.status).toBe(200);
      await local.app.jobs.drain();
      const env = { DATABASE_URL: dbUrl(local) };
      const outbox = await brs(env, 'outbox');
      expect(outbox.code).toBe(0);
      expect(outbox.out.emails[0]).toMatchObject({
        to: 'owner@northwind.example',
        kind: 'assignment',
        status: 'outbox',
      });
      expect(outbox.out.emails[0].text).toContain(`${local.url}/action/`);
      const audit = await brs(env, 'audit', '--brand', BRAND);
      expect(audit.code).toBe(0);
      expect(audit.out.entries[0]).toMatchObject({
        action: 'story.assigned',
        event_uri: e,
        actor: expect.stringMatching(/^key:key_/),
        details: { assignee: 'owner@northwind.example', invited: false },
      });
      const bad = await brs(env, 'audit', '--brand', 'unknown.example');
      expect(bad.code).toBe(1);
      expect(bad.out.error).toBeTruthy();
    } finally {
      await local.close();
    }
  });
});
