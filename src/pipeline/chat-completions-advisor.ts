import { z } from 'zod';
import type { Config } from '../config.js';
import type { Advisor, Generated } from './advisor.js';
import type { BrandTerms } from './brand-matcher.js';
import { generateAdvisory, type Source } from './builtin-advisor.js';

type LlmConfig = NonNullable<Config['llm']>;

/** What the model must answer: JSON, checked here before anything is stored. */
const Answer = z.object({
  assessment: z.enum(['informational', 'opportunity', 'watch', 'threat', 'crisis']),
  urgency: z.enum(['low', 'medium', 'high', 'immediate']),
  executive_summary: z
    .array(z.object({ text: z.string().min(1).max(600), cites: z.array(z.string()).min(1) }))
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

const SYSTEM = `You advise a company's communications team about one media story.
Answer with one JSON object only, with the fields:
- "assessment": one of informational, opportunity, watch, threat, crisis;
- "urgency": one of low, medium, high, immediate;
- "executive_summary": 1 to 6 items {"text": one sentence, "cites": [source ids]}; every
  sentence states only what the cited sources say, and cites only ids given below;
- "phases": 3 to 6 items {"title", "actions": [short imperative actions]}: the response plan.`;

/**
 * An advisory from any OpenAI-compatible chat-completions endpoint (base URL, key and
 * model from configuration), asked for JSON and validated: the schema, and every citation
 * resolving to a source of the story. Retried on failure, then the built-in generator
 * answers instead, so a story never waits on the model.
 */
export class ChatCompletionsAdvisor implements Advisor {
  constructor(private readonly config: LlmConfig) {}

  async generate(stored: readonly Source[], brand?: BrandTerms): Promise<Generated> {
    const base = generateAdvisory(stored, brand);
    const sources = stored.map((s) => ({
      id: s.source_key,
      publisher: s.publisher,
      title: s.title,
      text: s.text,
    }));
    for (let attempt = 0; attempt <= this.config.retries; attempt++) {
      try {
        const answer = await this.ask(sources);
        const known = new Set(sources.map((s) => s.id));
        if (!answer.executive_summary.every((i) => i.cites.every((c) => known.has(c)))) {
          throw new Error('a citation names no source of the story');
        }
        return {
          advisory: {
            ...base,
            assessment: answer.assessment,
            urgency: answer.urgency,
            executiveSummary: answer.executive_summary,
            summaryBasis: [...new Set(answer.executive_summary.flatMap((i) => i.cites))],
            phases: answer.phases,
          },
          generator: `llm:${this.config.model}`,
        };
      } catch {
        // Next attempt, then the built-in generator.
      }
    }
    return { advisory: base, generator: 'builtin' };
  }

  private async ask(sources: { id: string; publisher: string; title: string; text: string }[]) {
    const res = await fetch(`${this.config.baseUrl}/chat/completions`, {
      method: 'POST',
      signal: AbortSignal.timeout(this.config.timeoutMs),
      headers: {
        'content-type': 'application/json',
        ...(this.config.apiKey && { authorization: `Bearer ${this.config.apiKey}` }),
      },
      body: JSON.stringify({
        model: this.config.model,
        temperature: 0,
        response_format: { type: 'json_object' },
        messages: [
          { role: 'system', content: SYSTEM },
          {
            role: 'user',
            content: JSON.stringify({
              sources: sources.map((s) => ({ ...s, text: s.text.slice(0, 12_000) })),
            }),
          },
        ],
      }),
    });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const body = (await res.json()) as { choices?: { message?: { content?: string } }[] };
    const content = body.choices?.[0]?.message?.content;
    if (!content) throw new Error('no content');
    return Answer.parse(JSON.parse(content));
  }
}
