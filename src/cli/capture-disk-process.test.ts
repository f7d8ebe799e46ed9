import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { TrafficPath } from '../shared/api/traffic'
import { trafficClient } from '../integration/traffic-client'
import { spawnMortar, stopAllMortars } from './test-support/spawn-mortar'

// `mortar serve --capture disk`: two real processes, one after the other, on the same home. What
// the first captured is there for the second, and the retention limits hold across the restart.

const homes: string[] = []
afterEach(() => {
  stopAllMortars()
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true })
})

async function serve(home: string, args: string[] = []) {
  const mortar = spawnMortar(['serve', '--port', '0', '--capture', 'disk', ...args], { home })
  const [, url = ''] = await mortar.line(/listening on (http:\/\/\S+)/)
  await mortar.line(/Traffic capture: disk/)
  return { mortar, url }
}

async function stop(mortar: ReturnType<typeof spawnMortar>) {
  mortar.child.kill('SIGINT')
  expect(await mortar.exited).toBe(0)
}

describe('mortar serve --capture disk', () => {
  it('keeps exchanges across a restart, refusals included, and holds its count limit', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mortar-disk-proc-'))
    homes.push(home)
    const first = await serve(home, ['--capture-max-exchanges', '3'])
    const [, key = ''] = await first.mortar.line(/^ +(mk_live_\w+)$/)
    const chat = (body: unknown, headers: Record<string, string>) =>
      fetch(`${first.url}/v1/chat/completions`, { method: 'POST', headers: { Authorization: `Bearer ${key}`, ...headers }, body: JSON.stringify(body) }).then((r) => r.text())
    await chat({ messages: [{ role: 'user', content: 'one' }], stream: false }, { 'x-request-id': 'disk-1' })
    await chat({ messages: [{ role: 'user', content: 'two, streamed' }], stream: true }, { 'x-request-id': 'disk-2' })
    await chat({ messages: [{ role: 'user', content: 'three' }], stream: false }, { 'x-request-id': 'disk-3', Authorization: 'Bearer mk_live_wrong' })
    await chat({ messages: 'not a list' }, { 'x-request-id': 'disk-4' })
    const before = await trafficClient(first.url, key).list()
    await stop(first.mortar)

    const second = await serve(home, ['--capture-max-exchanges', '3'])
    const traffic = trafficClient(second.url, key)
    const after = await traffic.list()
    expect(after.data.map((row) => row.request_id)).toEqual(['disk-4', 'disk-3', 'disk-2'])
    expect(after.data).toEqual(before.data)
    const streamed = await traffic.exchange(after.data[2]?.id ?? '')
    expect(streamed.response.frames.at(-1)?.raw).toBe('data: [DONE]\n\n')
    expect(streamed.request.body).toContain('two, streamed')
    expect(after.data[1]).toMatchObject({ outcome: 'refused', status: 401, client: { kind: 'unknown' } })
    const status = await (await traffic.get(TrafficPath.status)).json()
    expect(status).toMatchObject({ mode: 'disk', exchanges: 3, limits: { max_exchanges: 3, retention_days: 7 } })
    await stop(second.mortar)
  })

  it('says why it cannot start when the database is from a newer Mortar', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mortar-disk-proc-'))
    homes.push(home)
    const first = await serve(home)
    await stop(first.mortar)
    const { loadSqliteDriver } = await import('../gateway/capture/sqlite-driver')
    const Driver = await loadSqliteDriver()
    const db = new Driver(join(home, 'traffic.sqlite'))
    db.prepare('UPDATE schema_version SET version = version + 1').run()
    db.close()
    const second = spawnMortar(['serve', '--port', '0', '--capture', 'disk'], { home })
    expect(await second.exited).toBe(1)
    expect(second.stderr()).toMatch(/newer Mortar/)
  })
})
