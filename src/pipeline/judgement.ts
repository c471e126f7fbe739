import type { BrandTerms } from './brand-matcher.js';
import type { ArticleInput } from './builtin-advisor.js';
import { languageOf } from './language.js';
import { focusOf } from './mentions.js';
import { sentimentOf } from './sentiment.js';

/**
 * What the pipeline tells of an article for a brand's story, once, before it is stored:
 * its language (kept when it came with one) and how it speaks of the brand.
 */
export function withJudgement(article: ArticleInput, brand: BrandTerms) {
  const language = languageOf(article);
  const sentiment =
    article.sentiment !== undefined
      ? article.sentiment
      : sentimentOf(focusOf(article, brand), language);
  return { ...article, language, sentiment };
}
