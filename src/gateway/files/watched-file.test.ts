import { mkdtempSync, rmSync, watch, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { writeFileAtomic } from './atomic-file'
import { WatchedFile } from './watched-file'

let dir: string
let file: string
let parses: number
let watched: WatchedFile<string>
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mortar-watched-'))
  file = join(dir, 'data.json')
  writeFileSync(file, 'one')
  parses = 0
  watched = new WatchedFile(file, (text) => {
    parses++
    return text ?? 'missing'
  })
})
afterEach(() => {
  watched.close()
  rmSync(dir, { recursive: true, force: true })
})

const lenient = () => watched.read({ strict: false })
const waitForEvents = { timeout: 3_000, interval: 5 }

describe('WatchedFile', () => {
  it('sees a file replaced atomically (as the CLI writes) once the watcher reports it', async () => {
    expect(lenient()).toBe('one')
    writeFileAtomic(file, 'two')
    await vi.waitFor(() => expect(lenient()).toBe('two'), waitForEvents)
  })

  it('sees a file written in place (as editors save) and one that was deleted', async () => {
    expect(lenient()).toBe('one')
    writeFileSync(file, 'three')
    await vi.waitFor(() => expect(lenient()).toBe('three'), waitForEvents)
    rmSync(file)
    await vi.waitFor(() => expect(lenient()).toBe('missing'), waitForEvents)
  })

  it('sees a change made before its watcher started', () => {
    expect(watched.read({ strict: true })).toBe('one')
    writeFileSync(file, 'four')
    expect(lenient()).toBe('four')
  })

  it('does not parse again while nothing changed, nor for other files in the directory', async () => {
    expect(lenient()).toBe('one')
    // A second watcher on the directory, registered after the file's: when it has heard of the
    // other file, so has the file's.
    const heard = new Promise<void>((resolve) => {
      const witness = watch(dir, (_event, filename) => {
        if (filename !== 'other.json') return
        witness.close()
        resolve()
      })
    })
    writeFileSync(join(dir, 'other.json'), 'x')
    const before = parses
    for (let i = 0; i < 100; i++) expect(lenient()).toBe('one')
    await heard
    expect(lenient()).toBe('one')
    expect(parses).toBe(before)
  })

  it('checks on every read once it no longer watches', () => {
    expect(lenient()).toBe('one')
    watched.close()
    writeFileSync(file, 'five')
    expect(lenient()).toBe('five')
  })

  it('strict reads always check', () => {
    expect(lenient()).toBe('one')
    writeFileSync(file, 'six')
    expect(watched.read({ strict: true })).toBe('six')
  })
})
