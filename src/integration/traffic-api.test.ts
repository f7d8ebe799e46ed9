import { mkdtempSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Ajv } from 'ajv'
import draft06 from 'ajv/dist/refs/json-schema-draft-06.json'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_MODEL_ID } from '../shared/api/chat-request'
import { MortarHeader } from '../shared/api/headers'
import { captureStatusSchema, exchangeSchema, TrafficPath } from '../shared/api/traffic'
import { startTestGateway, userMessage, type TestGateway } from './harness'
import { endOf, trafficClient, type LiveTraffic } from './traffic-client'

// The traffic API over HTTP: exports (HAR checked against the HAR 1.2 JSON schema of the
// `har-schema` package), every filter and the pages, clearing, the status, bad queries, the
// limits from flags and config.json, and `--capture off`.

const harSchemas = createRequire(import.meta.url)('har-schema') as Record<string, object>

function harValidator() {
  // har-schema is draft-06 and uses a few keywords of its own (`min`, `optional`): not strict.
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false })
  ajv.addMetaSchema(draft06)
  for (const [name, schema] of Object.entries(harSchemas)) if (name !== 'har') ajv.addSchema(schema)
  return ajv.compile(harSchemas.har as object)
}

let gw: TestGateway
let live: LiveTraffic
let traffic: ReturnType<typeof trafficClient>
beforeAll(async () => {
  gw = await startTestGateway()
  traffic = trafficClient(gw.url, gw.ownerKey)
  live = await traffic.live()
})
afterAll(async () => {
  live.close()
  await gw.close()
})

async function send(id: string, body: unknown): Promise<string> {
  const response = await gw.post('/v1/chat/completions', body, { 'x-request-id': id })
  await response.text()
  const ended = await live.next(endOf(id), 1_000)
  return ended.type === 'exchange.ended' ? ended.exchange.id : ''
}

describe('exports', () => {
  it('HAR 1.2: valid against the schema, SSE frames as the response content, timings filled', async () => {
    const streamed = await send('har-stream', { ...userMessage('export me'), stream: true })
    const refused = await send('har-refused', '{not json')
    const response = await traffic.get(`${TrafficPath.export}?format=har&ids=${streamed},${refused}`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-disposition')).toMatch(/attachment; filename="mortar-traffic-.*\.har"/)
    const har = (await response.json()) as { log: { version: string; entries: HarEntry[] } }
    const validate = harValidator()
    expect(validate(har), JSON.stringify(validate.errors)).toBe(true)
    // The validator must be able to fail: an entry without timings is refused.
    expect(validate({ log: { ...har.log, entries: [{ ...har.log.entries[0], timings: undefined }] } })).toBe(false)

    expect(har.log.version).toBe('1.2')
    const [stream, error] = har.log.entries
    const whole = await traffic.exchange(streamed)
    expect(stream?.response.content.text).toBe(whole.response.frames.map((frame) => frame.raw).join(''))
    expect(stream?.response.content.mimeType).toBe('text/event-stream; charset=utf-8')
    expect(stream?.request.postData?.text).toBe(whole.request.body)
    expect(Number.isNaN(Date.parse(stream?.startedDateTime ?? ''))).toBe(false)
    const { send: sent = -2, wait = -2, receive = -2 } = stream?.timings ?? {}
    expect(sent + wait + receive).toBeCloseTo(stream?.time ?? -1, 5)
    expect(wait).toBe(whole.response.frames[0]?.t_ms)
    expect(error?.response.status).toBe(400)
    expect(error?.request.postData?.text).toBe('{not json')
    // Everything captured so far (refusals without a key, a list of models) is valid HAR too.
    await (await fetch(`${gw.url}/v1/models`)).text()
    await (await fetch(`${gw.url}/v1/models?api_key=secret-in-the-query`, { headers: { Authorization: `Bearer ${gw.ownerKey}` } })).text()
    const all = (await (await traffic.get(`${TrafficPath.export}?format=har`)).json()) as { log: { entries: HarEntry[] } }
    expect(all.log.entries.length).toBeGreaterThanOrEqual(2)
    expect(validate(all), JSON.stringify(validate.errors)).toBe(true)
    expect(JSON.stringify(all)).not.toContain('secret-in-the-query')
  })

  it('JSON Lines: one whole exchange per line', async () => {
    const a = await send('jsonl-a', { ...userMessage('line one'), stream: false })
    const b = await send('jsonl-b', { ...userMessage('line two'), stream: false })
    const response = await traffic.get(`${TrafficPath.export}?format=jsonl&ids=${a},${b}`)
    expect(response.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8')
    const lines = (await response.text()).trimEnd().split('\n')
    expect(lines.map((line) => exchangeSchema.parse(JSON.parse(line)).id)).toEqual([a, b])
  })

  it('exports what the filters match when no IDs are given', async () => {
    await send('filter-me', { ...userMessage('zebra crossing'), stream: false })
    const response = await traffic.get(`${TrafficPath.export}?format=jsonl&q=ZEBRA`)
    const lines = (await response.text()).trimEnd().split('\n')
    expect(lines).toHaveLength(1)
    expect(JSON.parse(lines[0] ?? '{}').request_id).toBe('filter-me')
  })
})

describe('the rest of the API', () => {
  it('refuses a bad query in the OpenAI envelope', async () => {
    const response = await traffic.get(`${TrafficPath.exchanges}?status=6xx`)
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ error: { type: 'invalid_request_error', param: 'status' } })
    expect((await traffic.get(`${TrafficPath.exchanges}?cursor=abc`)).status).toBe(400)
    expect((await traffic.get(`${TrafficPath.export}?format=zip`)).status).toBe(400)
  })

  it('answers 404 exchange_not_found for an unknown ID', async () => {
    const response = await traffic.get(TrafficPath.exchange('exch_nothing'))
    expect(response.status).toBe(404)
    expect(await response.json()).toMatchObject({ error: { code: 'exchange_not_found', type: 'not_found_error' } })
  })

  it('wants a key', async () => {
    const response = await fetch(`${gw.url}${TrafficPath.exchanges}`)
    expect(response.status).toBe(401)
  })

  it('reports its mode, limits and size; clearing empties it and is announced', async () => {
    await send('before-clear', { ...userMessage('x'), stream: false })
    const status = captureStatusSchema.parse(await (await traffic.get(TrafficPath.status)).json())
    expect(status).toMatchObject({ mode: 'memory', limits: { max_bytes: 64 * 1024 * 1024, max_exchanges: 5_000 } })
    expect(status.exchanges).toBeGreaterThan(0)
    expect(status.bytes).toBeGreaterThan(0)
    const cleared = await fetch(`${gw.url}${TrafficPath.exchanges}`, { method: 'DELETE', headers: { Authorization: `Bearer ${gw.ownerKey}` } })
    expect(await cleared.json()).toEqual({ deleted: status.exchanges })
    await live.next((event) => event.type === 'exchanges.cleared', 1_000)
    expect((await traffic.list()).data).toEqual([])
  })
})

