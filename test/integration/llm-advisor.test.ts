import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscribe } from '../../src/domain/billing-admin.js';
import { requireBrandByHost } from '../../src/domain/brands.js';
import { importStory } from '../../src/domain/import-story.js';
import { startService, type TestService } from '../support/harness.js';
import { article, seedWorld, type World } from '../support/world.js';

/**
 * The OpenAI-compatible advisory adapter against a local server that speaks the
 * chat-completions protocol. The server answers what each test scripts.
 */
let svc: TestService;
let w: World;
let llm: http.Server;
const requests: { auth?: string; body: any }[] = [];
type Answer = () => { status: number; content?: string; error?: object };
let answers: Answer[] = [];

const good = {
  assessment: 'threat',
  urgency: 'high',
  executive_summary: [
    { text: 'Northwind announced a product recall after injuries.', cites: ['s1'] },
  ],
  phases: [
    { title: 'Confirm the facts', actions: ['Call the plant'] },
    { title: 'Answer the press', actions: ['Publish a statement'] },
    { title: 'Follow up', actions: ['Brief the board'] },
  ],
};
const reply = (content: unknown) => () => ({ status: 200, content: JSON.stringify(content) });

beforeAll(async () => {
  llm = http.createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    requests.push({ auth: req.headers.authorization, body: JSON.parse(body) });
    const next: Answer = answers.shift() ?? (() => ({ status: 500 }));
    const { status, content, error } = next();
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify(
        error
          ? { error }
          : {
              id: 'chatcmpl-1',
              object: 'chat.completion',
              choices: [
                { index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' },
              ],
            },
      ),
    );
  });
  llm.listen(0, '127.0.0.1');
  await once(llm, 'listening');
  const port = (llm.address() as AddressInfo).port;
  svc = await startService(
    {
      LLM_BASE_URL: `http://127.0.0.1:${port}/v1`,
      LLM_API_KEY: 'sk-test',
      LLM_MODEL: 'test-model',
      LLM_RETRIES: '2',
    },
    { runJobs: false },
  );
  answers = [];
  w = await seedWorld(svc.app);
  await subscribe(svc.app, w.accounts.agency, 'test');
});
afterAll(async () => {
  llm.close();
  await svc.close();
});

/** A story the model wrote, unlocked, with a way to post to its endpoints. */
async function unlockedStory(n: number) {
  answers = [reply(good)];
  const event_uri = await w.story('northwind.example', n);
  const post = (path: string, body: object) =>
    svc.request('POST', path, {
      key: w.keys.owner,
      body: { brand: 'northwind.example', event_uri, ...body },
    });
  expect((await post('/v1/advisory', {})).body.ok).toBe(true);
  return { event_uri, post };
}

async function advisoryOf(event_uri: string) {
  return svc.app.db
    .selectFrom('advisories as a')
    .innerJoin('stories as s', 's.id', 'a.story_id')
    .select(['a.generator', 'a.assessment', 'a.executive_summary', 'a.summary_basis'])
    .where('s.event_uri', '=', event_uri)
    .where('a.kind', '=', 'live')
    .executeTakeFirstOrThrow();
}

/** A story as GET /v1/story shows it to the owner. */
async function storyOf(event_uri: string) {
  const r = await svc.request('GET', '/v1/story', {
    key: w.keys.owner,
    query: { brand: 'northwind.example', event_uri },
  });
  return r.body.story;
}

/** The live plan of a story: its phases' titles and actions, in order. */
async function livePhases(event_uri: string) {
  return svc.app.db
    .selectFrom('phases as p')
    .innerJoin('advisories as a', 'a.id', 'p.advisory_id')
    .innerJoin('stories as s', 's.id', 'a.story_id')
    .select(['p.title', 'p.actions'])
    .where('s.event_uri', '=', event_uri)
    .where('a.kind', '=', 'live')
    .orderBy('p.number')
    .execute();
}

