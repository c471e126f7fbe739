import { describe, expect, it } from 'vitest';
import { jetstreamUrl, readJetstreamEvent } from '../../src/connectors/bluesky.js';

/**
 * Issue 43: Bluesky's Jetstream events read, in the shape Jetstream documents (samples
 * written here: no one's posts).
 */
const did = 'did:plc:abcdefghijklmnopqrstuvwx';
const post = (record: Record<string, unknown>, over: Record<string, unknown> = {}) =>
  JSON.stringify({
    did,
    time_us: 1795860000000001,
    kind: 'commit',
    commit: {
      rev: '3lbx2abcdef2a',
      operation: 'create',
      collection: 'app.bsky.feed.post',
      rkey: '3lbx2abcdef2b',
      record: {
        $type: 'app.bsky.feed.post',
        createdAt: '2026-11-28T10:00:00.000Z',
        langs: ['en'],
        ...record,
      },
      cid: 'bafyreiabc',
    },
    ...over,
  });

describe('Jetstream', () => {
  it('is asked for posts, likes and reposts, from the cursor', () => {
    const url = new URL(
      jetstreamUrl('wss://jetstream2.us-east.bsky.network/subscribe', '1795860000000001'),
    );
    expect(url.searchParams.getAll('wantedCollections')).toEqual([
      'app.bsky.feed.post',
      'app.bsky.feed.like',
      'app.bsky.feed.repost',
    ]);
    expect(url.searchParams.get('cursor')).toBe('1795860000000001');
    expect(
      new URL(jetstreamUrl('ws://127.0.0.1:1/subscribe', null)).searchParams.has('cursor'),
    ).toBe(false);
  });

  it('reads a post with its link card and links, a reply, a like; and leaves the rest', () => {
    const e = readJetstreamEvent(
      post({
        text: 'Check your battery tonight',
        facets: [
          {
            index: { byteStart: 0, byteEnd: 5 },
            features: [
              { $type: 'app.bsky.richtext.facet#link', uri: 'https://planet.example/recall' },
            ],
          },
          {
            index: { byteStart: 6, byteEnd: 9 },
            features: [{ $type: 'app.bsky.richtext.facet#mention', did }],
          },
        ],
        embed: {
          $type: 'app.bsky.embed.external',
          external: {
            uri: 'https://planet.example/recall',
            title: 'Zentrix recalls 40,000 battery packs',
            description: 'Owners should stop charging them.',
          },
        },
        reply: {
          root: { uri: `at://${did}/app.bsky.feed.post/3lbx0`, cid: 'c0' },
          parent: { uri: `at://${did}/app.bsky.feed.post/3lbx1`, cid: 'c1' },
        },
      }),
    );
    expect(e).toEqual({
      kind: 'post',
      time_us: 1795860000000001,
      uri: `at://${did}/app.bsky.feed.post/3lbx2abcdef2b`,
      url: `https://bsky.app/profile/${did}/post/3lbx2abcdef2b`,
      author: did,
      text: 'Check your battery tonight\n\nZentrix recalls 40,000 battery packs\nOwners should stop charging them.',
      links: ['https://planet.example/recall'],
      published_at: '2026-11-28T10:00:00.000Z',
      reply_to: `at://${did}/app.bsky.feed.post/3lbx1`,
    });
    const like = JSON.stringify({
      did,
      time_us: 1795860000000002,
      kind: 'commit',
      commit: {
        operation: 'create',
        collection: 'app.bsky.feed.like',
        rkey: '3lbx3',
        record: {
          $type: 'app.bsky.feed.like',
          createdAt: '2026-11-28T10:01:00Z',
          subject: { uri: 'at://x/app.bsky.feed.post/1', cid: 'c' },
        },
      },
    });
    expect(readJetstreamEvent(like)).toEqual({
      kind: 'reaction',
      time_us: 1795860000000002,
      subject: 'at://x/app.bsky.feed.post/1',
      by: did,
    });
    // A deletion, an identity event, a profile: read past, their time kept as the cursor.
    expect(
      readJetstreamEvent(
        post(
          { text: 'x' },
          { commit: { operation: 'delete', collection: 'app.bsky.feed.post', rkey: 'r' } },
        ),
      ),
    ).toEqual({
      kind: 'other',
      time_us: 1795860000000001,
    });
    expect(
      readJetstreamEvent(
        JSON.stringify({
          did,
          time_us: 5,
          kind: 'identity',
          identity: { did, handle: 'a.example' },
        }),
      ),
    ).toEqual({
      kind: 'other',
      time_us: 5,
    });
    // Not an event at all.
    expect(readJetstreamEvent('not json')).toBeNull();
    expect(readJetstreamEvent('{"kind":"commit"}')).toBeNull();
    // A post with no date of its own is dated by the event.
    const undated = readJetstreamEvent(post({ text: 'Zentrix', createdAt: undefined }));
    expect(undated && undated.kind === 'post' && undated.published_at).toBe(
      new Date(1795860000000).toISOString(),
    );
  });
});
