import { BrandMatcher, type BrandTerms } from './brand-matcher.js';
import { firstSource, generateAdvisory } from './builtin-advisor.js';
import type { EventKind } from './events.js';
import { sentimentTowards } from './judgement.js';
import { findMentions } from './mentions.js';
import type { PageArticle } from './read-article.js';
import { type Role, type Status, situationOf } from './situation.js';
import type { Reason } from './taxonomy.js';

/** A brand as `brs brand add` and `brs brand aliases` configure it. */
export interface AnalyzedBrand extends BrandTerms {
  aliases: readonly string[];
}

/** What the pipeline makes of one page for one brand (`brs analyze`, docs/pipeline.md). */
export interface BrandFinding {
  brand: string;
  count: number;
  severity: string;
  assessment: string;
  topics: string[];
  /** What the brand is to the article, what happened to or by it, and how it is put. */
  role: Role;
  event: EventKind;
  status: Status;
  /** How the article speaks of the brand, −1 … 1; null when its language is not scored. */
  sentiment: number | null;
  /** Why: each fact of the situation and each signal, with its words and sentence. */
  reasons: Reason[];
  evidence: string[];
}

export interface PageAnalysis {
  title: string;
  published_at: string | null;
  language: string | null;
  charset: string;
  text: string;
  mentions: BrandFinding[];
}

/** The brands to look for, indexed once for any number of pages. */
export const brandIndex = (brands: readonly AnalyzedBrand[]) =>
  new BrandMatcher(brands.map((b) => ({ brand: b, terms: b })));

/**
 * The brands the pipeline would make or join a story for from this article (the same
 * decision as ingestArticle's), each with the scores a story made from it alone would
 * get. `today` stands in for a publication date the page does not state, as it does
 * when the service reads a page.
 */
export function analyzePage(
  article: PageArticle,
  brands: BrandMatcher<AnalyzedBrand>,
  today: string,
): PageAnalysis {
  const found = findMentions(article, brands);
  const source = firstSource({
    ...article,
    published_at: article.published_at ?? today.slice(0, 10),
  });
  return {
    title: article.title,
    published_at: article.published_at,
    language: article.language,
    charset: article.charset,
    text: article.text,
    mentions: found.map((m) => {
      // Scored on what the article says about this brand.
      const advisory = generateAdvisory([source], m.brand);
      const situation = situationOf(source, m.brand);
      return {
        brand: m.brand.host,
        count: m.count,
        severity: advisory.severity,
        assessment: advisory.assessment,
        topics: advisory.topics,
        role: situation.role,
        event: situation.event,
        status: situation.status,
        sentiment: sentimentTowards(situation, article.language),
        evidence: m.evidence,
        reasons: advisory.reasons.map(({ topic, signal, sentence }) => ({
          topic,
          signal,
          sentence,
        })),
      };
    }),
  };
}