describe('chat-completions advisor', () => {
  it('asks for JSON with the model and key, and stores the validated answer', async () => {
    answers = [reply(good)];
    requests.length = 0;
    const story = await w.story('northwind.example', 700);
    const a = await advisoryOf(story);
    expect(a.generator).toBe('llm:test-model');
    expect(a.assessment).toBe('threat');
    expect(JSON.parse(a.executive_summary)).toEqual(good.executive_summary);
    expect(JSON.parse(a.summary_basis)).toEqual(['s1']);
    expect(requests[0]!.auth).toBe('Bearer sk-test');
    // Structured outputs (or JSON mode, once the fallback test below has run).
    expect(requests[0]!.body).toMatchObject({ model: 'test-model' });
    expect(['json_schema', 'json_object']).toContain(requests[0]!.body.response_format.type);
    // The model is told the brand, the situation the service read, its judgement and the
    // sources' dates, so it writes from the same facts.
    const told = JSON.parse(requests[0]!.body.messages[1].content);
    expect(told.brand).toMatchObject({ host: 'northwind.example' });
    expect(told.situation).toMatchObject({
      role: expect.stringMatching(/^(subject|involved|source|passing|boilerplate)$/),
      event: expect.any(String),
      status: expect.any(String),
    });
    expect(told.judgement).toMatchObject({
      severity: expect.any(String),
      assessment: expect.any(String),
      urgency: expect.any(String),
    });
    expect(told.sources[0]).toMatchObject({ id: 's1', published_at: expect.any(String) });
    expect(Array.isArray(told.do_not)).toBe(true);
  });

  it('falls back to JSON mode, and stays there, when the endpoint has no structured outputs', async () => {
    requests.length = 0;
    answers = [
      // OpenAI's answer to a model without structured outputs.
      () => ({
        status: 400,
        error: {
          message:
            "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
          type: 'invalid_request_error',
          param: 'response_format',
          code: null,
        },
      }),
      reply(good),
      reply(good),
    ];
    const first = await w.story('northwind.example', 710);
    expect((await advisoryOf(first)).generator).toBe('llm:test-model');
    // Asked first for structured outputs: the answer's JSON Schema, strict.
    expect(requests[0]!.body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: {
        name: 'advisory',
        strict: true,
        schema: {
          type: 'object',
          additionalProperties: false,
          required: ['assessment', 'urgency', 'executive_summary', 'phases'],
        },
      },
    });
    await w.story('northwind.example', 711);
    expect(requests.map((r) => r.body.response_format.type)).toEqual([
      'json_schema',
      'json_object',
      'json_object',
    ]);
  });

  it('keeps the model within a step of the judgement, and the judgement’s “Do not” list after its plan', async () => {
    // A recall after injuries, which the built-in judgement reads as a threat at least: a
    // model calling it informational is overruled to a step below the judgement.
    requests.length = 0;
    answers = [reply({ ...good, assessment: 'informational', urgency: 'low' })];
    const story = await w.story('northwind.example', 712);
    const told = JSON.parse(requests[0]!.body.messages[1].content);
    const levels = ['informational', 'watch', 'threat', 'crisis'];
    const judged = levels.indexOf(told.judgement.assessment);
    expect(judged).toBeGreaterThanOrEqual(2);
    const a = await advisoryOf(story);
    expect(a.generator).toBe('llm:test-model');
    expect(a.assessment).toBe(levels[judged - 1]);
    const phases = await livePhases(story);
    expect(phases.map((p) => p.title).slice(0, 3)).toEqual(good.phases.map((p) => p.title));
    // An allegation, which the judgement answers with a "Do not" list the model is told
    // and which follows the model's plan, whatever it answered.
    requests.length = 0;
    answers = [
      reply({
        ...good,
        executive_summary: [{ text: 'A blogger alleges Northwind hid a defect.', cites: ['s1'] }],
      }),
    ];
    const brand = await requireBrandByHost(svc.app, 'northwind.example');
    const alleged = (
      await importStory(svc.app, {
        brand,
        article: article('Northwind', 714, 'that a blogger alleges it hid a defect'),
        actor: 'operator',
      })
    ).event_uri;
    const brief = JSON.parse(requests[0]!.body.messages[1].content);
    expect(brief.situation).toMatchObject({ status: 'alleged' });
    expect(brief.do_not.length).toBeGreaterThan(0);
    const plan = await livePhases(alleged);
    expect(plan.map((p) => p.title)).toEqual([...good.phases.map((p) => p.title), 'Do not']);
    expect(JSON.parse(plan.at(-1)!.actions)).toEqual(brief.do_not);
  });

  it('retries an answer whose citation names no source, then one that breaks the schema, and uses the next good one', async () => {
    answers = [
      reply({ ...good, executive_summary: [{ text: 'Invented.', cites: ['s9'] }] }),
      reply({ ...good, phases: [] }),
      reply(good),
    ];
    const story = await w.story('northwind.example', 701);
    expect((await advisoryOf(story)).generator).toBe('llm:test-model');
  });

  it('refuses a sentence its cited source does not support, and asks again', async () => {
    requests.length = 0;
    answers = [
      reply({
        ...good,
        executive_summary: [
          { text: 'Northwind’s chief executive resigned amid a fraud inquiry.', cites: ['s1'] },
        ],
      }),
      reply(good),
    ];
    const story = await w.story('northwind.example', 713);
    expect(requests).toHaveLength(2);
    const a = await advisoryOf(story);
    expect(a.generator).toBe('llm:test-model');
    expect(JSON.parse(a.executive_summary)).toEqual(good.executive_summary);
  });

  it('falls back to the built-in generator when the endpoint keeps failing', async () => {
    answers = [
      () => ({ status: 500 }),
      () => ({ status: 200, content: 'not json' }),
      () => ({ status: 429 }),
    ];
    const story = await w.story('northwind.example', 702);
    const a = await advisoryOf(story);
    expect(a.generator).toBe('builtin');
    // Every citation of every advisory resolves to a source of its story.
    for (const item of JSON.parse(a.executive_summary) as { cites: string[] }[]) {
      expect(item.cites).toEqual(['s1']);
    }
  });

  it('writes proposals too: the context reaches the model, its answer is checked, started phases stay verbatim', async () => {
    const { event_uri, post } = await unlockedStory(703);
    expect((await post('/v1/story/phase-done', { phase: 1, comment: 'Called' })).status).toBe(200);
    const revised = {
      assessment: 'watch',
      urgency: 'medium',
      executive_summary: [
        {
          text: 'Northwind recalled a product after injuries; details will follow.',
          cites: ['s1'],
        },
      ],
      phases: [
        { title: 'Correct the record', actions: ['Send the correction'] },
        { title: 'Watch the coverage', actions: ['Check twice a day'] },
        { title: 'Close', actions: ['Report to the board'] },
      ],
    };
    answers = [
      reply({ ...revised, executive_summary: [{ text: 'Invented.', cites: ['s7'] }] }),
      reply(revised),
    ];
    requests.length = 0;
    const context = 'Nobody was hurt and the recall is voluntary.';
    expect((await post('/v1/story/context', { context })).status).toBe(202);
    await svc.app.jobs.drain();
    // The second request carried the same question: sources, the live plan, the context.
    expect(requests).toHaveLength(2);
    const asked = JSON.parse(requests[1]!.body.messages[1].content);
    expect(asked.context).toBe(context);
    expect(asked.earlier_contexts).toEqual([]);
    expect(asked.live.phases[0]).toMatchObject({ number: 1, started: true });
    expect(asked.sources[0].id).toBe('s1');

    const story = await storyOf(event_uri);
    const proposal = story.advisory_pending.proposal;
    expect(proposal).toMatchObject({ assessment: 'watch', urgency: 'medium' });
    expect(proposal.executive_summary.map((i: { text: string }) => i.text)).toEqual([
      'Northwind recalled a product after injuries; details will follow.',
    ]);
    // Phase 1 was done: it stays as it was; the model's plan takes the other numbers.
    expect(proposal.phases[0].title).toBe(story.advisory.phases[0].title);
    expect(proposal.phases.slice(1).map((p: { title: string }) => p.title)).toEqual([
      'Correct the record',
      'Watch the coverage',
      'Close',
      // The judgement's "Do not" follows the model's plan: the team's account ("nobody was
      // hurt") is checked against the coverage before it is said.
      'Do not',
    ]);
    expect(proposal.phases.at(-1).actions).toContain(
      'Do not make a claim in public Northwind cannot yet show: check each against the coverage and the records first',
    );
    const stored = await svc.app.db
      .selectFrom('advisories')
      .select('generator')
      .where('kind', '=', 'proposal')
      .where('context', '=', context)
      .executeTakeFirstOrThrow();
    expect(stored.generator).toBe('llm:test-model');
  });

  it("a model's proposal that repeats the team's private context is refused and asked again", async () => {
    const { event_uri, post } = await unlockedStory(705);
    const context = 'Legal advises no admission of liability before the review ends.';
    const plan = [
      { title: 'Hold the line', actions: ['Answer with the holding statement'] },
      { title: 'Watch the coverage', actions: ['Check twice a day'] },
      { title: 'Close', actions: ['Report to the board'] },
    ];
    answers = [
      reply({
        assessment: 'watch',
        urgency: 'medium',
        executive_summary: [
          { text: 'Northwind announced the product recall.', cites: ['s1'] },
          { text: 'Legal advises no admission of liability.', cites: ['s1'] },
        ],
        phases: plan,
      }),
      reply({
        assessment: 'watch',
        urgency: 'medium',
        executive_summary: [{ text: 'Northwind announced the product recall.', cites: ['s1'] }],
        phases: plan,
      }),
    ];
    requests.length = 0;
    expect((await post('/v1/story/context', { context })).status).toBe(202);
    await svc.app.jobs.drain();
    expect(requests).toHaveLength(2);
    const story = await storyOf(event_uri);
    const proposal = story.advisory_pending.proposal;
    expect(JSON.stringify(proposal)).not.toContain('no admission of liability');
    expect(proposal.executive_summary).toEqual([
      { text: 'Northwind announced the product recall.', cites: ['s1'] },
    ]);
  });

  it('a proposal falls back to the built-in rethink when the model keeps failing', async () => {
    const { post } = await unlockedStory(704);
    answers = [() => ({ status: 500 }), () => ({ status: 503 }), () => ({ status: 500 })];
    expect((await post('/v1/story/context', { context: 'The defect was fixed.' })).status).toBe(
      202,
    );
    await svc.app.jobs.drain();
    const stored = await svc.app.db
      .selectFrom('advisories')
      .select(['generator', 'executive_summary'])
      .where('kind', '=', 'proposal')
      .where('context', '=', 'The defect was fixed.')
      .executeTakeFirstOrThrow();
    expect(stored.generator).toBe('builtin');
    // Its words are the sources': the private context is never quoted.
    const summary = JSON.parse(stored.executive_summary) as { text: string; cites: string[] }[];
    for (const item of summary) {
      expect(item.cites.length).toBeGreaterThan(0);
      expect(item.text).not.toContain('The defect was fixed');
    }
  });
});
