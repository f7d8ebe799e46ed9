import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { KeyStore } from '../gateway/auth/key-store'
import { startTestGateway, streamEvents, userMessage, type TestGateway } from './harness'

let gw: TestGateway
beforeAll(async () => {
  gw = await startTestGateway()
})
afterAll(() => gw.close())

/** Opens GET /v1/telemetry and hands back its events one by one, after the `: connected` comment. */
async function subscribe(key: string): Promise<AsyncGenerator<string>> {
  const response = await fetch(`${gw.url}/v1/telemetry`, { headers: { Authorization: `Bearer ${key}` } })
  expect(response.status).toBe(200)
  const events = streamEvents(response)
  expect((await events.next()).value).toBe(': connected')
  return events
}

/** Everything the stream still sends until it ends (pings aside). */
async function rest(events: AsyncGenerator<string>): Promise<string[]> {
  const seen: string[] = []
  for await (const event of events) if (event !== ': ping') seen.push(event)
  return seen
}

const ended = (code: string) => [expect.stringMatching(new RegExp(`^data: \\{"error":\\{.*"code":"${code}"`)) as unknown as string]

describe('a telemetry subscription lives as long as its key', () => {
  it('ends with a revoked_api_key event when its key is revoked over /v1/keys, and leaves other keys\' streams open', async () => {
    const doomed = gw.server.keys.create({ name: 'doomed watcher' })
    const survivor = gw.server.keys.create({ name: 'survivor' })
    const doomedEvents = await subscribe(doomed.key)
    const survivorEvents = await subscribe(survivor.key)

    const revoked = await fetch(`${gw.url}/v1/keys/${doomed.record.id}/revoke`, { method: 'POST', headers: { Authorization: `Bearer ${gw.ownerKey}` } })
    expect(revoked.status).toBe(200)
    expect(await rest(doomedEvents)).toEqual(ended('revoked_api_key'))

    // The other subscription still receives its org's events.
    await (await gw.post('/v1/chat/completions', userMessage('still watched'))).text()
    const next = await survivorEvents.next()
    expect(JSON.parse(String(next.value).slice('data: '.length))).toMatchObject({ type: 'request.accepted', org: 'default' })
    await survivorEvents.return(undefined)
  })

  it('ends when another process rotates its key away (mortar keys rotate)', async () => {
    const rotating = gw.server.keys.create({ name: 'rotated watcher' })
    const events = await subscribe(rotating.key)
    const otherProcess = new KeyStore(join(gw.home, 'keys.json'))
    otherProcess.rotate(rotating.record.id)
    otherProcess.close()
    expect(await rest(events)).toEqual(ended('revoked_api_key'))
    expect(gw.server.gateway.stats().telemetrySubscribers).toBe(0)
  })
})
