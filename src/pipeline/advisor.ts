import type { Config } from '../config.js';
import type { BrandTerms } from './brand-matcher.js';
import { type GeneratedAdvisory, generateAdvisory, type Source } from './builtin-advisor.js';
import { ChatCompletionsAdvisor } from './chat-completions-advisor.js';
import { type ProposalInput, rethinkAdvisory } from './rethink.js';

export interface Generated {
  advisory: GeneratedAdvisory;
  /** What wrote it, stored with the advisory: `builtin` or `llm:<model>`. */
  generator: string;
}

/**
 * Writes the advisory of a new story. The built-in generator works offline and is the
 * default; with LLM_BASE_URL and LLM_MODEL set, an OpenAI-compatible chat-completions
 * endpoint writes the assessment, summary and plan, and the built-in one stands in
 * whenever that fails. Severity, topics and spread are always our own deterministic
 * scores.
 */
export interface Advisor {
  /** The advisory of a brand's story with these sources (one, for a new story). */
  generate(sources: readonly Source[], brand?: BrandTerms): Promise<Generated>;
  /** A proposal: the advisory thought again with the brand's context (rethink.ts). */
  propose(input: ProposalInput): Promise<Generated>;
}

export const builtinAdvisor: Advisor = {
  async generate(sources, brand) {
    return { advisory: generateAdvisory(sources, brand), generator: 'builtin' };
  },
  async propose(input) {
    return { advisory: rethinkAdvisory(input), generator: 'builtin' };
  },
};

export function createAdvisor(config: Config): Advisor {
  return config.llm ? new ChatCompletionsAdvisor(config.llm) : builtinAdvisor;
}
