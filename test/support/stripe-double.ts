import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';

/**
 * A local HTTP server that speaks the part of Stripe's API the adapter uses, driven by
 * the official `stripe` client: form-encoded POSTs to /v1/billing/meter_events and
 * /v1/checkout/sessions, answered with Stripe-shaped JSON objects and errors.
 */
export interface StripeDouble {
  url: string;
  meterEvents: Record<string, string>[];
  sessions: Record<string, string>[];
  /** While set, meter events answer this HTTP status with a Stripe error body. */
  failMeterWith: number | null;
  /**
   * Every meter event request received, replays included. As at Stripe, a request with an
   * Idempotency-Key seen before is answered as the first was and counts nothing more.
   */
  meterRequests: Record<string, string>[];
  /** While set, a meter event is recorded (counted) but not answered: a slow Stripe. */
  holdMeter: boolean;
  /** Answers the meter events held so far (to callers still waiting). */
  releaseHeld(): void;
  close(): Promise<void>;
}

async function form(req: IncomingMessage): Promise<Record<string, string>> {
  let body = '';
  for await (const chunk of req) body += chunk;
  return Object.fromEntries(new URLSearchParams(body));
}

export async function startStripeDouble(): Promise<StripeDouble> {
  const double: StripeDouble = {
    url: '',
    meterEvents: [],
    sessions: [],
    failMeterWith: null,
    meterRequests: [],
    holdMeter: false,
    releaseHeld: () => {
      for (const answer of held.splice(0)) answer();
    },
    close: async () => {},
  };
  const held: (() => void)[] = [];
  const replies = new Map<string, [number, unknown]>();
  /** The parameters each idempotency key was first sent with. */
  const sentWith = new Map<string, string>();
  const server: Server = createServer(async (req, res) => {
    const key = req.headers['idempotency-key'];
    const send = (status: number, body: unknown) => {
      if (typeof key === 'string') replies.set(key, [status, body]);
      if (res.destroyed) return;
      res.writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_test' });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== 'Bearer sk_test_double') {
      return send(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key' } });
    }
    const params = await form(req);
    if (req.method === 'POST' && req.url === '/v1/billing/meter_events') {
      double.meterRequests.push({ ...params, idempotency_key: String(key) });
      const replay = typeof key === 'string' ? replies.get(key) : undefined;
      // As Stripe does: a key is for one request; other parameters under it are refused.
      if (replay && sentWith.get(String(key)) !== JSON.stringify(params)) {
        res.writeHead(400, { 'content-type': 'application/json' });
        return res.end(
          JSON.stringify({
            error: {
              type: 'idempotency_error',
              message:
                'Keys for idempotent requests can only be used with the same parameters they were first used with.',
            },
          }),
        );
      }
      if (typeof key === 'string' && !sentWith.has(key)) sentWith.set(key, JSON.stringify(params));
      if (replay) {
        res.writeHead(replay[0], {
          'content-type': 'application/json',
          'idempotent-replayed': 'true',
        });
        return res.end(JSON.stringify(replay[1]));
      }
      if (double.failMeterWith !== null) {
        return send(double.failMeterWith, {
          error: { type: 'invalid_request_error', message: 'No active meter found' },
        });
      }
      double.meterEvents.push(params);
      const answer = {
        object: 'billing.meter_event',
        created: Math.floor(Date.now() / 1000),
        event_name: params.event_name,
        identifier: params.identifier,
        livemode: false,
        payload: {
          stripe_customer_id: params['payload[stripe_customer_id]'],
          value: params['payload[value]'],
        },
        timestamp: Number(params.timestamp),
      };
      if (double.holdMeter) {
        // Counted, not answered yet: the caller's socket may die waiting.
        replies.set(String(key), [200, answer]);
        held.push(() => send(200, answer));
        return;
      }
      return send(200, answer);
    }
    if (req.method === 'POST' && req.url === '/v1/checkout/sessions') {
      const id = `cs_test_${double.sessions.length + 1}`;
      double.sessions.push({
        ...params,
        id,
        idempotency_key: String(req.headers['idempotency-key']),
      });
      return send(200, {
        id,
        object: 'checkout.session',
        mode: params.mode,
        client_reference_id: params.client_reference_id,
        metadata: { checkout_id: params['metadata[checkout_id]'] },
        payment_status: 'unpaid',
        status: 'open',
        url: `https://checkout.stripe.test/c/pay/${id}`,
      });
    }
    send(404, {
      error: {
        type: 'invalid_request_error',
        message: `Unrecognized request URL (${req.method}: ${req.url})`,
      },
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  double.url = `http://127.0.0.1:${port}`;
  double.close = () => new Promise((r) => server.close(() => r()));
  return double;
}
