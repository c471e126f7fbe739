import { describe, expect, it } from 'vitest';
import { BrandMatcher, mentionsBrand } from '../../src/pipeline/brand-matcher.js';
import { assessStory, generateAdvisory, URGENCIES } from '../../src/pipeline/builtin-advisor.js';
import {
  ALIKE_WITHOUT_HEADLINE,
  brandWords,
  eventSimilarity,
  findEvent,
  headlineTerms,
  SAME_EVENT_SIMILARITY,
  similarity,
  terms,
  weighByPool,
} from '../../src/pipeline/cluster.js';
import { baseTitle, PLAYBOOK, planFor } from '../../src/pipeline/playbook.js';
import { spreadOf } from '../../src/pipeline/spread.js';
import { scoreText, TOPICS } from '../../src/pipeline/taxonomy.js';
import { source } from '../support/source.js';

describe('detection', () => {
  const acme = { host: 'acme.com', name: 'Acme' };

  it('finds the name, host or first label as whole words, with possessives', () => {
    expect(mentionsBrand("Acme's kettles are recalled", acme)).toBe(true);
    expect(mentionsBrand('Acme’s new plant', acme)).toBe(true);
    expect(mentionsBrand('visit ACME.COM today', acme)).toBe(true);
    expect(mentionsBrand('Acme deals at www.acme.com/deals', acme)).toBe(true);
    // A link alone is not the article speaking of the brand: an author's handle, an embed.
    expect(mentionsBrand('shop at www.acme.com/deals', acme)).toBe(false);
    expect(mentionsBrand('pic.acme.com/x1Yz', acme)).toBe(false);
    expect(mentionsBrand('the Acmeist movement', acme)).toBe(false);
    expect(mentionsBrand('Acmeville Bakery opens', acme)).toBe(false);
    expect(mentionsBrand('acme.community is a forum', acme)).toBe(false);
    expect(mentionsBrand('nothing to see', acme)).toBe(false);
  });

  it('counts proper nouns only when capitalised or spelled as configured', () => {
    expect(mentionsBrand('it was the acme of his career', acme)).toBe(false);
    expect(mentionsBrand('ACME RECALLS KETTLES', acme)).toBe(true);
    const umbrella = { host: 'umbrella.com', name: 'Umbrella' };
    expect(mentionsBrand('take an umbrella, it will rain', umbrella)).toBe(false);
    expect(mentionsBrand('Regulators said Umbrella contained the spill', umbrella)).toBe(true);
    const ebay = { host: 'ebay.com', name: 'eBay' };
    expect(mentionsBrand('sellers on eBay complained', ebay)).toBe(true);
  });

  it('finds aliases, multi-word terms across line breaks but not across punctuation', () => {
    const brand = { host: 'acme.com', name: 'Acme', aliases: ['Roadrunner Supply', 'ACM'] };
    expect(mentionsBrand('Roadrunner Supply’s trucks were late', brand)).toBe(true);
    expect(mentionsBrand('Roadrunner\n  Supply said', brand)).toBe(true);
    expect(
      mentionsBrand('the Roadrunner. Supply chains', {
        host: 'x.com',
        name: 'X',
        aliases: ['Roadrunner Supply'],
      }),
    ).toBe(false);
    expect(mentionsBrand('the ACM conference', brand)).toBe(true);
    expect(mentionsBrand('an ACME-free zone', { host: 'x.com', name: 'X', aliases: ['acm'] })).toBe(
      false,
    );
  });

  it('matches many brands in one pass and names each brand once', () => {
    const brands = Array.from({ length: 500 }, (_, i) => ({
      brand: `b${i}`,
      terms: { host: `brand${i}.com`, name: `Brand ${i}` },
    }));
    const matcher = new BrandMatcher(brands);
    expect(matcher.match('Brand 7 and Brand 42 merge; brand7.com is down, Brand 7 says')).toEqual([
      'b7',
      'b42',
    ]);
    expect(matcher.match('brand 7 in lower case')).toEqual([]);
  });
});

