import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { CONNECTOR_IDS, CONNECTOR_KEYS, type ConnectorId } from './connectors/connector.js';
import type { Plan } from './db/schema.js';

/** Every setting the service reads, validated once at start so a typo fails loudly, not later. */
/** `ip`, `ip:port` or `[ipv6]:port`, as node:dns's setServers takes them. */
function isDnsServer(entry: string): boolean {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(entry);
  const [ip, port] = bracketed
    ? [bracketed[1]!, bracketed[2]]
    : isIP(entry)
      ? [entry, undefined]
      : (entry.split(':') as [string, string | undefined]);
  return isIP(ip) !== 0 && (port === undefined || (Number(port) >= 1 && Number(port) <= 65535));
}

const Env = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  BASE_URL: z
    .url({
      protocol: /^https?$/,
      error: 'must be an http(s) URL such as https://stories.example.com',
    })
    .optional(),
  DATABASE_URL: z.string().min(1).default('sqlite:./data/stories.db'),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must start with redis:// or rediss://')
    .optional(),
  /** Server processes sharing the port; `auto` is one per CPU. */
  WORKERS: z
    .string()
    .regex(/^(auto|[1-9]\d{0,2})$/, 'must be auto or a number of processes from 1 to 999')
    .default('1'),
  FETCH_ALLOW_HOSTS: z.string().default(''),
  /**
   * DNS servers (`ip` or `ip:port`, comma-separated) asked for a brand claim's TXT record;
   * empty: the system's resolvers.
   */
  DNS_SERVERS: z
    .string()
    .refine(
      (v) => v === '' || v.split(',').every(isDnsServer),
      'must be comma-separated IP addresses, each with an optional :port ([v6]:port)',
    )
    .default(''),
  /**
   * Browser origins (besides the service's own) allowed to call /mcp and the OAuth
   * endpoints: web-based MCP clients. Comma-separated `scheme://host[:port]`.
   */
  CORS_ORIGINS: z
    .string()
    .default('')
    .refine(
      (v) =>
        v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
          .every((o) => URL.canParse(o) && new URL(o).origin === o),
      'each entry must be an origin, scheme://host[:port] without a path',
    ),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(120),
  /** Failed authentications allowed per client address per minute before it gets 429. */
  AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().min(1).default(60),
  /** false, a hop count, or the load balancers' addresses/CIDRs; never trust every hop blindly. */
  TRUST_PROXY: z
    .string()
    .regex(
      /^(false|\d+|[0-9a-fA-F.:/]+(,[0-9a-fA-F.:/]+)*)$/,
      'must be false, a hop count, or addresses/CIDRs separated by commas',
    )
    .default('false'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  INCLUDED_UNITS_STARTER: z.coerce.number().int().min(0).default(1),
  INCLUDED_UNITS_PRO: z.coerce.number().int().min(0).default(1),
  INCLUDED_UNITS_PARTNER: z.coerce.number().int().min(0).default(1),
  INCLUDED_UNITS_AGENCY: z.coerce.number().int().min(0).default(1),
  /** Signs action links; without it the service uses a secret generated in its database. */
  SECRET_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  /** smtp(s)://user:pass@host:port; without it, emails stay in the outbox (`brs outbox`). */
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must start with smtp:// or smtps://')
    .optional(),
  MAIL_FROM: z.string().min(3).default('Stories <no-reply@stories.localhost>'),
  BILLING: z.enum(['ledger', 'stripe'], 'must be ledger or stripe').default('ledger'),
  STRIPE_SECRET_KEY: z.string().min(1).optional(),
  STRIPE_WEBHOOK_SECRET: z.string().min(1).optional(),
  /** Where the Stripe API is; only changed for a proxy or a test double. */
  STRIPE_API_URL: z.url({ protocol: /^https?$/ }).optional(),
  STRIPE_METER_EVENT: z.string().min(1).default('advisory_unlock'),
  STRIPE_CLIENT_BRANDS_METER_EVENT: z.string().min(1).default('client_brands'),
  LLM_BASE_URL: z.url().optional(),
  LLM_API_KEY: z.string().optional(),
  LLM_MODEL: z.string().min(1).optional(),
  LLM_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  LLM_RETRIES: z.coerce.number().int().min(0).max(5).default(2),
  LLM_BUDGET_MS: z.coerce.number().int().min(1_000).default(80_000),
  LLM_STREAM: z.enum(['true', 'false']).default('false'),
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(1).default(30_000),
  INVITE_TTL_DAYS: z.coerce.number().int().min(1).max(90).default(14),
  /** Finished jobs (done, failed) are kept this long, then pruned (their results too). */
  RETENTION_JOBS_DAYS: z.coerce.number().int().min(1).default(7),
  /** Finished webhook deliveries and their attempts are kept this long, then pruned. */
  RETENTION_WEBHOOKS_DAYS: z.coerce.number().int().min(1).default(30),
  JOB_POLL_MS: z.coerce.number().int().min(10).default(500),
  /** How often an open Mentions page asks for what was found since (docs/sources.md). */
  MENTION_STREAM_MS: z.coerce.number().int().min(50).default(5000),
  /** How often each monitored feed is read. */
  FEED_POLL_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(15 * 60_000),
  /**
   * The connectors every brand gets, on by default (docs/sources.md): a comma-separated
   * list of google-news, bing-news, gdelt, hacker-news, reddit, mastodon, bluesky,
   * youtube, app-store, and the keyed x, youtube-search, trustpilot; empty for none.
   */
  CONNECTORS: z
    .string()
    .default('google-news,bing-news,gdelt,hacker-news,reddit,mastodon,bluesky,youtube,app-store'),
  /** How often each brand's connectors ask for new coverage. */
  CONNECTOR_POLL_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(15 * 60_000),
  /** Requests each connector makes a minute across all brands: the services' own limits. */
  CONNECTOR_REQUESTS_PER_MINUTE: z.coerce.number().int().min(1).default(30),
  /**
   * Requests a minute for named connectors, in place of their services' published limits
   * (a paid tier's, a proxy's, a local server's): "x:20,reddit:60".
   */
  CONNECTOR_RATES: z.string().default(''),
  /** Where each connector asks (tests point them at a local server). */
  GOOGLE_NEWS_URL: z.url({ protocol: /^https?$/ }).default('https://news.google.com'),
  BING_NEWS_URL: z.url({ protocol: /^https?$/ }).default('https://www.bing.com'),
  GDELT_URL: z.url({ protocol: /^https?$/ }).default('https://api.gdeltproject.org'),
  HN_SEARCH_URL: z.url({ protocol: /^https?$/ }).default('https://hn.algolia.com'),
  REDDIT_URL: z.url({ protocol: /^https?$/ }).default('https://www.reddit.com'),
  /** The Mastodon instances whose public hashtag timelines are read, comma-separated. */
  MASTODON_URL: z
    .string()
    .default('https://mastodon.social')
    .refine(
      (v) => v.split(',').every((u) => /^https?:\/\/[^\s/]+/i.test(u.trim())),
      'must be one or more http(s) URLs, comma-separated',
    ),
  YOUTUBE_URL: z.url({ protocol: /^https?$/ }).default('https://www.youtube.com'),
  APP_STORE_URL: z.url({ protocol: /^https?$/ }).default('https://itunes.apple.com'),
  X_API_URL: z.url({ protocol: /^https?$/ }).default('https://api.x.com'),
  YOUTUBE_API_URL: z.url({ protocol: /^https?$/ }).default('https://www.googleapis.com'),
  TRUSTPILOT_API_URL: z.url({ protocol: /^https?$/ }).default('https://api.trustpilot.com'),
  /**
   * Bluesky's Jetstream (the network's posts as JSON over a WebSocket) that the bluesky
   * connector reads; one of Bluesky's public instances by default.
   */
  BLUESKY_JETSTREAM_URL: z
    .url({ protocol: /^wss?$/ })
    .default('wss://jetstream2.us-east.bsky.network/subscribe'),
  /** Keys of the keyed connectors (docs/sources.md): each needed only when it is in CONNECTORS. */
  X_BEARER_TOKEN: z.string().optional(),
  YOUTUBE_API_KEY: z.string().optional(),
  TRUSTPILOT_API_KEY: z.string().optional(),
  /** First retry delay of a failed job; doubles with each attempt. */
  JOB_RETRY_BASE_MS: z.coerce.number().int().min(1).default(5000),
  METER_LEASE_MS: z.coerce.number().int().min(1).default(30_000),
  /** Dynamic OAuth client registrations one client address may make an hour. */
  OAUTH_REGISTRATIONS_PER_HOUR: z.coerce.number().int().min(1).default(20),
  /** A claimed job's lease; renewed while it runs, so it lapses only when its worker dies. */
  JOB_LEASE_MS: z.coerce.number().int().min(100).default(300_000),
  SEAT_CAP_STARTER: z.coerce.number().int().min(1).default(3),
  SEAT_CAP_PRO: z.coerce.number().int().min(1).default(10),
  SEAT_CAP_PARTNER: z.coerce.number().int().min(1).default(25),
  SEAT_CAP_AGENCY: z.coerce.number().int().min(1).default(50),
  // Bounds on every wait for a dependency, so a database or Redis that stops answering
  // costs a request a 503 within seconds instead of a hang.
  /** PostgreSQL: opening a connection, or waiting for a free one of the pool. */
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).default(3000),
  /** PostgreSQL's statement_timeout; the client gives up 1 s later if no answer comes at all. */
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).default(5000),
  /** SQLite: how long a write waits for another process's write transaction. */
  DATABASE_BUSY_TIMEOUT_MS: z.coerce.number().int().min(0).default(5000),
  /** Redis: how long a rate-limit command waits for its answer. */
  REDIS_TIMEOUT_MS: z.coerce.number().int().min(100).default(2000),
  // HTTP time limits: a client that sends slowly, or stops, holds a socket only this long.
  /** The request line and headers must arrive within this (slowloris). */
  HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).default(20_000),
  /** The whole request, body included, must arrive within this; then 408. */
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  /** A socket silent both ways this long is closed (0: never; a keep-alive one sooner). */
  CONNECTION_TIMEOUT_MS: z.coerce.number().int().min(0).default(120_000),
  // Graceful shutdown (SIGTERM, SIGINT): docs/deployment.md, "Stopping an instance".
  /**
   * After the signal, /readyz answers 503 for this long while requests are still served,
   * so a load balancer takes the instance out of rotation before it stops listening.
   */
  SHUTDOWN_DELAY_MS: z.coerce.number().int().min(0).default(0),
  /** Then requests and the job in hand get this long to finish before the process exits. */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).default(25_000),
});

