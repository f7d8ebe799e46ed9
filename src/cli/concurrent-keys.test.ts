import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { KeyFile } from '../gateway/auth/key-records'
import type { CreatedApiKey } from '../shared/api/keys'
import { startTestGateway, type TestGateway } from '../integration/harness'

// The real `mortar` binary, as a user runs it (built by `npm run build`, which `npm test` runs first).
const BIN = resolve(__dirname, '../../bin/mortar.js')
const BUILT = resolve(__dirname, '../../out/main/cli.js')
const EACH = 10

let gw: TestGateway
beforeAll(async () => {
  gw = await startTestGateway([], { home: mkdtempSync(join(tmpdir(), 'mortar-race-')) })
})
afterAll(() => gw?.close())

function mortarKeys(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [BIN, 'keys', ...args, '--home', gw.home], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.once('error', reject)
    child.once('close', (code) => resolveRun({ code, stdout, stderr }))
  })
}

describe('concurrent changes of keys.json', () => {
  it('lose nothing: CLI processes and /v1/keys creating and revoking at once', async () => {
    if (!existsSync(BUILT)) throw new Error('out/main/cli.js is missing: run `npm run build` before these tests')
    const toRevoke = Array.from({ length: EACH }, (_, i) => gw.server.keys.create({ name: `doomed-${i}` }))

    const [revokes, cliCreates, apiCreates] = await Promise.all([
      Promise.all(toRevoke.map(({ record }) => mortarKeys(['revoke', record.id]))),
      Promise.all(Array.from({ length: EACH }, (_, i) => mortarKeys(['create', '--name', `cli-${i}`, '--json']))),
      Promise.all(
        Array.from({ length: EACH }, (_, i) =>
          fetch(`${gw.url}/v1/keys`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${gw.ownerKey}` },
            body: JSON.stringify({ name: `api-${i}` }),
          }),
        ),
      ),
    ])

    for (const run of [...revokes, ...cliCreates]) expect(run, run.stderr).toMatchObject({ code: 0, stderr: '' })
    for (const response of apiCreates) expect(response.status).toBe(201)
    const created = [
      ...cliCreates.map((run) => JSON.parse(run.stdout) as { id: string; key: string }),
      ...((await Promise.all(apiCreates.map((r) => r.json()))) as CreatedApiKey[]),
    ]

    const onDisk = (JSON.parse(readFileSync(join(gw.home, 'keys.json'), 'utf8')) as KeyFile).keys
    const byId = new Map(onDisk.map((record) => [record.id, record]))
    for (const { id } of created) expect(byId.get(id)?.revokedAt, `created key ${id}`).toBeNull()
    for (const { record } of toRevoke) expect(byId.get(record.id)?.revokedAt, `revoked key ${record.id}`).not.toBeNull()
    expect(onDisk).toHaveLength(1 + 3 * EACH)
    // And the running gateway agrees: every created key works, every revoked one is refused.
    for (const { key } of created) expect(gw.server.keys.authenticate(key).ok).toBe(true)
    for (const { key } of toRevoke) expect(gw.server.keys.authenticate(key)).toMatchObject({ ok: false, reason: 'revoked' })
  }, 120_000)
})
