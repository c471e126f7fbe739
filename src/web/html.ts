/**
 * Server-rendered HTML with escaping by default: every interpolated value is escaped
 * unless it is itself an `Html` fragment built by this tag.
 */
export class Html {
  constructor(readonly value: string) {}
  toString() {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** A link target from stored data: only http(s) URLs, anything else goes nowhere. */
export const safeHref = (url: string) => (/^https?:\/\//i.test(url) ? url : '#');

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

type Value = Html | string | number | null | undefined | false | readonly Value[];

function render(v: Value): string {
  if (v === null || v === undefined || v === false) return '';
  if (v instanceof Html) return v.value;
  if (Array.isArray(v)) return v.map(render).join('');
  return escapeHtml(String(v));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new Html(out);
}

/** Headers of every HTML page: no scripts, no framing, nothing cached or leaked. */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/** A complete page in the service's plain layout. */
export function page(title: string, body: Html): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Stories</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1d2433}
h1{font-size:1.4rem}.card{border:1px solid #d8dde6;border-radius:8px;padding:1.25rem;margin:1rem 0}
button{font:inherit;padding:.6rem 1.2rem;border-radius:6px;border:0;background:#1f4fd1;color:#fff;cursor:pointer}
.muted{color:#5b6577}.error{color:#a4161a;font-weight:600}button.secondary{background:#e8ebf2;color:#1d2433}
label{display:block;margin:.75rem 0 .25rem;font-weight:600}fieldset label{font-weight:400}fieldset{border:0;padding:0;margin:0 0 1rem}
input[type=email],input[type=password],input[type=text]{font:inherit;width:100%;box-sizing:border-box;padding:.5rem;border:1px solid #b9c1cf;border-radius:6px;margin-bottom:.5rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}dt{font-weight:600}
</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>`.value;
}
