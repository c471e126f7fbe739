/**
 * The requests the benchmarks send (bench/run.js, bench/tail.js): generators that each
 * answer the next request's key and path (and, for MCP, method, headers and body), and the
 * autocannon request that sends whatever its generator answers.
 */

/**
 * Round-robin over a key pool, shared by all connections, so every key carries the same
 * share of the load and none reaches its rate limit in the run's window (checked after).
 */
export function listRequests(pool) {
  let i = 0;
  return () => {
    const { key, host } = pool[i++ % pool.length];
    return { key, path: `/v1/stories?brand=${host}&limit=20` };
  };
}

/** Each brand walks its own stories in order: odd ones unlocked, so half get the full plan. */
export function getRequests(pool, stories) {
  let i = 0;
  const next = {};
  return () => {
    const { key, host } = pool[i++ % pool.length];
    const n = next[host] ?? 0;
    next[host] = (n + 1) % stories[host].length;
    return { key, path: `/v1/story?brand=${host}&event_uri=${stories[host][n]}` };
  };
}

/** autocannon's request for a generator: a GET unless it says otherwise, with its key. */
export function keyedRequest(nextRequest) {
  return {
    method: 'GET',
    setupRequest(req) {
      const { key, path, method, headers, body } = nextRequest();
      req.path = path;
      if (method) req.method = method;
      if (body) req.body = body;
      Object.assign(req.headers, headers, { 'x-api-key': key });
      return req;
    },
  };
}
