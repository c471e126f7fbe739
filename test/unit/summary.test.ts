import { describe, expect, it } from 'vitest';
import { generateAdvisory } from '../../src/pipeline/builtin-advisor.js';
import { source } from '../support/source.js';

/** Issue 15: summaries a person would write, each item a whole sentence its sources support. */
const acme = { host: 'acme.com', name: 'Acme' };
const WORD = /[\p{L}\p{N}]+/gu;
const words = (s: string) => new Set(s.toLowerCase().match(WORD) ?? []);

describe('the executive summary', () => {
  const first = source(
    1,
    'Acme recalls battery packs',
    [
      'Acme recalls battery packs.',
      'Photo: Acme Corp / Getty Images',
      'Click here to sign up for our newsletter and get the latest news.',
      'and then the rest of a line cut in the middle',
      'The weather in Leeds was mild on Tuesday, with light rain expected in the evening.',
      'Acme is recalling 40,000 PowerCell 9 battery packs after reports of overheating in several homes.',
      'Acme is recalling 40,000 PowerCell 9 battery packs after reports of overheating in some homes.',
      'Owners can return the packs to any Acme store for a full refund, the company said.',
    ].join('\n\n'),
  );
  const g = generateAdvisory([first], acme);
  const quoted = g.executiveSummary.slice(1).map((i) => i.text);

  it('quotes whole sentences about the brand: no credits, prompts, fragments or headline again', () => {
    expect(quoted).toEqual([
      'Acme is recalling 40,000 PowerCell 9 battery packs after reports of overheating in several homes.',
      'Owners can return the packs to any Acme store for a full refund, the company said.',
    ]);
  });

  it('says nothing twice', () => {
    const second = source(
      2,
      'Battery recall',
      'Acme is recalling 40,000 PowerCell 9 battery packs after overheating reports in several homes. Retailers have removed the packs from shelves across Europe.',
    );
    const two = generateAdvisory([first, second], acme).executiveSummary;
    const recall = two.filter((i) => /recalling 40,000/.test(i.text));
    expect(recall).toHaveLength(1);
    expect(recall[0]!.cites).toEqual(['s1', 's2']);
  });

  it('is supported by what it cites: every word of a quoted item is in each source it cites', () => {
    const second = source(
      2,
      'Retailers pull Acme packs',
      'Retailers have removed the Acme packs from shelves across Europe this week.',
    );
    const two = generateAdvisory([first, second], acme);
    const texts = new Map(
      [first, second].map((s) => [s.source_key, words(`${s.title} ${s.text}`)]),
    );
    for (const item of two.executiveSummary.slice(2)) {
      for (const cite of item.cites) {
        const support = texts.get(cite)!;
        const missing = [...words(item.text)].filter((w) => !support.has(w));
        // Near-duplicates merged from another source differ by a word or two at most.
        expect(missing.length, `${item.text} ← ${cite}`).toBeLessThanOrEqual(2);
      }
    }
  });
});
