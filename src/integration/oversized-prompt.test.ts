import { DEFAULT_MODEL_ID } from '../shared/api/chat-request'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestGateway, streamEvents, type TestGateway } from './harness'
import { endOf, trafficClient } from './traffic-client'

// One client's oversized prompt must not freeze everybody else's stream: the gateway refuses it on
// a cheap bound, or counts it in slices that yield to the event loop. Measured as a client sees
// it: the largest gap between two chunks of another stream, paced at 200 tokens/s (a chunk every
// 5 ms), while the oversized prompt is read, planned and answered. This is the one timed test the
// requirement asks for (under 50 ms); before slicing, an 8 MB prompt held the loop for seconds.
//
// A gap counts for the CPU time this process spent in it, when that is less than the wall-clock
// gap: on a machine shared with other work the process may simply not be scheduled for a while,
// which is no stall of the gateway's making, while a blocked event loop burns CPU all through.

const MAX_GAP_MS = 50
const execFileAsync = promisify(execFile)

let gw: TestGateway
/** Capture off and no completion observer: only the response itself reads a usage estimate. */
let unobserved: TestGateway
/** Capture on and no completion observer, as `mortar serve` runs: the record makes its own estimate. */
let capturedOnly: TestGateway
beforeAll(async () => {
  const homeWithModels = () => {
    const home = mkdtempSync(join(tmpdir(), 'mortar-oversized-'))
    // The default model (4,096 tokens) and one whose window makes counting, not the bound, decide.
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        version: 1,
        models: [
          { id: DEFAULT_MODEL_ID, tokenizer: 'qwen2.5', contextWindow: 4_096, deployment: { kind: 'scripted' } },
          { id: 'wide', tokenizer: 'qwen2.5', contextWindow: 10_000_000, deployment: { kind: 'scripted' } },
        ],
      }),
    )
    return home
  }
  const args = ['--scripted-tps', '200', '--optimizer', 'off']
  gw = await startTestGateway(args, { home: homeWithModels() })
  unobserved = await startTestGateway([...args, '--capture', 'off'], { home: homeWithModels(), observeCompletions: false })
  capturedOnly = await startTestGateway(args, { home: homeWithModels(), observeCompletions: false })
})
afterAll(async () => {
  await gw.close()
  await unobserved.close()
  await capturedOnly.close()
})

/** CPU time this process has used, in ms (all its threads). */
function cpuMs(): number {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

/**
 * Starts a paced stream, sends `body` once its first chunk is in, and returns the oversized
 * request's response and the largest gap between the stream's chunks meanwhile.
 */
async function gapWhile(body: string, path = '/v1/chat/completions', target = gw): Promise<{ status: number; text: string; maxGapMs: number }> {
  const stream = await fetch(`${target.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${target.ownerKey}` },
    body: JSON.stringify({ stream: true, max_tokens: 2_000, messages: [{ role: 'user', content: 'steady '.repeat(1_500) }] }),
  })
  expect(stream.status).toBe(200)
  const bodyFile = join(target.home, 'oversized.json')
  writeFileSync(bodyFile, body)
  const events = streamEvents(stream)
  await events.next()
  let last = performance.now()
  let lastCpu = cpuMs()
  let maxGapMs = 0
  let oversizedDone = false
  // Sent by another process (curl), as another client would be: its own work (building and
  // writing 8 MB) must not count against the gateway's event loop.
  const oversized = execFileAsync('curl', [
    '-sS', '-X', 'POST', `${target.url}${path}`,
    '-H', `Authorization: Bearer ${target.ownerKey}`, '-H', 'Content-Type: application/json', '-H', 'anthropic-version: 2023-06-01',
    '--data-binary', `@${bodyFile}`, '-w', '\n%{http_code}',
  ]).then(({ stdout }) => {
    const lines = stdout.trimEnd().split('\n')
    const status = Number(lines.pop())
    return { status, text: lines.join('\n') }
  })
  void oversized.finally(() => (oversizedDone = true))
  for await (const event of { [Symbol.asyncIterator]: () => events }) {
    const now = performance.now()
    const cpu = cpuMs()
    maxGapMs = Math.max(maxGapMs, Math.min(now - last, cpu - lastCpu))
    last = now
    lastCpu = cpu
    if (oversizedDone || event === 'data: [DONE]') break
  }
  await events.return(undefined)
  expect(oversizedDone).toBe(true)
  return { ...(await oversized), maxGapMs }
}

const errorOf = (text: string) => (JSON.parse(text) as { error?: { code?: string; message?: string } }).error ?? {}

const prompt = (model: string, content: string, extra: object = {}) =>
  JSON.stringify({ model, max_tokens: 1, messages: [{ role: 'user', content }], ...extra })

/**
 * `bytes` of varied prose: words the tokenizer's cache has not seen. Written into one buffer, so
 * that making it leaves no hundred thousand live strings behind for the collector to move in the
 * middle of the measurement: the pause that is timed is then the gateway's, not the test's.
 */
function variedText(bytes: number): string {
  const out = Buffer.allocUnsafe(bytes + 128)
  let length = 0
  for (let i = 0; length < bytes; i++) length += out.write(`Item ${i} costs ${(i * 7919) % 100_003} units; see section ${i.toString(36)}. `, length, 'latin1')
  return out.toString('latin1', 0, length)
}

