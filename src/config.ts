import { availableParallelism } from 'node:os';
import { z } from 'zod';

/** Every setting the service reads, validated once at start so a typo fails loudly, not later. */
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
  INCLUDED_UNITS_PER_MONTH: z.coerce.number().int().min(0).default(1),
  SEAT_CAP_STARTER: z.coerce.number().int().min(1).default(3),
  SEAT_CAP_PRO: z.coerce.number().int().min(1).default(10),
  SEAT_CAP_PARTNER: z.coerce.number().int().min(1).default(25),
  SEAT_CAP_AGENCY: z.coerce.number().int().min(1).default(50),
});

export type Database = { dialect: 'sqlite'; file: string } | { dialect: 'postgres'; url: string };

export interface Config {
  port: number;
  host: string;
  baseUrl: string;
  database: Database;
  redisUrl: string | undefined;
  workers: number;
  fetchAllowHosts: string[];
  rateLimitPerMinute: number;
  authFailuresPerMinute: number;
  /** Fastify's trustProxy: false, a hop count, or a list of trusted proxy addresses. */
  trustProxy: false | number | string[];
  logLevel: z.infer<typeof Env>['LOG_LEVEL'];
  includedUnitsPerMonth: number;
  seatCaps: Record<'starter' | 'pro' | 'partner' | 'agency', number>;
}

export class ConfigError extends Error {}

export function parseDatabaseUrl(url: string): Database {
  if (/^postgres(ql)?:\/\//.test(url)) return { dialect: 'postgres', url };
  const file = url.startsWith('sqlite:') ? url.slice('sqlite:'.length) : url;
  if (file.length === 0) throw new ConfigError('DATABASE_URL: sqlite: needs a file path');
  return { dialect: 'sqlite', file };
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
    redisUrl: e.REDIS_URL,
    workers: e.WORKERS === 'auto' ? availableParallelism() : Number(e.WORKERS),
    fetchAllowHosts: e.FETCH_ALLOW_HOSTS.split(',')
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
    includedUnitsPerMonth: e.INCLUDED_UNITS_PER_MONTH,
    seatCaps: {
      starter: e.SEAT_CAP_STARTER,
      pro: e.SEAT_CAP_PRO,
      partner: e.SEAT_CAP_PARTNER,
      agency: e.SEAT_CAP_AGENCY,
    },
  };
}
