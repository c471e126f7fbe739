import type { Severity } from '../../db/schema.js';
import type { DayVolume } from '../../domain/overview.js';
import { SEVERITIES } from '../../pipeline/taxonomy.js';
import { type Html, html } from '../html.js';

/**
 * The overview's charts, drawn here as SVG in the page: no script, no library to load,
 * printable. None leans on colour alone: each severity also has its own fill pattern and
 * a label in the legend, every bar and point says its numbers on hover and to screen
 * readers (<title>), and the numbers are one click away as a table.
 */

const W = 720;
const H = 180;
const PAD = { left: 36, right: 8, top: 8, bottom: 22 };

/** Fills by severity: colour plus a pattern, so they tell apart in grey or to the colour-blind. */
const PATTERNS = html`<defs>
<pattern id="p-low" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#9ad4ad"/></pattern>
<pattern id="p-medium" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#f4c95d"/><circle cx="3" cy="3" r="1.2" fill="#6b4b00"/></pattern>
<pattern id="p-high" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#f29a5e"/><rect width="2" height="6" fill="#7a2e00"/></pattern>
<pattern id="p-critical" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#a4161a"/><path d="M0 3h6M3 0v6" stroke="#fff" stroke-width="1"/></pattern>
</defs>`;

/** The patterns every chart of the page refers to: once a page, before its charts. */
export const chartDefs = html`<svg width="0" height="0" class="defs" aria-hidden="true" focusable="false">${PATTERNS}</svg>`;

const swatch = (s: Severity) =>
  html`<svg width="14" height="14" aria-hidden="true" focusable="false"><rect width="14" height="14" fill="url(#p-${s})" stroke="#555" stroke-width=".5"/></svg>`;

const short = (day: string) => day.slice(5).replace('-', '/');

/** Mentions per day, stacked by severity. */
export function volumeChart(volume: DayVolume[]): Html {
  const totals = volume.map((d) => SEVERITIES.reduce((n, s) => n + d.bySeverity[s], 0));
  const all = totals.reduce((a, b) => a + b, 0);
  const max = Math.max(1, ...totals);
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const step = plotW / Math.max(1, volume.length);
  const barW = Math.max(1, step * 0.8);
  const y = (n: number) => PAD.top + plotH - (n / max) * plotH;
  const bars = volume.map((d, i) => {
    let base = 0;
    const x = PAD.left + i * step + (step - barW) / 2;
    const label = `${d.day}: ${totals[i]} mention${totals[i] === 1 ? '' : 's'}${SEVERITIES.filter(
      (s) => d.bySeverity[s],
    )
      .map((s) => `, ${d.bySeverity[s]} ${s}`)
      .join('')}`;
    return html`<g><title>${label}</title>${SEVERITIES.map((s) => {
      const n = d.bySeverity[s];
      if (!n) return '';
      const top = y(base + n);
      const h = y(base) - top;
      base += n;
      return html`<rect x="${x.toFixed(1)}" y="${top.toFixed(1)}" width="${barW.toFixed(1)}" height="${h.toFixed(1)}" fill="url(#p-${s})"/>`;
    })}<rect x="${(PAD.left + i * step).toFixed(1)}" y="${PAD.top}" width="${step.toFixed(1)}" height="${plotH}" fill="transparent"/></g>`;
  });
  const first = volume[0]?.day ?? '';
  const last = volume.at(-1)?.day ?? '';
  const summary = `Mentions per day from ${first} to ${last}: ${all} in all, at most ${max === 1 && all === 0 ? 0 : max} on one day.`;
  return html`<figure class="chart"><figcaption>Mentions per day, by severity</figcaption>
<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${summary}" class="chart-svg">
<line x1="${PAD.left}" y1="${PAD.top + plotH}" x2="${W - PAD.right}" y2="${PAD.top + plotH}" stroke="#98a2b3"/>
<text x="${PAD.left - 4}" y="${PAD.top + 8}" text-anchor="end" class="tick">${all ? max : 0}</text>
<text x="${PAD.left - 4}" y="${PAD.top + plotH}" text-anchor="end" class="tick">0</text>
<text x="${PAD.left}" y="${H - 6}" class="tick">${short(first)}</text>
<text x="${W - PAD.right}" y="${H - 6}" text-anchor="end" class="tick">${short(last)}</text>
${bars}</svg>
<ul class="legend">${SEVERITIES.map((s) => html`<li>${swatch(s)} ${s}</li>`)}</ul>
${numbers(
  ['Day', 'Low', 'Medium', 'High', 'Critical', 'All'],
  volume.map((d, i) => [
    d.day,
    ...SEVERITIES.map((s) => String(d.bySeverity[s])),
    String(totals[i]),
  ]),
)}</figure>`;
}

