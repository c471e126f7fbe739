import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import {
  confirmBrandVerification,
  readBrandVerification,
} from '../../domain/brand-verification.js';
import { pageError } from '../../errors.js';
import { listBrands } from '../../operations/brands/list-brands.js';
import type { Operation } from '../../operations/operation.js';
import {
  addBrandInApp,
  addSourceInApp,
  brandChallenge,
  brandMonitoring,
  deleteBrandInApp,
  discoverFeedsInApp,
  removeSourceInApp,
  setAliasesInApp,
  setConnectorInApp,
  setConnectorTargetsInApp,
  setMatchPolicyInApp,
  verifyBrandByDns,
  verifyBrandByEmail,
} from '../../operations/portal/brands.js';
import { hasRole } from '../../policy.js';
import { formField } from '../forms.js';
import { html, page } from '../html.js';
import { confirmationPage } from './confirm.js';
import { forgedPage, type Output, portalRoutes, run, type View } from './guard.js';
import { appPage, csrfField, notice, problem, when } from './layout.js';
import { actorOf, csrfToken, csrfValid } from './session.js';

/**
 * How the brand's name is told from the same word meaning something else
 * (docs/pipeline.md, "Names that are common words"), folded away: most brands never need it.
 */
function matchForm(
  host: string,
  name: string,
  m: Output<typeof brandMonitoring>['match'],
  csrf: string,
) {
  const option = (value: string, label: string) =>
    html`<option value="${value}"${m.strict === value ? ' selected' : ''}>${label}</option>`;
  return html`<details${m.strict !== 'auto' || m.exactCase || m.require.length || m.exclude.length ? ' open' : ''}><summary>How “${name}” is recognised</summary>
<form method="post" action="/app/brands/match">${csrfField(csrf)}<input type="hidden" name="brand" value="${host}">
<label for="strict-${host}">Proper-noun context <span class="muted small">(for names that are also common words: not at a sentence's start, not inside a longer name)</span></label>
<select id="strict-${host}" name="strict">${option('auto', 'Automatic: when the name is an everyday word')}${option('on', 'Always')}${option('off', 'Never')}</select>
<p><label><input type="checkbox" name="exact_case"${m.exactCase ? ' checked' : ''}> Only as spelled: “${name}”</label></p>
<label for="require-${host}">Required words <span class="muted small">(the article must name one; comma-separated)</span></label>
<input id="require-${host}" name="require" type="text" value="${m.require.join(', ')}" placeholder="Jack Dorsey, Cash App">
<label for="exclude-${host}">Not the brand <span class="muted small">(phrases holding the name; comma-separated)</span></label>
<input id="exclude-${host}" name="exclude" type="text" value="${m.exclude.join(', ')}" placeholder="Times Square, Orange County">
<p><button type="submit" class="secondary">Save recognition</button></p></form></details>`;
}