describe('topics and severity', () => {
  it('scores the sum of topic weights plus intensifiers', () => {
    expect(scoreText('Acme opened an office')).toMatchObject({
      topics: [],
      severity: 'low',
      score: 0,
    });
    expect(scoreText('Customers complain about the outage').severity).toBe('low');
    expect(scoreText('Workers went on strike').severity).toBe('medium');
    expect(scoreText('Acme recalls kettles').severity).toBe('high');
    expect(scoreText('Acme recalls kettles; two people died').severity).toBe('critical');
    expect(scoreText('Data breach draws a regulator investigation')).toMatchObject({
      topics: ['data-privacy', 'legal-regulatory'],
      severity: 'critical',
    });
    expect(scoreText('Acme wins a design award')).toMatchObject({
      positive: true,
      severity: 'low',
    });
  });

  it('matches signals at the start of words only', () => {
    expect(scoreText('Harcourt published a book').topics).toEqual([]);
    expect(scoreText('The courts will decide').topics).toEqual(['legal-regulatory']);
  });
});

describe('spread', () => {
  it('counts distinct publishers weighted by kind', () => {
    const s = (publisher: string, type = 'news') => ({ publisher, type });
    expect(spreadOf([s('A')])).toBe('contained');
    expect(spreadOf([s('A'), s(' a ')])).toBe('contained');
    expect(spreadOf([s('A'), s('B')])).toBe('growing');
    expect(spreadOf([s('A'), s('B', 'forum'), s('C', 'press_release')])).toBe('contained');
    expect(spreadOf(['A', 'B', 'C', 'D'].map((p) => s(p)))).toBe('widespread');
    expect(spreadOf(Array.from({ length: 8 }, (_, i) => s(`P${i}`)))).toBe('viral');
  });

  it('counts a wire service or a national title twice, its news only', () => {
    const wire = { publisher: 'Reuters', type: 'news', url: 'https://www.reuters.com/a' };
    const local = { publisher: 'Leeds Post', type: 'news', url: 'https://leedspost.example/a' };
    expect(spreadOf([local])).toBe('contained');
    expect(spreadOf([wire])).toBe('growing');
    expect(spreadOf([wire, local, { ...local, publisher: 'York Press' }])).toBe('widespread');
    // Its blog is a blog; a look-alike site is not the title.
    expect(spreadOf([{ ...wire, type: 'blog' }])).toBe('contained');
    expect(spreadOf([{ ...wire, url: 'https://reuters.com.example.org/a' }])).toBe('contained');
  });
});

