import { z } from 'zod';
import { describedFor } from '../operations/access-text.js';
import { successStatus } from '../operations/execute.js';
import { type RestOperation, ruleFor } from '../operations/operation.js';

type Json = Record<string, unknown>;

const ERROR_STATUSES: Record<string, string> = {
  '400': 'Invalid input; the text names the field',
  '401': 'unknown or revoked API key',
  '402': 'payment failed; nothing was unlocked',
  '403': "outside this key's brand scope (or another refusal of an authenticated key)",
  '404': 'not found (an unknown brand and a foreign brand answer alike)',
  '409': 'state conflict, or the same Idempotency-Key still in progress',
  '422': 'Idempotency-Key was used with a different request',
  '429': 'rate limit exceeded; honour Retry-After',
  '503': 'service unavailable: a dependency (database, Redis, payment provider) is down',
};

const schemaOf = (s: z.ZodType, io: 'input' | 'output') => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(s, { io, unrepresentable: 'any' }) as Json;
  return rest;
};

/** The OpenAPI 3.1 document, generated from the same schemas the operations validate with. */
export function buildOpenApi(ops: readonly RestOperation[], baseUrl: string): Json {
  const paths: Record<string, Json> = {};
  for (const op of ops) {
    const input = schemaOf(op.input, 'input') as { properties?: Json; required?: string[] };
    const operation: Json = {
      operationId: op.id,
      summary: op.summary,
      description: describedFor(op.description ?? op.summary, op.access, 'key'),
      responses: {
        ...('never' in ruleFor(op.access, 'key')
          ? {}
          : Object.fromEntries(
              successStatuses(op).map((status) => [
                String(status),
                {
                  description:
                    status === 202 ? 'Accepted: the work finishes in the background' : 'Success',
                  content: { 'application/json': { schema: schemaOf(op.output, 'output') } },
                },
              ]),
            )),
        ...Object.fromEntries(
          Object.entries(ERROR_STATUSES).map(([status, description]) => [
            status,
            {
              description,
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
            },
          ]),
        ),
      },
    };
    if (op.rest.method === 'POST') {
      operation.parameters = [
        {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description: 'Retries with the same key replay the first answer; kept 24 hours',
          schema: { type: 'string', maxLength: 255 },
        },
      ];
      operation.requestBody = {
        required: true,
        content: { 'application/json': { schema: input } },
      };
    } else {
      const required = new Set(input.required ?? []);
      operation.parameters = Object.entries(input.properties ?? {}).map(([name, schema]) => ({
        name,
        in: 'query',
        required: required.has(name),
        description: (schema as Json).description,
        schema,
      }));
    }
    const { path, method } = op.rest;
    paths[path] = { ...paths[path], [method.toLowerCase()]: operation };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Stories partner API',
      version: '1.0.0',
      description:
        'Brand-reputation stories, advisories and response plans. Authenticate with an API key in x-api-key or Authorization: Bearer.',
    },
    servers: [{ url: baseUrl }],
    security: [{ apiKey: [] }, { bearer: [] }],
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        bearer: { type: 'http', scheme: 'bearer' },
      },
      schemas: {
        Error: {
          type: 'object',
          properties: { error: { type: 'string' } },
          required: ['error'],
          additionalProperties: false,
        },
      },
    },
    paths,
  };
}

/** A status decided by the answer (queued or already there) documents both. */
const successStatuses = (op: RestOperation) =>
  op.rest.statusOf ? [202, 200] : [successStatus(op, undefined)];
