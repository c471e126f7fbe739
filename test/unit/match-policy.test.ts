import { describe, expect, it } from 'vitest';
import { type BrandTerms, mentionsBrand, namesBrand } from '../../src/pipeline/brand-matcher.js';
import { isCommonWord } from '../../src/pipeline/common-words.js';
import { mentionOf } from '../../src/pipeline/mentions.js';

const page = (title: string, text: string) => ({
  title,
  text,
  url: 'https://news.example.org/story',
  publisher: 'The Ledger',
});

describe('names that are common words', () => {
  const next: BrandTerms = { host: 'next.co.uk', name: 'Next' };
  const square: BrandTerms = { host: 'squareup.com', name: 'Square' };
  const orange: BrandTerms = { host: 'orange.com', name: 'Orange' };

  it('knows everyday words from rarer ones', () => {
    for (const w of ['next', 'Block', 'square', 'orange', 'apple', 'signal', 'Monday']) {
      expect(isCommonWord(w), w).toBe(true);
    }
    for (const w of ['acme', 'google', 'tesla', 'globex', 'meta']) {
      expect(isCommonWord(w), w).toBe(false);
    }
  });

  it('does not take a sentence start, a Title Case headline or shouting for the name', () => {
    expect(mentionsBrand('Next steps will be announced.', next)).toBe(false);
    expect(mentionsBrand('“Next year,” she said.', next)).toBe(false);
    expect(mentionsBrand('What Comes Next For The Markets In Europe', next)).toBe(false);
    expect(mentionsBrand('UP NEXT Thunder: host the Lakers on Friday.', next)).toBe(false);
    expect(mentionsBrand('the next two years', next)).toBe(false);
    expect(mentionsBrand('Containers: 1 Green, 1 Red, 1 Orange\nSupplement', orange)).toBe(false);
  });

  it('takes the name mid-sentence, or where the writing shows a name anyway', () => {
    expect(mentionsBrand('Shares in Next fell 4% after the warning.', next)).toBe(true);
    expect(mentionsBrand("Next's profits rose.", next)).toBe(true);
    expect(mentionsBrand('Next CEO Simon Wolfson said so.', next)).toBe(true);
    expect(mentionsBrand('Next plc reported sales.', next)).toBe(true);
  });

  it('does not take the name inside a longer proper name', () => {
    expect(mentionsBrand('Crowds filled Times Square on Sunday.', square)).toBe(false);
    expect(mentionsBrand('He owns the Orange County Register.', orange)).toBe(false);
    expect(
      mentionsBrand('the launch of an SLS Block 1B rocket', { host: 'block.xyz', name: 'Block' }),
    ).toBe(false);
    // A weekday, an acronym or a coined product beside it is not a longer name.
    expect(mentionsBrand('It fined Orange Monday for the outage.', orange)).toBe(true);
    expect(
      mentionsBrand('It comes with Apple CarPlay built in.', { host: 'apple.com', name: 'Apple' }),
    ).toBe(true);
  });

  it('reads a lower-case brand as the brand writes itself, so the word alone is never it', () => {
    const smart: BrandTerms = { host: 'smart.com', name: 'smart' };
    expect(mentionsBrand('a smart home speaker', smart)).toBe(false);
    expect(mentionsBrand('Smart phones are everywhere.', smart)).toBe(false);
    expect(mentionsBrand('The new car is on smart.com now.', smart)).toBe(true);
    const monday: BrandTerms = { host: 'monday.com', name: 'monday' };
    expect(mentionsBrand('Police said on Monday that the road was closed.', monday)).toBe(false);
  });

  it('a partner import only needs the name at all, where monitoring needs it sure', () => {
    expect(mentionsBrand('Next recalls kettles.', next)).toBe(false);
    expect(namesBrand('Next recalls kettles.', next)).toBe(true);
    expect(namesBrand('the next two years', next)).toBe(false);
    const block: BrandTerms = {
      host: 'block.xyz',
      name: 'Block',
      match: { require: ['Cash App'] },
    };
    expect(namesBrand('Block recalls kettles.', block)).toBe(false);
  });

  it('leaves names that are not common words as they were', () => {
    const acme: BrandTerms = { host: 'acme.com', name: 'Acme' };
    expect(mentionsBrand('Acme recalls kettles.', acme)).toBe(true);
    expect(mentionsBrand('ACME RECALLS KETTLES', acme)).toBe(true);
  });
});