describe('clustering', () => {
  const ignore = brandWords({ host: 'acme.com', name: 'Acme' });
  const recall1 = {
    title: 'Acme recalls 40,000 PowerCell 9 battery packs over fire risk',
    text: 'Acme is recalling 40,000 PowerCell 9 battery packs sold in Europe after reports of overheating. The packs can catch fire while charging, the company said.',
  };
  const recall2 = {
    title: 'PowerCell 9 packs pulled: Acme admits overheating problem',
    text: 'Owners of the PowerCell 9 should stop charging the battery packs, Acme said, announcing a recall of 40,000 units because of a fire risk.',
  };
  const award = {
    title: 'Acme toaster wins the Red Dot design award',
    text: 'The jury praised the toaster for its ceramic body and simple controls. Acme designers accepted the award in Essen.',
  };

  it('puts near-duplicate coverage of one event together and keeps other events apart', () => {
    const candidates = [
      { story: 'recall', published_at: '2026-11-12', terms: terms(recall1, ignore) },
      { story: 'award', published_at: '2026-11-13', terms: terms(award, ignore) },
    ];
    expect(
      findEvent({ published_at: '2026-11-13', terms: terms(recall2, ignore) }, candidates)?.story,
    ).toBe('recall');
    const other = {
      title: 'Acme opens a plant in Ohio',
      text: 'The new plant will employ 300 people making kettles and toasters.',
    };
    expect(
      findEvent({ published_at: '2026-11-13', terms: terms(other, ignore) }, candidates),
    ).toBeUndefined();
  });

  it('does not let a word all the brand’s coverage repeats carry two articles together', () => {
    // Meta's recent coverage: every article says "facebook", and "time", many times.
    const story = (title: string, text: string) => ({
      title: `Facebook time: ${title}`,
      text: `Facebook facebook facebook time time time. ${text}`,
    });
    const pool = [
      story('a tax ruling', 'Regulators in Dublin ruled on a tax bill owed since 2016.'),
      story('a new headset', 'Engineers in Menlo Park showed a lighter headset for gamers.'),
      story('an outage', 'Messages failed for two hours across Europe.'),
      story('a lawsuit', 'Shareholders sued in Delaware over the merger.'),
      story('a hire', 'A former minister joins the policy team in London.'),
    ];
    const raw = (t: { title: string; text: string }) => {
      const m = new Map<string, number>();
      const words = `${t.title} ${t.title} ${t.title} ${t.text}`.toLowerCase().match(/[a-z]{3,}/g);
      for (const w of words!) m.set(w, (m.get(w) ?? 0) + 1);
      return m;
    };
    // Plain counts call the first two the same event; weighted terms do not.
    expect(similarity(raw(pool[0]!), raw(pool[1]!))).toBeGreaterThan(0.5);
    const weighed = weighByPool(pool.map((t) => terms(t)));
    expect(similarity(weighed[0]!, weighed[1]!)).toBeLessThan(SAME_EVENT_SIMILARITY);
  });

  it('weighs words by their rarity in the brand’s recent coverage, from five articles on', () => {
    const pool = [recall1, recall2, award, recall1, award].map((t) => terms(t, ignore));
    const weighed = weighByPool(pool);
    // "powercell" is in three of five articles, "toaster" in two: the rarer gains more.
    const gain = (w: string, i: number) => weighed[i]!.get(w)! / pool[i]!.get(w)!;
    expect(gain('toaster', 2)).toBeGreaterThan(gain('powercell', 0));
    expect(weighByPool(pool.slice(0, 4))).toEqual(pool.slice(0, 4));
  });

  it('asks the headlines to meet, unless the texts are alike beyond doubt', () => {
    const compared = (title: string, text: string) => ({
      terms: terms({ title, text }, ignore),
      headline: headlineTerms(title, ignore),
    });
    // Two pieces of one city and week: their texts share the place, not the event.
    const listing = compared(
      'Acme to raise $12.9bn in Hong Kong listing',
      'Acme will list its shares in Hong Kong next week and hopes to raise $12.9bn from investors. Bankers said demand for the shares was strong despite months of protests in the city.',
    );
    const unrest = compared(
      'Troops deployed as city braces for more protests',
      'Beijing warned protesters in Hong Kong on Tuesday. Acme closed its shops in the city early as thousands marched, and police fired tear gas near the harbour.',
    );
    const s = similarity(listing.terms, unrest.terms);
    expect(s).toBeGreaterThanOrEqual(SAME_EVENT_SIMILARITY);
    expect(s).toBeLessThan(ALIKE_WITHOUT_HEADLINE);
    expect(eventSimilarity(listing, unrest)).toBeNull();
    // The same texts under headlines that meet are one event.
    const followUp = {
      ...unrest,
      headline: headlineTerms('Hong Kong listing goes ahead despite protests', ignore),
    };
    expect(eventSimilarity(listing, followUp)).toBeCloseTo(s);
  });

  it('does not join coverage published outside the window', () => {
    const candidates = [
      { story: 'recall', published_at: '2026-11-01', terms: terms(recall1, ignore) },
    ];
    expect(
      findEvent({ published_at: '2026-11-13', terms: terms(recall2, ignore) }, candidates),
    ).toBeUndefined();
  });
});

