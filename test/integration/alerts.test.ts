import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { addUser, createAccount } from '../../src/domain/accounts.js';
import { evaluateAlertsJob } from '../../src/domain/alerts.js';
import { addBrand, requireBrandByHost } from '../../src/domain/brands.js';
import { grantDelegation } from '../../src/domain/delegations.js';
import { scheduleDueDigests } from '../../src/domain/digests.js';
import { importStory } from '../../src/domain/import-story.js';
import { ingestArticle } from '../../src/domain/ingest-article.js';
import { addEndpoint } from '../../src/webhooks/endpoints.js';
import { freePort, startService, type TestService } from '../support/harness.js';
import { manualClock } from '../support/manual-clock.js';
import { PortalClient } from '../support/portal-client.js';
import { startReceiver } from '../support/receiver.js';
import { plainText, startSmtp } from '../support/smtp.js';

/**
 * Alerts and digests on the database under test, with a moved clock: delivered to a real
 * SMTP server and to local receivers shaped as Slack's and Teams' incoming webhooks and a
 * partner's endpoint, once per rule and story, also with two instances at it.
 */
let svc: TestService;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let ana: PortalClient;
let agency: PortalClient;
let failSlack = 0;
let n = 0;
// 12:00 UTC is 13:00 in Paris, ana's zone.
const clock = manualClock('2026-11-20T12:00:00.000Z');

const BREACH = {
  title: 'Acme data breach exposes customer accounts',
  text: 'Attackers stole customer data from Acme in a data breach; regulators are investigating the hack and customers fear identity theft.',
};
const OPENING = {
  title: 'Acme opens a new store downtown',
  text: 'Acme opened a new store downtown on Thursday, with a small celebration for local customers.',
};

const story = async (a: { title: string; text: string }, host = 'acme.example') => {
  const brand = await requireBrandByHost(svc.app, host);
  const { event_uri } = await importStory(svc.app, {
    brand,
    actor: 'operator',
    article: {
      url: `https://news.example.org/alerts/${++n}`,
      publisher: 'Example News',
      published_at: '2026-11-20',
      ...a,
    },
  });
  return event_uri;
};

const alertsOf = (eventUri: string) =>
  svc.app.db
    .selectFrom('alerts as a')
    .innerJoin('stories as s', 's.id', 'a.story_id')
    .innerJoin('alert_rules as r', 'r.id', 'a.rule_id')
    .select([
      'a.id',
      'a.status',
      'a.channels',
      'a.trigger',
      'a.due_at',
      'r.name as rule',
      'a.created_at',
    ])
    .where('s.event_uri', '=', eventUri)
    .execute();

/** The emails to `to` (ana unless said) whose text holds `headline`. */
const emailsAbout = (headline: string, to = 'ana@acme.example') =>
  smtp.received.filter((m) => m.to.includes(to) && plainText(m.body).includes(headline));

async function addRule(c: PortalClient, fields: Record<string, string | string[]>) {
  await c.get('/app/alerts');
  const pairs = Object.entries(fields).flatMap(([k, v]) =>
    (Array.isArray(v) ? v : [v]).map((x): [string, string] => [k, x]),
  );
  return c.post('/app/alerts/rules', pairs);
}

/** The first `hh`:00 UTC after the clock's now. */
function nextUtcHour(hh: number) {
  const now = clock.now();
  const d = new Date(now);
  d.setUTCHours(hh, 0, 0, 0);
  if (d <= now) d.setUTCDate(d.getUTCDate() + 1);
  return d;
}

/** HH:MM in Paris (UTC+1 in November and December) of an instant. */
const parisTime = (at: Date) => new Date(at.getTime() + 3_600_000).toISOString().slice(11, 16);

/** Makes ana's quiet hours start this minute, on her clock in Paris, for an hour: their end. */
async function quietForAnHour() {
  await ana.get('/app/alerts');
  const minute = Math.floor(clock.now().getTime() / 60_000) * 60_000;
  const end = new Date(minute + 3_600_000);
  const quiet = { start: parisTime(new Date(minute)), end: parisTime(end) };
  expect((await ana.post('/app/alerts/quiet', quiet)).status).toBe(303);
  return end;
}

