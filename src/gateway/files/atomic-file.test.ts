import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { writeFileAtomic } from './atomic-file'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mortar-atomic-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('writeFileAtomic', () => {
  it('replaces the file whole, owner-only', () => {
    const file = join(dir, 'keys.json')
    writeFileSync(file, 'old')
    writeFileAtomic(file, 'new')
    expect(readFileSync(file, 'utf8')).toBe('new')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(readdirSync(dir)).toEqual(['keys.json'])
  })

  it('leaves neither a torn file nor its temp file when the final step fails', () => {
    const target = join(dir, 'config.json')
    mkdirSync(target) // a directory where the file should go: the rename fails
    expect(() => writeFileAtomic(target, '{}')).toThrow()
    expect(readdirSync(dir)).toEqual(['config.json'])
  })

  it('never lets a reader see a half-written file, even when the writer is killed mid-write', async () => {
    const file = join(dir, 'big.json')
    writeFileAtomic(file, JSON.stringify({ n: 0, pad: 'x'.repeat(2_000_000) }))
    // A separate process rewrites the file in a loop; we kill it at a random moment while reading.
    // A separate process rewrites the file in a loop with writeFileAtomic itself; we kill it at a
    // moment while reading.
    const writer = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `const loaded = await import(${JSON.stringify(join(__dirname, 'atomic-file.ts'))});
         const { writeFileAtomic } = loaded.default ?? loaded;
         for (let n = 1; ; n++) {
           writeFileAtomic(${JSON.stringify(file)}, JSON.stringify({ n, pad: 'x'.repeat(2_000_000) }));
           if (n === 1) process.stdout.write('started');
         }`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    )
    await new Promise<void>((resolve, reject) => {
      writer.stdout.once('data', () => resolve())
      writer.once('exit', (code) => reject(new Error(`the writer exited early (${code})`)))
    })
    let reads = 0
    for (let i = 0; i < 40; i++) {
      const parsed = JSON.parse(readFileSync(file, 'utf8')) as { n: number }
      expect(parsed.n).toBeGreaterThanOrEqual(0)
      reads++
      if (i === 20) writer.kill('SIGKILL')
    }
    await new Promise((resolve) => writer.once('exit', resolve))
    // Killed mid-write or not, the file is one whole version, and no temp file is mistaken for it.
    const final = JSON.parse(readFileSync(file, 'utf8')) as { n: number; pad: string }
    expect(final.pad).toHaveLength(2_000_000)
    expect(reads).toBe(40)
  })
})