/** Bounds on waits for the database (DATABASE_*_TIMEOUT_MS). */
export interface DatabaseTimeouts {
  connectMs: number;
  statementMs: number;
  busyMs: number;
}

export type Database = { dialect: 'sqlite'; file: string } | { dialect: 'postgres'; url: string };

export interface Config {
  port: number;
  host: string;
  baseUrl: string;
  database: Database;
  databaseTimeouts: DatabaseTimeouts;
  redisUrl: string | undefined;
  redisTimeoutMs: number;
  workers: number;
  fetchAllowHosts: string[];
  /** DNS servers for brand claims' TXT records; empty: the system's. */
  dnsServers: string[];
  corsOrigins: string[];
  rateLimitPerMinute: number;
  authFailuresPerMinute: number;
  /** Fastify's trustProxy: false, a hop count, or a list of trusted proxy addresses. */
  trustProxy: false | number | string[];
  logLevel: z.infer<typeof Env>['LOG_LEVEL'];
  includedUnits: Record<Plan, number>;
  secretKey: string | undefined;
  smtpUrl: string | undefined;
  mailFrom: string;
  billing:
    | { provider: 'ledger' }
    | {
        provider: 'stripe';
        secretKey: string;
        webhookSecret: string;
        apiUrl: string | undefined;
        meterEvent: string;
        clientBrandsMeterEvent: string;
      };
  /** How long a delegation invite stays valid. */
  inviteTtlDays: number;
  /** An OpenAI-compatible chat-completions endpoint for advisories, or undefined (built-in). */
  llm:
    | {
        baseUrl: string;
        apiKey: string | undefined;
        model: string;
        timeoutMs: number;
        retries: number;
        /** All attempts of one advisory end within it (spec: 40 to 90 s), then built-in. */
        budgetMs: number;
        /** Ask for a streamed answer (server-sent events). */
        stream: boolean;
      }
    | undefined;
  /** First delay before a failed webhook delivery is tried again (then doubled, with jitter). */
  webhookRetryBaseMs: number;