// A major garbage collection after megabytes of strings can still take tens of ms on a loaded
// machine; a retry tells that from a stall the gateway causes, which fails every run.
describe('an oversized prompt', { retry: 2 }, () => {
  it('of 8 MB is refused on the byte bound, and another stream keeps flowing', async () => {
    const result = await gapWhile(prompt(DEFAULT_MODEL_ID, variedText(8_000_000)))
    expect(result.status).toBe(400)
    expect(errorOf(result.text).code).toBe('context_length_exceeded')
    expect(errorOf(result.text).message).toContain('at least')
    expect(result.maxGapMs).toBeLessThan(MAX_GAP_MS)
  })

  it('of 1 MB of spaces is refused, and another stream keeps flowing', async () => {
    const result = await gapWhile(prompt(DEFAULT_MODEL_ID, ' '.repeat(1_000_000)))
    expect(result.status).toBe(400)
    expect(errorOf(result.text).code).toBe('context_length_exceeded')
    expect(result.maxGapMs).toBeLessThan(MAX_GAP_MS)
  })

  it('that may fit a huge window is counted in slices (2 MB of prose), and another stream keeps flowing', async () => {
    const result = await gapWhile(prompt('wide', variedText(2_000_000), { stream: false }))
    expect(result.status).toBe(200)
    expect(result.maxGapMs).toBeLessThan(MAX_GAP_MS)
    const record = gw.completions.find((completion) => completion.model === 'wide')
    expect(record?.usage.prompt_tokens).toBeGreaterThan(500_000)
  })

  it('streamed from the Messages API (2 MB of prose), is counted in slices for message_start, as count_tokens counts it', async () => {
    const messages = [{ role: 'user', content: variedText(2_000_000) }]
    const result = await gapWhile(JSON.stringify({ model: 'wide', max_tokens: 1, stream: true, messages }), '/v1/messages')
    expect(result.status).toBe(200)
    expect(result.maxGapMs).toBeLessThan(MAX_GAP_MS)
    const start = /^event: message_start\ndata: (.*)$/m.exec(result.text)?.[1]
    const inputTokens = (JSON.parse(start ?? '{}') as { message?: { usage?: { input_tokens?: number } } }).message?.usage?.input_tokens
    expect(inputTokens).toBeGreaterThan(500_000)
    const counted = await gw.post('/v1/messages/count_tokens', { model: 'wide', messages })
    expect(await counted.json()).toEqual({ input_tokens: inputTokens })
  })

  it('answered as JSON with nobody else reading its count, is counted in slices for the reply\'s usage', async () => {
    const content = variedText(2_000_000)
    const result = await gapWhile(prompt('wide', content, { stream: false }), '/v1/chat/completions', unobserved)
    expect(result.status).toBe(200)
    expect(result.maxGapMs).toBeLessThan(MAX_GAP_MS)
    const usage = (JSON.parse(result.text) as { usage?: { prompt_tokens?: number } }).usage
    expect(usage?.prompt_tokens).toBeGreaterThan(500_000)
  })

  it('streamed with include_usage and nobody else reading its count, is counted in slices for the usage chunk', async () => {
    const result = await gapWhile(prompt('wide', variedText(2_000_000), { stream: true, stream_options: { include_usage: true } }), '/v1/chat/completions', unobserved)
    expect(result.status).toBe(200)
    expect(result.maxGapMs).toBeLessThan(MAX_GAP_MS)
    const usageChunk = result.text.split('\n\n').find((event) => event.includes('"usage":{'))
    const usage = (JSON.parse(usageChunk?.slice('data: '.length) ?? '{}') as { usage?: { prompt_tokens?: number } }).usage
    expect(usage?.prompt_tokens).toBeGreaterThan(500_000)
  })
})

describe('a client that leaves while its long prompt is counted', () => {
  it.each([
    ['with a completion observer (the record is made at the end)', () => gw],
    ['as mortar serve runs, with none (the record makes its estimate when it is built)', () => capturedOnly],
  ])('is still captured with its outcome and its prompt counted, %s', async (how, target) => {
    const gateway = target()
    const live = await trafficClient(gateway.url, gateway.ownerKey).live()
    try {
      const requestId = 'leaves-while-counted'
      const controller = new AbortController()
      // No usage from the scripted model: the record's estimate counts 300 KB, in slices, after the
      // client left (a text of each case's own: the counter's cache is the process's, shared).
      const body = JSON.stringify({ model: 'wide', stream: true, max_tokens: 2_000, messages: [{ role: 'user', content: `${how}\n${variedText(300_000)}` }] })
      const response = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${gateway.ownerKey}`, 'x-request-id': requestId },
        body,
        signal: controller.signal,
      })
      expect(response.status).toBe(200)
      await streamEvents(response).next()
      controller.abort()
      const ended = await live.next(endOf(requestId), 10_000)
      if (ended.type !== 'exchange.ended') throw new Error('unreachable')
      const exchange = await trafficClient(gateway.url, gateway.ownerKey).exchange(ended.exchange.id)
      expect(exchange).toMatchObject({ outcome: 'disconnected', model: 'wide', usage_source: 'estimate' })
      expect(exchange.usage?.prompt_tokens).toBeGreaterThan(50_000)
    } finally {
      live.close()
    }
  })
})
