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
  // Read from a page (it has the charset it was decoded from): a short one may be cut.
  const g = generateAdvisory([{ ...first, charset: 'utf-8' }], acme);

  it('says what happened in a whole sentence (the headline is the title already), then who is affected', () => {
    expect(g.executiveSummary.map((i) => i.text)).toEqual([
      'Acme is recalling 40,000 PowerCell 9 battery packs after reports of overheating in several homes.',
      'Owners can return the packs to any Acme store for a full refund, the company said.',
      // The page is short: the reader is told the assessment rests on part of it.
      'Only 95 words of Paper 1’s article could be read (it may be behind a paywall): read it in full before acting.',
    ]);
    // One publisher: no reach line (the story's spread says it); several: who covers it, last.
    const second = source(2, 'Acme recall widens', 'Acme battery packs recalled across Europe.');
    const two = generateAdvisory([first, { ...second, source_key: 's2' }], acme);
    expect(two.executiveSummary.at(-1)!.text).toBe('2 publishers report it: Paper 1 and Paper 2.');
  });

  it('makes reading the whole article the plan’s first step when only part of it could be read', () => {
    expect(g.phases[0]!.actions[0]).toBe(
      'Get the full article (the service could read only part of it) and read it before anything else',
    );
    // A text the service was given is the article as its sender has it: no such step.
    expect(generateAdvisory([first], acme).phases[0]!.actions[0]).not.toMatch(/full article/);
    const korean = generateAdvisory([{ ...first, language: 'ko' }], acme);
    expect(korean.phases[0]!.actions[0]).toBe(
      'Have someone who reads Korean read the article in full before anything else',
    );
  });

  it('says a page on the brand’s own site is its own announcement', () => {
    const own = {
      ...source(
        1,
        'Acme announces a partnership with Globex',
        'Acme announces a distribution partnership with Globex across Europe, starting in January.\n\nThe partnership covers hospitals in six countries.',
      ),
      url: 'https://www.acme.com/news/globex',
      publisher: 'www.acme.com',
    };
    expect(generateAdvisory([own], acme).executiveSummary[0]!.text).toBe(
      'This is Acme’s own announcement, published on its site (www.acme.com).',
    );
  });

  it('fills with the sentences that tell something before a narrator’s aside', () => {
    const review = source(
      1,
      'Acme’s new game reviewed',
      [
        'Acme just has a thing for creating cordial robots.',
        'Yes, I mean robots as in the friendly kind that follow you about the map.',
        'Acme fans will find the robots charming, as they wave whenever you pass them by.',
        'Its latest title sold 2 million copies in its first week, a studio record.',
      ].join('\n\n'),
    );
    const texts = generateAdvisory([review], acme).executiveSummary.map((i) => i.text);
    // The lede says what the piece is; the one more sentence of the source is the one that
    // tells something (a figure), not the asides after the lede.
    expect(texts).toEqual([
      'Acme just has a thing for creating cordial robots.',
      'Its latest title sold 2 million copies in its first week, a studio record.',
    ]);
  });

  it('quotes no sentence that leans on the one before it, and takes a dateline or a connective off', () => {
    const wire = source(
      1,
      'Emirates orders Acme jets',
      [
        'DUBAI, United Arab Emirates — Emirates finalized a deal to buy 30 Acme jets, both companies announced on Wednesday.',
        'Then, last week, Acme said it would deliver the first jets next year to the airline.',
        'However, the group raised alarm at the terms of the deal offered by Acme to suppliers.',
        'His comments on Acme came after the airline show closed in the evening.',
      ].join('\n\n'),
    );
    const texts = generateAdvisory([wire], acme).executiveSummary.map((i) => i.text);
    expect(texts[0]).toBe(
      'Emirates finalized a deal to buy 30 Acme jets, both companies announced on Wednesday.',
    );
    expect(texts.some((t) => /^(?:Then|However|His)\b/.test(t))).toBe(false);
    // An opening connective is taken off, the sentence kept: "Then, last week, …".
    expect(texts).toContain(
      'Last week, Acme said it would deliver the first jets next year to the airline.',
    );
  });

  it('falls back to the headline when no sentence says what happened', () => {
    const bare = source(1, 'Acme recalls battery packs', 'The weather in Leeds was mild.');
    expect(generateAdvisory([bare], acme).executiveSummary[0]!.text).toBe(
      'Paper 1 reports: Acme recalls battery packs.',
    );
  });

  it('quotes what the brand has already said, and strips a wire dateline from what happened', () => {
    const wire = source(
      1,
      'Regulator investigating Acme',
      [
        '(Reuters) — The state attorney general is investigating Acme over its kettle sales, according to two people familiar with the matter.',
        'The inquiry follows complaints from customers in three states about kettles that overheat.',
        '“We received an inquiry from the attorney general and are cooperating,” said an Acme spokesperson.',
      ].join('\n\n'),
    );
    const texts = generateAdvisory([wire], acme).executiveSummary.map((i) => i.text);
    // The service's own reading first: who acts; confirmed, since Acme says it is
    // cooperating, however the reporter sourced it.
    expect(texts[0]).toBe('The coverage reports an investigation of Acme by the regulator.');
    expect(texts[1]).toBe(
      'The state attorney general is investigating Acme over its kettle sales, according to two people familiar with the matter.',
    );
    expect(texts).toContain(
      '“We received an inquiry from the attorney general and are cooperating,” said an Acme spokesperson.',
    );
  });

  it('says when a page was read only in part or in a language the reader does not assess', () => {
    const long = source(
      1,
      'Acme recalls battery packs',
      Array.from(
        { length: 12 },
        (_, i) =>
          `Paragraph ${i + 1}: Acme is recalling PowerCell battery packs sold in Europe after reports of overheating in several homes.`,
      ).join('\n\n'),
    );
    const texts = (g: ReturnType<typeof generateAdvisory>) => g.executiveSummary.map((i) => i.text);
    expect(
      texts(generateAdvisory([{ ...long, charset: 'utf-8' }], acme)).some((t) =>
        /^Only \d+ words/.test(t),
      ),
    ).toBe(false);
    // A short text given rather than fetched (an import, the demo) is not "read in part".
    expect(texts(generateAdvisory([first], acme)).some((t) => /^Only \d+ words/.test(t))).toBe(
      false,
    );
    const ko = { ...long, language: 'ko' };
    expect(texts(generateAdvisory([ko], acme))).toContain(
      'Paper 1’s article is in Korean, which the built-in reader does not assess: have it read before acting.',
    );
  });

  it('quotes whole sentences about the brand: no credits, prompts, fragments or headline again', () => {
    const quoted = g.executiveSummary.filter((i) => !generated(i.text)).map((i) => i.text);
    expect(quoted.sort()).toEqual([
      'Acme is recalling 40,000 PowerCell 9 battery packs after reports of overheating in several homes.',
      'Owners can return the packs to any Acme store for a full refund, the company said.',
    ]);
  });

  it('names who is affected in any of the four languages, or by a count', () => {
    const fr = source(
      1,
      'Acme rappelle des batteries',
      'Acme rappelle ses batteries défectueuses cette semaine en Europe. Les consommateurs doivent rapporter les batteries en magasin dès maintenant.',
    );
    const g = generateAdvisory([{ ...fr, language: 'fr' }], acme);
    expect(g.executiveSummary[1]!.text).toMatch(/^Les consommateurs doivent/);
    const count = source(
      1,
      'Acme recall',
      'Acme said the fault was found in March by its own engineers. About 40,000 units were sold in Europe before the recall.',
    );
    expect(generateAdvisory([count], acme).executiveSummary[1]!.text).toMatch(
      /^About 40,000 units/,
    );
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
    const third = source(
      3,
      'Acme pack fires',
      'Two house fires were linked to the packs, firefighters said.',
    );
    const sources = [first, second, third];
    const all = generateAdvisory(sources, acme);
    const texts = new Map(sources.map((s) => [s.source_key, words(`${s.title} ${s.text}`)]));
    const of = (key: string) => sources.find((s) => s.source_key === key)!;
    for (const item of all.executiveSummary) {
      expect(item.cites.length, item.text).toBeGreaterThan(0);
      if (/ reports: /.test(item.text)) {
        // What happened: the cited source's own headline, under its publisher's name.
        const s = of(item.cites[0]!);
        expect(item.text).toBe(`${s.publisher} reports: ${s.title}.`);
      } else if (generated(item.text)) {
        // How it spreads: every source it cites is named.
        for (const c of item.cites) expect(item.text).toContain(of(c).publisher);
      } else {
        for (const cite of item.cites) {
          const support = texts.get(cite)!;
          const missing = [...words(item.text)].filter((w) => !support.has(w));
          // Near-duplicates merged from another source differ by a word or two at most.
          expect(missing.length, `${item.text} ← ${cite}`).toBeLessThanOrEqual(2);
        }
      }
    }
    const texts2 = all.executiveSummary.map((i) => i.text);
    expect(new Set(texts2).size).toBe(texts2.length);
  });
});

