import iconv from 'iconv-lite';

/**
 * Turns a fetched page's or feed's bytes into text in the encoding its publisher used
 * (docs/pipeline.md, "Charset"). The encoding is looked for in the order browsers use
 * (the WHATWG HTML encoding sniffing algorithm; RFC 7303 for XML):
 *
 * 1. a byte order mark (UTF-8, UTF-16LE/BE; for XML, UTF-32 too), which beats everything;
 * 2. the charset of the HTTP `Content-Type`;
 * 3. HTML: a `<meta charset>` or `<meta http-equiv="content-type">` within the first
 *    1024 bytes; XML: UTF-16 or UTF-32 told by its first bytes, else the declaration's
 *    `encoding`;
 * 4. last, a sniff: bytes that are valid UTF-8 are UTF-8, anything else windows-1252
 *    (the web's legacy default, and a superset of ISO-8859-1).
 *
 * A label nobody knows is passed over for the next source. Labels are read by the
 * WHATWG Encoding Standard's table (`latin1`, `iso-8859-1` and `ascii` all mean
 * windows-1252), and the answer names the encoding used as that standard does.
 */
export interface Decoded {
  text: string;
  /** The WHATWG name of the encoding used: `utf-8`, `windows-1252`, `shift_jis`, … */
  charset: string;
}

const PRESCAN_BYTES = 1024;

/** The WHATWG name for a label (`latin1` → `windows-1252`); null for an unknown one. */
export function encodingOf(label: string): string | null {
  try {
    // TextDecoder carries the standard's label table.
    return new TextDecoder(label.trim()).encoding;
  } catch {
    return null;
  }
}

/** The charset parameter of a Content-Type header, unquoted (servers use ' as well as "). */
export function charsetParam(contentType: string | null): string | null {
  const m = /;\s*charset\s*=\s*(?:"([^"]*)"|'([^']*)'|([^;\s]*))/i.exec(contentType ?? '');
  return m ? (m[1] ?? m[2] ?? m[3] ?? '').trim() || null : null;
}

function bomEncoding(bytes: Uint8Array, kind: 'html' | 'xml'): string | null {
  const [a, b, c, d] = bytes;
  if (a === 0xef && b === 0xbb && c === 0xbf) return 'utf-8';
  // UTF-32 exists for XML only; the web's encodings leave it out.
  if (kind === 'xml' && a === 0xff && b === 0xfe && c === 0 && d === 0) return 'utf-32le';
  if (kind === 'xml' && a === 0 && b === 0 && c === 0xfe && d === 0xff) return 'utf-32be';
  if (a === 0xff && b === 0xfe) return 'utf-16le';
  if (a === 0xfe && b === 0xff) return 'utf-16be';
  return null;
}

/**
 * XML without a BOM in UTF-16 or UTF-32, told by how its first "<" is written (XML 1.0,
 * appendix F): no declaration in it can be read byte by byte.
 */
function xmlWidth(bytes: Uint8Array): string | null {
  const [a, b, c, d] = bytes;
  if (a === 0 && b === 0 && c === 0 && d === 0x3c) return 'utf-32be';
  if (a === 0x3c && b === 0 && c === 0 && d === 0) return 'utf-32le';
  if (a === 0 && b === 0x3c && c === 0) return 'utf-16be';
  if (a === 0x3c && b === 0 && d === 0) return 'utf-16le';
  return null;
}

/** The first bytes as Latin-1 text, where every byte is one character: ASCII stays ASCII. */
const head = (bytes: Uint8Array, n: number) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(n, bytes.byteLength)).toString('latin1');

const META = /<meta[\s/]([^>]*)>?/gi;
const ATTR = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"?|'([^']*)'?|([^\s>]*)))?/g;

/**
 * The encoding a page's `<meta>` declares in its first 1024 bytes, as the HTML prescan
 * reads it: comments skipped, `charset` or an http-equiv content-type's `charset=`.
 */
export function metaEncoding(bytes: Uint8Array): string | null {
  const text = head(bytes, PRESCAN_BYTES).replace(/<!--[\s\S]*?(?:-->|$)/g, '');
  for (const meta of text.matchAll(META)) {
    const attrs = new Map<string, string>();
    for (const a of (meta[1] ?? '').matchAll(ATTR)) {
      const name = a[1]!.toLowerCase();
      if (!attrs.has(name)) attrs.set(name, a[2] ?? a[3] ?? a[4] ?? '');
    }
    let label = attrs.get('charset');
    if (label === undefined && attrs.get('http-equiv')?.toLowerCase() === 'content-type') {
      const m = /charset\s*=\s*["']?([^"';\s]+)/i.exec(attrs.get('content') ?? '');
      label = m?.[1];
    }
    if (label === undefined) continue;
    const encoding = encodingOf(label);
    if (!encoding) continue;
    return encoding === 'x-user-defined' ? 'windows-1252' : asciiCompatible(encoding);
  }
  return null;
}

/** The encoding an XML declaration names, e.g. `<?xml version="1.0" encoding="ISO-8859-1"?>`. */
export function xmlDeclEncoding(bytes: Uint8Array): string | null {
  const m = /^\s*<\?xml[^>]*?\sencoding\s*=\s*["']([^"']+)["']/.exec(head(bytes, PRESCAN_BYTES));
  const encoding = m ? encodingOf(m[1]!) : null;
  return encoding && asciiCompatible(encoding);
}

/** A declaration read as ASCII cannot be in UTF-16 (which has a BOM); the standard reads it as UTF-8. */
const asciiCompatible = (encoding: string) => (encoding.startsWith('utf-16') ? 'utf-8' : encoding);

const utf8Strict = new TextDecoder('utf-8', { fatal: true });

/** The bytes in the encoding: iconv-lite where it knows it, TextDecoder otherwise. */
function decodeAs(bytes: Uint8Array, encoding: string): string {
  // iconv-lite, since Node before 24 decodes windows-1252's 0x80–0x9F as C1 controls
  // (nodejs/node#56542) instead of € “ ” ….
  if (encoding !== 'utf-8' && iconv.encodingExists(encoding)) {
    return iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), encoding);
  }
  return new TextDecoder(encoding).decode(bytes);
}

/**
 * The text of a page (`html`) or feed (`xml`) from its bytes and HTTP Content-Type, and
 * the encoding it was read in.
 */
export function decodeBody(
  bytes: Uint8Array,
  contentType: string | null,
  kind: 'html' | 'xml',
): Decoded {
  const declared = bomEncoding(bytes, kind) ?? labelled(bytes, contentType, kind);
  if (declared) return { text: decodeAs(bytes, declared), charset: declared };
  try {
    return { text: utf8Strict.decode(bytes), charset: 'utf-8' };
  } catch {
    return { text: decodeAs(bytes, 'windows-1252'), charset: 'windows-1252' };
  }
}

function labelled(bytes: Uint8Array, contentType: string | null, kind: 'html' | 'xml') {
  const http = charsetParam(contentType);
  const fromHttp = http ? encodingOf(http) : null;
  // The standard's `replacement` and `x-user-defined` are not a page's real encoding.
  if (fromHttp && fromHttp !== 'x-user-defined') return fromHttp;
  return kind === 'html' ? metaEncoding(bytes) : (xmlWidth(bytes) ?? xmlDeclEncoding(bytes));
}