/** The mean sentiment of each day's scored mentions, from −1 (hostile) to +1 (glowing). */
export function sentimentChart(volume: DayVolume[]): Html {
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const step = plotW / Math.max(1, volume.length);
  const x = (i: number) => PAD.left + i * step + step / 2;
  const y = (v: number) => PAD.top + ((1 - v) / 2) * plotH;
  const scored = volume.map((d, i) => ({ ...d, i })).filter((d) => d.sentiment !== null);
  const path = scored
    .map((d, k) => `${k === 0 ? 'M' : 'L'}${x(d.i).toFixed(1)} ${y(d.sentiment!).toFixed(1)}`)
    .join(' ');
  const mean = scored.length
    ? Math.round((scored.reduce((a, d) => a + d.sentiment!, 0) / scored.length) * 100) / 100
    : null;
  const summary =
    mean === null
      ? 'No mention of the period has a sentiment score (only English coverage is scored).'
      : `Sentiment by day, from -1 (hostile) to +1 (glowing): ${scored.length} day${scored.length === 1 ? '' : 's'} scored, averaging ${mean}.`;
  return html`<figure class="chart"><figcaption>Sentiment of the coverage</figcaption>
<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${summary}" class="chart-svg">
<line x1="${PAD.left}" y1="${y(0)}" x2="${W - PAD.right}" y2="${y(0)}" stroke="#98a2b3" stroke-dasharray="4 3"/>
<text x="${PAD.left - 4}" y="${y(1) + 8}" text-anchor="end" class="tick">+1</text>
<text x="${PAD.left - 4}" y="${y(0) + 4}" text-anchor="end" class="tick">0</text>
<text x="${PAD.left - 4}" y="${y(-1)}" text-anchor="end" class="tick">−1</text>
${path ? html`<path d="${path}" fill="none" stroke="#1f4fd1" stroke-width="2"/>` : ''}
${scored.map(
  (d) =>
    html`<circle cx="${x(d.i).toFixed(1)}" cy="${y(d.sentiment!).toFixed(1)}" r="3.5" fill="#1f4fd1"><title>${d.day}: ${d.sentiment}</title></circle>`,
)}</svg>
<p class="small muted">${summary}</p>
${numbers(
  ['Day', 'Sentiment'],
  scored.map((d) => [d.day, String(d.sentiment)]),
)}</figure>`;
}

/** A ranked list whose bars repeat the numbers written beside them. */
export function rankList(
  rows: { value: string; mentions: number }[],
  label: (v: string) => string,
) {
  const max = Math.max(1, ...rows.map((r) => r.mentions));
  return html`<ol class="ranks">${rows.map(
    (r) =>
      html`<li><span class="rank-label">${label(r.value)}</span> <span class="rank-n">${r.mentions}</span><span class="meter" aria-hidden="true"><span style="width:${Math.round((r.mentions / max) * 100)}%"></span></span></li>`,
  )}</ol>`;
}

/** A chart's numbers as a table, folded under the chart. */
function numbers(head: string[], rows: string[][]) {
  if (rows.length === 0) return '';
  return html`<details class="numbers"><summary>The numbers</summary><table><thead><tr>${head.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead><tbody>${rows.map(
    (r) =>
      html`<tr>${r.map((c, i) => (i === 0 ? html`<th scope="row">${c}</th>` : html`<td>${c}</td>`))}</tr>`,
  )}</tbody></table></details>`;
}
