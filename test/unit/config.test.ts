import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('configuration', () => {
  it('has working defaults: SQLite under ./data, port 8080', () => {
    const c = loadConfig({});
    expect(c.port).toBe(8080);
    expect(c.baseUrl).toBe('http://localhost:8080');
    expect(c.database).toEqual({ dialect: 'sqlite', file: './data/stories.db' });
    expect(c.redisUrl).toBeUndefined();
    expect(c.rateLimitPerMinute).toBe(120);
  });

  it('gives every brand the keyless connectors; a keyed one needs its key; Mastodon takes several instances', () => {
    expect(loadConfig({}).connectors).toEqual([
      'google-news',
      'bing-news',
      'gdelt',
      'hacker-news',
      'reddit',
      'mastodon',
      'bluesky',
      'youtube',
      'app-store',
    ]);
    expect(() => loadConfig({ CONNECTORS: 'gdelt,x,trustpilot', TRUSTPILOT_API_KEY: 'k' })).toThrow(
      /X_BEARER_TOKEN: needed by the x connector/,
    );
    const keyed = loadConfig({
      CONNECTORS: 'x,youtube-search',
      X_BEARER_TOKEN: ' t ',
      YOUTUBE_API_KEY: 'y',
    });
    expect(keyed.connectorKeys).toEqual({ x: 't', 'youtube-search': 'y' });
    // A key set for a connector not named is not kept.
    expect(loadConfig({ X_BEARER_TOKEN: 't' }).connectorKeys).toEqual({});
    expect(
      loadConfig({ MASTODON_URL: 'https://a.example,https://b.example' }).connectorUrls.mastodon,
    ).toBe('https://a.example,https://b.example');
    expect(() => loadConfig({ MASTODON_URL: 'https://a.example, mastodon.social' })).toThrow(
      ConfigError,
    );
    // A paid tier's rate, or a local server's, in place of the service's published one.
    expect(loadConfig({ CONNECTOR_RATES: 'x:20, reddit:0.5' }).connectorRates).toEqual({
      x: 20,
      reddit: 0.5,
    });
    expect(() => loadConfig({ CONNECTOR_RATES: 'twitter:20' })).toThrow(/CONNECTOR_RATES/);
    expect(() => loadConfig({ CONNECTOR_RATES: 'x:none' })).toThrow(/CONNECTOR_RATES/);
  });

  it('reads PostgreSQL, SQLite paths, Redis and allow-listed hosts', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u@h/db' }).database).toEqual({
      dialect: 'postgres',
      url: 'postgres://u@h/db',
    });
    expect(loadConfig({ DATABASE_URL: '/var/lib/brs.db' }).database).toEqual({
      dialect: 'sqlite',
      file: '/var/lib/brs.db',
    });
    expect(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }).redisUrl).toBe(
      'redis://127.0.0.1:6379',
    );
    expect(
      loadConfig({ FETCH_ALLOW_HOSTS: ' 127.0.0.1:9000 , intranet:80,' }).fetchAllowHosts,
    ).toEqual(['127.0.0.1:9000', 'intranet:80']);
    expect(loadConfig({ BASE_URL: 'https://stories.example.com/' }).baseUrl).toBe(
      'https://stories.example.com',
    );
  });

  it('bounds every wait for the database and Redis, each configurable', () => {
    const d = loadConfig({});
    expect(d.databaseTimeouts).toEqual({ connectMs: 3000, statementMs: 5000, busyMs: 5000 });
    expect(d.redisTimeoutMs).toBe(2000);
    const c = loadConfig({
      DATABASE_CONNECT_TIMEOUT_MS: '1000',
      DATABASE_STATEMENT_TIMEOUT_MS: '2500',
      DATABASE_BUSY_TIMEOUT_MS: '0',
      REDIS_TIMEOUT_MS: '750',
    });
    expect(c.databaseTimeouts).toEqual({ connectMs: 1000, statementMs: 2500, busyMs: 0 });
    expect(c.redisTimeoutMs).toBe(750);
    expect(() => loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: '0' })).toThrow(
      /DATABASE_STATEMENT_TIMEOUT_MS/,
    );
  });

  it('reads DNS_SERVERS as IP addresses with optional ports, refusing anything else', () => {
    expect(loadConfig({}).dnsServers).toEqual([]);
    expect(loadConfig({ DNS_SERVERS: '127.0.0.1:5353,::1,[2001:db8::1]:53' }).dnsServers).toEqual([
      '127.0.0.1:5353',
      '::1',
      '[2001:db8::1]:53',
    ]);
    for (const bad of ['999.1.1.1', 'dns.example', '1.2.3.4:0', '1.2.3.4:99999', '1.2.3.4,']) {
      expect(() => loadConfig({ DNS_SERVERS: bad }), bad).toThrow(/DNS_SERVERS/);
    }
  });

  it('reads TRUST_PROXY as false, a hop count, or trusted addresses', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8,192.168.1.4' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '192.168.1.4',
    ]);
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY/);
  });

  it('reads CORS_ORIGINS as origins, refusing anything with a path or no scheme', () => {
    expect(loadConfig({}).corsOrigins).toEqual([]);
    expect(
      loadConfig({ CORS_ORIGINS: 'http://localhost:6274, https://app.example' }).corsOrigins,
    ).toEqual(['http://localhost:6274', 'https://app.example']);
    for (const bad of ['https://app.example/mcp', 'app.example', 'https://app.example/']) {
      expect(() => loadConfig({ CORS_ORIGINS: bad }), bad).toThrow(/CORS_ORIGINS/);
    }
  });

  it('reads the HTTP time limits, with defaults; headers cannot outlast the request', () => {
    expect(loadConfig({}).http).toEqual({
      headersTimeoutMs: 20_000,
      requestTimeoutMs: 30_000,
      connectionTimeoutMs: 120_000,
      shutdownDelayMs: 0,
      shutdownTimeoutMs: 25_000,
    });
    expect(
      loadConfig({
        REQUEST_TIMEOUT_MS: '5000',
        HEADERS_TIMEOUT_MS: '2000',
        CONNECTION_TIMEOUT_MS: '0',
        SHUTDOWN_DELAY_MS: '3000',
        SHUTDOWN_TIMEOUT_MS: '10000',
      }).http,
    ).toEqual({
      headersTimeoutMs: 2000,
      requestTimeoutMs: 5000,
      connectionTimeoutMs: 0,
      shutdownDelayMs: 3000,
      shutdownTimeoutMs: 10_000,
    });
    expect(() => loadConfig({ REQUEST_TIMEOUT_MS: '1000' })).toThrow(
      /HEADERS_TIMEOUT_MS: must not exceed REQUEST_TIMEOUT_MS/,
    );
    expect(() => loadConfig({ REQUEST_TIMEOUT_MS: '0' })).toThrow(/REQUEST_TIMEOUT_MS/);
  });

  it('reads WORKERS as a process count or auto (one per CPU)', () => {
    expect(loadConfig({}).workers).toBe(1);
    expect(loadConfig({ WORKERS: '4' }).workers).toBe(4);
    expect(loadConfig({ WORKERS: 'auto' }).workers).toBe(availableParallelism());
    for (const bad of ['0', '-1', 'two', '1.5'])
      expect(() => loadConfig({ WORKERS: bad })).toThrow(/WORKERS: must be auto or a number/);
  });

  it('fails at start with a message naming every bad setting', () => {
    try {
      loadConfig({ PORT: 'eighty', REDIS_URL: 'localhost:6379', BASE_URL: 'ftp://x' });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      const text = (e as Error).message;
      expect(text).toContain('PORT');
      expect(text).toContain('REDIS_URL: must start with redis:// or rediss://');
      expect(text).toContain('BASE_URL');
    }
  });
});