describe('the list over HTTP', () => {
  /** One request with its own x-request-id, once it has ended: its list row's request_id. */
  async function request(id: string, path: string, init: RequestInit & { headers?: Record<string, string> }): Promise<void> {
    const response = await fetch(`${gw.url}${path}`, { ...init, headers: { Authorization: `Bearer ${gw.ownerKey}`, 'x-request-id': id, ...init.headers } })
    await response.text()
    await live.next(endOf(id), 1_000)
  }
  const chat = (id: string, session: string, content: string, stream: boolean) =>
    request(id, '/v1/chat/completions', { method: 'POST', headers: { [MortarHeader.session]: session }, body: JSON.stringify({ ...userMessage(content), stream }) })

  it('every filter, the time range, the search and the pages, as query parameters', async () => {
    const since = new Date().toISOString()
    await chat('f-a', 'fs-1', 'filter alpha', false)
    await chat('f-b', 'fs-2', 'filter beta', true)
    const mid = new Date().toISOString()
    await request('f-c', '/v1/models', {})
    await request('f-d', '/v1/chat/completions', { method: 'POST', body: '{bad' })
    await request('f-e', '/v1/chat/completions', { method: 'POST', headers: { Authorization: '' }, body: JSON.stringify(userMessage('no key')) })
    const ids = async (params: Record<string, string>) => (await traffic.list({ since, ...params })).data.map((row) => row.request_id)

    expect(await ids({})).toEqual(['f-e', 'f-d', 'f-c', 'f-b', 'f-a'])
    expect(await ids({ status: '4xx' })).toEqual(['f-e', 'f-d'])
    expect(await ids({ status: '2xx,4xx' })).toEqual(['f-e', 'f-d', 'f-c', 'f-b', 'f-a'])
    expect(await ids({ outcome: 'refused' })).toEqual(['f-e', 'f-d'])
    expect(await ids({ model: DEFAULT_MODEL_ID })).toEqual(['f-b', 'f-a'])
    expect(await ids({ session: 'fs-2' })).toEqual(['f-b'])
    expect(await ids({ session: 'fs-1,fs-2' })).toEqual(['f-b', 'f-a'])
    expect(await ids({ client: 'none' })).toEqual(['f-e'])
    const keyId = (await traffic.list({ since, session: 'fs-1' })).data[0]?.client.key_id ?? ''
    expect(await ids({ client: keyId })).toEqual(['f-d', 'f-c', 'f-b', 'f-a'])
    expect(await ids({ endpoint: '/v1/models' })).toEqual(['f-c'])
    expect(await ids({ until: mid })).toEqual(['f-b', 'f-a'])
    expect(await ids({ since: mid })).toEqual(['f-e', 'f-d', 'f-c'])
    expect(await ids({ q: 'FILTER ALPHA' })).toEqual(['f-a'])
    // The search reads the reply too: the scripted model repeats the prompt.
    expect(await ids({ q: 'beta', session: 'fs-2' })).toEqual(['f-b'])

    const pages: string[][] = []
    let cursor: string | undefined
    do {
      const page = await traffic.list({ since, limit: 2, ...(cursor !== undefined ? { cursor } : {}) })
      pages.push(page.data.map((row) => row.request_id))
      cursor = page.next_cursor ?? undefined
    } while (cursor !== undefined)
    expect(pages).toEqual([['f-e', 'f-d'], ['f-c', 'f-b'], ['f-a']])
  })
})