/** Brands: the list, adding one, and for each own brand its feeds and aliases. */
export function mountBrandPages(fastify: FastifyInstance, app: AppContext) {
  const routes = portalRoutes(fastify, app, 'brands');

  async function brandsPage(
    v: View,
    extra: {
      done?: string;
      error?: string;
      found?: { brand: string; feeds: Output<typeof discoverFeedsInApp>['feeds'] };
    },
  ) {
    const admin = hasRole(actorOf(v.session), 'admin');
    const owner = hasRole(actorOf(v.session), 'owner');
    const { brands } = await run(app, v, listBrands, {});
    const monitoring = new Map<string, Output<typeof brandMonitoring>>();
    for (const b of brands) {
      monitoring.set(b.brand, await run(app, v, brandMonitoring, { brand: b.brand }));
    }
    return appPage(
      v,
      'Brands',
      html`<h1>Brands</h1>${
        extra.done === 'welcome'
          ? html`<p class="notice" role="status">Welcome to Stories. Add the brand you want to monitor to begin.</p>`
          : notice(extra.done)
      }${problem(extra.error)}
${brands.length === 0 ? html`<p class="card muted">No brands yet.</p>` : ''}
<div class="grid">${brands.map((b) => {
        const m = monitoring.get(b.brand)!;
        const own = m.relation === 'own';
        return html`<section class="card" aria-labelledby="brand-${b.brand}">
<h2 id="brand-${b.brand}">${b.name} <span class="muted small">${b.brand}</span></h2>
<p>${b.verified ? html`<span class="badge sev-low">verified</span>` : html`<span class="badge">not verified</span>`} ${b.delegated ? html`<span class="badge">client brand (delegated)</span>` : ''}</p>
${
  own && admin && !b.verified
    ? html`<form method="post" action="/app/brands/verify" class="row">${csrfField(v.csrf)}<input type="hidden" name="brand" value="${b.brand}">
<div><label for="verify-${b.brand}">Verify with an address on ${b.brand}</label><input id="verify-${b.brand}" name="email" type="email" required placeholder="press@${b.brand}"></div>
<button type="submit" class="secondary">Send the link</button></form>
<p class="small"><a href="/app/brands/verify?brand=${b.brand}">Or verify with a DNS record</a></p>`
    : ''
}
<p class="small"><strong>Also known as:</strong> ${m.aliases.length ? m.aliases.join(', ') : html`<span class="muted">no aliases</span>`}</p>
${
  own && admin
    ? html`<form method="post" action="/app/brands/aliases">${csrfField(v.csrf)}<input type="hidden" name="brand" value="${b.brand}">
<label for="aliases-${b.brand}">Aliases <span class="muted small">(comma-separated)</span></label>
<input id="aliases-${b.brand}" name="aliases" type="text" value="${m.aliases.join(', ')}">
<p><button type="submit" class="secondary">Save aliases</button></p></form>
${matchForm(b.brand, b.name, m.match, v.csrf)}`
    : ''
}
${
  own
    ? html`<h3>Coverage found for it</h3>${
        m.connectors.length
          ? html`<ul>${m.connectors.map(
              (
                c,
              ) => html`<li>${c.name} <span class="badge">${c.enabled ? 'on' : 'off'}</span><br><span class="muted small">${
                c.enabled
                  ? html`${c.last_status ?? 'not searched yet'}${c.last_polled_at ? html` · last ${when(c.last_polled_at)}` : ''}${c.next_poll_at ? html` · next ${when(c.next_poll_at)}` : ''} · ${c.items_found} found${c.last_error ? html` · ${c.last_error}` : ''}`
                  : 'switched off'
              }${c.targets ? html`<br><span class="small">${c.targets.set.length ? html`Reads: ${c.targets.set.join(', ')}` : html`Idle: no ${c.targets.what} named yet`}</span>` : ''}</span>
${admin && c.targets ? html`<form method="post" action="/app/brands/connector-targets">${csrfField(v.csrf)}<input type="hidden" name="brand" value="${b.brand}"><input type="hidden" name="connector" value="${c.connector}"><label for="targets-${b.brand}-${c.connector}" class="small">${c.name}: ${c.targets.what}s <span class="muted">(comma-separated, like ${c.targets.example})</span></label><input id="targets-${b.brand}-${c.connector}" name="targets" type="text" value="${c.targets.set.join(', ')}"><button type="submit" class="secondary">Save</button></form>` : ''}
${admin ? html`<form class="inline" method="post" action="/app/brands/connectors">${csrfField(v.csrf)}<input type="hidden" name="brand" value="${b.brand}"><input type="hidden" name="connector" value="${c.connector}"><input type="hidden" name="enabled" value="${c.enabled ? 'off' : 'on'}"><button type="submit" class="secondary" aria-label="Switch ${c.name} ${c.enabled ? 'off' : 'on'}">Switch ${c.enabled ? 'off' : 'on'}</button></form>` : ''}</li>`,
            )}</ul>`
          : html`<p class="muted small">No connectors on this service.</p>`
      }
<h3>Monitored feeds</h3>${
        m.sources.length
          ? html`<ul>${m.sources.map(
              (
                s,
              ) => html`<li><span class="small">${s.url}</span><br><span class="muted small">${s.last_status ?? 'not polled yet'}${s.last_error ? html` · ${s.last_error}` : ''}</span>
${admin ? html`<form class="inline" method="post" action="/app/brands/sources/remove">${csrfField(v.csrf)}<input type="hidden" name="brand" value="${b.brand}"><input type="hidden" name="id" value="${s.id}"><button type="submit" class="secondary" aria-label="Remove ${s.url}">Remove</button></form>` : ''}</li>`,
            )}</ul>`
          : html`<p class="muted small">No feeds yet.</p>`
      }
${
  admin
    ? html`<form method="post" action="/app/brands/sources">${csrfField(v.csrf)}<input type="hidden" name="brand" value="${b.brand}">
<label for="feed-${b.brand}">Add an RSS or Atom feed</label><input id="feed-${b.brand}" name="url" type="url" required placeholder="https://news.example.org/feed.xml">
<p><button type="submit" class="secondary">Add feed</button></p></form>
<form method="post" action="/app/brands/discover">${csrfField(v.csrf)}<input type="hidden" name="brand" value="${b.brand}">
<label for="site-${b.brand}">Find the feeds of a site <span class="muted small">(the brand's newsroom, a trade title)</span></label><input id="site-${b.brand}" name="url" type="text" required value="${b.brand}">
<p><button type="submit" class="secondary">Find feeds</button></p></form>
${
  extra.found?.brand === b.brand
    ? extra.found.feeds.length
      ? html`<ul>${extra.found.feeds.map(
          (f) => html`<li>${f.title} <span class="muted small">${f.url} · ${f.items} items</span>
<form class="inline" method="post" action="/app/brands/sources">${csrfField(v.csrf)}<input type="hidden" name="brand" value="${b.brand}"><input type="hidden" name="url" value="${f.url}"><button type="submit" class="secondary" aria-label="Add ${f.url}">Add</button></form></li>`,
        )}</ul>`
      : html`<p class="muted small" role="status">No feed found on that site.</p>`
    : ''
}`
    : ''
}`
    : html`<p class="muted small">Its client monitors it; you act on its stories under the delegation.</p>`
}${
  own && owner
    ? html`<form method="post" action="/app/brands/delete">${csrfField(v.csrf)}<input type="hidden" name="brand" value="${b.brand}"><button type="submit" class="danger">Delete ${b.brand}…</button></form>`
    : ''
}</section>`;
      })}</div>
${
  admin
    ? html`<h2>Add a brand</h2><form method="post" action="/app/brands" class="card row">${csrfField(v.csrf)}
<div><label for="brand-host">Host</label><input id="brand-host" name="host" type="text" required placeholder="acme.com"></div>
<div><label for="brand-name">Name</label><input id="brand-name" name="name" type="text" placeholder="Acme"></div>
<button type="submit">Add brand</button></form>
<p class="small muted">Another team already monitors your brand without having verified it? <a href="/app/brands/verify">Claim it</a> by proving the domain is yours.</p>`
    : ''
}`,
    );
  }

  routes.get('/app/brands', async (req, _reply, v) => brandsPage(v, { done: req.query.done }));

  /** A refused or failed action: the page again, saying why, with its status. */
  const failed = async (e: unknown, reply: FastifyReply, v: View) => {
    const { status, text, headers } = pageError(e, reply.log);
    return reply
      .code(status)
      .headers(headers)
      .send(await brandsPage(v, { error: text }));
  };
  const act = (path: string, op: Operation, fields: string[], done: string) =>
    routes.post(path, async (req, reply: FastifyReply, v) => {
      try {
        await run(app, v, op, Object.fromEntries(fields.map((f) => [f, formField(req, f)])));
        return reply.redirect(`/app/brands?done=${done}`, 303);
      } catch (e) {
        return failed(e, reply, v);
      }
    });
  act('/app/brands', addBrandInApp, ['host', 'name'], 'brand');
  act('/app/brands/sources', addSourceInApp, ['brand', 'url'], 'source');
  act('/app/brands/sources/remove', removeSourceInApp, ['brand', 'id'], 'source-removed');
  act('/app/brands/connectors', setConnectorInApp, ['brand', 'connector', 'enabled'], 'connector');
  act(
    '/app/brands/connector-targets',
    setConnectorTargetsInApp,
    ['brand', 'connector', 'targets'],
    'connector-targets',
  );
  routes.post('/app/brands/discover', async (req, reply: FastifyReply, v) => {
    try {
      const brand = formField(req, 'brand');
      const { feeds } = await run(app, v, discoverFeedsInApp, {
        brand,
        url: formField(req, 'url'),
      });
      return reply.send(await brandsPage(v, { found: { brand, feeds } }));
    } catch (e) {
      return failed(e, reply, v);
    }
  });
  act('/app/brands/aliases', setAliasesInApp, ['brand', 'aliases'], 'aliases');
  act(
    '/app/brands/match',
    setMatchPolicyInApp,
    ['brand', 'strict', 'exact_case', 'require', 'exclude'],
    'match',
  );
  act('/app/brands/verify', verifyBrandByEmail, ['brand', 'email'], 'verify-sent');

  /**
   * Verifying or claiming a host by proof of control: a DNS TXT record, checked on
   * request, or a link sent to a mailbox at the domain.
   */
  async function verifyPage(v: View, host: string, error?: string) {
    if (!host) {
      return appPage(
        v,
        'Claim a brand',
        html`<h1>Claim a brand</h1>${problem(error)}<p>Prove that a domain is yours and its brand is monitored by your team, verified, even when another team added it first without verifying it.</p>
<form method="get" action="/app/brands/verify" class="card row"><div><label for="claim-host">Host</label><input id="claim-host" name="brand" type="text" required placeholder="acme.com"></div><button type="submit">Continue</button></form>`,
      );
    }
    const c = await run(app, v, brandChallenge, { brand: host });
    // The same words whoever holds the host: who does is not told before the proof.
    const what = c.own
      ? html`<p>${host} is one of your brands${c.verified ? ', verified already' : ''}.</p>`
      : html`<p>Proving that ${host} is yours makes it your team's brand, verified. If another team added it without verifying it, the proof takes it from them: their stories of it are removed and they are told. A brand another team has verified is not taken.</p>`;
    return appPage(
      v,
      `Verify ${host}`,
      html`<h1>Verify ${host}</h1>${problem(error)}${what}
<section class="card" aria-labelledby="by-dns"><h2 id="by-dns">With a DNS record</h2>
<p>Publish this TXT record in the DNS of ${host}, then check it here.</p>
<dl><dt>Name</dt><dd><code>${c.name}</code></dd><dt>Type</dt><dd><code>TXT</code></dd><dt>Value</dt><dd><code>${c.value}</code></dd></dl>
<form method="post" action="/app/brands/verify/dns">${csrfField(v.csrf)}<input type="hidden" name="brand" value="${host}"><button type="submit">Check the record</button></form></section>
<section class="card" aria-labelledby="by-email"><h2 id="by-email">With an email address at the domain</h2>
${c.own ? '' : html`<p class="small muted">To take ${host} from another team, the link must go to one of ${c.admin_mailboxes}.</p>`}
<form method="post" action="/app/brands/verify" class="row">${csrfField(v.csrf)}<input type="hidden" name="brand" value="${host}">
<div><label for="verify-email">Address on ${host}</label><input id="verify-email" name="email" type="email" required placeholder="press@${host}"></div>
<button type="submit" class="secondary">Send the link</button></form></section>`,
    );
  }
  routes.get('/app/brands/verify', async (req, reply, v) => {
    // A repeated parameter arrives as an array: not a host.
    const asked = req.query.brand as unknown;
    const host = typeof asked === 'string' ? asked.trim().toLowerCase() : '';
    try {
      return await verifyPage(v, host);
    } catch (e) {
      const { status, text, headers } = pageError(e, reply.log);
      return reply
        .code(status)
        .headers(headers)
        .send(await verifyPage(v, '', text));
    }
  });
  routes.post('/app/brands/verify/dns', async (req, reply, v) => {
    const host = formField(req, 'brand');
    try {
      const done = await run(app, v, verifyBrandByDns, { brand: host });
      return reply.redirect(`/app/brands?done=${done.claimed ? 'claimed' : 'verified'}`, 303);
    } catch (e) {
      const { status, text, headers } = pageError(e, reply.log);
      return reply
        .code(status)
        .headers(headers)
        .send(await verifyPage(v, host, text).catch(() => verifyPage(v, '', text)));
    }
  });
  routes.post('/app/brands/delete', async (req, reply, v) => {
    const host = formField(req, 'brand');
    const asked = confirmationPage(req, v, deleteBrandInApp, ['brand'], {
      title: `Delete ${host}?`,
      consequence: html`${host} stops being monitored and everything made for it is deleted for good: its stories with their advisories, plans, Brand Notes and shares (their pages answer “not found”), and its feeds. Partners acting on it lose it at once. The billing ledger and the activity keep what happened. This cannot be undone; adding ${host} again starts from nothing.`,
      confirm: `Delete ${host} and its stories`,
      back: '/app/brands',
    });
    if (asked) return asked;
    try {
      await run(app, v, deleteBrandInApp, { brand: host });
      return reply.redirect('/app/brands?done=brand-deleted', 303);
    } catch (e) {
      const { status, text } = pageError(e, reply.log);
      return reply.code(status).send(await brandsPage(v, { error: text }));
    }
  });

  // The link in the email: whoever holds the brand's mailbox verifies it, signed in or
  // not. Opening it only asks (mail scanners open links too); the button verifies.
  type TokenReq = FastifyRequest<{ Params: { token: string } }>;
  const expired = page(
    'Link expired',
    html`<h1>This link is no longer valid</h1><p>Ask for a new one from the Brands page.</p>`,
  );
  fastify.get('/verify-brand/:token', async (req: TokenReq, reply) => {
    const asked = await readBrandVerification(app, req.params.token);
    if (!asked) return reply.code(400).send(expired);
    const { host, team } = asked;
    return page(
      `Verify ${host}`,
      html`<h1>Is ${host} yours?</h1><p>The team “${team}” on Stories asked to speak for ${host}: verified, it can publish official Brand Notes. Confirm only if they may.</p>
${asked.takesFromAnother ? html`<p>Another team monitors ${host} without having verified it: confirming takes ${host} from them, and their stories of it are removed.</p>` : ''}
<form method="post" action="/verify-brand/${req.params.token}">${csrfField(await csrfToken(app, req, reply))}<button type="submit">Verify ${host} for “${team}”</button></form>`,
    );
  });
  fastify.post('/verify-brand/:token', async (req: TokenReq, reply) => {
    if (!(await csrfValid(app, req, formField(req, '_csrf')))) {
      return reply.code(403).send(forgedPage());
    }
    let host: string | null;
    try {
      host = await confirmBrandVerification(app, req.params.token);
    } catch (e) {
      const { status, text } = pageError(e, reply.log);
      return reply.code(status).send(page('Not verified', html`<h1>${text}</h1>`));
    }
    if (!host) return reply.code(400).send(expired);
    return page(
      'Brand verified',
      html`<h1>${host} is verified</h1><p>Its team can now publish Brand Notes. <a href="/app/brands">Go to the brands</a></p>`,
    );
  });
}
