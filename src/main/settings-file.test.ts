import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { defaultDesktopSettings } from '../shared/desktop-settings'
import { SettingsFile } from './settings-file'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mortar-settings-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('SettingsFile', () => {
  it('gives the defaults when there is no file', () => {
    expect(new SettingsFile(join(dir, 'settings.json')).read()).toEqual(defaultDesktopSettings())
  })

  it('writes owner-only, atomically (no temp file left), and reads back what it wrote', () => {
    const path = join(dir, 'sub', 'settings.json')
    const file = new SettingsFile(path)
    const settings = defaultDesktopSettings()
    settings.gateway.modelServers = ['http://127.0.0.1:8000/v1']
    file.write(settings)
    expect(file.read()).toEqual(settings)
    if (process.platform !== 'win32') {
      expect(statSync(path).mode & 0o777).toBe(0o600)
      expect(statSync(join(dir, 'sub')).mode & 0o777).toBe(0o700)
    }
    expect(readdirSync(join(dir, 'sub'))).toEqual(['settings.json'])
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual(settings)
  })

  it('refuses to write invalid settings', () => {
    const file = new SettingsFile(join(dir, 'settings.json'))
    const settings = defaultDesktopSettings()
    settings.gateway.port = -1
    expect(() => file.write(settings)).toThrow()
    expect(readdirSync(dir)).toEqual([])
  })

  it('falls back to the defaults for a file that is not JSON, and says so', () => {
    const path = join(dir, 'settings.json')
    writeFileSync(path, '{ nope')
    const warnings: string[] = []
    expect(new SettingsFile(path, (m) => warnings.push(m)).read()).toEqual(defaultDesktopSettings())
    expect(warnings[0]).toContain('is not JSON')
  })
})
