import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { DEFAULT_MODEL_ID } from '../shared/api/chat-request'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Exchange } from '../shared/api/traffic'
import type { FakeModelServer } from '../test-kit/fake-model-server'
import { startForwardingGateway } from '../test-kit/forwarding-gateway'
import { exchangeSize } from '../gateway/capture/truncate-exchange'
import { startTestGateway, userMessage, type TestGateway } from './harness'
import { endOf, trafficClient, type LiveTraffic } from './traffic-client'

// Every request to /v1/* is captured: the done-when list of the traffic feature, with real clients
// (the openai SDK and fetch) against a real `mortar serve`. "Within a second": each exchange's end
// is awaited on the live stream with a one-second deadline, then fetched whole from the API.

const WITHIN_A_SECOND = 1_000
const weatherTool = {
  type: 'function' as const,
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
}

let gw: TestGateway
let fake: FakeModelServer
let upstream: TestGateway
let live: LiveTraffic
let counter = 0
const requestId = () => `req-test-${++counter}`

beforeAll(async () => {
  gw = await startTestGateway()
  const started = await startForwardingGateway({}, ['--upstream-timeout', '1'])
  fake = started.fake
  upstream = started.gw
  live = await trafficClient(gw.url, gw.ownerKey).live()
  return started.close
})
afterAll(async () => {
  live.close()
  await gw.close()
})

/** The whole exchange whose response carried `id`, once it has ended. */
async function captured(target: TestGateway, id: string, stream: LiveTraffic = live): Promise<Exchange> {
  const ended = await stream.next(endOf(id), WITHIN_A_SECOND)
  if (ended.type !== 'exchange.ended') throw new Error('unreachable')
  return trafficClient(target.url, target.ownerKey).exchange(ended.exchange.id)
}

