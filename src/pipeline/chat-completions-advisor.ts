import { z } from 'zod';
import type { Config } from '../config.js';
import type { Advisor, Generated } from './advisor.js';
import type { BrandTerms } from './brand-matcher.js';
import {
  ASSESSMENTS,
  type GeneratedAdvisory,
  generateAdvisory,
  type Source,
  URGENCIES,
} from './builtin-advisor.js';
import { stopwordsFor } from './cluster.js';
import { DO_NOT, withDoNotLast } from './playbook.js';
import {
  type ProposalInput,
  quotesContext,
  rethinkAdvisory,
  withStartedPhases,
} from './rethink.js';

type LlmConfig = NonNullable<Config['llm']>;

/** The assessments a model may answer: the scale's, and `opportunity`. */
const ANSWERED_ASSESSMENTS = ['informational', 'opportunity', 'watch', 'threat', 'crisis'] as const;

/** What the model must answer: JSON, checked here before anything is stored. */
const Answer = z.object({
  assessment: z.enum(ANSWERED_ASSESSMENTS),
  urgency: z.enum(URGENCIES),
  executive_summary: z
    .array(z.object({ text: z.string().min(1).max(600), cites: z.array(z.string()) }))
    .min(1)
    .max(6),
  phases: z
    .array(
      z.object({
        title: z.string().min(1).max(120),
        actions: z.array(z.string().min(1).max(300)).min(1).max(6),
      }),
    )
    .min(3)
    .max(6),
});

/**
 * The answer's JSON Schema, for endpoints with structured outputs (strict mode: every
 * property required, nothing else allowed). The bounds the schema language of strict
 * mode cannot say are checked by Answer.
 */
const ANSWER_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['assessment', 'urgency', 'executive_summary', 'phases'],
  properties: {
    assessment: { type: 'string', enum: ANSWERED_ASSESSMENTS },
    urgency: { type: 'string', enum: URGENCIES },
    executive_summary: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['text', 'cites'],
        properties: {
          text: { type: 'string' },
          cites: { type: 'array', items: { type: 'string' } },
        },
      },
    },
    phases: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['title', 'actions'],
        properties: {
          title: { type: 'string' },
          actions: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  },
} as const;

const SYSTEM = `You advise a company's communications team about one media story.
Answer with one JSON object only, with the fields:
- "assessment": one of informational, opportunity, watch, threat, crisis;
- "urgency": one of low, medium, high, immediate;
- "executive_summary": 1 to 6 items {"text": one sentence, "cites": [source ids]}; every
  sentence states only what the cited sources say, and cites only ids given below; the
  first says what happened to or by the brand;
- "phases": 3 to 6 items {"title", "actions": [short imperative actions]}: the response plan;
  each title ends with the function that leads the phase and by when, counted from now
  ("Brief counsel (Legal, within 2 hours)"; no deadline when the urgency is low).
You are told the brand, the situation the coverage puts it in ("situation": its role,
the event, whether that is alleged, confirmed, denied or resolved, the harm reported),
each source's date (null: undated, never assume today) and the service's own judgement
("judgement"). Keep to the situation: a brand only named in passing or quoted as a source
needs no crisis plan; an allegation is reviewed before any apology, remedy or public
rebuttal, and a position the brand already gave ("brand_on_record") is held, not
replaced; a step that would announce an incident (notifying a regulator, a recall, remedies)
states the finding it waits for ("If the review confirms …"). Your assessment and urgency
may differ from the judgement's by one step at most. Keep the "do_not" list in mind.`;

const PROPOSE = `${SYSTEM}
This is a revision. Besides the sources you get the advisory in force ("live") and what
the brand's team now knows ("context", and "earlier_contexts" it gave before, which still
hold): authoritative facts from the company, and private: the advisory is shown on public
share pages, so never quote or restate any of them. Think
the whole advisory again: the assessment and urgency may go down (the context shows less
harm) or up (it shows more); every summary sentence states what the cited sources say and
cites them; the plan replaces every phase not started, and may act on the context without
repeating it. Phases listed as started are kept verbatim by the service whatever you
answer: do not repeat them.`;

interface SourceForModel {
  id: string;
  publisher: string;
  title: string;
  published_at: string | null;
  text: string;
}

/**
 * An advisory from any OpenAI-compatible chat-completions endpoint (base URL, key and
 * model from configuration), asked for JSON and validated: the schema, and every citation
 * resolving to a source of the story. Retried on failure, then the built-in generator
 * answers instead, so a story never waits on the model.
 */
export class ChatCompletionsAdvisor implements Advisor {
  constructor(private readonly config: LlmConfig) {}

  /** Whether to ask for structured outputs (a JSON Schema); off once the endpoint refuses them. */
  private structured = true;

  async generate(stored: readonly Source[], brand?: BrandTerms): Promise<Generated> {
    const base = generateAdvisory(stored, brand);
    const sources = forModel(stored);
    const answer = await this.answer(SYSTEM, { ...told(base, brand), sources }, sources);
    return answer ? this.written(base, answer) : { advisory: base, generator: 'builtin' };
  }

