import { describe, expect, it } from 'vitest';
import { assessStory } from '../../src/pipeline/builtin-advisor.js';
import { focusOf } from '../../src/pipeline/mentions.js';
import { SEVERITIES, scoreText } from '../../src/pipeline/taxonomy.js';

/** Issue 15: severity read in the signal's sense, and on what the article says about the brand. */
describe('signals in their sense', () => {
  it.each([
    [
      'a maths "recall that"',
      'Recall that a prime has two divisors; as you may recall, the proof is short.',
    ],
    [
      'a friendship struck up',
      'The two founders struck up a friendship and strike a balance between work and play.',
    ],
    ['air strikes', 'Air strikes hit the city overnight.'],
    [
      'SQL UNION and the European Union',
      'Use UNION SELECT in SQL; the European Union agreed the budget.',
    ],
    [
      'a courtyard and courtesy',
      'Tea in the courtyard, a courtesy of the hotel; a food court opened.',
    ],
    ['a name', 'The scholar Antoine Court de Gébelin wrote about tarot.'],
    ['breach of contract as data', 'The supplier claims a breach of contract by the retailer.'],
    ['spill over', 'Tensions could spill over into next season.'],
    ['a toxic culture', 'The founder has spoken out about the toxic culture of social media.'],
  ])('%s is no signal of its topic', (_what, text) => {
    expect(scoreText(text, 'en').topics).toEqual([]);
  });

  it('still finds the real senses', () => {
    expect(scoreText('Acme recalls 40,000 toasters', 'en').topics).toEqual(['product-safety']);
    expect(scoreText('Dock workers went on strike at the port', 'en').topics).toEqual(['labor']);
    expect(scoreText('The union called a walkout', 'en').topics).toEqual(['labor']);
    expect(scoreText('The Supreme Court ruled against Acme', 'en').topics).toEqual([
      'legal-regulatory',
    ]);
    expect(scoreText('Acme faces a lawsuit over a data breach', 'en').topics).toEqual([
      'data-privacy',
      'legal-regulatory',
    ]);
  });

  it('keeps its reasons: the topic, the words that fired and their sentence', () => {
    const s = scoreText(
      'Acme opened a depot. Later, Acme recalled 40,000 kettles. Two people died.',
      'en',
    );
    expect(s.reasons).toEqual([
      {
        topic: 'product-safety',
        signal: 'recall',
        sentence: 'Later, Acme recalled 40,000 kettles.',
      },
      { topic: 'intensifier', signal: 'died', sentence: 'Two people died.' },
    ]);
  });

  it('reads security incidents as a risk', () => {
    const s = scoreText('Minecraft exploit crashes servers worldwide', 'en');
    expect(s.topics).toEqual(['security']);
    expect(s.severity).toBe('high');
  });
});

describe('what the article says about the brand', () => {
  const brand = { host: 'acme.com', name: 'Acme' };
  const article = {
    url: 'https://news.example/a',
    publisher: 'The Ledger',
    published_at: '2026-11-20',
    title: 'Weekend sport round-up',
    text: [
      'The striker was injured in the first half and the club faces a lawsuit from its former coach.',
      'Fans cheered all afternoon. The match was sponsored by Acme, whose logo filled the stadium. The crowd left happy.',
      'Three players were killed in a crash on the motorway, police said.',
    ].join('\n\n'),
  };

  it('is the sentences naming the brand, with their neighbours', () => {
    expect(focusOf(article, brand).split('\n')).toEqual([
      'Fans cheered all afternoon.',
      'The match was sponsored by Acme, whose logo filled the stadium.',
      'The crowd left happy.',
    ]);
  });

  it('and the headline when it is about the brand: it names it, or the article does twice', () => {
    const named = { ...article, title: 'Acme logo fills the stadium' };
    expect(focusOf(named, brand).split('\n')[0]).toBe('Acme logo fills the stadium');
    const twice = { ...article, text: `${article.text}\n\nAcme said it would sponsor again.` };
    expect(focusOf(twice, brand).split('\n')[0]).toBe('Weekend sport round-up');
    // A company that "said on Twitter" is not what the headline's layoffs are about.
    const passing = {
      title: 'Acme staff laid off after a fatal fire at its plant',
      text: 'Acme will cut 300 jobs. The union said on Twitter that staff were told by email.',
    };
    const twitter = { host: 'twitter.com', name: 'Twitter' };
    expect(focusOf(passing, twitter)).not.toContain('laid off');
    const story = [{ ...article, ...passing }];
    const rank = (b: typeof brand) => SEVERITIES.indexOf(assessStory(story, b).severity);
    expect(rank(twitter)).toBeLessThan(rank(brand));
  });

  it('is what a story of the brand is scored on: a sponsor of a grim round-up is low', () => {
    expect(assessStory([article]).severity).toBe('critical');
    expect(assessStory([article], brand)).toMatchObject({ severity: 'low', topics: ['general'] });
  });
});
