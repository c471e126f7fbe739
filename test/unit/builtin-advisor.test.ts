import { describe, expect, it } from 'vitest';
import { generateAdvisory, mentionsBrand } from '../../src/pipeline/builtin-advisor.js';

const article = (title: string, text: string) => ({
  url: 'https://news.example.org/a',
  title,
  publisher: 'Example News',
  published_at: '2026-11-20',
  text,
});

describe('built-in advisor', () => {
  it('detects the brand by name, host or first label, on word boundaries, with possessives', () => {
    const brand = { host: 'acme.com', name: 'Acme' };
    expect(mentionsBrand("Acme's kettles are recalled", brand)).toBe(true);
    expect(mentionsBrand('visit ACME.COM today', brand)).toBe(true);
    expect(mentionsBrand('the acmeist movement', brand)).toBe(false);
    expect(mentionsBrand('nothing to see', brand)).toBe(false);
    expect(mentionsBrand('Acme’s new plant', brand)).toBe(true);
  });

  it('detects configured aliases the same way', () => {
    const brand = { host: 'acme.com', name: 'Acme', aliases: ['Roadrunner Supply', 'ACM'] };
    expect(mentionsBrand('Roadrunner Supply’s trucks were late', brand)).toBe(true);
    expect(mentionsBrand('the ACM conference', brand)).toBe(true);
    expect(mentionsBrand('an ACME-free zone', { host: 'x.com', name: 'X', aliases: ['acm'] })).toBe(
      false,
    );
  });

  it('grades severity from the topics and cites only the article', () => {
    const crisis = generateAdvisory(
      article(
        'Acme recall',
        'Acme recalls kettles after injuries; a class action is filed. The regulator opened an investigation today.',
      ),
    );
    expect(crisis.severity).toBe('critical');
    expect(crisis.assessment).toBe('crisis');
    expect(crisis.urgency).toBe('immediate');
    expect(crisis.topics).toEqual(expect.arrayContaining(['product-safety', 'legal-regulatory']));
    for (const item of crisis.executiveSummary) expect(item.cites).toEqual(['s1']);
    expect(crisis.summaryBasis).toEqual(['s1']);
    expect(crisis.phases.length).toBeGreaterThanOrEqual(3);

    const award = generateAdvisory(
      article('Acme wins award', 'Acme received a design award for its toaster line this year.'),
    );
    expect(award.severity).toBe('low');
    expect(award.assessment).toBe('opportunity');

    const plain = generateAdvisory(
      article(
        'Acme opens office',
        'Acme opened an office in a new city this week, the company said.',
      ),
    );
    expect(plain.severity).toBe('low');
    expect(plain.assessment).toBe('informational');
    expect(plain.topics).toEqual(['general']);
  });

  it('is deterministic', () => {
    const a = article(
      'Acme strike',
      'Workers at Acme went on strike over pay. The union said talks failed.',
    );
    expect(generateAdvisory(a)).toEqual(generateAdvisory(a));
  });
});
