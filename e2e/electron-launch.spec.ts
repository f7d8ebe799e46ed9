// Launches the real desktop app. Electron's binary is downloaded on first use, which these
// machines cannot do, so the test looks for it on disk, without require('electron') (that
// would try the download), and skips with a reason when it is missing.
import { DEFAULT_MODEL_ID } from '../src/shared/api/chat-request'
import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { _electron as electron, expect, test } from '@playwright/test'
import OpenAI from 'openai'
import { ipcChannels, ipcMethodName } from '../src/shared/ipc'

const REPO_ROOT = resolve(__dirname, '..')
const ELECTRON_PACKAGE_DIR = join(REPO_ROOT, 'node_modules', 'electron')

/** Path of the installed Electron executable, or undefined when it was never downloaded. */
function installedElectronBinary(): string | undefined {
  const pathFile = join(ELECTRON_PACKAGE_DIR, 'path.txt')
  if (!existsSync(pathFile)) return undefined
  const binary = join(ELECTRON_PACKAGE_DIR, 'dist', readFileSync(pathFile, 'utf8').trim())
  return existsSync(binary) ? binary : undefined
}

const electronBinary = installedElectronBinary()

test('the desktop app opens a connected window; a key created in Settings works from the SDK', async () => {
  test.skip(
    electronBinary === undefined,
    'Electron binary not installed on this machine (no download possible)',
  )
  if (electronBinary === undefined) return

  // Without ELECTRON_RENDERER_URL, main loads the built renderer from the gateway.
  const { ELECTRON_RENDERER_URL: _devRendererUrl, ...env } = process.env
  const userData = await mkdtemp(join(tmpdir(), 'mortar-e2e-electron-'))
  const app = await electron.launch({
    executablePath: electronBinary,
    args: [
      // Chromium refuses to start as root with its sandbox on (CI containers run as root).
      ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
      // A fresh profile: its own single-instance lock, and the gateway home inside it.
      `--user-data-dir=${userData}`,
      join(REPO_ROOT, 'out', 'main', 'index.js'),
    ],
    // Port 0: never collide with a Mortar the developer is running on the default port.
    env: { ...env, MORTAR_PORT: '0' },
  })
  try {
    const page = await app.firstWindow()
    await expect(page).toHaveTitle('Mortar')
    await expect(page.getByTestId('gateway-status')).toHaveText('Gateway: ok')
    // Connected with the window's own key, over IPC: no prompt.
    await expect(page.getByTestId('nav-playground')).toBeVisible()
    // The preload's API is there, and only as the named methods of the channel map.
    const exposed = await page.evaluate(() => {
      const api = (globalThis as { mortar?: object }).mortar
      return api === undefined ? null : Object.keys(api).sort()
    })
    expect(exposed).toEqual(ipcChannels.map((channel) => ipcMethodName(channel)).sort())

    // A streamed request in the playground.
    await page.getByTestId('send-button').click()
    await expect(page.getByTestId('outcome')).toHaveAttribute('data-outcome', 'finished')

    // Settings: the gateway section and key management (over /v1/keys with the window's
    // per-launch owner key) are there; a new key works from the SDK.
    await page.getByTestId('nav-settings').click()
    await expect(page.getByTestId('settings-gateway')).toBeVisible()
    await page.getByTestId('key-name').fill('sdk-from-settings')
    await page.getByTestId('key-create').click()
    const key = (await page.getByTestId('key-revealed-value').textContent()) ?? ''
    expect(key).toMatch(/^mk_live_[A-Za-z0-9]{40}$/)
    const baseURL = (await page.getByTestId('base-url').textContent()) ?? ''
    const client = new OpenAI({ baseURL, apiKey: key, maxRetries: 0 })
    const completion = await client.chat.completions.create({ messages: [{ role: 'user', content: 'hi' }], model: DEFAULT_MODEL_ID, stream: false })
    expect(completion.choices[0]?.message.content).toBe('hi')
    await page.getByTestId('key-row').filter({ hasText: 'sdk-from-settings' }).getByTestId('key-revoke').click()
    await page.getByTestId('key-row').filter({ hasText: 'sdk-from-settings' }).getByTestId('key-confirm-yes').click()
    await expect(page.getByTestId('key-row').filter({ hasText: 'sdk-from-settings' })).toHaveAttribute('data-status', 'revoked')
    await expect(client.models.list()).rejects.toThrow(/401/)
  } finally {
    await app.close()
    await rm(userData, { recursive: true, force: true })
  }
})
