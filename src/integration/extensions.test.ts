import { DEFAULT_MODEL_ID } from '../shared/api/chat-request'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TelemetryEvent } from '../shared/api/telemetry'
import { loadTokenizer } from '../gateway/tokens/tokenizer-registry'
import { pythonJsonDumps } from '../gateway/tokens/python-json'
import { nextRegisteredGeneration, readEvents, startTestGateway, subscribeTelemetry, userMessage, type TestGateway } from './harness'

const LONG_TEXT = Array.from({ length: 150 }, (_, i) => `word${i}`).join(' ')
const qwen = loadTokenizer('qwen2.5')

let gw: TestGateway
beforeAll(async () => {
  gw = await startTestGateway(['--scripted-tps', '300'])
})
afterAll(() => gw.close())

const subscribe = (key: string, query = '') => subscribeTelemetry(gw, key, query)

const tool = (name: string, description = `does ${name}`) => ({
  type: 'function',
  function: { name, description, parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } },
})

describe('named tool selection (X-Mortar-Tool-Select)', () => {
  const tools = Array.from({ length: 20 }, (_, i) => tool(`tool_${i}`, `A tool that does thing number ${i} with care.`))

  it('keeps only the named function and reports it, counted as the template renders tools', async () => {
    const response = await gw.post(
      '/v1/chat/completions',
      { ...userMessage('go'), stream: false, tools, tool_choice: { type: 'function', function: { name: 'tool_7' } } },
      { 'X-Mortar-Tool-Select': 'named' },
    )
    expect(response.status).toBe(200)
    const count = (list: unknown[]) => list.reduce<number>((n, t) => n + qwen.count('\n' + pythonJsonDumps(t)), 0)
    const before = count(tools)
    const after = count([tools[7]])
    expect(response.headers.get('x-mortar-tool-selector')).toBe(`mode=named; tools=20->1; tokens=${before}->${after}; saved=${before - after}`)
    const completion = (await response.json()) as { choices: Array<{ message: { tool_calls: Array<{ function: { name: string } }> } }>; usage: { prompt_tokens: number } }
    expect(completion.choices[0]?.message.tool_calls[0]?.function.name).toBe('tool_7')
    // The prompt the model reads lost the other 19 tools.
    const unselected = await gw.post('/v1/chat/completions', { ...userMessage('go'), stream: false, tools, tool_choice: { type: 'function', function: { name: 'tool_7' } } })
    expect(unselected.headers.get('x-mortar-tool-selector')).toBeNull()
    const full = (await unselected.json()) as { usage: { prompt_tokens: number } }
    expect(full.usage.prompt_tokens - completion.usage.prompt_tokens).toBe(before - after)
  })

  it('keeps only the named function even when the conversation called others', async () => {
    const response = await gw.post(
      '/v1/chat/completions',
      {
        messages: [
          { role: 'user', content: 'q' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'tool_3', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: 'c1', content: 'r' },
        ],
        stream: false,
        tools,
        tool_choice: { type: 'function', function: { name: 'tool_9' } },
      },
      { 'X-Mortar-Tool-Select': 'named' },
    )
    expect(response.headers.get('x-mortar-tool-selector')).toMatch(/^mode=named; tools=20->1; /)
  })

  it('refuses named without an object tool_choice, and any other value', async () => {
    for (const [headerValue, body] of [
      ['named', { ...userMessage('go'), stream: false, tools, tool_choice: 'auto' }],
      ['named', { ...userMessage('go'), stream: false, tools }],
      ['all', { ...userMessage('go'), stream: false, tools, tool_choice: { type: 'function', function: { name: 'tool_1' } } }],
    ] as const) {
      const response = await gw.post('/v1/chat/completions', body, { 'X-Mortar-Tool-Select': headerValue })
      expect(response.status).toBe(400)
      expect(response.headers.get('x-should-retry')).toBe('false')
    }
  })
})