  jobPollMs: number;
  jobRetryBaseMs: number;
  /**
   * How long an unlock may spend metering at the provider before another process may
   * settle its reservation (longer than the provider client's timeout and retry).
   */
  meterLeaseMs: number;
  oauthRegistrationsPerHour: number;
  jobLeaseMs: number;
  retentionDays: { jobs: number; webhooks: number };
  feedPollMs: number;
  /** The connectors every brand gets (docs/sources.md), and how they poll. */
  connectors: ConnectorId[];
  connectorPollMs: number;
  mentionStreamMs: number;
  connectorRequestsPerMinute: number;
  /** CONNECTOR_RATES read: a connector's requests a minute, where named. */
  connectorRates: Partial<Record<ConnectorId, number>>;
  connectorUrls: Record<ConnectorId, string>;
  /** The keyed connectors' keys (CONNECTOR_KEYS), by connector. */
  connectorKeys: Partial<Record<ConnectorId, string>>;
  seatCaps: Record<Plan, number>;
  http: {
    headersTimeoutMs: number;
    requestTimeoutMs: number;
    connectionTimeoutMs: number;
    shutdownDelayMs: number;
    shutdownTimeoutMs: number;
  };
}

export class ConfigError extends Error {}

/** CONNECTORS read: known ids only, each once. */
function connectorList(raw: string): ConnectorId[] {
  const ids = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = ids.filter((id) => !(CONNECTOR_IDS as readonly string[]).includes(id));
  if (unknown.length > 0) {
    throw new ConfigError(
      `invalid configuration:\n  CONNECTORS: unknown connector ${unknown.join(', ')} (known: ${CONNECTOR_IDS.join(', ')})`,
    );
  }
  return [...new Set(ids)] as ConnectorId[];
}