describe('built-in advisory', () => {
  it('is a step more urgent for a live problem dated today or this week, not for one that is over', () => {
    const later = generateAdvisory([
      source(1, 'Acme to cut jobs', 'Acme will lay off 300 employees, the company said.'),
    ]);
    const soon = generateAdvisory([
      source(
        1,
        'Acme to cut jobs this week',
        'Acme will lay off 300 employees this week, the company said.',
      ),
    ]);
    expect(URGENCIES.indexOf(soon.urgency)).toBe(URGENCIES.indexOf(later.urgency) + 1);
    const over = generateAdvisory([
      source(
        1,
        'Acme outage fixed today',
        'The Acme outage has been fixed and service was restored today.',
      ),
    ]);
    expect(URGENCIES.indexOf(over.urgency)).toBeLessThanOrEqual(1);
  });

  it('grades the story, cites only its sources and plans by its riskiest topic', () => {
    const crisis = generateAdvisory([
      source(
        1,
        'Acme recall',
        'Acme recalls kettles after injuries; a class action is filed. The regulator opened an investigation today.',
      ),
    ]);
    expect(crisis.severity).toBe('critical');
    expect(crisis.assessment).toBe('crisis');
    expect(crisis.urgency).toBe('immediate');
    expect(crisis.topics).toEqual(['product-safety', 'legal-regulatory']);
    for (const item of crisis.executiveSummary) expect(item.cites).toEqual(['s1']);
    expect(crisis.summaryBasis).toEqual(['s1']);
    expect(crisis.phases.map((p) => baseTitle(p.title))).toEqual(
      PLAYBOOK['product-safety']!.map((p) => p.title),
    );
    // Each phase says who leads it and by when, the first first; "Do not" is for everyone.
    expect(crisis.phases.map((p) => p.title).slice(0, 2)).toEqual([
      'Establish the facts (Communications, within 1 hour)',
      'Protect customers (Quality and legal, within 2 hours)',
    ]);
    expect(crisis.phases.find((p) => p.title.startsWith('Monitor'))!.title).toBe(
      'Monitor and follow up (Communications, ongoing)',
    );

    const award = generateAdvisory([
      source(1, 'Acme wins award', 'Acme received a design award for its toaster line this year.'),
    ]);
    expect(award).toMatchObject({ severity: 'low', assessment: 'opportunity' });
    // Good news has no deadlines: who leads each phase only.
    expect(award.phases.map((p) => p.title)).toEqual(
      PLAYBOOK.recognition!.map((p) => `${p.title} (${p.owner})`),
    );

    const plain = generateAdvisory([
      source(
        1,
        'Acme opens office',
        'Acme opened an office in a new city this week, the company said.',
      ),
    ]);
    expect(plain).toMatchObject({
      severity: 'low',
      assessment: 'informational',
      topics: ['general'],
    });
  });

  it('writes a multi-source summary: each sentence cites the sources it came from', () => {
    const shared =
      'Acme is recalling 40,000 PowerCell 9 battery packs after reports of overheating.';
    const sources = [
      source(1, 'Acme recalls battery packs', `${shared} The company set up a hotline for owners.`),
      source(
        2,
        'Battery packs recalled',
        `${shared} Retailers have removed the packs from shelves.`,
      ),
      source(
        3,
        'Acme recall widens',
        'The recall covers every pack sold since March in Europe.',
        'Forum X',
      ),
    ];
    const g = generateAdvisory(sources);
    const keys = new Set(sources.map((s) => s.source_key));
    for (const item of g.executiveSummary) {
      expect(item.cites.length).toBeGreaterThan(0);
      for (const c of item.cites) expect(keys.has(c)).toBe(true);
    }
    expect(g.executiveSummary).toContainEqual({ text: shared, cites: ['s1', 's2'] });
    expect(g.executiveSummary).toContainEqual({
      text: '3 publishers report it: Paper 1, Paper 2 and Forum X.',
      cites: ['s1', 's2', 's3'],
    });
    expect(g.summaryBasis.sort()).toEqual(['s1', 's2', 's3']);
    expect(g.spread).toBe('growing');
    expect(g.executiveSummary.length).toBeLessThanOrEqual(6);
  });

  it('raises severity once a story is widespread', () => {
    const many = ['A', 'B', 'C', 'D'].map((p, i) =>
      source(i + 1, 'Acme recall', 'Acme recalls kettles over a defect.', p),
    );
    expect(assessStory(many.slice(0, 1)).severity).toBe('high');
    expect(assessStory(many)).toMatchObject({ spread: 'widespread', severity: 'critical' });
  });

  it('has a plan of three to five phases for every topic, so a proposal can add one', () => {
    for (const tag of [...TOPICS.map((t) => t.tag), 'general']) {
      const plan = planFor([tag]);
      expect(plan.length, tag).toBeGreaterThanOrEqual(3);
      expect(plan.length, tag).toBeLessThanOrEqual(5);
    }
  });

  it('is deterministic', () => {
    const a = source(
      1,
      'Acme strike',
      'Workers at Acme went on strike over pay. The union said talks failed.',
    );
    expect(generateAdvisory([a])).toEqual(generateAdvisory([a]));
  });
});
