import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sessionPrefixesPath, sessionPrefixesSchema } from '../shared/api/session-prefixes'
import { startTestGateway, type TestGateway } from './harness'
import { endOf, trafficClient, type LiveTraffic } from './traffic-client'

// GET /v1/traffic/sessions/{session}/prefixes over HTTP, on exchanges the gateway captured.

let gw: TestGateway
let live: LiveTraffic
beforeAll(async () => {
  gw = await startTestGateway()
  live = await trafficClient(gw.url, gw.ownerKey).live()
})
afterAll(async () => {
  live.close()
  await gw.close()
})

async function send(id: string, session: string, messages: object[], key = gw.ownerKey): Promise<void> {
  const response = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'X-Mortar-Session': session, 'x-request-id': id },
    body: JSON.stringify({ messages, stream: false }),
  })
  await response.text()
  await live.next(endOf(id), 2_000)
}

const prefixes = async (session: string, key = gw.ownerKey) => {
  const response = await fetch(`${gw.url}${sessionPrefixesPath(session)}`, { headers: { Authorization: `Bearer ${key}` } })
  return { status: response.status, body: (await response.json()) as unknown }
}

describe('session prefixes', () => {
  it('compares each prompt of a session with the previous one, oldest first, in the model’s tokens', async () => {
    const first = [{ role: 'user', content: 'Plan the refactor of the parser module.' }]
    const second = [...first, { role: 'assistant', content: 'Plan the refactor of the parser module.' }, { role: 'user', content: 'Go on.' }]
    const third = [{ role: 'system', content: 'Be terse.' }, ...second]
    await send('sp-1', 'agent', first)
    await send('sp-2', 'agent', second)
    await send('sp-other', 'someone-else', first)
    await send('sp-3', 'agent', third)
    const { status, body } = await prefixes('agent')
    expect(status).toBe(200)
    const result = sessionPrefixesSchema.parse(body)
    expect(result.data.map((entry) => entry.prompt_tokens !== null)).toEqual([true, true, true])
    const [a, b, c] = result.data
    expect(a?.shared_prefix_tokens).toBeNull()
    // The scripted model's usage counts the same rendered prompt: the route agrees with it.
    const usage = (await trafficClient(gw.url, gw.ownerKey).list({ session: 'agent' })).data.reverse().map((row) => row.usage?.prompt_tokens)
    expect(result.data.map((entry) => entry.prompt_tokens)).toEqual(usage)
    expect(b?.shared_prefix_tokens).toBe(a?.prompt_tokens)
    expect(b?.first_difference).toBeNull()
    expect(b?.exact).toBe(true)
    // A system message replaces the default one: the prefix breaks inside the system block.
    expect(c?.first_difference?.before.endsWith('system\n')).toBe(true)
    expect(c?.first_difference?.current.startsWith('Be terse.')).toBe(true)
    // Shared: <|im_start|>, "system" and the line end; then the default system text and "Be terse." part.
    expect(c?.shared_prefix_tokens).toBe(3)
  })

  it('is scoped to the key’s organization, and an unknown session is an empty list', async () => {
    const other = gw.createKey({ org: 'elsewhere', role: 'member' })
    const { status, body } = await prefixes('agent', other)
    expect(status).toBe(200)
    expect(sessionPrefixesSchema.parse(body).data).toEqual([])
    expect(sessionPrefixesSchema.parse((await prefixes('nobody')).body).data).toEqual([])
  })

  it('needs a key, like the rest of the traffic API', async () => {
    const response = await fetch(`${gw.url}${sessionPrefixesPath('agent')}`)
    expect(response.status).toBe(401)
  })
})
