import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { runCli } from './run-cli'

let home: string
let out: string[]
let err: string[]
const io = { out: (l: string) => out.push(l), err: (l: string) => err.push(l) }
const run = (...args: string[]) => runCli([...args, '--home', home], io)

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'mortar-keys-'))
  out = []
  err = []
})
afterEach(() => rmSync(home, { recursive: true, force: true }))

describe('mortar keys', () => {
  it('creates a key, prints it once, and stores only its hash', async () => {
    expect(await run('keys', 'create', '--name', 'laptop', '--role', 'admin', '--org', 'acme')).toBe(0)
    const key = out.join('\n').match(/mk_live_[A-Za-z0-9]{40}/)?.[0]
    expect(key).toBeDefined()
    expect(out.join('\n')).toMatch(/Org:\s+acme/)
    expect(readFileSync(join(home, 'keys.json'), 'utf8')).not.toContain(key!)
    out = []
    expect(await run('keys', 'list')).toBe(0)
    expect(out.join('\n')).not.toContain(key!)
    expect(out[1]).toMatch(/laptop\tacme\tadmin\tgateway\tmk_live_\w{4}…\w{4}\tactive\t/)
  })

  it('gives a key its own dialect with --dialect, shows it, and keeps it when rotating', async () => {
    expect(await run('keys', 'create', '--name', 'ai-sdk', '--dialect', 'openai')).toBe(0)
    expect(out.join('\n')).toMatch(/Dialect: openai/)
    out = []
    await run('keys', 'list')
    expect(out[0]).toBe('ID\tNAME\tORG\tROLE\tDIALECT\tKEY\tSTATUS\tEXPIRES')
    expect(out[1]).toMatch(/\tai-sdk\tdefault\tmember\topenai\t/)
    const id = out[1]!.split('\t')[0]!
    out = []
    await run('keys', 'rotate', id, '--json')
    expect(JSON.parse(out[0]!)).toMatchObject({ name: 'ai-sdk', dialect: 'openai', rotatedFrom: id })
    expect(await run('keys', 'create', '--name', 'x', '--dialect', 'anthropic')).toBe(2)
    expect(err.join('\n')).toContain('--dialect takes mortar or openai; got "anthropic"')
  })

  it('defaults to 30 days, takes --expires-in never', async () => {
    await run('keys', 'create', '--name', 'a', '--json')
    await run('keys', 'create', '--name', 'b', '--expires-in', 'never', '--json')
    const [a, b] = out.map((line) => JSON.parse(line) as { createdAt: string; expiresAt: string | null; role: string })
    expect(Date.parse(a!.expiresAt!) - Date.parse(a!.createdAt)).toBe(30 * 86_400_000)
    expect(a!.role).toBe('member')
    expect(b!.expiresAt).toBeNull()
  })

  it('revokes and rotates by ID', async () => {
    await run('keys', 'create', '--name', 'ci', '--expires-in', '7', '--json')
    const created = JSON.parse(out[0]!) as { id: string; key: string }
    out = []
    expect(await run('keys', 'rotate', created.id, '--json')).toBe(0)
    const rotated = JSON.parse(out[0]!) as { id: string; key: string; name: string; rotatedFrom: string; createdAt: string; expiresAt: string }
    expect(rotated.key).not.toBe(created.key)
    expect(rotated.name).toBe('ci')
    expect(rotated.rotatedFrom).toBe(created.id)
    expect(Date.parse(rotated.expiresAt) - Date.parse(rotated.createdAt)).toBe(7 * 86_400_000)
    out = []
    await run('keys', 'list', '--json')
    const statuses = Object.fromEntries((JSON.parse(out[0]!) as Array<{ id: string; status: string }>).map((k) => [k.id, k.status]))
    expect(statuses).toEqual({ [created.id]: 'revoked', [rotated.id]: 'active' })
    expect(await run('keys', 'revoke', rotated.id)).toBe(0)
    expect(await run('keys', 'revoke', rotated.id)).toBe(1)
    expect(err.join('\n')).toContain('already revoked')
  })

  it('explains usage mistakes with exit code 2', async () => {
    expect(await run('keys', 'create')).toBe(2)
    expect(await run('keys', 'create', '--name', 'x', '--role', 'god')).toBe(2)
    expect(await run('keys', 'create', '--name', 'x', '--expires-in', '1.5')).toBe(2)
    expect(await run('keys', 'rotate')).toBe(2)
    expect(await run('keys', 'frobnicate')).toBe(2)
    expect(await run('keys', 'list', '--bogus')).toBe(2)
    // Each names the command's own help.
    expect(err.filter((line) => /^Run `mortar keys( \w+)? --help` for its options\.$/.test(line))).toHaveLength(6)
  })

  it('reports a corrupt key file by name and leaves it untouched', async () => {
    const { writeFileSync } = await import('node:fs')
    const file = join(home, 'keys.json')
    writeFileSync(file, '{"version": 1, "keys": [{"id": 3}]}')
    expect(await run('keys', 'create', '--name', 'x')).toBe(1)
    expect(err.join('\n')).toContain(file)
    expect(readFileSync(file, 'utf8')).toBe('{"version": 1, "keys": [{"id": 3}]}')
  })
})
