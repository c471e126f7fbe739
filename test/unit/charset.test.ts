import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { decodeBody } from '../../src/pipeline/charset.js';

const ascii = (s: string) => Buffer.from(s, 'latin1');
const cat = (...parts: Uint8Array[]) => Buffer.concat(parts);
/** A page whose body holds text in the encoding, after a head that may declare one. */
const page = (headHtml: string, body: string, encoding: string) =>
  cat(
    ascii(`<!doctype html><html><head>${headHtml}</head><body><p>`),
    iconv.encode(body, encoding),
    ascii('</p></body></html>'),
  );

describe('decodeBody: where the encoding comes from', () => {
  it('reads windows-1252 0x80–0x9F as the curly quotes and euro sign they are', () => {
    const r = decodeBody(
      page('<meta charset="windows-1252">', '“Acme” costs 5 €', 'windows-1252'),
      null,
      'html',
    );
    expect(r.charset).toBe('windows-1252');
    expect(r.text).toContain('“Acme” costs 5 €');
  });

  it('takes a BOM over the HTTP charset and the meta', () => {
    const bytes = cat(
      Uint8Array.from([0xef, 0xbb, 0xbf]),
      page('<meta charset="iso-8859-2">', 'Société', 'utf8'),
    );
    const r = decodeBody(bytes, 'text/html; charset=windows-1250', 'html');
    expect(r.charset).toBe('utf-8');
    expect(r.text).toContain('Société');
    expect(r.text.charCodeAt(0)).not.toBe(0xfeff);
  });

  it('reads UTF-16 pages by their BOM', () => {
    const le = decodeBody(
      cat(Uint8Array.from([0xff, 0xfe]), iconv.encode('<p>Žluťoučký</p>', 'utf16le')),
      null,
      'html',
    );
    expect(le).toEqual({ text: '<p>Žluťoučký</p>', charset: 'utf-16le' });
    const be = decodeBody(
      cat(Uint8Array.from([0xfe, 0xff]), iconv.encode('<p>Ωmega</p>', 'utf16be')),
      null,
      'html',
    );
    expect(be).toEqual({ text: '<p>Ωmega</p>', charset: 'utf-16be' });
  });

  it('takes the HTTP charset over the meta', () => {
    const r = decodeBody(
      page('<meta charset="utf-8">', 'Zażółć gęślą jaźń', 'windows-1250'),
      'text/html; charset="Windows-1250"',
      'html',
    );
    expect(r.charset).toBe('windows-1250');
    expect(r.text).toContain('Zażółć gęślą jaźń');
  });

  it('reads an HTTP charset in single quotes, as some servers write it', () => {
    const r = decodeBody(
      page('', 'Zażółć', 'iso-8859-2'),
      "text/html; charset= 'ISO-8859-2'",
      'html',
    );
    expect(r.charset).toBe('iso-8859-2');
    expect(r.text).toContain('Zażółć');
  });

  it('passes over an HTTP charset nobody knows', () => {
    const r = decodeBody(
      page('<meta charset="iso-8859-2">', 'Łódź', 'iso-8859-2'),
      'text/html; charset=klingon',
      'html',
    );
    expect(r.charset).toBe('iso-8859-2');
    expect(r.text).toContain('Łódź');
  });

  it('reads the http-equiv form, and labels by the WHATWG table (latin1 is windows-1252)', () => {
    const r = decodeBody(
      page(
        '<meta http-equiv="Content-Type" content="text/html; charset=latin1">',
        '‘Acme’ – €',
        'windows-1252',
      ),
      null,
      'html',
    );
    expect(r.charset).toBe('windows-1252');
    expect(r.text).toContain('‘Acme’ – €');
  });

  it('ignores a meta inside a comment and one after the first 1024 bytes', () => {
    const commented = decodeBody(
      page(
        '<!-- <meta charset="koi8-r"> --><meta charset="iso-8859-15">',
        'Œuvre €',
        'iso-8859-15',
      ),
      null,
      'html',
    );
    expect(commented.charset).toBe('iso-8859-15');
    expect(commented.text).toContain('Œuvre €');
    const late = decodeBody(
      page(`<title>${'x'.repeat(1100)}</title><meta charset="koi8-r">`, 'Café', 'utf8'),
      null,
      'html',
    );
    expect(late.charset).toBe('utf-8');
    expect(late.text).toContain('Café');
  });

  it('reads a meta that says UTF-16 as UTF-8, since its bytes were ASCII', () => {
    const r = decodeBody(page('<meta charset="utf-16">', 'Café', 'utf8'), null, 'html');
    expect(r).toMatchObject({ charset: 'utf-8' });
    expect(r.text).toContain('Café');
  });

  it('sniffs, last: valid UTF-8 is UTF-8, anything else windows-1252', () => {
    expect(decodeBody(page('', 'Café “x”', 'utf8'), 'text/html', 'html')).toMatchObject({
      charset: 'utf-8',
    });
    const legacy = decodeBody(page('', 'Café “x”', 'windows-1252'), 'text/html', 'html');
    expect(legacy.charset).toBe('windows-1252');
    expect(legacy.text).toContain('Café “x”');
  });

  it.each([
    ['koi8-r', 'Газпром заявил'],
    ['shift_jis', 'トヨタ自動車の発表'],
    ['gbk', '华为公司发布'],
    ['gb18030', '华为公司发布'],
    ['euc-kr', '삼성전자 발표'],
    ['big5', '台積電公告'],
    ['iso-8859-2', 'Škoda Auto oznámila'],
    ['windows-1251', 'Яндекс сообщил'],
  ])('decodes %s declared in a meta', (encoding, words) => {
    const r = decodeBody(page(`<meta charset="${encoding}">`, words, encoding), null, 'html');
    expect(r.charset).toBe(encoding);
    expect(r.text).toContain(words);
    expect(r.text).not.toContain('\uFFFD');
  });
});