/** CONNECTOR_RATES read: "id:n" pairs, known ids, n a positive number. */
function connectorRates(raw: string): Partial<Record<ConnectorId, number>> {
  const rates: Partial<Record<ConnectorId, number>> = {};
  for (const pair of raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [id, n] = pair.split(':').map((s) => s.trim());
    const rate = Number(n);
    if (!(CONNECTOR_IDS as readonly string[]).includes(id ?? '') || !(rate > 0)) {
      throw new ConfigError(
        `invalid configuration:\n  CONNECTOR_RATES: "${pair}" must be a connector and its requests a minute, like x:20`,
      );
    }
    rates[id as ConnectorId] = rate;
  }
  return rates;
}

/** The keys of the keyed connectors CONNECTORS names: each must be set. */
function connectorKeys(e: Record<string, unknown>): Partial<Record<ConnectorId, string>> {
  const keys: Partial<Record<ConnectorId, string>> = {};
  const missing: string[] = [];
  for (const id of connectorList(String(e.CONNECTORS))) {
    const variable = CONNECTOR_KEYS[id];
    if (!variable) continue;
    const key = typeof e[variable] === 'string' ? (e[variable] as string).trim() : '';
    if (key) keys[id] = key;
    else missing.push(`  ${variable}: needed by the ${id} connector named in CONNECTORS`);
  }
  if (missing.length > 0) throw new ConfigError(`invalid configuration:\n${missing.join('\n')}`);
  return keys;
}

