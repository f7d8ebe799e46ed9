import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { KeyBoundStreams } from './key-bound-streams'
import { KeyStore } from './key-store'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mortar-bound-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('KeyBoundStreams', () => {
  it('ends a stream when its key expires by the store clock, and leaves per-launch keys alone', () => {
    let now = new Date('2026-03-01T00:00:00Z')
    const store = new KeyStore(join(dir, 'keys.json'), () => now)
    const streams = new KeyBoundStreams(store)
    const { record } = store.create({ name: 'short-lived', expiresInDays: 1 })
    const ended: string[] = []
    streams.add(record.id, (validity) => ended.push(`${record.id}:${validity}`))
    streams.add('ephemeral:ui', (validity) => ended.push(`ui:${validity}`))

    streams.check()
    expect(ended).toEqual([])
    now = new Date('2026-03-02T00:00:00Z')
    streams.check()
    expect(ended).toEqual([`${record.id}:expired`])
    expect(streams.size).toBe(1)
    streams.close()
    store.close()
  })

  it('checks at once after a change this process makes, and forgets streams that ended by themselves', () => {
    const store = new KeyStore(join(dir, 'keys.json'))
    const streams = new KeyBoundStreams(store)
    const a = store.create({ name: 'a' }).record
    const b = store.create({ name: 'b' }).record
    const ended: string[] = []
    streams.add(a.id, (validity) => ended.push(`a:${validity}`))
    const unbindB = streams.add(b.id, (validity) => ended.push(`b:${validity}`))
    unbindB()
    store.revoke(b.id)
    expect(ended).toEqual([])
    store.revoke(a.id)
    expect(ended).toEqual(['a:revoked'])
    expect(streams.size).toBe(0)
    streams.close()
    store.close()
  })
})
