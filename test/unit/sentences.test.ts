import { describe, expect, it } from 'vitest';
import { partlyRead } from '../../src/pipeline/partly-read.js';
import { sentenceAround, splitSentences } from '../../src/pipeline/sentences.js';

describe('sentences', () => {
  it('do not end at a title, a short month or "No." before a number, or "a.m." before a day', () => {
    expect(
      splitSentences(
        'We are investigating our Sept. 1 anomaly. Mr. Smith said so. The call is at 9 a.m. Monday. It ended at 5 p.m. The company left. It ranked No. 1 in sales.',
      ),
    ).toEqual([
      'We are investigating our Sept. 1 anomaly.',
      'Mr. Smith said so.',
      'The call is at 9 a.m. Monday.',
      'It ended at 5 p.m.',
      'The company left.',
      'It ranked No. 1 in sales.',
    ]);
  });

  it('are the same around a name as when split', () => {
    const text = 'Before. Dr. Jones of Acme spoke on Sept. 3 about it. Next one.';
    const at = text.indexOf('Acme');
    expect(sentenceAround(text, at, at + 4)).toBe('Dr. Jones of Acme spoke on Sept. 3 about it.');
  });
});

describe('a page read only in part', () => {
  it('counts the words of a language written without spaces', () => {
    const short = {
      text: 'WinRARに長年にわたってセキュリティ脆弱性が存在していると伝えた。',
      charset: 'utf-8',
    };
    const words = partlyRead(short);
    expect(words).toBeGreaterThan(5);
    expect(words).toBeLessThan(40);
    const long = {
      text: 'この脆弱性の影響により、細工されたファイルを展開する段階で感染する。'.repeat(20),
      charset: 'utf-8',
    };
    expect(partlyRead(long)).toBeNull();
  });
});
