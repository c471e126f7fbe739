import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscribe } from '../../src/domain/billing-admin.js';
import { startService, type TestService } from '../support/harness.js';
import { PortalClient } from '../support/portal-client.js';
import { seedWorld, type World } from '../support/world.js';

/**
 * Context and proposals (spec 3.3). The job runner is off, so the test decides when the
 * proposal is generated and can see it while it is still generating.
 */
let svc: TestService;
let w: World;
let n = 20;
const BRAND = 'northwind.example';
const TEAMMATE = 'owner@northwind.example';

beforeAll(async () => {
  svc = await startService({}, { runJobs: false });
  w = await seedWorld(svc.app);
  await subscribe(svc.app, w.accounts.agency, 'test');
});
afterAll(() => svc.close());

const post = (path: string, body: object, key = w.keys.owner) =>
  svc.request('POST', path, { key, body: { brand: BRAND, ...body } });
const detail = async (event_uri: string) =>
  (await svc.request('GET', '/v1/story', { key: w.keys.owner, query: { brand: BRAND, event_uri } }))
    .body.story;

async function unlockedStory() {
  const e = await w.story(BRAND, n++);
  expect((await post('/v1/advisory', { event_uri: e })).body.ok).toBe(true);
  return e;
}

describe('context and proposals', () => {
  it('refuses context on a locked advisory and over 2000 characters', async () => {
    const locked = await w.story(BRAND, n++);
    const r = await post('/v1/story/context', { event_uri: locked, context: 'Facts.' });
    expect(r.status).toBe(409);
    expect(r.text).toBe('{"error":"advisory is locked"}');
    const e = await unlockedStory();
    const long = await post('/v1/story/context', { event_uri: e, context: 'x'.repeat(2001) });
    expect(long.status).toBe(400);
    expect(long.body.error).toMatch(/^context: must be 1 to 2000 characters/);
  });

  it('context → generating → ready with a diff → apply keeps started phases verbatim', async () => {
    const e = await unlockedStory();
    // Work starts on the live plan: phase 1 assigned, phase 2 done with a comment.
    expect(
      (await post('/v1/story/phase-assign', { event_uri: e, phase: 1, assignee: TEAMMATE })).status,
    ).toBe(200);
    expect(
      (await post('/v1/story/phase-done', { event_uri: e, phase: 2, comment: 'Statement out' }))
        .status,
    ).toBe(200);
    const before = await detail(e);

    const ctx = 'The recall was resolved on Monday; no injuries were confirmed.';
    const r = await post('/v1/story/context', { event_uri: e, context: ctx });
    expect(r.status).toBe(202);
    expect(r.body.advisory_pending).toMatchObject({ status: 'generating', context: ctx });

    const generating = await detail(e);
    expect(generating.advisory_pending).toEqual({
      status: 'generating',
      requested_at: r.body.advisory_pending.requested_at,
      context: ctx,
    });
    expect(generating.advisory).toEqual(before.advisory); // the live advisory is untouched
    const early = await post('/v1/story/advisory-apply', { event_uri: e });
    expect(early.status).toBe(409);
    expect(early.text).toBe('{"error":"proposal is still generating"}');
    const again = await post('/v1/story/context', { event_uri: e, context: 'More.' });
    expect(again.status).toBe(409);

    expect(await svc.app.jobs.drain()).toBeGreaterThan(0);
    const ready = await detail(e);
    expect(ready.advisory_pending.status).toBe('ready');
    const proposal = ready.advisory_pending.proposal;
    expect(proposal.locked).toBe(false);
    // The context is the team's private knowledge: the proposal's words never carry it
    // (shares show them); every sentence cites a source of the story.
    expect(JSON.stringify(proposal)).not.toContain('The recall was resolved');
    const ids = new Set(proposal.sources.map((s: { id: string }) => s.id));
    for (const item of proposal.executive_summary) {
      expect(item.cites.length).toBeGreaterThan(0);
      for (const c of item.cites) expect(ids.has(c)).toBe(true);
    }
    expect(ready.advisory_pending.diff).toEqual(
      expect.arrayContaining([
        {
          path: 'urgency',
          before: before.advisory.urgency,
          after: proposal.urgency,
          // Why it moved, in the judgement's words: never the private context's.
          why: 'the team’s context says the problem is resolved',
        },
        {
          path: 'phases[3].title',
          before: before.advisory.phases[2].title,
          // Who leads it and by when, at the proposal's urgency.
          after: expect.stringMatching(/^Say it is fixed \(Press office, [a-z0-9 ]+\)$/),
        },
      ]),
    );
    expect(ready.advisory).toEqual(before.advisory);

    const member = await post('/v1/story/advisory-apply', { event_uri: e }, w.keys.member);
    expect(member.status).toBe(403);
    const applied = await post('/v1/story/advisory-apply', { event_uri: e }, w.keys.admin);
    expect(applied.status).toBe(200);
    expect(applied.body).toMatchObject({ ok: true, applied: true, status: 'in_progress' });

    const after = await detail(e);
    expect(after.advisory_pending).toBeUndefined();
    expect(after.advisory.urgency).toBe(proposal.urgency);
    // Phases where work started stay exactly as they were, assignee and done state included.
    expect(after.advisory.phases[0]).toEqual(before.advisory.phases[0]);
    expect(after.advisory.phases[1]).toEqual(before.advisory.phases[1]);
    expect(after.advisory.phases[0].assignee).toBe(TEAMMATE);
    expect(after.advisory.phases[1]).toMatchObject({ status: 'done', comment: 'Statement out' });
    // The rest comes from the proposal.
    expect(after.advisory.phases[2].title).toMatch(/^Say it is fixed \(Press office, /);
    expect(after.advisory.phases.length).toBe(proposal.phases.length);
    expect((await post('/v1/story/advisory-apply', { event_uri: e })).text).toBe(
      '{"error":"no pending proposal"}',
    );
  });

  it('in the portal: the proposal being prepared is at the top of the page and replaced by its ready card when the advisor answers', async () => {
    const e = await unlockedStory();
    const c = new PortalClient(svc.url);
    expect((await c.signIn(TEAMMATE, 'correct horse battery')).status).toBe(303);
    const page = `/app/stories/${BRAND}/${encodeURIComponent(e)}`;
    await c.get(page);
    const added = await c.post(`${page}/context`, { context: 'The recall ended on Monday.' });
    expect(added.status).toBe(303);

    const waiting = (await c.get(page)).html;
    const card = waiting.indexOf('id="proposal"');
    expect(card).toBeGreaterThan(0);
    expect(card).toBeLessThan(waiting.indexOf('<h2>Advisory</h2>'));
    expect(waiting).toContain('A proposed update of the advisory is being prepared');
    expect(waiting).toContain(`data-live="${page}/proposal"`);
    expect(waiting).toContain('<script src="/app/live.js" defer></script>');
    const status = async () => JSON.parse((await c.get(`${page}/proposal`)).html);
    expect(await status()).toEqual({ status: 'generating' });
    // The list says so too, and leads to it.
    const note = `<a href="${page}#proposal">`;
    const onList = async () => {
      const list = (await c.get('/app/stories')).html;
      const i = list.indexOf(note);
      return i < 0 ? null : list.slice(i + note.length, list.indexOf('</a>', i));
    };
    expect(await onList()).toBe('proposal being prepared');

    await svc.app.jobs.drain();
    const ready = await status();
    expect(ready.status).toBe('ready');
    // The same card a fresh page shows, with the owner's forms and this session's token.
    const fresh = (await c.get(page)).html;
    expect(fresh).toContain(ready.html);
    expect(ready.html).toContain('Proposed update of the advisory');
    expect(ready.html).toContain(`action="${page}/apply"`);
    expect(ready.html).toMatch(/name="_csrf" value="[^"]+"/);
    expect(ready.html).not.toContain('live.js');
    // Read in words, aligned by meaning: the inserted phase is one new phase, and the phases
    // after it, which the API's diff lists by index, are not shown as changed.
    expect(ready.html).not.toContain('<ins>The brand says');
    expect(ready.html).toMatch(
      /<li>New phase 2, “Brief the team on the new context \(Communications[^”]*\)”/,
    );
    expect(ready.html).not.toContain('renamed');
    // The context phase is due with the phase before it: the phases after it keep theirs.
    expect(ready.html).toContain('Everything else stays as it is.');
    expect(ready.html).not.toMatch(/phases\[|null|\["/);
    expect(await onList()).toBe('proposal to review');

    expect((await c.post(`${page}/dismiss`)).status).toBe(303);
    expect(await status()).toEqual({ status: 'none', html: '' });
    expect((await c.get(page)).html).not.toContain('id="proposal"');
    expect(await onList()).toBeNull();
  });

  it('in the portal: the ready card says why assessment and urgency moved, in the judgement’s words', async () => {
    const e = await unlockedStory();
    const c = new PortalClient(svc.url);
    await c.signIn(TEAMMATE, 'correct horse battery');
    const page = `/app/stories/${BRAND}/${encodeURIComponent(e)}`;
    await c.get(page);
    const context = 'The fix shipped on Monday and service was restored for everyone.';
    expect((await c.post(`${page}/context`, { context })).status).toBe(303);
    await svc.app.jobs.drain();
    const card = (await c.get(page)).html;
    expect(card).toMatch(
      /<li>Assessment: <del>[a-z]+<\/del> → <ins>[a-z]+<\/ins>: the team’s context says the problem is resolved<\/li>/,
    );
    expect(card).toMatch(
      /<li>Urgency: <del>[a-z]+<\/del> → <ins>[a-z]+<\/ins>: the team’s context says the problem is resolved<\/li>/,
    );
    // A phase due at another time as the urgency moved says so, not that it was renamed.
    expect(card).toMatch(/Phase \d, “[^”]+”: <del>\([^()<]+\)<\/del> → <ins>\([^()<]+\)<\/ins>/);
    expect(card).not.toContain('renamed');
    expect((await c.post(`${page}/dismiss`)).status).toBe(303);
  });

  it('a proposal the advisor cannot prepare is given up after the last try, said in place, and context is taken again', async () => {
    const e = await unlockedStory();
    const c = new PortalClient(svc.url);
    await c.signIn(TEAMMATE, 'correct horse battery');
    const page = `/app/stories/${BRAND}/${encodeURIComponent(e)}`;
    await c.get(page);
    await c.post(`${page}/context`, { context: 'The plant reopened.' });
    const advisor = svc.app.advisor;
    svc.app.advisor = {
      ...advisor,
      propose: async () => {
        throw new Error('the model is down');
      },
    };
    try {
      // An attempt that is not the last one changes nothing: the job will try again.
      await svc.app.jobs.drain();
      expect((await detail(e)).advisory_pending.status).toBe('generating');
      // The retry, due now and its last.
      await svc.app.db
        .updateTable('jobs')
        .set((eb) => ({
          attempts: eb('max_attempts', '-', 1),
          run_at: '2000-01-01T00:00:00.000Z',
        }))
        .where('name', '=', 'advisory.propose')
        .where('status', '=', 'queued')
        .execute();
      await svc.app.jobs.drain();
    } finally {
      svc.app.advisor = advisor;
    }
    expect((await detail(e)).advisory_pending).toBeUndefined();
    const status = JSON.parse((await c.get(`${page}/proposal`)).html);
    expect(status).toEqual({
      status: 'failed',
      reason: expect.stringContaining(
        'The update from the context “The plant reopened.” could not be prepared',
      ),
    });
    const html = (await c.get(page)).html;
    expect(html).toContain('<div class="card error" id="proposal" role="alert">');
    expect(html).toContain('could not prepare the update from the context “The plant reopened.”');
    // Context is taken again, and this time the advisor answers.
    expect(
      (await post('/v1/story/context', { event_uri: e, context: 'The plant reopened.' })).status,
    ).toBe(202);
    await svc.app.jobs.drain();
    expect((await detail(e)).advisory_pending.status).toBe('ready');
    expect((await c.get(page)).html).not.toContain('could not be prepared');
  });

  it('a proposal whose last attempt died with its process is given up too', async () => {
    const e = await unlockedStory();
    await post('/v1/story/context', { event_uri: e, context: 'The plant reopened.' });
    await svc.app.db
      .updateTable('jobs')
      .set((eb) => ({
        status: 'running',
        attempts: eb.ref('max_attempts'),
        locked_by: 'wrk_dead',
        locked_until: '2000-01-01T00:00:00.000Z',
      }))
      .where('name', '=', 'advisory.propose')
      .where('status', '=', 'queued')
      .execute();
    await svc.app.jobs.drain();
    expect((await detail(e)).advisory_pending).toBeUndefined();
    expect((await post('/v1/story/context', { event_uri: e, context: 'Again.' })).status).toBe(202);
  });

  it('dismiss drops the proposal and leaves the live advisory byte-identical', async () => {
    const e = await unlockedStory();
    const read = () =>
      svc.request('GET', '/v1/story', { key: w.keys.owner, query: { brand: BRAND, event_uri: e } });
    const before = (await read()).text;
    await post('/v1/story/context', { event_uri: e, context: 'A supplier caused the defect.' });
    await svc.app.jobs.drain();
    expect((await read()).body.story.advisory_pending.status).toBe('ready');
    expect((await post('/v1/story/advisory-dismiss', { event_uri: e }, w.keys.member)).status).toBe(
      403,
    );
    const r = await post('/v1/story/advisory-dismiss', { event_uri: e }, w.keys.admin);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: true, dismissed: true });
    expect((await read()).text).toBe(before);
    expect((await post('/v1/story/advisory-dismiss', { event_uri: e })).status).toBe(409);
  });

  it('takes context again and again: context → dismiss → context → apply → context → dismiss', async () => {
    const e = await unlockedStory();
    const steps = ['dismiss', 'apply', 'dismiss', 'dismiss', 'apply', 'apply'] as const;
    for (const [i, step] of steps.entries()) {
      const c = await post('/v1/story/context', { event_uri: e, context: `Fact number ${i}.` });
      expect(c.status).toBe(202);
      expect(c.body.advisory_pending.context).toBe(`Fact number ${i}.`);
      await svc.app.jobs.drain();
      const ready = await detail(e);
      expect(ready.advisory_pending.status).toBe('ready');
      const end = await post(`/v1/story/advisory-${step}`, { event_uri: e }, w.keys.admin);
      expect(end.status).toBe(200);
      const after = await detail(e);
      expect(after.advisory_pending).toBeUndefined();
      if (step === 'apply') {
        // What applies is the proposal, whose words are the sources', never the context.
        expect(after.advisory.executive_summary).toEqual(
          ready.advisory_pending.proposal.executive_summary,
        );
        expect(JSON.stringify(after.advisory)).not.toContain('Fact number');
      }
    }
  });

  it('contexts accumulate: a later proposal still counts what an applied one said', async () => {
    const e = await unlockedStory();
    const urgencies = ['low', 'medium', 'high', 'immediate'];
    const first = await detail(e);
    await post('/v1/story/context', {
      event_uri: e,
      context: 'Nobody was hurt and the recall is voluntary.',
    });
    await svc.app.jobs.drain();
    const eased = (await detail(e)).advisory_pending.proposal.urgency;
    expect(urgencies.indexOf(eased)).toBe(
      Math.max(0, urgencies.indexOf(first.advisory.urgency) - 1),
    );
    expect((await post('/v1/story/advisory-apply', { event_uri: e })).status).toBe(200);
    // A second context that says nothing new: the advisory is made again from the
    // sources, and the first context still eases it.
    await post('/v1/story/context', { event_uri: e, context: 'We are preparing a statement.' });
    await svc.app.jobs.drain();
    expect((await detail(e)).advisory_pending.proposal.urgency).toBe(eased);
  });

  it('a proposal applied to a closed story with new open phases reopens it', async () => {
    const e = await unlockedStory();
    const phases = (await detail(e)).advisory.phases.length;
    for (let p = 1; p <= phases; p++)
      await post('/v1/story/phase-done', { event_uri: e, phase: p });
    expect((await detail(e)).status).toBe('closed');
    await post('/v1/story/context', {
      event_uri: e,
      context: 'A second outlet repeated the claim.',
    });
    await svc.app.jobs.drain();
    const r = await post('/v1/story/advisory-apply', { event_uri: e });
    expect(r.body.status).toBe('in_progress');
    const after = await detail(e);
    expect(after.status).toBe('in_progress');
    expect(
      after.advisory.phases.filter((p: { status: string }) => p.status === 'open').length,
    ).toBeGreaterThan(0);
  });

  it('apply and dismiss at once: one wins, the story keeps a live advisory', async () => {
    for (let i = 0; i < 4; i++) {
      const e = await unlockedStory();
      await post('/v1/story/context', { event_uri: e, context: `Update ${i}.` });
      await svc.app.jobs.drain();
      const [a, d] = await Promise.all([
        post('/v1/story/advisory-apply', { event_uri: e }),
        post('/v1/story/advisory-dismiss', { event_uri: e }),
      ]);
      expect([a.status, d.status].sort()).toEqual([200, 409]);
      const s = await detail(e);
      expect(s.advisory.locked).toBe(false);
      expect(s.advisory.phases.length).toBeGreaterThanOrEqual(3);
      expect(s.advisory_pending).toBeUndefined();
    }
  });
});
