import { describe, expect, it } from 'vitest';
import { BrandMatcher } from '../../src/pipeline/brand-matcher.js';
import { boilerplateOf, findMentions, mentionOf } from '../../src/pipeline/mentions.js';

const acme = { host: 'acme.com', name: 'Acme', aliases: ['Acme Corp'] };
const globex = { host: 'globex.com', name: 'Globex' };
const BODY =
  'Shares of a regional logistics group fell on Tuesday after regulators opened an inquiry into late deliveries.';

const article = (
  text: string,
  over: Partial<{ title: string; url: string; publisher: string }> = {},
) => ({
  title: over.title ?? 'Logistics group under inquiry',
  text: `${BODY}\n\n${text}`,
  url: over.url ?? 'https://news.example.org/business/inquiry',
  publisher: over.publisher ?? 'The Ledger',
});

describe('findMentions: boilerplate is not a mention', () => {
  it.each([
    ['share and follow links', 'Follow us on Twitter | Facebook | Acme'],
    ['a line of networks', 'Twitter | Facebook | Instagram | Acme'],
    ['share buttons side by side', 'Whatsapp Facebook Acme Baixar'],
    [
      'a string of other headlines',
      'Senators call for 5G security | Acme gets questions over tracking | Louisiana hit by ransomware',
    ],
    ['an affiliate notice', 'Acme may earn an affiliate commission if you buy through our links.'],
    [
      'a press release’s company description',
      'Acme is a global provider of kettles and toasters with offices in 15 countries.',
    ],
    ['where the company is based', 'Acme is headquartered in Leeds and employs 1,300 people.'],
    ['a pointer for more', 'For more information on the kettles, please visit www.acme.com.'],
    ['an invitation to follow', 'Be sure to visit Acme on Facebook, Twitter and Instagram.'],
    ['share links', 'Share this story on LinkedIn, X or Acme'],
    ['a photo credit', 'Photo: Acme'],
    ['a credit in brackets', '(Image credit: Acme Corp)'],
    ['an agency credit', 'The warehouse in Leeds. Acme / Getty Images'],
    ['an embed label', 'Embed from Acme'],
    ['an Instagram embed', 'A post shared by Acme (@acme)'],
    ['a byline', 'By Jane Doe, Acme News'],
    ['a reporting credit', 'Reporting by Jane Doe for Acme; Editing by John Roe'],
    ['a source line', 'Source: acme.com'],
    ['a read-more line', 'Read more: Acme opens a new depot'],
    ['a copyright line', '© 2026 Acme Media. All rights reserved.'],
  ])('%s', (_why, line) => {
    expect(mentionOf(article(line), acme)).toBeNull();
    // The same brand in a sentence of the article's own is a mention.
    expect(
      mentionOf(article(`${line}\n\nAcme said it would cooperate with the inquiry.`), acme),
    ).toMatchObject({ count: 1 });
  });

  it('keeps real sentences that start like furniture', () => {
    for (const sentence of [
      'Follow-up checks by Acme found no fault in the vans.',
      'Photographs published by the union show Acme vans parked for weeks, and the company has not commented on them.',
      'By the end of the year, Acme expects to close two depots.',
      'By Tuesday, Acme had recalled the vans.',
      'Acme | the company that makes vans | was fined.',
      'Sources close to Acme said the talks had stalled.',
    ]) {
      expect(mentionOf(article(sentence), acme), sentence).toMatchObject({
        count: 1,
        evidence: [sentence],
      });
    }
  });

  it('does not count a wire dateline credit', () => {
    expect(mentionOf({ ...article(''), text: `LONDON (Acme) - ${BODY}` }, acme)).toBeNull();
    expect(
      mentionOf({ ...article(''), text: `LONDON (Reuters) - Acme said on Tuesday ${BODY}` }, acme),
    ).toMatchObject({ count: 1 });
  });

  it('on its own pages, a brand is mentioned only when the headline names it', () => {
    const body = 'Acme said it would cooperate with the inquiry, Acme reporters were told.';
    expect(mentionOf(article(body, { url: 'https://www.acme.com/news/1' }), acme)).toBeNull();
    expect(mentionOf(article(body, { publisher: 'Acme Corp Newsroom' }), acme)).toBeNull();
    const release = article(body, {
      title: 'Acme opens a depot in Leeds',
      publisher: 'Acme Corp Newsroom',
    });
    expect(mentionOf(release, acme)).toMatchObject({ count: 3 });
    // Another publisher's "told Acme" is coverage.
    expect(mentionOf(article(body), acme)).toMatchObject({ count: 2 });
  });
});

describe('findMentions: counts and evidence', () => {
  it('counts every naming outside boilerplate, the longest term once, and quotes whole sentences, title first', () => {
    const a = article(
      'Acme Corp said the inquiry was unfounded. A spokesperson for Acme added that deliveries were on time. Globex declined to comment.\nPhoto: Acme\n\nAcme shares closed 4% lower.',
      { title: 'Acme under inquiry' },
    );
    const found = findMentions(
      a,
      new BrandMatcher([acme, globex].map((b) => ({ brand: b, terms: b }))),
    );
    expect(found.map((m) => [m.brand.host, m.count])).toEqual([
      ['acme.com', 4],
      ['globex.com', 1],
    ]);
    expect(found[0]!.evidence).toEqual([
      'Acme under inquiry',
      'Acme Corp said the inquiry was unfounded.',
      'A spokesperson for Acme added that deliveries were on time.',
    ]);
    expect(found[1]!.evidence).toEqual(['Globex declined to comment.']);
  });
});

describe('boilerplateOf', () => {
  it('names why a line is furniture, and passes article sentences', () => {
    expect(boilerplateOf('Follow us on Twitter | Facebook')).toMatch(/share and follow/);
    expect(boilerplateOf('Acme said it would appeal.')).toBeNull();
  });
});

describe('a name written with either apostrophe', () => {
  it('matches an alias with a straight apostrophe where the page curls it, and the reverse', () => {
    const court = { host: 'tcc.example', name: 'Tax Court', aliases: ["Cour de l'impôt"] };
    const m = new BrandMatcher([{ brand: court, terms: court }]);
    expect(m.occurrences('Un juge de la Cour de l’impôt se récuse.')).toHaveLength(1);
    const curled = { host: 'x.example', name: 'O’Neill Surf' };
    const c = new BrandMatcher([{ brand: curled, terms: curled }]);
    expect(c.occurrences("O'Neill Surf opened a shop.")).toHaveLength(1);
  });
});
