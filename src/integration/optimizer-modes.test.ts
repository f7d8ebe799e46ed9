import { DEFAULT_MODEL_ID } from '../shared/api/chat-request'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestGateway, type TestGateway } from './harness'

// A conversation that ends with a pretty-printed JSON tool result: what json-compact exists for.
const toolResult = JSON.stringify({ city: 'Paris', forecast: [{ day: 'mon', temp_c: 21 }, { day: 'tue', temp_c: 19 }], note: 'keep  these  spaces' }, null, 4)
const body = {
  messages: [
    { role: 'user', content: 'Weather?' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
    { role: 'tool', tool_call_id: 'c1', content: toolResult },
  ],
  tools: [{ type: 'function', function: { name: 'get_weather' } }],
  stream: false,
}

interface Answer {
  report: string | null
  promptTokens: number
}

const ask = async (gw: TestGateway, headers: Record<string, string> = {}, key = gw.ownerKey): Promise<Answer> => {
  const response = await gw.post('/v1/chat/completions', body, { Authorization: `Bearer ${key}`, ...headers })
  expect(response.status).toBe(200)
  const completion = (await response.json()) as { usage: { prompt_tokens: number } }
  return { report: response.headers.get('x-mortar-optimizer'), promptTokens: completion.usage.prompt_tokens }
}

const REPORT = /^ruleset=2; mode=(on|shadow); bytes=(\d+); saved=(\d+); passes=([a-z-]+\/\d+(,[a-z-]+\/\d+)*); elapsed_us=\d+$/
const saved = (report: string | null) => Number(REPORT.exec(report ?? '')?.[3])

describe('deployment mode shadow (the default)', () => {
  let gw: TestGateway
  beforeAll(async () => {
    gw = await startTestGateway()
  })
  afterAll(() => gw.close())

  it('measures without changing the prompt: prompt_tokens equal to off', async () => {
    const shadow = await ask(gw)
    const off = await ask(gw, { 'X-Mortar-Optimize': 'off' })
    expect(shadow.report).toMatch(REPORT)
    expect(shadow.report).toContain('mode=shadow')
    expect(saved(shadow.report)).toBe(Buffer.byteLength(toolResult) - Buffer.byteLength(JSON.stringify(JSON.parse(toolResult))))
    expect(off.report).toBe('ruleset=2; mode=off')
    expect(shadow.promptTokens).toBe(off.promptTokens)
  })
})

describe('deployment mode on', () => {
  let gw: TestGateway
  let home: string
  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'mortar-opt-'))
    writeFileSync(join(home, 'config.json'), JSON.stringify({
      version: 1,
      models: [{ id: DEFAULT_MODEL_ID, tokenizer: 'qwen2.5', deployment: { kind: 'scripted' } }],
      organizations: { frugal: { optimize: 'off' } },
    }))
    gw = await startTestGateway(['--optimizer', 'on'], { home })
  })
  afterAll(() => gw.close())

  it('applies the lossless defaults: fewer prompt tokens than off, and says what it saved', async () => {
    const on = await ask(gw)
    const off = await ask(gw, { 'X-Mortar-Optimize': 'off' })
    expect(on.report).toMatch(REPORT)
    expect(on.report).toContain('mode=on')
    expect(on.report).toContain('passes=json-compact/1')
    expect(saved(on.report)).toBeGreaterThan(0)
    expect(on.promptTokens).toBeLessThan(off.promptTokens)
  })

  it("follows the organization's default off, which the header's `on` overrides", async () => {
    const frugal = gw.createKey({ org: 'frugal' })
    expect((await ask(gw, {}, frugal)).report).toBe('ruleset=2; mode=off')
    expect((await ask(gw, { 'X-Mortar-Optimize': 'on' }, frugal)).report).toContain('mode=on')
  })

  it('runs opt-in passes named in the header, and refuses unknown values', async () => {
    expect((await ask(gw, { 'X-Mortar-Optimize': 'collapse-spaces' })).report).toContain('collapse-spaces/')
    const refused = await gw.post('/v1/chat/completions', body, { 'X-Mortar-Optimize': 'make-it-shorter' })
    expect(refused.status).toBe(400)
    expect(((await refused.json()) as { error: { param: string } }).error.param).toBe('X-Mortar-Optimize')
  })
})

describe('deployment mode off', () => {
  it('lets no header turn it on', async () => {
    const gw = await startTestGateway(['--optimizer', 'off'])
    try {
      expect((await ask(gw, { 'X-Mortar-Optimize': 'on' })).report).toBe('ruleset=2; mode=off')
    } finally {
      await gw.close()
    }
  })
})