  async propose(input: ProposalInput): Promise<Generated> {
    const base = generateAdvisory(input.sources, input.brand, [
      ...(input.earlier ?? []),
      input.context,
    ]);
    const sources = forModel(input.sources);
    const answer = await this.answer(
      PROPOSE,
      {
        ...told(base, input.brand),
        sources,
        live: {
          assessment: input.live.assessment,
          urgency: input.live.urgency,
          phases: input.live.phases.map((p) => ({ ...p })),
        },
        context: input.context,
        earlier_contexts: input.earlier ?? [],
      },
      sources,
      [...(input.earlier ?? []), input.context],
    );
    if (!answer) return { advisory: rethinkAdvisory(input), generator: 'builtin' };
    const written = this.written(base, answer);
    return { ...written, advisory: withStartedPhases(written.advisory, input.live) };
  }

  /**
   * The model's advisory reconciled with the service's judgement: assessment and urgency
   * at most a step from it (a model that reads a favourable review as a crisis is
   * overruled, not trusted), and the judgement's "Do not" list kept after the model's plan.
   */
  private written(base: GeneratedAdvisory, answer: z.infer<typeof Answer>): Generated {
    const avoid = base.phases.filter((p) => p.title === DO_NOT);
    // A "do not" phase of the model's own gives way to the judgement's.
    const own = answer.phases.filter((p) => p.title.toLowerCase() !== DO_NOT.toLowerCase());
    return {
      advisory: {
        ...base,
        assessment: withinStep(ASSESSMENTS, base.assessment, answer.assessment),
        urgency: withinStep(URGENCIES, base.urgency, answer.urgency),
        executiveSummary: answer.executive_summary,
        summaryBasis: [...new Set(answer.executive_summary.flatMap((i) => i.cites))],
        phases: withDoNotLast([...own, ...avoid]),
      },
      generator: `llm:${this.config.model}`,
    };
  }

  /**
   * The model's answer, valid, with every sentence citing sources of the story and, for a
   * proposal, nothing of the team's private context repeated; null after every attempt
   * failed, or once LLM_BUDGET_MS is spent, so the advisory is ready within the spec's
   * 90 s. A refusal, an answer cut at the length limit and bad JSON are failures like an
   * HTTP error; a slow answer is cut at LLM_TIMEOUT_MS.
   */
  private async answer(
    system: string,
    payload: object,
    sources: SourceForModel[],
    contexts: readonly string[] = [],
  ): Promise<z.infer<typeof Answer> | null> {
    const known = new Set(sources.map((s) => s.id));
    const deadline = Date.now() + this.config.budgetMs;
    for (let attempt = 0; attempt <= this.config.retries; attempt++) {
      const left = deadline - Date.now();
      if (left < 1_000) break;
      try {
        const answer = await this.ask(system, payload, Math.min(this.config.timeoutMs, left));
        for (const item of answer.executive_summary) {
          if (item.cites.length === 0) throw new Error('an uncited sentence');
          if (!item.cites.every((c) => known.has(c))) {
            throw new Error('a citation names no source of the story');
          }
          const cited = sources.filter((s) => item.cites.includes(s.id));
          if (!supported(item.text, cited)) {
            throw new Error('a sentence its sources do not support');
          }
        }
        const texts = [
          ...answer.executive_summary.map((i) => i.text),
          ...answer.phases.flatMap((p) => [p.title, ...p.actions]),
        ];
        if (contexts.some((c) => quotesContext(texts, c))) {
          throw new Error("it repeats the team's private context");
        }
        return answer;
      } catch {
        // Next attempt, then the built-in generator.
      }
    }
    return null;
  }

  private async ask(
    system: string,
    payload: object,
    timeoutMs: number,
  ): Promise<z.infer<typeof Answer>> {
    const res = await fetch(`${this.config.baseUrl}/chat/completions`, {
      method: 'POST',
      signal: AbortSignal.timeout(timeoutMs),
      headers: {
        'content-type': 'application/json',
        ...(this.config.apiKey && { authorization: `Bearer ${this.config.apiKey}` }),
      },
      body: JSON.stringify({
        model: this.config.model,
        temperature: 0,
        response_format: this.structured
          ? {
              type: 'json_schema',
              json_schema: { name: 'advisory', strict: true, schema: ANSWER_SCHEMA },
            }
          : { type: 'json_object' },
        ...(this.config.stream && { stream: true }),
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: JSON.stringify(payload) },
        ],
      }),
    });
    if (res.status === 400 && this.structured && (await refusesSchema(res))) {
      // An endpoint without structured outputs: plain JSON mode from now on, asked again.
      this.structured = false;
      return this.ask(system, payload, timeoutMs);
    }
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    // Some servers stream whether asked or not: the content type says which came.
    const reply = (res.headers.get('content-type') ?? '').includes('text/event-stream')
      ? await streamedReply(res)
      : wholeReply(await res.json());
    if (reply.refusal) throw new Error('the model refused');
    if (reply.finish === 'length') throw new Error('the answer was cut at the length limit');
    if (!reply.content) throw new Error('no content');
    return Answer.parse(JSON.parse(unfenced(reply.content)));
  }
}

