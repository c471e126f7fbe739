import { describe, expect, it } from 'vitest';
import { withJudgement } from '../../src/pipeline/judgement.js';
import { meanSentiment, sentimentOf } from '../../src/pipeline/sentiment.js';

describe('sentimentOf', () => {
  it('reads how English coverage speaks, from −1 to 1', () => {
    const bad = sentimentOf('Acme recalled 40,000 toasters after fires injured customers.', 'en')!;
    const good = sentimentOf('Acme won an award for its excellent customer service.', 'en')!;
    const flat = sentimentOf('Acme opened a depot in Leeds.', 'en')!;
    expect(bad).toBeLessThan(-0.2);
    expect(good).toBeGreaterThan(0.2);
    expect(flat).toBe(0);
    for (const v of [bad, good, flat]) expect(Math.abs(v)).toBeLessThanOrEqual(1);
  });

  it('is null for a language it does not score, and for nothing', () => {
    expect(sentimentOf('Acme a rappelé 40 000 grille-pain défectueux.', 'fr')).toBeNull();
    expect(sentimentOf('Acme recalled toasters.', null)).toBeNull();
    expect(sentimentOf('  ', 'en')).toBeNull();
  });

  it("makes a story's sentiment the mean of its scored sources", () => {
    expect(meanSentiment([-0.4, null, 0.2])).toBe(-0.1);
    expect(meanSentiment([null])).toBeNull();
  });
});

describe('a page read only in part', () => {
  it('is not scored: a tone read from a paywall’s first lines is a guess', () => {
    const page = {
      url: 'https://paper.example/a',
      title: 'Acme’s terrible week',
      publisher: 'Paper',
      published_at: '2026-11-20',
      text: 'Acme had a terrible, disastrous week of failures and angry customers.',
      language: 'en',
    };
    const acme = { host: 'acme.com', name: 'Acme' };
    // Fetched (it has the charset it was decoded from) and short: cut, so not scored.
    expect(withJudgement({ ...page, charset: 'utf-8' }, acme).sentiment).toBeNull();
    // Given as it is (an import, the API): the article as its sender has it.
    expect(withJudgement(page, acme).sentiment).toBeLessThan(0);
  });
});
