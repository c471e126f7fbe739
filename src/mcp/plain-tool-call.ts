import type { IncomingHttpHeaders } from 'node:http';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  isJsonContentType,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import type { AppContext } from '../context.js';
import type { Actor } from '../policy.js';
import type { serverInfo, toolsFor } from './mcp-server.js';
import { callTool, type ToolEntry } from './tool-call.js';

/**
 * The hot path of /mcp: a `tools/call` in the plain shape the SDK's clients send on
 * either protocol era, answered with the very bytes the SDK would write for it, without
 * the SDK's per-request machinery (a Fetch-API request and response, a server and a
 * transport made and closed, zod over the whole message), which cost three times the
 * tool's own work (docs/benchmarks.md). It recognises only a request whose answer is
 * certain to be the tool's result: anything else (another method, a field or header the
 * SDK would check, refuse or act on, an unknown tool, a protocol version it would not
 * take) is left to the SDK, which stays the judge of the protocol.
 * test/integration/mcp-plain-call.test.ts sends every request both ways and compares
 * the answers byte for byte.
 */
export interface PlainToolCall {
  id: string | number;
  tool: ToolEntry;
  args: Record<string, unknown> | undefined;
  modern: boolean;
}

/** The modern era's one revision, as its requests name it (in a header and in `_meta`). */
const MODERN = '2026-07-28';
const LEGACY_VERSIONS = new Set(SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v < MODERN));

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const onlyKeys = (o: Record<string, unknown>, allowed: readonly string[]) =>
  Object.keys(o).every((k) => allowed.includes(k));

export function plainToolCall(
  headers: IncomingHttpHeaders,
  body: unknown,
  tools: ReturnType<typeof toolsFor>,
): PlainToolCall | undefined {
  if (!isJsonContentType(headers['content-type'] ?? null)) return undefined;
  // The SDK answers JSON to a client that takes JSON (mcp-route.ts tells it that one
  // accepting JSON or anything also takes event streams); the rest is its to decide.
  const accept = headers.accept;
  if (accept !== undefined && accept !== '*/*' && !accept.includes('application/json')) {
    return undefined;
  }
  if (!isPlainObject(body) || !onlyKeys(body, ['jsonrpc', 'id', 'method', 'params'])) {
    return undefined;
  }
  const { jsonrpc, id, method, params } = body;
  if (jsonrpc !== '2.0' || method !== 'tools/call') return undefined;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return undefined;
  if (!isPlainObject(params) || !onlyKeys(params, ['name', 'arguments', '_meta'])) {
    return undefined;
  }
  const { name, arguments: args, _meta: meta } = params;
  const tool = typeof name === 'string' ? tools.byName.get(name) : undefined;
  // An answer the SDK would wrap: under an output schema that is not an object's (none
  // is, tested). A tool without one (a person's twin of their own tool) answers objects
  // too, which the SDK passes on as they are.
  if (!tool || (tool.outputSchema !== undefined && tool.outputSchema.type !== 'object')) {
    return undefined;
  }
  if (args !== undefined && !isPlainObject(args)) return undefined;
  const era = eraOf(headers, meta, name as string);
  if (era === undefined) return undefined;
  return { id: id as string | number, tool, args, modern: era === 'modern' };
}

/**
 * Which era's plain call this is: 2025-era (no envelope, a version header the SDK takes
 * or none, no 2026 headers), or 2026-07-28 with its three headers matching the body and
 * the envelope of protocol version, client name and version, and no capabilities.
 */
function eraOf(headers: IncomingHttpHeaders, meta: unknown, name: string) {
  const version = headers['mcp-protocol-version'];
  const method = headers['mcp-method'];
  const named = headers['mcp-name'];
  if (meta === undefined) {
    const known = version === undefined || LEGACY_VERSIONS.has(version as string);
    return known && method === undefined && named === undefined ? 'legacy' : undefined;
  }
  if (version !== MODERN || method !== 'tools/call' || named !== name) return undefined;
  if (!isPlainObject(meta)) return undefined;
  const keys = [PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY];
  if (Object.keys(meta).length !== keys.length || !onlyKeys(meta, keys)) return undefined;
  const client = meta[CLIENT_INFO_META_KEY];
  const capabilities = meta[CLIENT_CAPABILITIES_META_KEY];
  const clientNamed =
    isPlainObject(client) &&
    onlyKeys(client, ['name', 'version']) &&
    typeof client.name === 'string' &&
    typeof client.version === 'string';
  const noCapabilities = isPlainObject(capabilities) && Object.keys(capabilities).length === 0;
  return meta[PROTOCOL_VERSION_META_KEY] === MODERN && clientNamed && noCapabilities
    ? 'modern'
    : undefined;
}

/**
 * Answers plain calls as the SDK writes them: the result, plus on 2026-07-28 its envelope
 * (the server's identity, serialised once here rather than on every call). A result's
 * structured content is the answer its text holds, serialised alike, so the text is
 * spliced in for it rather than serialising the answer a third time (the answer's
 * serialisations were the largest part of the call's own cost).
 */
export function plainCallAnswers(app: AppContext, info: ReturnType<typeof serverInfo>) {
  const modern = { resultType: 'complete', _meta: { [SERVER_INFO_META_KEY]: info } };
  const modernMembers = `,${JSON.stringify(modern).slice(1, -1)}`;
  return async (actor: Actor, call: PlainToolCall): Promise<string> => {
    const result = await callTool(app, actor, call.tool, call.args);
    if (result.isError) {
      const answer = call.modern ? { ...result, ...modern } : result;
      return JSON.stringify({ result: answer, jsonrpc: '2.0', id: call.id });
    }
    if (!isPlainObject(result.structuredContent)) {
      throw new Error(`mcp: ${call.tool.name} answered something other than an object`);
    }
    const text = result.content[0]!.text;
    const envelope = call.modern ? modernMembers : '';
    return `{"result":{"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}${envelope}},"jsonrpc":"2.0","id":${JSON.stringify(call.id)}}`;
  };
}