describe('in-flight dedupe (X-Mortar-Dedupe)', () => {
  const dedupeHeaders = (key: string) => ({ 'X-Mortar-Dedupe': 'in-flight', 'Idempotency-Key': key })
  const body = { ...userMessage(LONG_TEXT), stream: false }

  it('shares one generation between concurrent identical requests; leader and shared carry one id', async () => {
    const registered = nextRegisteredGeneration(gw)
    const leader = gw.post('/v1/chat/completions', body, dedupeHeaders('op-1'))
    const leaderId = await registered
    const shared = gw.post('/v1/chat/completions', body, dedupeHeaders('op-1'))
    // A different request under the same key, while the first runs: 409.
    const conflict = await gw.post('/v1/chat/completions', { ...body, messages: [{ role: 'user', content: 'other' }] }, dedupeHeaders('op-1'))
    expect(conflict.status).toBe(409)
    expect(((await conflict.json()) as { error: { code: string } }).error.code).toBe('idempotency_key_conflict')

    const [a, b] = await Promise.all([leader, shared])
    expect(a.headers.get('x-mortar-dedupe')).toBe('leader')
    expect(b.headers.get('x-mortar-dedupe')).toBe('shared')
    expect(a.headers.get('x-mortar-request-id')).toBe(leaderId)
    expect(b.headers.get('x-mortar-request-id')).toBe(leaderId)
    const [ja, jb] = (await Promise.all([a.json(), b.json()])) as Array<{ id: string; choices: Array<{ message: { content: string } }> }>
    expect(jb).toEqual(ja)
    expect(ja?.id).toBe(leaderId)
    expect(gw.completions.filter((r) => r.id === leaderId)).toHaveLength(1)
    // Nothing is cached: the same key afterwards leads a new generation.
    const again = await gw.post('/v1/chat/completions', { ...userMessage('short'), stream: false }, dedupeHeaders('op-1'))
    expect(again.headers.get('x-mortar-dedupe')).toBe('leader')
    expect(gw.server.gateway.dedupe.size).toBe(0)
  })

  it('is scoped to the organization', async () => {
    const otherKey = gw.createKey({ org: 'other-org' })
    const registered = nextRegisteredGeneration(gw)
    const mine = gw.post('/v1/chat/completions', body, dedupeHeaders('op-org'))
    await registered
    const theirs = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${otherKey}`, ...dedupeHeaders('op-org') },
      body: JSON.stringify(body),
    })
    expect(theirs.headers.get('x-mortar-dedupe')).toBe('leader')
    expect((await mine).headers.get('x-mortar-dedupe')).toBe('leader')
  })

  it("answers the shared requests when the leader's client leaves, and stops when all leave", async () => {
    // Joining is observed on the telemetry stream (request.accepted with the dedupe role).
    const sub = await subscribe(gw.ownerKey, '?session=dedupe-leave')
    const headers = (key: string) => ({ Authorization: `Bearer ${gw.ownerKey}`, 'X-Mortar-Session': 'dedupe-leave', ...dedupeHeaders(key) })
    const send = (key: string, signal?: AbortSignal) =>
      fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: headers(key), body: JSON.stringify(body), ...(signal ? { signal } : {}) })
    const acceptedAs = async (role: 'leader' | 'shared') => {
      for (;;) {
        const event = await sub.next()
        if (event.type === 'request.accepted' && event.dedupe === role) return event.id
      }
    }

    const leaderController = new AbortController()
    const leader = send('op-leave', leaderController.signal).catch(() => 'aborted')
    const leaderId = await acceptedAs('leader')
    const shared = send('op-leave')
    expect(await acceptedAs('shared')).toBe(leaderId)
    leaderController.abort()
    expect(await leader).toBe('aborted')
    const response = await shared
    expect(response.status).toBe(200)
    const reply = (await response.json()) as { id: string; choices: Array<{ message: { content: string }; finish_reason: string }> }
    expect(reply.id).toBe(leaderId)
    expect(reply.choices[0]?.message.content).toBe(LONG_TEXT)
    expect(reply.choices[0]?.finish_reason).toBe('stop')

    const a = new AbortController()
    const b = new AbortController()
    const first = send('op-all-leave', a.signal).catch(() => undefined)
    const groupId = await acceptedAs('leader')
    const second = send('op-all-leave', b.signal).catch(() => undefined)
    await acceptedAs('shared')
    a.abort()
    b.abort()
    await Promise.all([first, second])
    await gw.server.gateway.generations.whenIdle()
    expect(gw.completions.find((r) => r.id === groupId)?.outcome).toBe('client_disconnected')
    expect(gw.server.gateway.dedupe.size).toBe(0)
    sub.close()
  })

  it('refuses a stream, a missing or bad Idempotency-Key, and another value', async () => {
    const cases: Array<[Record<string, string>, unknown, string]> = [
      [dedupeHeaders('k'), { ...userMessage('x') }, 'stream'],
      [{ 'X-Mortar-Dedupe': 'in-flight' }, body, 'Idempotency-Key'],
      [{ 'X-Mortar-Dedupe': 'in-flight', 'Idempotency-Key': 'has space' }, body, 'Idempotency-Key'],
      [{ 'X-Mortar-Dedupe': 'in-flight', 'Idempotency-Key': 'k'.repeat(129) }, body, 'Idempotency-Key'],
      [{ 'X-Mortar-Dedupe': 'cache', 'Idempotency-Key': 'k' }, body, 'X-Mortar-Dedupe'],
    ]
    for (const [headers, requestBody, param] of cases) {
      const response = await gw.post('/v1/chat/completions', requestBody, headers)
      expect(response.status).toBe(400)
      expect(((await response.json()) as { error: { param: string } }).error.param).toBe(param)
    }
  })
})

describe('telemetry stream (GET /v1/telemetry)', () => {
  it('emits accepted, first token and finished with usage, in order, for a stream', async () => {
    const sub = await subscribe(gw.ownerKey)
    const response = await gw.post('/v1/chat/completions', userMessage('telemetry please'), { 'X-Mortar-Session': 'telemetry-1' })
    const id = response.headers.get('x-mortar-request-id')
    await readEvents(response)
    const accepted = await sub.next()
    const first = await sub.next()
    const finished = await sub.next()
    expect(accepted).toMatchObject({ type: 'request.accepted', id, key_name: 'default', org: 'default', session: 'telemetry-1', model: DEFAULT_MODEL_ID, deployment: 'scripted', stream: true, dedupe: null })
    expect(first).toMatchObject({ type: 'request.first_token', id })
    expect((first as { ttft_ms: number }).ttft_ms).toBeGreaterThanOrEqual(0)
    expect(finished).toMatchObject({ type: 'request.finished', id, finish_reason: 'stop', usage_source: 'estimate', cost_usd: null, upstream: null })
    expect((finished as { usage: { completion_tokens: number } }).usage.completion_tokens).toBe(qwen.count('telemetry please'))
    sub.close()
  })

  it('emits request.stopped for a stop, filtered by session, and nothing to another org', async () => {
    const mine = await subscribe(gw.ownerKey, '?session=watched')
    const otherKey = gw.createKey({ org: 'nosy-org' })
    const theirs = await subscribe(otherKey)
    await gw.post('/v1/chat/completions', { ...userMessage('unwatched'), stream: false }, { 'X-Mortar-Session': 'elsewhere' }).then((r) => r.text())
    const pending = gw.post('/v1/chat/completions', userMessage(LONG_TEXT), { 'X-Mortar-Session': 'watched' })
    const accepted = await mine.next()
    expect(accepted).toMatchObject({ type: 'request.accepted', session: 'watched' })
    const id = accepted.id
    expect(await mine.next()).toMatchObject({ type: 'request.first_token', id })
    await fetch(`${gw.url}/v1/generations/${id}/stop`, { method: 'POST', headers: { Authorization: `Bearer ${gw.ownerKey}` } })
    await readEvents(await pending)
    const ended = await mine.next()
    expect(ended).toMatchObject({ type: 'request.stopped', id, finish_reason: null })
    expect(mine.received.every((e) => e.session === 'watched')).toBe(true)
    // The other org's subscriber saw none of it: its next event is its own request's.
    const own = await gw.post('/v1/chat/completions', { ...userMessage('mine'), stream: false }, { Authorization: `Bearer ${otherKey}` })
    const ownId = own.headers.get('x-mortar-request-id')
    expect(await theirs.next()).toMatchObject({ type: 'request.accepted', id: ownId, org: 'nosy-org' })
    mine.close()
    theirs.close()
  })

  it('drops a subscriber that does not read', async () => {
    const bus = gw.server.gateway.telemetry
    const org = 'slow-reader-org'
    const key = gw.createKey({ org })
    const response = await fetch(`${gw.url}/v1/telemetry`, { headers: { Authorization: `Bearer ${key}` } })
    expect(bus.subscriberCount(org)).toBe(1)
    // Never read while publishing: the socket's buffers fill, then the 1 MiB limit is passed.
    const event = { type: 'cache', id: 'x', org, session: 's', model: 'm', at: '', cached_tokens: 1, prompt_tokens: 'y'.repeat(64 * 1024) } as unknown as TelemetryEvent
    let published = 0
    while (bus.subscriberCount(org) > 0 && published < 2_000) {
      bus.publish(event)
      published++
      await new Promise((resolve) => setImmediate(resolve))
    }
    expect(bus.subscriberCount(org)).toBe(0)
    // Its stream was ended with a reason, after what had been buffered.
    const text = await response.text()
    expect(text.trimEnd().endsWith(': dropped: this subscriber read too slowly')).toBe(true)
  })
})