beforeAll(async () => {
  const smtpPort = await freePort();
  smtp = await startSmtp(smtpPort);
  receiver = await startReceiver((path) => {
    if (path === '/slack' && failSlack > 0) {
      failSlack--;
      return 500;
    }
    return 200;
  });
  svc = await startService(
    {
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      JOB_RETRY_BASE_MS: '1000',
      FETCH_ALLOW_HOSTS: `127.0.0.1:${receiver.port}`,
    },
    { runJobs: false, clock },
  );
  const acme = await createAccount(svc.app, 'Acme', 'partner');
  const northwind = await createAccount(svc.app, 'Northwind', 'agency');
  await addUser(svc.app, {
    accountId: acme,
    email: 'ana@acme.example',
    password: 'correct horse battery',
    role: 'owner',
  });
  await addUser(svc.app, {
    accountId: northwind,
    email: 'nick@northwind.example',
    password: 'correct horse battery',
    role: 'owner',
  });
  await addBrand(svc.app, { accountId: acme, host: 'acme.example', name: 'Acme', verified: true });
  await addBrand(svc.app, {
    accountId: acme,
    host: 'acme-shop.example',
    name: 'Acme',
    verified: true,
  });
  await grantDelegation(svc.app, {
    partnerId: northwind,
    clientId: acme,
    host: 'acme.example',
    actor: 'operator',
  });
  await addEndpoint(svc.app, {
    accountId: acme,
    url: receiver.url('/hook'),
    events: ['alert.triggered'],
    actor: 'operator',
  });
  ana = new PortalClient(svc.url);
  await ana.signIn('ana@acme.example', 'correct horse battery');
  await ana.get('/app/profile');
  await ana.post('/app/profile', { name: 'Ana', time_zone: 'Europe/Paris' });
  agency = new PortalClient(svc.url);
  await agency.signIn('nick@northwind.example', 'correct horse battery');

  const all = await addRule(ana, {
    name: 'Anything serious',
    brands: ['acme.example'],
    min_severity: 'high',
    on_escalation: 'on',
    email: 'on',
    slack_url: receiver.url('/slack'),
    teams_url: receiver.url('/teams'),
    webhooks: 'on',
  });
  expect(all.status, all.html).toBe(303);
  const partner = await addRule(agency, {
    name: 'Client crises',
    min_severity: 'critical',
    on_escalation: 'on',
    email: 'on',
  });
  expect(partner.status, partner.html).toBe(303);
}, 60_000);

afterAll(async () => {
  await svc.close();
  await smtp.close();
  await receiver.close();
});

