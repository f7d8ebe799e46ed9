import { chmodSync, chownSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { KeyStore } from '../gateway/auth/key-store'
import { spawnMortar, stopAllMortars } from './test-support/spawn-mortar'

afterEach(stopAllMortars)

describe('mortar serve (the real process)', () => {
  it('prints its URL and first key, serves, and on SIGINT ends live streams with [DONE] and exits 0', async () => {
    const mortar = spawnMortar(['serve', '--port', '0', '--scripted-tps', '100'])
    const [, url] = await mortar.line(/listening on (http:\/\/\S+)/)
    const [, key] = await mortar.line(/^ +(mk_live_\w+)$/)
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}` },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'tick '.repeat(500) }], stream_options: { include_usage: true } }),
    })
    const reader = response.body!.getReader()
    const first = await reader.read()
    expect(new TextDecoder().decode(first.value)).toContain('"role":"assistant"')

    mortar.child.kill('SIGINT')
    let rest = ''
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      rest += new TextDecoder().decode(value)
    }
    expect(rest.trimEnd().endsWith('data: [DONE]')).toBe(true)
    expect(rest).not.toContain('"finish_reason":"')
    expect(rest).toContain('"usage"')
    expect(await mortar.exited).toBe(0)
    expect(mortar.lines.join('\n')).toMatch(/SIGINT: shutting down, stopping 1 live generation\./)
    expect(mortar.lines.at(-1)).toBe('Gateway stopped.')
  })

  it('exits 0 on SIGTERM when idle', async () => {
    const mortar = spawnMortar(['serve', '--port', '0'])
    await mortar.line(/listening on/)
    mortar.child.kill('SIGTERM')
    expect(await mortar.exited).toBe(0)
  })

  it('says clearly when the port is taken, and exits 1', async () => {
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    const port = (blocker.address() as { port: number }).port
    try {
      const mortar = spawnMortar(['serve', '--port', String(port)])
      expect(await mortar.exited).toBe(1)
      expect(mortar.stderr()).toContain(`Port ${port} on 127.0.0.1 is already in use`)
    } finally {
      blocker.close()
    }
  })

  it('when start-up fails after listening (a read-only home: no first key), closes the listener and exits 1 before printing a URL', async () => {
    const mortar = spawnMortar(['serve', '--port', '0'], { readOnlyHome: true })
    // Exiting at all proves the listener is closed: an open server would keep the process alive.
    expect(await mortar.exited).toBe(1)
    expect(mortar.stderr()).toMatch(/^mortar: Cannot create the lock file .*keys\.json\.lock: EACCES/)
    expect(mortar.lines.join('\n')).not.toMatch(/listening|UI:|mk_live_/)
  })

  it('starts from a read-only home that already has keys: nothing to write, so no lock to take', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mortar-proc-'))
    try {
      new KeyStore(join(home, 'keys.json')).create({ name: 'existing', role: 'owner' })
      // As root the process runs as `nobody` (spawnMortar), which must be able to read the keys.
      if (process.getuid?.() === 0) chownSync(join(home, 'keys.json'), 65534, 65534)
      const mortar = spawnMortar(['serve', '--port', '0'], { readOnlyHome: true, home })
      await mortar.line(/listening on/)
      mortar.child.kill('SIGTERM')
      expect(await mortar.exited).toBe(0)
      expect(mortar.lines.join('\n')).not.toContain('No API keys existed')
    } finally {
      chmodSync(home, 0o700)
      rmSync(home, { recursive: true, force: true })
    }
  })

  it('refuses bad flags with exit code 2', async () => {
    const mortar = spawnMortar(['serve', '--port', 'eighty'])
    expect(await mortar.exited).toBe(2)
    expect(mortar.stderr()).toContain('--port takes a whole number')
  })
})