interface Reply {
  content: string;
  refusal: string | null;
  finish: string | null;
}

type Choice = {
  message?: { content?: string | null; refusal?: string | null };
  delta?: { content?: string | null; refusal?: string | null };
  finish_reason?: string | null;
};

function wholeReply(body: unknown): Reply {
  const choice = (body as { choices?: Choice[] }).choices?.[0];
  return {
    content: choice?.message?.content ?? '',
    refusal: choice?.message?.refusal ?? null,
    finish: choice?.finish_reason ?? null,
  };
}

/** A streamed answer: `data:` lines of chunks whose deltas add up, until `[DONE]`. */
async function streamedReply(res: Response): Promise<Reply> {
  const reply: Reply = { content: '', refusal: null, finish: null };
  let buffer = '';
  const decoder = new TextDecoder();
  const take = (line: string) => {
    if (!line.startsWith('data:')) return;
    const data = line.slice(5).trim();
    if (!data || data === '[DONE]') return;
    const choice = (JSON.parse(data) as { choices?: Choice[] }).choices?.[0];
    reply.content += choice?.delta?.content ?? '';
    if (choice?.delta?.refusal) reply.refusal = (reply.refusal ?? '') + choice.delta.refusal;
    reply.finish = choice?.finish_reason ?? reply.finish;
  };
  for await (const chunk of res.body ?? []) {
    buffer += decoder.decode(chunk as Uint8Array, { stream: true });
    const lines = buffer.split(/\r?\n/);
    buffer = lines.pop() ?? '';
    lines.forEach(take);
  }
  take(buffer);
  return reply;
}

/** Share of a sentence's content words its cited sources must hold. */
const SUPPORT = 0.6;
const ENGLISH_STOPWORDS = stopwordsFor('en');
/** Content words, by their first five letters: "recalled" is "recall", "injuries" "injur". */
const contentStems = (text: string) =>
  (text.toLowerCase().match(/[\p{L}\p{N}]{4,}/gu) ?? [])
    .filter((w) => !ENGLISH_STOPWORDS.has(w))
    .map((w) => w.slice(0, 5));

/**
 * Whether the cited sources support a sentence: most of its content words are theirs.
 * A paraphrase passes; a claim the sources never make ("the chief executive resigned"
 * of a recall) brings words they do not hold, and the answer is asked again.
 */
function supported(text: string, cited: readonly SourceForModel[]): boolean {
  const said = contentStems(text);
  if (said.length === 0) return true;
  const held = new Set(cited.flatMap((s) => contentStems(`${s.title} ${s.text}`)));
  return said.filter((w) => held.has(w)).length / said.length >= SUPPORT;
}

/** The JSON inside a Markdown fence, which models add though told not to. */
const unfenced = (content: string) =>
  content.trim().replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/, '$1');

/** The sources as the model reads them: ids to cite, dates, texts cut to 12,000 characters. */
const forModel = (stored: readonly Source[]): SourceForModel[] =>
  stored.map((s) => ({
    id: s.source_key,
    publisher: s.publisher,
    title: s.title,
    // An undated page's date is only the day it was read: the model is not told otherwise.
    published_at: s.undated ? null : s.published_at || null,
    text: s.text.slice(0, 12_000),
  }));

/**
 * What the model is told besides the sources: the brand, the situation the service read
 * (situation.ts) and its judgement, so it writes from the same facts.
 */
function told(base: GeneratedAdvisory, brand?: BrandTerms) {
  // The situation as the team's contexts leave it (denied, resolved), as the plan has it.
  const { situation } = base;
  return {
    brand: brand ? { name: brand.name, host: brand.host, aliases: brand.aliases ?? [] } : null,
    situation: {
      role: situation.role,
      event: situation.event,
      status: situation.status,
      opinion_piece: situation.opinion,
      harm: situation.harm,
      stakeholders: situation.stakeholders,
      // What the brand already said there: a position to hold, not to replace.
      brand_on_record: situation.onRecord,
    },
    judgement: {
      severity: base.severity,
      topics: base.topics,
      assessment: base.assessment,
      urgency: base.urgency,
    },
    do_not: base.phases.find((p) => p.title === DO_NOT)?.actions ?? [],
  };
}

/**
 * The model's value, or the judgement's a step towards it when it strays further
 * (`opportunity` stands with `informational`, the lowest assessment).
 */
function withinStep<T extends string>(scale: readonly string[], judged: T, answered: T): T {
  const level = (v: string) => (v === 'opportunity' ? 0 : scale.indexOf(v));
  const a = level(judged);
  const b = level(answered);
  if (a < 0 || b < 0 || Math.abs(a - b) <= 1) return answered;
  return scale[a + Math.sign(b - a)] as T;
}

/** Whether a 400 answer refuses the structured-output request (OpenAI's error shape). */
async function refusesSchema(res: Response): Promise<boolean> {
  const body = (await res.json().catch(() => null)) as {
    error?: { param?: string | null; message?: string };
  } | null;
  return (
    body?.error?.param === 'response_format' ||
    /response_format|json_schema/i.test(body?.error?.message ?? '')
  );
}
