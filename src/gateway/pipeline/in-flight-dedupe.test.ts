import { describe, expect, it } from 'vitest'
import { parseChatRequest } from '../../shared/api/chat-request'
import { GatewayError } from '../errors'
import { InFlightDedupe, parseDedupeRequest, requestFingerprint } from './in-flight-dedupe'
import type { JsonReply } from './respond-json'

function request(stream: boolean) {
  const parsed = parseChatRequest({ messages: [{ role: 'user', content: 'Hi' }], stream })
  if (!parsed.ok) throw new Error(parsed.issue.message)
  return parsed.request
}

function caught(run: () => unknown): GatewayError {
  try {
    run()
  } catch (error) {
    if (error instanceof GatewayError) return error
    throw error
  }
  throw new Error('expected a GatewayError')
}

describe('parseDedupeRequest', () => {
  it('is undefined when the request does not ask for deduplication', () => {
    expect(parseDedupeRequest(undefined, 'key-1', request(false))).toBeUndefined()
  })

  it('takes `in-flight` in any case, with spaces around it', () => {
    expect(parseDedupeRequest(' In-Flight ', 'a.B_c-1:2', request(false))).toEqual({ key: 'a.B_c-1:2' })
  })

  it('refuses another value, a streaming request, and a missing or malformed key with a 400 naming the field', () => {
    expect(caught(() => parseDedupeRequest('always', 'k', request(false)))).toMatchObject({ status: 400, param: 'X-Mortar-Dedupe' })
    expect(caught(() => parseDedupeRequest('in-flight', 'k', request(true)))).toMatchObject({ status: 400, param: 'stream' })
    for (const key of [undefined, '', 'has space', 'x'.repeat(129), 'ünï']) {
      expect(caught(() => parseDedupeRequest('in-flight', key, request(false)))).toMatchObject({ status: 400, param: 'Idempotency-Key' })
    }
    expect(parseDedupeRequest('in-flight', 'x'.repeat(128), request(false))).toEqual({ key: 'x'.repeat(128) })
  })
})

describe('requestFingerprint', () => {
  const body = Buffer.from('{"messages":[]}')

  it('is the same for the same bytes and headers', () => {
    expect(requestFingerprint(body, ['a', undefined])).toBe(requestFingerprint(Buffer.from('{"messages":[]}'), ['a', undefined]))
  })

  it('changes with the body, with a header, and with where a header value sits', () => {
    const base = requestFingerprint(body, ['a', undefined])
    expect(requestFingerprint(Buffer.from('{"messages": []}'), ['a', undefined])).not.toBe(base)
    expect(requestFingerprint(body, ['b', undefined])).not.toBe(base)
    expect(requestFingerprint(body, [undefined, 'a'])).not.toBe(base)
  })
})

/** A generation the test finishes by hand, counting how it was led, aborted and released. */
function generation() {
  let finish!: (reply: JsonReply | undefined) => void
  const reply = new Promise<JsonReply | undefined>((resolve) => (finish = resolve))
  const counts = { led: 0, aborted: 0, released: 0 }
  const lead = () => {
    counts.led++
    return { reply, abort: () => void counts.aborted++, release: () => void counts.released++ }
  }
  return { reply, finish, counts, lead }
}

const replyWith = (id: string): JsonReply => ({
  body: {
    id,
    object: 'chat.completion',
    created: 0,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content: 'Hello' }, logprobs: null, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  },
  upstream: undefined,
})

describe('InFlightDedupe', () => {
  it('lets the first request lead and the same request share its one generation and ID', async () => {
    const dedupe = new InFlightDedupe()
    const g = generation()
    const leader = dedupe.join('org', 'k', 'fp', 'chatcmpl-1', g.lead)
    const shared = dedupe.join('org', 'k', 'fp', 'chatcmpl-2', g.lead)
    expect(leader).toMatchObject({ role: 'leader', id: 'chatcmpl-1' })
    expect(shared).toMatchObject({ role: 'shared', id: 'chatcmpl-1' })
    expect(g.counts.led).toBe(1)
    expect(dedupe.size).toBe(1)
    g.finish(replyWith('chatcmpl-1'))
    expect(await shared.reply).toEqual(await leader.reply)
  })

  it('answers the same key with a different request while it runs with a 409', () => {
    const dedupe = new InFlightDedupe()
    const g = generation()
    dedupe.join('org', 'k', 'fp', 'chatcmpl-1', g.lead)
    expect(caught(() => dedupe.join('org', 'k', 'other', 'chatcmpl-2', g.lead))).toMatchObject({
      status: 409,
      type: 'conflict_error',
      code: 'idempotency_key_conflict',
      param: 'Idempotency-Key',
      retryable: false,
    })
    expect(g.counts.led).toBe(1)
  })

  it('keeps organizations apart: the same key in another org leads its own generation', () => {
    const dedupe = new InFlightDedupe()
    const a = generation()
    const b = generation()
    expect(dedupe.join('org-a', 'k', 'fp', 'chatcmpl-1', a.lead).role).toBe('leader')
    expect(dedupe.join('org-b', 'k', 'other', 'chatcmpl-2', b.lead)).toMatchObject({ role: 'leader', id: 'chatcmpl-2' })
    expect(dedupe.size).toBe(2)
  })

  it('forgets the group once the generation ends, then releases it; a later request leads anew', async () => {
    const dedupe = new InFlightDedupe()
    const g = generation()
    const leader = dedupe.join('org', 'k', 'fp', 'chatcmpl-1', g.lead)
    g.finish(undefined)
    await leader.reply
    await Promise.resolve()
    expect(dedupe.size).toBe(0)
    expect(g.counts.released).toBe(1)
    const next = generation()
    // Nothing is cached: even a different request may use the key now.
    expect(dedupe.join('org', 'k', 'other', 'chatcmpl-3', next.lead)).toMatchObject({ role: 'leader', id: 'chatcmpl-3' })
  })

  it('also forgets the group when the generation fails', async () => {
    const dedupe = new InFlightDedupe()
    let fail!: (error: Error) => void
    const reply = new Promise<JsonReply | undefined>((_, reject) => (fail = reject))
    let released = 0
    const leader = dedupe.join('org', 'k', 'fp', 'chatcmpl-1', () => ({ reply, abort: () => {}, release: () => void released++ }))
    fail(new Error('upstream broke'))
    await expect(leader.reply).rejects.toThrow('upstream broke')
    await Promise.resolve()
    expect(dedupe.size).toBe(0)
    expect(released).toBe(1)
  })

  it('goes on while any participant waits and aborts when the last one leaves, once', () => {
    const dedupe = new InFlightDedupe()
    const g = generation()
    const leader = dedupe.join('org', 'k', 'fp', 'chatcmpl-1', g.lead)
    const shared = dedupe.join('org', 'k', 'fp', 'chatcmpl-2', g.lead)
    leader.leave()
    leader.leave()
    expect(g.counts.aborted).toBe(0)
    shared.leave()
    expect(g.counts.aborted).toBe(1)
    shared.leave()
    expect(g.counts.aborted).toBe(1)
  })
})