describe('the executive summary, ordered as a consultant reads (issue 42, tenth read)', () => {
  it('puts the brand’s own line before an uncounted aside on who is touched, and background last', () => {
    const g = generateAdvisory(
      [
        source(
          1,
          'Regulator investigating Acme',
          [
            'The state attorney general is investigating Acme over its billing, according to two people familiar with the matter.',
            'Acme agreed to a rescue by its largest shareholder, Globex Capital, as it faced a cash crunch.',
            'The company rolled back its policy of requiring staff to sign noncompete agreements after a settlement with the attorney general last year.',
            '“We received an inquiry from the attorney general and are cooperating,” an Acme spokesperson said.',
            'Acme runs 500 offices in 29 countries and expects to open more in Asia and Europe.',
          ].join('\n\n'),
        ),
      ],
      acme,
    );
    const texts = g.executiveSummary.map((i) => i.text);
    const at = (start: string) => texts.findIndex((t) => t.startsWith(start));
    expect(at('“We received an inquiry')).toBeGreaterThanOrEqual(0);
    expect(at('“We received an inquiry')).toBeLessThan(at('Acme agreed to a rescue'));
  });

  it('says nothing of the brand’s place in a page it cannot read: no "in passing", no "not the subject"', () => {
    const ko = {
      ...source(
        1,
        'PC에서 Kindle 단축키를 끄는 방법',
        '단축키로 앱이 실행되는 문제를 설명합니다. 설정에서는 변경할 수 없습니다.\n\n스토어는 Acme 입니다.',
      ),
      language: 'ko',
    };
    const g = generateAdvisory([ko], acme);
    expect(g.executiveSummary[0]!.text).toBe(`Paper 1 names Acme in “${ko.title}”.`);
    const avoid = g.phases.find((p) => p.title === 'Do not')?.actions ?? [];
    expect(avoid).toEqual(['Do not issue a statement before the article has been read in full']);
    expect(g.phases[0]!.actions[0]).toBe(
      'Have someone who reads Korean read the article in full before anything else',
    );
  });

  it('tells the news before the background', () => {
    const g = generateAdvisory(
      [
        source(
          1,
          'Acme opens a plant in Leeds',
          [
            'Acme has long made kettles in Leeds, where it opened its first factory in 1952.',
            'The new plant will employ 300 people from next spring.',
            'Acme said the plant cost £40 million to build.',
          ].join('\n\n'),
        ),
      ],
      acme,
    );
    const texts = g.executiveSummary.map((i) => i.text).join(' ');
    expect(texts).toContain('The new plant will employ 300 people');
    expect(texts).not.toContain('Acme has long made kettles');
  });
});

/** The summary's own lines, not quoted: what the first source reports, who covers it. */
function generated(text: string) {
  return (
    / reports: /.test(text) ||
    / publishers report it: |^Among the sources read so far, only .+ reports it\.$|^Only \d+ words of |, which the built-in reader does not assess|’s own announcement, published on its site|^The coverage reports | is reported as (?:over|coming to an end)\.$|^An opinion piece (?:levels|discusses) /.test(
      text,
    )
  );
}