describe('alerts', () => {
  it('sends a serious new story once on every channel of the rule, with headline, severity, summary and link', async () => {
    const uri = await story(BREACH);
    await svc.app.jobs.drain();
    const [alert, ...more] = (await alertsOf(uri)).filter((a) => a.rule === 'Anything serious');
    expect(more).toEqual([]);
    expect(alert).toMatchObject({ status: 'sent', trigger: 'created' });
    // It left at once: the delivery was due when the story was stored.
    expect(alert!.due_at).toBe(clock.now().toISOString());
    expect(JSON.parse(alert!.channels).map((c: { status: string }) => c.status)).toEqual([
      'sent',
      'sent',
      'sent',
      'sent',
    ]);
    const link = `${svc.url}/app/stories/acme.example/${uri}`;
    const [email] = emailsAbout(BREACH.title);
    const text = plainText(email!.body);
    expect(email!.to).toEqual(['ana@acme.example']);
    expect(text).toMatch(/Subject: \[(high|critical)\] Acme data breach/);
    expect(text).toContain(link);
    expect(text).toMatch(/List-Unsubscribe:\s+<http:\/\/127\.0\.0\.1:\d+\/unsubscribe\?t=/);
    expect(text).toContain('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    const slack = JSON.parse(receiver.on('/slack').at(-1)!.body);
    expect(slack.text).toContain(BREACH.title);
    expect(JSON.stringify(slack.blocks)).toContain(link);
    const teams = JSON.parse(receiver.on('/teams').at(-1)!.body);
    expect(teams.attachments[0].contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(JSON.stringify(teams)).toContain(BREACH.title);
    const hook = receiver.on('/hook').at(-1)!;
    expect(JSON.parse(hook.body)).toMatchObject({
      type: 'alert.triggered',
      data: { brand: 'acme.example', headline: BREACH.title, link },
    });
    expect(hook.headers['webhook-signature']).toMatch(/^v1,/);
    // The page lists it, each channel said.
    const page = (await ana.get('/app/alerts')).html;
    expect(page).toContain(BREACH.title);
    expect(page).toContain('Slack: sent');
  });

  it('raises an alert once per rule and story, whichever instance checks it', async () => {
    const uri = await story({ ...BREACH, title: 'Acme breach: second wave of stolen accounts' });
    const { id } = await svc.app.db
      .selectFrom('stories')
      .select('id')
      .where('event_uri', '=', uri)
      .executeTakeFirstOrThrow();
    const d = svc.app.config.database;
    const other = await createContext(
      loadConfig({
        DATABASE_URL: d.dialect === 'sqlite' ? `sqlite:${d.file}` : d.url,
        LOG_LEVEL: 'fatal',
        BASE_URL: svc.url,
      }),
      { clock },
    );
    try {
      const payload = { story: id, trigger: 'created' as const };
      const checks = [svc.app, other, svc.app].map((app) => () => evaluateAlertsJob(app, payload));
      // At once on PostgreSQL; one after another on SQLite, whose connections in one
      // process cannot wait for each other (instances there are processes of their own).
      const results =
        d.dialect === 'postgres'
          ? await Promise.all(checks.map((check) => check()))
          : [await checks[0]!(), await checks[1]!(), await checks[2]!()];
      await svc.app.jobs.drain();
      const raised = results.reduce((a, r) => a + r.raised, 0);
      const alerts = await alertsOf(uri);
      expect(alerts.filter((a) => a.rule === 'Anything serious')).toHaveLength(1);
      // Each matching rule's alert was raised by one of the racing checks, once; the
      // ingest's own check, run after them, raised none.
      expect(new Set(alerts.map((a) => a.rule)).size).toBe(alerts.length);
      expect(raised).toBe(alerts.length);
      expect(emailsAbout('second wave')).toHaveLength(1);
    } finally {
      await other.close();
    }
  });

  it('says nothing of a story below the rule, of another brand, or while the rule is paused', async () => {
    const calm = await story(OPENING);
    const elsewhere = await story({ ...BREACH, title: 'Acme Shop breach' }, 'acme-shop.example');
    await svc.app.jobs.drain();
    expect(await alertsOf(calm)).toEqual([]);
    expect((await alertsOf(elsewhere)).filter((a) => a.rule === 'Anything serious')).toEqual([]);
    const page = (await agency.get('/app/alerts')).html;
    const id = /action="\/app\/alerts\/rules\/(rule_[a-z0-9]+)\/pause"/.exec(page)![1]!;
    expect((await agency.post(`/app/alerts/rules/${id}/pause`)).status).toBe(303);
    try {
      const paused = await story({ ...BREACH, title: 'Acme breach while paused' });
      await svc.app.jobs.drain();
      expect((await alertsOf(paused)).filter((a) => a.rule === 'Client crises')).toEqual([]);
      // Someone else's rule is unknown.
      await ana.get('/app/alerts');
      expect((await ana.post(`/app/alerts/rules/${id}/resume`)).status).toBe(404);
    } finally {
      await agency.get('/app/alerts');
      expect((await agency.post(`/app/alerts/rules/${id}/resume`)).status).toBe(303);
    }
  });

  it('alerts an agency on its client brand, and on escalation once the story becomes critical', async () => {
    const brand = await requireBrandByHost(svc.app, 'acme.example');
    const text =
      'Acme Corporation is recalling 40,000 toasters sold since March after reports of fires in kitchens, the company said on Monday.';
    const first = await ingestArticle(
      svc.app,
      brand,
      {
        url: `https://wire-one.example/${++n}`,
        title: 'Acme recalls 40,000 toasters after kitchen fires',
        text,
        publisher: 'Wire One',
        published_at: '2026-11-20',
      },
      'monitor',
    );
    await svc.app.jobs.drain();
    const before = await alertsOf(first.event_uri);
    const severity = async () =>
      (
        await svc.app.db
          .selectFrom('stories')
          .select('severity')
          .where('event_uri', '=', first.event_uri)
          .executeTakeFirstOrThrow()
      ).severity;
    expect(await severity()).not.toBe('critical');
    expect(before.filter((a) => a.rule === 'Client crises')).toEqual([]);
    await clock.advance(600_000);
    const second = await ingestArticle(
      svc.app,
      brand,
      {
        url: `https://wire-two.example/${++n}`,
        title: 'Acme toaster recall: 40,000 units after fires',
        text: `${text} Two people died in the fires and families filed a class action lawsuit; regulators opened a criminal investigation.`,
        publisher: 'Wire Two',
        published_at: '2026-11-20',
      },
      'monitor',
    );
    expect(second).toMatchObject({ status: 'joined', event_uri: first.event_uri });
    expect(await severity()).toBe('critical');
    await svc.app.jobs.drain();
    const after = await alertsOf(first.event_uri);
    expect(after.filter((a) => a.rule === 'Client crises')).toMatchObject([
      { trigger: 'escalated', status: 'sent' },
    ]);
    expect(smtp.received.some((m) => m.to.includes('nick@northwind.example'))).toBe(true);
  });

  it('holds an alert in quiet hours and sends it when they end', async () => {
    const end = await quietForAnHour();
    try {
      const uri = await story({ ...BREACH, title: 'Acme breach reaches payment data' });
      await svc.app.jobs.drain();
      const [held] = (await alertsOf(uri)).filter((a) => a.rule === 'Anything serious');
      expect(held!.status).toBe('held');
      expect(held!.due_at).toBe(end.toISOString());
      expect(emailsAbout('payment data')).toEqual([]);
      expect((await ana.get('/app/alerts')).html).toContain('waiting for quiet hours to end');
      await clock.advance(end.getTime() + 1000 - clock.now().getTime());
      await svc.app.jobs.drain();
      const [sent] = (await alertsOf(uri)).filter((a) => a.rule === 'Anything serious');
      expect(sent!.status).toBe('sent');
      expect(emailsAbout('payment data')).toHaveLength(1);
    } finally {
      await ana.get('/app/alerts');
      await ana.post('/app/alerts/quiet', { start: '', end: '' });
    }
  });

  it('sends a held alert nowhere once its rule is paused meanwhile', async () => {
    const end = await quietForAnHour();
    const page = (await ana.get('/app/alerts')).html;
    const id = /action="\/app\/alerts\/rules\/(rule_[a-z0-9]+)\/pause"/.exec(page)![1]!;
    try {
      const uri = await story({ ...BREACH, title: 'Acme breach: held, then nobody wants it' });
      await svc.app.jobs.drain();
      expect((await ana.post(`/app/alerts/rules/${id}/pause`)).status).toBe(303);
      await clock.advance(end.getTime() + 1000 - clock.now().getTime());
      await svc.app.jobs.drain();
      const [alert] = (await alertsOf(uri)).filter((a) => a.rule === 'Anything serious');
      expect(alert!.status).toBe('cancelled');
      expect(JSON.parse(alert!.channels)[0]).toEqual({
        channel: 'email',
        status: 'cancelled',
        error: 'the rule is paused',
      });
      expect(emailsAbout('nobody wants it')).toEqual([]);
      expect(receiver.hits.filter((h) => h.body.includes('nobody wants it'))).toEqual([]);
    } finally {
      await ana.get('/app/alerts');
      await ana.post(`/app/alerts/rules/${id}/resume`);
      await ana.post('/app/alerts/quiet', { start: '', end: '' });
    }
  });

  it('keeps a headline from speaking markup in Slack or Teams', async () => {
    const title =
      'Acme breach <!channel> <https://evil.example|click> [here](https://evil.example)';
    await story({ ...BREACH, title });
    await svc.app.jobs.drain();
    const slack = JSON.parse(receiver.on('/slack').find((h) => h.body.includes('evil'))!.body);
    expect(slack.text).toContain('&lt;!channel&gt;');
    expect(JSON.stringify(slack)).not.toContain('<!channel>');
    const teams = JSON.parse(receiver.on('/teams').find((h) => h.body.includes('evil'))!.body);
    const body = teams.attachments[0].content.body;
    // Text runs, which show Markdown as it is typed.
    expect(body[0]).toMatchObject({ type: 'RichTextBlock', inlines: [{ type: 'TextRun' }] });
    expect(body[0].inlines[0].text).toContain('[here](https://evil.example)');
  });

  it('retries a channel that failed, and only that one', async () => {
    failSlack = 1;
    const uri = await story({ ...BREACH, title: 'Acme breach: passwords reset' });
    await svc.app.jobs.drain();
    const [first] = (await alertsOf(uri)).filter((a) => a.rule === 'Anything serious');
    const channels = JSON.parse(first!.channels) as {
      channel: string;
      status: string;
      error?: string;
    }[];
    expect(channels.find((c) => c.channel === 'slack')).toMatchObject({
      status: 'failed',
      error: 'the receiver answered HTTP 500',
    });
    expect(channels.filter((c) => c.status === 'sent')).toHaveLength(3);
    const page = (await ana.get('/app/alerts')).html;
    expect(page).toContain('<strong>failed</strong> (the receiver answered HTTP 500)');
    await clock.advance(5_000);
    await svc.app.jobs.drain();
    const [again] = (await alertsOf(uri)).filter((a) => a.rule === 'Anything serious');
    expect(again!.status).toBe('sent');
    expect(emailsAbout('passwords reset')).toHaveLength(1);
    expect(receiver.on('/hook').filter((h) => h.body.includes('passwords reset'))).toHaveLength(1);
  });

  it('refuses a rule that sends nowhere, a private receiver, or a brand it does not read', async () => {
    const nowhere = await addRule(ana, { name: 'Nowhere', min_severity: 'low' });
    expect(nowhere.status).toBe(400);
    expect(nowhere.html).toContain('choose at least one place');
    const internal = await addRule(ana, {
      name: 'Internal',
      min_severity: 'low',
      slack_url: 'http://10.0.0.1/hook',
    });
    expect(internal.status).toBe(400);
    expect(internal.html).toContain('Slack_url: must be an HTTPS URL');
    const foreign = await addRule(agency, {
      name: 'Foreign',
      brands: ['acme-shop.example'],
      min_severity: 'low',
      email: 'on',
    });
    expect(foreign.status).toBe(404);
  });

  it('stops a rule’s emails with the one-click link, asked first when opened', async () => {
    await story({ ...BREACH, title: 'Acme breach: a list of the stolen data' });
    await svc.app.jobs.drain();
    const [email] = emailsAbout('a list of the stolen data');
    const link = /(http:\/\/127\.0\.0\.1:\d+\/unsubscribe\?t=[A-Za-z0-9_.-]+)/.exec(
      plainText(email!.body),
    )![1]!;
    const opened = await fetch(link);
    expect(opened.status).toBe(200);
    expect(await opened.text()).toContain('Stop the emails of this alert rule?');
    // Opening it changed nothing.
    const rule = () =>
      svc.app.db
        .selectFrom('alert_rules')
        .select('email')
        .where('name', '=', 'Anything serious')
        .executeTakeFirstOrThrow();
    expect((await rule()).email).toBe(1);
    const oneClick = await fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(oneClick.status).toBe(200);
    expect((await rule()).email).toBe(0);
    const forged = await fetch(`${link.slice(0, -4)}AAAA`, { method: 'POST' });
    expect(forged.status).toBe(404);
    // RFC 8058's multipart POST is read and set aside; one over the forms' 16 KiB is
    // refused with 413 and an error body, not a dropped connection.
    const form = new FormData();
    form.set('List-Unsubscribe', 'One-Click');
    expect((await fetch(link, { method: 'POST', body: form })).status).toBe(200);
    form.set('padding', 'x'.repeat(40 * 1024));
    const oversized = await fetch(link, { method: 'POST', body: form });
    expect(oversized.status).toBe(413);
    expect(await oversized.json()).toEqual({ error: 'body: too large' });
    await svc.app.db
      .updateTable('alert_rules')
      .set({ email: 1 })
      .where('name', '=', 'Anything serious')
      .execute();
  });
});

describe('digests', () => {
  it('sends a daily digest at the hour of the person’s zone, once across instances, with the period’s stories and trends', async () => {
    await ana.get('/app/alerts');
    expect((await ana.post('/app/alerts/digest', { digest: 'daily', hour: '8' })).status).toBe(303);
    const { digest_next_at } = await svc.app.db
      .selectFrom('users')
      .select('digest_next_at')
      .where('email', '=', 'ana@acme.example')
      .executeTakeFirstOrThrow();
    // 08:00 in Paris is 07:00 UTC in November.
    const due = nextUtcHour(7);
    expect(digest_next_at).toBe(due.toISOString());
    expect((await ana.get('/app/alerts')).html).toContain(
      `Next: <time datetime="${due.toISOString()}">`,
    );
    const uri = await story({ ...BREACH, title: 'Acme breach: the digest tells of it' });
    await clock.advance(due.getTime() + 30_000 - clock.now().getTime());
    const queued = await Promise.all([scheduleDueDigests(svc.app), scheduleDueDigests(svc.app)]);
    expect(queued[0] + queued[1]).toBe(1);
    await svc.app.jobs.drain();
    const digests = smtp.received.filter((m) => plainText(m.body).includes('Daily digest'));
    expect(digests).toHaveLength(1);
    const text = plainText(digests[0]!.body);
    expect(text).toContain('Subject: Daily digest: Acme');
    expect(text).toMatch(/acme\.example: \d+ stor(y|ies) \([^)]*(high|critical)[^)]*\); /);
    expect(text).toContain('High and critical:');
    expect(text).toContain('Acme breach: the digest tells of it');
    expect(text).toContain(`/app/stories/acme.example/${uri}`);
    expect(text).toMatch(/List-Unsubscribe:\s+<http:\/\/127\.0\.0\.1:\d+\/unsubscribe\?t=/);
    const next = await svc.app.db
      .selectFrom('users')
      .select('digest_next_at')
      .where('email', '=', 'ana@acme.example')
      .executeTakeFirstOrThrow();
    expect(next.digest_next_at).toBe(new Date(due.getTime() + 86_400_000).toISOString());
    await ana.get('/app/alerts');
    await ana.post('/app/alerts/digest', { digest: 'off', hour: '8' });
  });

  it('sends nothing when nothing happened and nothing waits', async () => {
    const quiet = await createAccount(svc.app, 'Quiet', 'pro');
    await addBrand(svc.app, {
      accountId: quiet,
      host: 'quiet.example',
      name: 'Quiet',
      verified: true,
    });
    await addUser(svc.app, {
      accountId: quiet,
      email: 'zoe@quiet.example',
      password: 'correct horse battery',
      role: 'owner',
    });
    const zoe = new PortalClient(svc.url);
    await zoe.signIn('zoe@quiet.example', 'correct horse battery');
    await zoe.get('/app/alerts');
    expect((await zoe.post('/app/alerts/digest', { digest: 'weekly', hour: '9' })).status).toBe(
      303,
    );
    // Due now (rather than the clock moved a week, past everyone's session).
    await svc.app.db
      .updateTable('users')
      .set({ digest_next_at: clock.now().toISOString() })
      .where('email', '=', 'zoe@quiet.example')
      .execute();
    expect(await scheduleDueDigests(svc.app)).toBeGreaterThanOrEqual(1);
    await svc.app.jobs.drain();
    expect(smtp.received.filter((m) => m.to.includes('zoe@quiet.example'))).toEqual([]);
  });
});