describe('a brand’s match policy', () => {
  it('strict on: proper-noun context for a name that is not a common word', () => {
    const meta: BrandTerms = { host: 'meta.com', name: 'Meta', match: { strict: 'on' } };
    expect(mentionsBrand('The bounty hunter Meta Ridley returns.', meta)).toBe(false);
    expect(mentionsBrand('Regulators fined Meta on Tuesday.', meta)).toBe(true);
    const off: BrandTerms = { host: 'next.co.uk', name: 'Next', match: { strict: 'off' } };
    expect(mentionsBrand('Next steps will be announced.', off)).toBe(true);
  });

  it('required words: without one of them no mention; with one, the name counts anywhere', () => {
    const block: BrandTerms = {
      host: 'block.xyz',
      name: 'Block',
      match: { require: ['Jack Dorsey', 'Square', 'Cash App'] },
    };
    expect(mentionsBrand('Shares in Block fell sharply.', block)).toBe(false);
    expect(mentionsBrand('Block said Cash App grew. Shares rose.', block)).toBe(true);
    expect(mentionsBrand('Jack Dorsey spoke. Shares in Block rose.', block)).toBe(true);
    // Whole words only: "Squared" is not "Square".
    expect(mentionsBrand('Block said costs squared off.', block)).toBe(false);
  });

  it('excluded phrases: the name inside one is something else', () => {
    const tesla: BrandTerms = {
      host: 'tesla.com',
      name: 'Tesla',
      match: { exclude: ['Nikola Tesla', 'Tesla coil', 'Tesla poles'] },
    };
    expect(mentionsBrand('a museum for Nikola Tesla opened', tesla)).toBe(false);
    expect(mentionsBrand('a humming TESLA COIL in the lab', tesla)).toBe(false);
    expect(mentionsBrand('the Tesla poles of the magnet', tesla)).toBe(false);
    expect(mentionsBrand('Nikola Tesla would have liked Tesla cars', tesla)).toBe(true);
  });

  it('exact case: only as the brand spells itself', () => {
    const ebay: BrandTerms = { host: 'ebay.com', name: 'eBay', match: { exactCase: true } };
    expect(mentionsBrand('sellers on eBay complained', ebay)).toBe(true);
    expect(mentionsBrand('EBAY SELLERS COMPLAIN', ebay)).toBe(false);
    expect(mentionsBrand('Ebay sellers complain', ebay)).toBe(false);
  });

  it('applies in findMentions, with evidence from the brand’s sentences', () => {
    const block: BrandTerms = {
      host: 'block.xyz',
      name: 'Block',
      match: { require: ['Cash App'] },
    };
    expect(
      mentionOf(page('Block shares slide', 'Block shares fell 5% on Tuesday.'), block),
    ).toBeNull();
    expect(
      mentionOf(page('Block shares slide', 'Block shares fell 5% as Cash App slowed.'), block),
    ).toMatchObject({
      count: 2,
      evidence: ['Block shares slide', 'Block shares fell 5% as Cash App slowed.'],
    });
  });
});

describe('names in any casing and script', () => {
  it('a multi-word name mid-sentence, with or without its article', () => {
    const nyt: BrandTerms = { host: 'nytimes.com', name: 'The New York Times' };
    expect(mentionsBrand('as the New York Times reported on Sunday', nyt)).toBe(true);
    expect(mentionsBrand('THE NEW YORK TIMES REPORTS', nyt)).toBe(true);
    expect(mentionsBrand('a new york times square of paper', nyt)).toBe(false);
  });

  it('names in scripts without spaces, and Latin names inside them', () => {
    const apple: BrandTerms = { host: 'apple.com', name: 'Apple', aliases: ['アップル', '苹果'] };
    expect(mentionsBrand('アップルは新製品を発表した。', apple)).toBe(true);
    expect(mentionsBrand('苹果公司发布了新手机。', apple)).toBe(true);
    expect(
      mentionsBrand('さて、Amazonがあまり力を入れていない', { host: 'amazon.com', name: 'Amazon' }),
    ).toBe(true);
    expect(mentionsBrand('りんごを食べた。', apple)).toBe(false);
  });
});