describe('decodeBody for feeds', () => {
  const feed = (decl: string, title: string, encoding: string) =>
    cat(
      ascii(`<?xml version="1.0"${decl}?><rss version="2.0"><channel><item><title>`),
      iconv.encode(title, encoding),
      ascii('</title></item></channel></rss>'),
    );

  it('reads the XML declaration', () => {
    const r = decodeBody(
      feed(' encoding="ISO-8859-1"', 'Nestlé rappelle', 'latin1'),
      'application/rss+xml',
      'xml',
    );
    expect(r.charset).toBe('windows-1252');
    expect(r.text).toContain('Nestlé rappelle');
  });

  it('takes the HTTP charset over the declaration (RFC 7303)', () => {
    const r = decodeBody(
      feed(' encoding="utf-8"', 'Škoda', 'windows-1250'),
      'text/xml; charset=windows-1250',
      'xml',
    );
    expect(r.charset).toBe('windows-1250');
    expect(r.text).toContain('Škoda');
  });

  it('defaults to UTF-8, and sniffs windows-1252 for bytes that are not UTF-8', () => {
    expect(decodeBody(feed('', 'Nestlé', 'utf8'), null, 'xml')).toMatchObject({ charset: 'utf-8' });
    const r = decodeBody(feed('', 'Nestlé', 'latin1'), null, 'xml');
    expect(r.charset).toBe('windows-1252');
    expect(r.text).toContain('Nestlé');
  });

  it('reads UTF-16 and UTF-32 feeds by their first bytes, BOM or not (XML 1.0, appendix F)', () => {
    const xml =
      '<?xml version="1.0" encoding="utf-16"?><rss><channel><title>Škoda</title></channel></rss>';
    for (const [encoding, bom] of [
      ['utf-16le', []],
      ['utf-16be', []],
      ['utf-32le', [0xff, 0xfe, 0, 0]],
      ['utf-32be', [0, 0, 0xfe, 0xff]],
      ['utf-32le', []],
      ['utf-32be', []],
    ] as const) {
      const r = decodeBody(cat(Uint8Array.from(bom), iconv.encode(xml, encoding)), null, 'xml');
      expect(r, `${encoding} ${bom.length ? 'with' : 'without'} BOM`).toEqual({
        text: xml,
        charset: encoding,
      });
    }
  });

  it('does not read an HTML meta in a feed, nor an XML declaration in a page', () => {
    expect(
      decodeBody(
        ascii('<?xml version="1.0" encoding="koi8-r"?><html><p>x</p></html>'),
        null,
        'html',
      ).charset,
    ).toBe('utf-8');
    expect(
      decodeBody(ascii('<rss><channel><meta charset="koi8-r"/></channel></rss>'), null, 'xml')
        .charset,
    ).toBe('utf-8');
  });
});