/** Posts a chat completion body as it is written, with the key, and waits for its exchange to be captured. */
async function postCaptured(body: string, key: string, live: LiveTraffic): Promise<Exchange> {
  const id = requestId()
  const response = await fetch(`${upstream.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-request-id': id },
    body,
  })
  expect(response.status).toBe(200)
  await response.text()
  return captured(upstream, id, live)
}

const replyText = (exchange: Exchange) => exchange.response.frames.map((frame) => frame.raw).join('')

describe('capture with real clients', () => {
  it('an SDK stream: the body as sent, every frame as sent with its time, and the outcome', async () => {
    const id = requestId()
    const stream = await gw.client().chat.completions.create(
      { model: DEFAULT_MODEL_ID, messages: [{ role: 'user', content: 'Say something about capture.' }], stream: true, stream_options: { include_usage: true } },
      { headers: { 'x-request-id': id } },
    )
    let text = ''
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? ''
    const exchange = await captured(gw, id)

    expect(exchange).toMatchObject({ method: 'POST', endpoint: '/v1/chat/completions', status: 200, outcome: 'finished', finish_reason: 'stop', stream: true })
    expect(JSON.parse(exchange.request.body)).toMatchObject({ messages: [{ role: 'user', content: 'Say something about capture.' }], stream: true })
    expect(exchange.client).toMatchObject({ kind: 'key', key_name: 'default', label: 'default' })
    expect(exchange.org).toBe('default')
    const frames = exchange.response.frames
    expect(frames.at(-1)?.raw).toBe('data: [DONE]\n\n')
    expect(frames.every((frame) => frame.raw.startsWith('data: ') && frame.raw.endsWith('\n\n'))).toBe(true)
    const times = frames.map((frame) => frame.t_ms)
    expect(times).toEqual([...times].sort((a, b) => a - b))
    // The reply text as the client assembled it is in the frames, exactly.
    const content = frames
      .filter((frame) => frame.raw !== 'data: [DONE]\n\n')
      .map((frame) => (JSON.parse(frame.raw.slice(6)) as { choices: Array<{ delta?: { content?: string } }> }).choices[0]?.delta?.content ?? '')
      .join('')
    expect(content).toBe(text)
    expect(exchange.usage?.completion_tokens).toBeGreaterThan(0)
    expect(exchange.usage_source).toBe('estimate')
    expect(exchange.ttft_ms).not.toBeNull()
    expect(exchange.duration_ms).toBeGreaterThanOrEqual(exchange.ttft_ms ?? 0)
    expect(exchange.model_body).toContain('Say something about capture.')
    expect(exchange.response.headers).toContainEqual(['x-request-id', id])
  })

  it('a plain fetch without streaming: the JSON reply as the body', async () => {
    const id = requestId()
    const response = await gw.post('/v1/chat/completions', { ...userMessage('Plain and simple.'), stream: false }, { 'x-request-id': id })
    const reply = await response.text()
    const exchange = await captured(gw, id)
    expect(exchange).toMatchObject({ status: 200, outcome: 'finished', stream: false })
    expect(exchange.response.body).toBe(reply)
    expect(exchange.response.frames).toEqual([])
  })

  it('a tool call', async () => {
    const id = requestId()
    const completion = await gw.client().chat.completions.create(
      { model: DEFAULT_MODEL_ID, messages: [{ role: 'user', content: 'Weather?' }], tools: [weatherTool], stream: false },
      { headers: { 'x-request-id': id } },
    )
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls')
    const exchange = await captured(gw, id)
    expect(exchange).toMatchObject({ outcome: 'finished', finish_reason: 'tool_calls' })
    expect(JSON.parse(exchange.request.body).tools).toEqual([weatherTool])
    expect(exchange.response.body).toContain('get_weather')
  })

  it('a 400: the body exactly as received and the error envelope', async () => {
    const id = requestId()
    const body = '{"messages": [{"role": "user"}], "stream": false}'
    const response = await gw.post('/v1/chat/completions', body, { 'x-request-id': id })
    expect(response.status).toBe(400)
    const exchange = await captured(gw, id)
    expect(exchange).toMatchObject({ status: 400, outcome: 'refused', error: { type: 'invalid_request_error' } })
    expect(exchange.request.body).toBe(body)
    expect(exchange.response.body).toBe(await response.text())
  })

  it('a 401 with a wrong key: shown to the owner as an unknown key, the key itself nowhere', async () => {
    const id = requestId()
    const wrongKey = 'mk_live_' + 'W'.repeat(36) + 'Zz99'
    const body = JSON.stringify({ ...userMessage(`my key is ${wrongKey}`) })
    const response = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${wrongKey}`, 'x-api-key': wrongKey, 'x-request-id': id },
      body,
    })
    expect(response.status).toBe(401)
    const exchange = await captured(gw, id)
    expect(exchange).toMatchObject({ status: 401, outcome: 'refused', org: null, client: { kind: 'unknown', key_id: null, label: 'unknown key' }, error: { code: 'invalid_api_key' } })
    expect(exchange.client.key_hint).toBe('…Zz99 (48 characters)')
    // Refused before any route read it, the body is still there, as sent (the key reduced to its hint).
    expect(exchange.request.body).toBe(body.replace(wrongKey, '…Zz99 (48 characters)'))
    expect(exchange.response.body).toBe(await response.text())
    expect(exchange.request.headers).toContainEqual(['authorization', 'Bearer …Zz99 (48 characters)'])
    expect(JSON.stringify(exchange)).not.toContain(wrongKey)
    // A member of another organization sees neither this refusal nor the owner's traffic.
    const member = trafficClient(gw.url, gw.createKey({ org: 'other', role: 'member' }))
    expect((await member.list()).data).toEqual([])
    expect((await member.get(`/v1/traffic/exchanges/${exchange.id}`)).status).toBe(404)
  })

  it('a 401 with a revoked key: named in the client field, still no organization\'s, the key itself nowhere', async () => {
    const id = requestId()
    const { key, record } = gw.server.keys.create({ name: 'old-ci-bot', org: 'ci', role: 'member' })
    gw.server.keys.revoke(record.id)
    const response = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'x-request-id': id },
      body: JSON.stringify(userMessage('still here')),
    })
    expect(response.status).toBe(401)
    const exchange = await captured(gw, id)
    expect(exchange).toMatchObject({
      status: 401,
      outcome: 'refused',
      org: null,
      client: { kind: 'revoked', key_id: record.id, key_name: 'old-ci-bot', key_hint: record.hint, label: 'old-ci-bot (revoked key)' },
      error: { code: 'revoked_api_key' },
    })
    expect(exchange.request.headers).toContainEqual(['authorization', `Bearer ${record.hint}`])
    expect(JSON.stringify(exchange)).not.toContain(key)
    // The filter by client finds it by the key's ID.
    expect((await trafficClient(gw.url, gw.ownerKey).list({ client: record.id })).data.map((row) => row.id)).toEqual([exchange.id])
  })

  it("a revoked key on Anthropic's /v1/messages: named as on chat completions, its error in the gateway's terms, the envelope as sent", async () => {
    const id = requestId()
    const { key, record } = gw.server.keys.create({ name: 'old-claude', org: 'ci', role: 'member' })
    gw.server.keys.revoke(record.id)
    const response = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'x-request-id': id },
      body: JSON.stringify({ model: DEFAULT_MODEL_ID, max_tokens: 16, messages: [{ role: 'user', content: 'still here' }] }),
    })
    expect(response.status).toBe(401)
    const envelope = await response.text()
    expect(JSON.parse(envelope)).toMatchObject({ type: 'error', error: { type: 'authentication_error' } })
    const exchange = await captured(gw, id)
    expect(exchange).toMatchObject({
      status: 401,
      outcome: 'refused',
      client: { kind: 'revoked', key_id: record.id, label: 'old-claude (revoked key)' },
      error: { type: 'authentication_error', code: 'revoked_api_key' },
    })
    expect(exchange.response.body).toBe(envelope)
    expect(exchange.request.body).toContain('still here')
    expect(JSON.stringify(exchange)).not.toContain(key)
  })

  it("a valid key's header is reduced to its hint", async () => {
    const id = requestId()
    await gw.post('/v1/chat/completions', { ...userMessage('hint'), stream: false }, { 'x-request-id': id })
    const exchange = await captured(gw, id)
    const hint = `${gw.ownerKey.slice(0, 12)}…${gw.ownerKey.slice(-4)}`
    expect(exchange.request.headers).toContainEqual(['authorization', `Bearer ${hint}`])
    expect(exchange.client.key_hint).toBe(hint)
    expect(JSON.stringify(exchange)).not.toContain(gw.ownerKey)
  })

  it('a key sent as x-api-key is reduced to its hint, and a path without /v1 is recorded as sent', async () => {
    const id = requestId()
    const response = await fetch(`${gw.url}/completions`, {
      method: 'POST',
      headers: { 'x-api-key': gw.ownerKey, 'x-request-id': id },
      body: JSON.stringify({ prompt: `the key ${gw.ownerKey} pasted` }),
    })
    expect(response.status).toBe(200)
    const exchange = await captured(gw, id)
    const hint = `${gw.ownerKey.slice(0, 12)}…${gw.ownerKey.slice(-4)}`
    expect(exchange).toMatchObject({ endpoint: '/v1/completions', status: 200, outcome: 'finished', request: { url: '/completions' }, client: { kind: 'key', key_hint: hint } })
    expect(exchange.request.headers).toContainEqual(['x-api-key', hint])
    // The key is nowhere: not in the body as received, nor in what the model saw, nor in the
    // scripted reply, which repeats the prompt.
    expect(JSON.stringify(exchange)).not.toContain(gw.ownerKey)
    expect(exchange.request.body).toContain(`…${gw.ownerKey.slice(-4)} (${gw.ownerKey.length} characters)`)
    expect(exchange.model_body).toContain(`…${gw.ownerKey.slice(-4)} (${gw.ownerKey.length} characters)`)
  })

  it('a session named with the key itself (as `user`) goes by the key\'s hint: in the header, the record and the list', async () => {
    const id = requestId()
    const response = await gw.post('/v1/chat/completions', { ...userMessage('session'), user: `team-${gw.ownerKey}`, stream: false }, { 'x-request-id': id })
    expect(response.status).toBe(200)
    const named = response.headers.get('x-mortar-session') ?? ''
    expect(named).toContain(`team-`)
    expect(named).not.toContain(gw.ownerKey)
    const exchange = await captured(gw, id)
    expect(named).toBe(`team-key-${gw.ownerKey.slice(-4)}`)
    expect(exchange.session).toBe(named)
    // And the embeddings route names its sessions the same way.
    const embedded = await gw.post('/v1/embeddings', { input: 'x', user: gw.ownerKey }, {})
    expect(embedded.headers.get('x-mortar-session') ?? '').not.toContain(gw.ownerKey)
    expect(JSON.stringify(exchange)).not.toContain(gw.ownerKey)
    expect(JSON.stringify((await trafficClient(gw.url, gw.ownerKey).list({})).data)).not.toContain(gw.ownerKey)
  })

  it('a key in the query string is reduced to a hint in the URL as everywhere else', async () => {
    const id = requestId()
    const response = await fetch(`${gw.url}/v1/models?x=1&api_key=${gw.ownerKey}&key=${gw.ownerKey}`, { headers: { Authorization: `Bearer ${gw.ownerKey}`, 'x-request-id': id } })
    expect(response.status).toBe(200)
    const exchange = await captured(gw, id)
    const hint = encodeURIComponent(`…${gw.ownerKey.slice(-4)} (${gw.ownerKey.length} characters)`)
    expect(exchange.request.url).toBe(`/v1/models?x=1&api_key=${hint}&key=${hint}`)
    expect(JSON.stringify(exchange)).not.toContain(gw.ownerKey)
  })

  it('the body of a request no route read is kept, and a long one cut with a marker', async () => {
    const id = requestId()
    const body = JSON.stringify(userMessage('to nowhere'))
    const response = await fetch(`${gw.url}/v1/nothing-here`, { method: 'POST', headers: { Authorization: `Bearer ${gw.ownerKey}`, 'x-request-id': id }, body })
    expect(response.status).toBe(404)
    expect(await captured(gw, id)).toMatchObject({ status: 404, truncated: null, request: { body } })

    const longId = requestId()
    const long = JSON.stringify(userMessage('x'.repeat(300_000)))
    const refused = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'x-request-id': longId }, body: long })
    expect(refused.status).toBe(401)
    const cut = await captured(gw, longId)
    const status = (await (await trafficClient(gw.url, gw.ownerKey).get('/v1/traffic/status')).json()) as { limits: { max_exchange_bytes: number } }
    const limit = status.limits.max_exchange_bytes
    // Read a chunk at a time, up to a tenth of the per-exchange limit.
    expect(cut.request.body.length).toBeGreaterThan(0)
    expect(cut.request.body.length).toBeLessThanOrEqual(Math.floor(limit / 10))
    expect(long.startsWith(cut.request.body)).toBe(true)
    expect(cut.truncated?.original_bytes).toBeGreaterThanOrEqual(long.length)
    // The connection serves the next request: the rest of the body was read and discarded.
    const next = requestId()
    expect((await gw.post('/v1/chat/completions', { ...userMessage('after'), stream: false }, { 'x-request-id': next })).status).toBe(200)
    await captured(gw, next)
  })

  it('an unknown route and a wrong method are captured too', async () => {
    const id = requestId()
    const response = await fetch(`${gw.url}/v1/nothing-here`, { headers: { Authorization: `Bearer ${gw.ownerKey}`, 'x-request-id': id } })
    expect(response.status).toBe(404)
    expect(await captured(gw, id)).toMatchObject({ method: 'GET', endpoint: '/v1/nothing-here', outcome: 'refused', error: { code: 'unknown_route' } })
  })

  it('a route Express serves under /v1 keeps its whole path (GET /v1/models, not /models)', async () => {
    const id = requestId()
    const response = await fetch(`${gw.url}/v1/models?x=1`, { headers: { Authorization: `Bearer ${gw.ownerKey}`, 'x-request-id': id } })
    expect(response.status).toBe(200)
    const exchange = await captured(gw, id)
    expect(exchange).toMatchObject({ method: 'GET', endpoint: '/v1/models', outcome: 'finished' })
    expect(exchange.request.url).toBe('/v1/models?x=1')
  })
})

