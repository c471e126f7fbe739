import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatCompletionsAdvisor } from '../../src/pipeline/chat-completions-advisor.js';
import { source } from '../support/source.js';

/**
 * The chat-completions adapter against a local server that misbehaves as real ones do:
 * slow, streaming, cutting an answer at the length limit, refusing, fencing its JSON,
 * inventing citations. Each test scripts the server's next answers.
 */
type Handler = (res: http.ServerResponse) => void;
let server: http.Server;
let base: string;
let handlers: Handler[] = [];
const asked: any[] = [];

const good = {
  assessment: 'threat',
  urgency: 'high',
  executive_summary: [{ text: 'Acme recalled kettles.', cites: ['s1'] }],
  phases: [
    { title: 'Confirm the facts', actions: ['Call the plant'] },
    { title: 'Answer the press', actions: ['Publish a statement'] },
    { title: 'Follow up', actions: ['Brief the board'] },
  ],
};

const json =
  (message: object, finish = 'stop'): Handler =>
  (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ choices: [{ index: 0, message, finish_reason: finish }] }));
  };
const content = (c: string, finish = 'stop') => json({ role: 'assistant', content: c }, finish);
/** A streamed answer, in chunks of a few characters, as server-sent events. */
const streamed =
  (c: string): Handler =>
  (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const parts = c.match(/[\s\S]{1,7}/g) ?? [];
    for (const p of parts) {
      res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: p } }] })}\n\n`);
    }
    res.write(
      `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`,
    );
    res.end('data: [DONE]\n\n');
  };
const slow =
  (ms: number, then: Handler): Handler =>
  (res) => {
    setTimeout(() => {
      if (!res.destroyed) then(res);
    }, ms);
  };

beforeAll(async () => {
  server = http.createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    asked.push(JSON.parse(body));
    const next = handlers.shift() ?? ((r: http.ServerResponse) => r.writeHead(500).end());
    next(res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const advisor = (over: Partial<ConstructorParameters<typeof ChatCompletionsAdvisor>[0]> = {}) =>
  new ChatCompletionsAdvisor({
    baseUrl: base,
    apiKey: 'sk-test',
    model: 'test-model',
    timeoutMs: 400,
    retries: 2,
    budgetMs: 5_000,
    stream: false,
    ...over,
  });
const sources = [
  source(1, 'Acme recalls kettles', 'Acme recalled 40,000 kettles over a faulty switch.'),
];

describe('chat-completions adapter, against a server that misbehaves', () => {
  it('reads a streamed answer, asked for or not', async () => {
    handlers = [streamed(JSON.stringify(good))];
    asked.length = 0;
    const a = await advisor({ stream: true }).generate(sources);
    expect(a.generator).toBe('llm:test-model');
    expect(a.advisory.executiveSummary).toEqual(good.executive_summary);
    expect(asked[0].stream).toBe(true);
    handlers = [streamed(JSON.stringify(good))];
    expect((await advisor().generate(sources)).generator).toBe('llm:test-model');
  });

  it('asks again after a slow answer, an answer cut at the length limit and a refusal', async () => {
    const full = JSON.stringify(good);
    for (const bad of [
      slow(1_000, content(full)),
      content(full.slice(0, 60), 'length'),
      json({ role: 'assistant', content: null, refusal: 'I cannot help with that.' }),
    ]) {
      handlers = [bad, content(full)];
      asked.length = 0;
      const a = await advisor().generate(sources);
      expect(a.generator).toBe('llm:test-model');
      expect(asked).toHaveLength(2);
    }
  });

  it('takes JSON inside a Markdown fence', async () => {
    handlers = [content(`\`\`\`json\n${JSON.stringify(good)}\n\`\`\``)];
    expect((await advisor().generate(sources)).generator).toBe('llm:test-model');
  });

  it('never stores an invented citation or an uncited summary of a new story', async () => {
    handlers = [
      content(
        JSON.stringify({ ...good, executive_summary: [{ text: 'Made up.', cites: ['s4'] }] }),
      ),
      content(JSON.stringify({ ...good, executive_summary: [{ text: 'Uncited.', cites: [] }] })),
      content('{"assessment": "threat"'),
    ];
    const a = await advisor().generate(sources);
    expect(a.generator).toBe('builtin');
    for (const item of a.advisory.executiveSummary) expect(item.cites).toEqual(['s1']);
  });

  it('gives up within its budget when every answer is slow, and the built-in one answers', async () => {
    handlers = Array.from({ length: 6 }, () => slow(2_000, content(JSON.stringify(good))));
    const started = Date.now();
    const a = await advisor({ timeoutMs: 1_000, budgetMs: 1_500, retries: 5 }).generate(sources);
    expect(a.generator).toBe('builtin');
    // One attempt of 1 s fits; the 0.5 s left is too short for another.
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(a.advisory.executiveSummary.length).toBeGreaterThan(0);
  });
});