describe('settable limits', () => {
  it("takes the store's limits from the flags, and the mode and limits from config.json, a flag winning", async () => {
    const flagged = await startTestGateway(['--capture-max-mb', '2', '--capture-max-exchanges', '3'])
    try {
      const client = trafficClient(flagged.url, flagged.ownerKey)
      expect(await (await client.get(TrafficPath.status)).json()).toMatchObject({ mode: 'memory', limits: { max_bytes: 2 * 1024 * 1024, max_exchanges: 3 } })
      const flaggedLive = await client.live()
      for (const id of ['l-1', 'l-2', 'l-3', 'l-4', 'l-5']) {
        await (await flagged.post('/v1/chat/completions', { ...userMessage(id), stream: false }, { 'x-request-id': id })).text()
        await flaggedLive.next(endOf(id), 1_000)
      }
      flaggedLive.close()
      expect((await client.list()).data.map((row) => row.request_id)).toEqual(['l-5', 'l-4', 'l-3'])
      expect(await (await client.get(TrafficPath.status)).json()).toMatchObject({ exchanges: 3, evicted: 2 })
    } finally {
      await flagged.close()
    }

    const configured = (args: string[]) => {
      const home = mkdtempSync(join(tmpdir(), 'mortar-capture-config-'))
      writeFileSync(join(home, 'config.json'), JSON.stringify({ capture: { mode: 'off', maxExchanges: 4, maxExchangeKilobytes: 64 } }))
      return startTestGateway(args, { home })
    }
    const off = await configured([])
    try {
      expect(await (await trafficClient(off.url, off.ownerKey).get(TrafficPath.status)).json()).toMatchObject({ mode: 'off' })
    } finally {
      await off.close()
    }
    const memory = await configured(['--capture', 'memory'])
    try {
      const status = await (await trafficClient(memory.url, memory.ownerKey).get(TrafficPath.status)).json()
      expect(status).toMatchObject({ mode: 'memory', limits: { max_exchanges: 4, max_exchange_bytes: 64 * 1024 } })
    } finally {
      await memory.close()
    }
  })
})

describe('--capture off', () => {
  it('keeps nothing, and says so', async () => {
    const off = await startTestGateway(['--capture', 'off'])
    try {
      const client = trafficClient(off.url, off.ownerKey)
      await (await off.post('/v1/chat/completions', { ...userMessage('x'), stream: false })).text()
      expect((await client.list()).data).toEqual([])
      expect(await (await client.get(TrafficPath.status)).json()).toMatchObject({ mode: 'off', exchanges: 0 })
      expect(off.output.join('\n')).toContain('Traffic capture: off')
    } finally {
      await off.close()
    }
  })
})

interface HarEntry {
  startedDateTime: string
  time: number
  request: { postData?: { text: string } }
  response: { status: number; content: { text: string; mimeType: string } }
  timings: { send: number; wait: number; receive: number }
}