export function parseDatabaseUrl(url: string): Database {
  if (/^postgres(ql)?:\/\//.test(url)) return { dialect: 'postgres', url };
  const file = url.startsWith('sqlite:') ? url.slice('sqlite:'.length) : url;
  if (file.length === 0) throw new ConfigError('DATABASE_URL: sqlite: needs a file path');
  return { dialect: 'sqlite', file };
}

function billingConfig(e: z.infer<typeof Env>): Config['billing'] {
  if (e.BILLING === 'ledger') return { provider: 'ledger' };
  const missing = (['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET'] as const).filter((k) => !e[k]);
  if (missing.length > 0) {
    throw new ConfigError(
      `invalid configuration:\n${missing.map((k) => `  ${k}: required when BILLING=stripe`).join('\n')}`,
    );
  }
  return {
    provider: 'stripe',
    secretKey: e.STRIPE_SECRET_KEY!,
    webhookSecret: e.STRIPE_WEBHOOK_SECRET!,
    apiUrl: e.STRIPE_API_URL,
    meterEvent: e.STRIPE_METER_EVENT,
    clientBrandsMeterEvent: e.STRIPE_CLIENT_BRANDS_METER_EVENT,
  };
}

function llmConfig(e: z.infer<typeof Env>): Config['llm'] {
  if (!e.LLM_BASE_URL && !e.LLM_MODEL) return undefined;
  if (!e.LLM_BASE_URL || !e.LLM_MODEL) {
    throw new ConfigError(
      'invalid configuration:\n  LLM_BASE_URL and LLM_MODEL: set both, or neither',
    );
  }
  return {
    baseUrl: e.LLM_BASE_URL.replace(/\/+$/, ''),
    apiKey: e.LLM_API_KEY,
    model: e.LLM_MODEL,
    timeoutMs: e.LLM_TIMEOUT_MS,
    retries: e.LLM_RETRIES,
    budgetMs: e.LLM_BUDGET_MS,
    stream: e.LLM_STREAM === 'true',
  };
}

function httpConfig(e: z.infer<typeof Env>): Config['http'] {
  // Node refuses a headers timeout longer than the whole request's.
  if (e.HEADERS_TIMEOUT_MS > e.REQUEST_TIMEOUT_MS) {
    throw new ConfigError(
      'invalid configuration:\n  HEADERS_TIMEOUT_MS: must not exceed REQUEST_TIMEOUT_MS',
    );
  }
  return {
    headersTimeoutMs: e.HEADERS_TIMEOUT_MS,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    connectionTimeoutMs: e.CONNECTION_TIMEOUT_MS,
    shutdownDelayMs: e.SHUTDOWN_DELAY_MS,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    baseUrl: (e.BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    database: parseDatabaseUrl(e.DATABASE_URL),
    databaseTimeouts: {
      connectMs: e.DATABASE_CONNECT_TIMEOUT_MS,
      statementMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
      busyMs: e.DATABASE_BUSY_TIMEOUT_MS,
    },
    redisUrl: e.REDIS_URL,
    redisTimeoutMs: e.REDIS_TIMEOUT_MS,
    workers: e.WORKERS === 'auto' ? availableParallelism() : Number(e.WORKERS),
    fetchAllowHosts: e.FETCH_ALLOW_HOSTS.split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    dnsServers: e.DNS_SERVERS.split(',').filter(Boolean),
    corsOrigins: e.CORS_ORIGINS.split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    authFailuresPerMinute: e.AUTH_FAILURES_PER_MINUTE,
    trustProxy:
      e.TRUST_PROXY === 'false'
        ? false
        : /^\d+$/.test(e.TRUST_PROXY)
          ? Number(e.TRUST_PROXY)
          : e.TRUST_PROXY.split(','),
    logLevel: e.LOG_LEVEL,
    includedUnits: {
      starter: e.INCLUDED_UNITS_STARTER,
      pro: e.INCLUDED_UNITS_PRO,
      partner: e.INCLUDED_UNITS_PARTNER,
      agency: e.INCLUDED_UNITS_AGENCY,
    },
    secretKey: e.SECRET_KEY,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    billing: billingConfig(e),
    jobPollMs: e.JOB_POLL_MS,
    jobRetryBaseMs: e.JOB_RETRY_BASE_MS,
    meterLeaseMs: e.METER_LEASE_MS,
    oauthRegistrationsPerHour: e.OAUTH_REGISTRATIONS_PER_HOUR,
    jobLeaseMs: e.JOB_LEASE_MS,
    feedPollMs: e.FEED_POLL_MS,
    connectors: connectorList(e.CONNECTORS),
    connectorPollMs: e.CONNECTOR_POLL_MS,
    mentionStreamMs: e.MENTION_STREAM_MS,
    connectorRequestsPerMinute: e.CONNECTOR_REQUESTS_PER_MINUTE,
    connectorRates: connectorRates(e.CONNECTOR_RATES),
    connectorUrls: {
      'google-news': e.GOOGLE_NEWS_URL.replace(/\/+$/, ''),
      'bing-news': e.BING_NEWS_URL.replace(/\/+$/, ''),
      gdelt: e.GDELT_URL.replace(/\/+$/, ''),
      'hacker-news': e.HN_SEARCH_URL.replace(/\/+$/, ''),
      reddit: e.REDDIT_URL.replace(/\/+$/, ''),
      mastodon: e.MASTODON_URL,
      youtube: e.YOUTUBE_URL.replace(/\/+$/, ''),
      'app-store': e.APP_STORE_URL.replace(/\/+$/, ''),
      x: e.X_API_URL.replace(/\/+$/, ''),
      'youtube-search': e.YOUTUBE_API_URL.replace(/\/+$/, ''),
      trustpilot: e.TRUSTPILOT_API_URL.replace(/\/+$/, ''),
      bluesky: e.BLUESKY_JETSTREAM_URL,
    },
    connectorKeys: connectorKeys(e),
    inviteTtlDays: e.INVITE_TTL_DAYS,
    retentionDays: { jobs: e.RETENTION_JOBS_DAYS, webhooks: e.RETENTION_WEBHOOKS_DAYS },
    webhookRetryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
    llm: llmConfig(e),
    seatCaps: {
      starter: e.SEAT_CAP_STARTER,
      pro: e.SEAT_CAP_PRO,
      partner: e.SEAT_CAP_PARTNER,
      agency: e.SEAT_CAP_AGENCY,
    },
    http: httpConfig(e),
  };
}