describe('capture of an upstream deployment', () => {
  it('keeps the body the model server received and its frames as it sent them', async () => {
    const upstreamLive = await trafficClient(upstream.url, upstream.ownerKey).live()
    try {
      const id = requestId()
      const response = await upstream.post('/v1/chat/completions', { ...userMessage('Forward me.'), stream: true }, { 'x-request-id': id })
      await response.text()
      const exchange = await captured(upstream, id, upstreamLive)
      const sent = fake.requests.at(-1)?.body
      expect(exchange.upstream?.body).toBe(exchange.model_body)
      expect(JSON.parse(exchange.model_body ?? '')).toEqual(sent)
      expect(exchange.upstream).toMatchObject({ replica: fake.host, status: 200 })
      const fromServer = exchange.upstream?.frames.map((frame) => frame.raw) ?? []
      expect(fromServer.at(-1)).toBe('data: [DONE]\n\n')
      expect(fromServer.join('')).toContain('"Hello"')
      expect(exchange).toMatchObject({ outcome: 'finished', usage_source: 'upstream', cached_tokens: 8, replica: fake.host })
    } finally {
      upstreamLive.close()
    }
  })

  it('sizes each exchange as its texts measure, with the sizes the body reader and the backend handed over', async () => {
    const upstreamLive = await trafficClient(upstream.url, upstream.ownerKey).live()
    try {
      // A long ASCII history is spliced into the body sent; a non-ASCII one is serialized; invalid
      // UTF-8 decodes to U+FFFD, whose size is not the bytes read.
      const long = 'The capture keeps this prompt whole. '.repeat(200)
      const bodies: Array<string | Buffer> = [
        JSON.stringify({ model: DEFAULT_MODEL_ID, messages: [{ role: 'system', content: long }, { role: 'user', content: 'One.' }] }),
        JSON.stringify({ model: DEFAULT_MODEL_ID, messages: [{ role: 'system', content: `été 😀 ${long}` }, { role: 'user', content: 'Two.' }] }),
        Buffer.concat([Buffer.from(`{"model":"${DEFAULT_MODEL_ID}","messages":[{"role":"user","content":"bad `), Buffer.from([0xff, 0xfe]), Buffer.from(' bytes"}]}')]),
      ]
      for (const body of bodies) {
        const id = requestId()
        const response = await fetch(`${upstream.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${upstream.ownerKey}`, 'content-type': 'application/json', 'x-request-id': id },
          body,
        })
        expect(response.status).toBe(200)
        await response.text()
        const exchange = await captured(upstream, id, upstreamLive)
        expect(exchange.request.body).toBe(Buffer.isBuffer(body) ? body.toString('utf8') : body)
        expect(JSON.parse(exchange.model_body ?? '')).toEqual(fake.requests.at(-1)?.body)
        expect(exchange.truncated).toBeNull()
        expect(exchange.size_bytes).toBe(exchangeSize(exchange))
      }
    } finally {
      upstreamLive.close()
    }
  })

  it("an agent's turns, sent as the client's own bytes, read back from the store exactly as the model server received them", async () => {
    const upstreamLive = await trafficClient(upstream.url, upstream.ownerKey).live()
    try {
      const messages: { role: string; content: string }[] = [{ role: 'system', content: 'You are an agent working in a repository. '.repeat(150) }]
      for (let turn = 1; turn <= 3; turn++) {
        messages.push({ role: 'user', content: `Turn ${turn}: ${'read the file and say what changed. '.repeat(60)}` })
        const exchange = await postCaptured(JSON.stringify({ model: DEFAULT_MODEL_ID, messages }), upstream.ownerKey, upstreamLive)
        const received = fake.requests.at(-1)
        // The store keeps the body sent as pieces of the request body where it is made of its bytes.
        expect(exchange.model_body).toContain(JSON.stringify(messages))
        expect(JSON.parse(exchange.model_body ?? '')).toEqual(received?.body)
        expect(Buffer.byteLength(exchange.model_body ?? '')).toBe(Number(received?.headers['content-length']))
        expect(exchange.upstream?.body).toBe(exchange.model_body)
        expect(exchange.request.body).toBe(JSON.stringify({ model: DEFAULT_MODEL_ID, messages }))
        messages.push({ role: 'assistant', content: `Done with turn ${turn}.` })
      }
    } finally {
      upstreamLive.close()
    }
  })

  it('a key pasted into a long prompt is a hint in the body sent too, where it was spliced and where the gateway unescaped it', async () => {
    const upstreamLive = await trafficClient(upstream.url, upstream.ownerKey).live()
    try {
      const key = upstream.ownerKey
      const hint = `…${key.slice(-4)} (${key.length} characters)`
      const long = 'Context for the model. '.repeat(200)
      // The prompt (spliced: sent as the client's bytes) holds the key; `stop` (written again by
      // the gateway) holds it with an escape, so only the body sent holds it literally.
      const escaped = `\\u00${key.charCodeAt(0).toString(16)}${key.slice(1)}`
      const cases = [`"messages":[{"role":"system","content":"${long} ${key}"},{"role":"user","content":"${long}"}]`, `"messages":[{"role":"system","content":"${long}"},{"role":"user","content":"${long}"}],"stop":["${escaped}"]`]
      for (const members of cases) {
        const exchange = await postCaptured(`{"model":"${DEFAULT_MODEL_ID}",${members}}`, key, upstreamLive)
        expect(JSON.stringify(fake.requests.at(-1)?.body)).toContain(key)
        expect(JSON.stringify(exchange)).not.toContain(key)
        expect(exchange.model_body).toContain(hint)
        expect(exchange.upstream?.body).toBe(exchange.model_body)
        expect(exchange.size_bytes).toBe(exchangeSize(exchange))
      }
    } finally {
      upstreamLive.close()
    }
  })

  it('a Responses reply repeating long instructions: both replies kept exactly as sent and read, a key in them as its hint', async () => {
    const upstreamLive = await trafficClient(upstream.url, upstream.ownerKey).live()
    // A server that speaks the Responses API itself, as vLLM does: its reply repeats the instructions.
    fake.behavior.speaksResponses = true
    try {
      const key = upstream.ownerKey
      const hint = `…${key.slice(-4)} (${key.length} characters)`
      // Long enough (≥1 KB) that the gateway writes its reply from the instructions' kept bytes;
      // the model server's reply repeats them too. Once with a key pasted in, once without.
      for (const instructions of ['You are a coding agent. Keep C:\\paths as they are.\n'.repeat(60), `Context. ${'Keep going. '.repeat(150)} ${key}`]) {
        const id = requestId()
        const response = await fetch(`${upstream.url}/v1/responses`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-request-id': id },
          body: JSON.stringify({ model: DEFAULT_MODEL_ID, instructions, input: 'go on', max_output_tokens: 16 }),
        })
        expect(response.status).toBe(200)
        const sent = await response.text()
        expect((JSON.parse(sent) as { instructions: string }).instructions).toBe(instructions)
        const exchange = await captured(upstream, id, upstreamLive)
        const serverReply = exchange.upstream?.response_body ?? ''
        expect((JSON.parse(serverReply) as { instructions: string }).instructions).toBe(instructions.replaceAll(key, hint))
        expect(exchange.response.body).toBe(sent.replaceAll(key, hint))
        expect(JSON.stringify(exchange)).not.toContain(key)
        expect(exchange.size_bytes).toBe(exchangeSize(exchange))
      }
    } finally {
      fake.behavior.speaksResponses = false
      upstreamLive.close()
    }
  })

  it('an agent\'s next turns, read without decoding what they repeat, are kept exactly as sent, a key in a new turn as its hint', async () => {
    const upstreamLive = await trafficClient(upstream.url, upstream.ownerKey).live()
    try {
      const key = upstream.ownerKey
      // Long enough (8 KB and more, ASCII) that each turn is read from where the last one ended.
      const messages: unknown[] = [{ role: 'system', content: 'You are an agent. '.repeat(600) }, { role: 'user', content: 'Read the files.' }]
      for (let turn = 0; turn < 4; turn++) {
        messages.push({ role: 'assistant', content: null, tool_calls: [{ id: `call_${turn}`, type: 'function', function: { name: 'read_file', arguments: `{"path":"f${turn}.ts"}` } }] })
        messages.push({ role: 'tool', tool_call_id: `call_${turn}`, content: `// f${turn}.ts\n` + 'const x = 1\n'.repeat(150) + (turn === 2 ? `// ${key}\n` : '') })
        const body = JSON.stringify({ model: DEFAULT_MODEL_ID, messages, tools: [weatherTool], max_tokens: 16, stream: false })
        const exchange = await postCaptured(body, key, upstreamLive)
        expect(fake.requests.at(-1)?.body).toMatchObject({ messages: JSON.parse(JSON.stringify(messages)) as unknown[] })
        if (turn < 2) {
          expect(exchange.request.body).toBe(body)
          expect(JSON.parse(exchange.model_body ?? '')).toEqual(fake.requests.at(-1)?.body)
        } else {
          expect(JSON.stringify(exchange)).not.toContain(key)
          expect(exchange.request.body).toBe(body.replaceAll(key, `…${key.slice(-4)} (${key.length} characters)`))
        }
        expect(exchange.size_bytes).toBe(exchangeSize(exchange))
      }
    } finally {
      upstreamLive.close()
    }
  })

  it('an upstream failure before the reply: 502 with its envelope and the model server\'s own body', async () => {
    const upstreamLive = await trafficClient(upstream.url, upstream.ownerKey).live()
    fake.behavior.mode = 'error-500'
    try {
      const id = requestId()
      const response = await upstream.post('/v1/chat/completions', { ...userMessage('Fail.'), stream: false }, { 'x-request-id': id })
      expect(response.status).toBe(502)
      const exchange = await captured(upstream, id, upstreamLive)
      expect(exchange).toMatchObject({ status: 502, outcome: 'upstream_error', error: { type: 'upstream_error' } })
      expect(exchange.upstream).toMatchObject({ status: 500 })
      expect(exchange.upstream?.response_body).toContain('model crashed')
    } finally {
      fake.behavior.mode = 'normal'
      upstreamLive.close()
    }
  })

  it('a model server that is down: 503 upstream_error with its envelope', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const { port } = closed.address() as AddressInfo
    await new Promise((resolve) => closed.close(resolve))
    const down = await startTestGateway(['--upstream', `http://127.0.0.1:${port}`])
    const downLive = await trafficClient(down.url, down.ownerKey).live()
    try {
      const id = requestId()
      const response = await down.client().chat.completions.create({ model: DEFAULT_MODEL_ID, messages: [{ role: 'user', content: 'Anyone there?' }] }, { headers: { 'x-request-id': id } }).catch((error: unknown) => error)
      expect(response).toMatchObject({ status: 503 })
      const exchange = await captured(down, id, downLive)
      expect(exchange).toMatchObject({ status: 503, outcome: 'upstream_error', error: { type: 'upstream_error', code: 'upstream_unavailable' } })
      expect(exchange.request.body).toContain('Anyone there?')
      expect(JSON.parse(exchange.response.body ?? '{}')).toMatchObject({ error: { code: 'upstream_unavailable' } })
    } finally {
      downLive.close()
      await down.close()
    }
  })

  it('a model server that dies mid-stream: upstream_error after the frames that came', async () => {
    const upstreamLive = await trafficClient(upstream.url, upstream.ownerKey).live()
    fake.behavior.mode = 'die-mid-stream'
    try {
      const id = requestId()
      const response = await upstream.post('/v1/chat/completions', { ...userMessage('Die.'), stream: true }, { 'x-request-id': id })
      const text = await response.text()
      const exchange = await captured(upstream, id, upstreamLive)
      expect(exchange).toMatchObject({ status: 200, outcome: 'upstream_error', error: { type: 'upstream_error' } })
      expect(replyText(exchange)).toBe(text)
      expect(exchange.upstream?.frames.length).toBeGreaterThan(0)
    } finally {
      fake.behavior.mode = 'normal'
      upstreamLive.close()
    }
  })
})
