// Settings → API keys in a browser, against `mortar serve`: the page manages keys over the
// gateway's /v1/keys with the key it was opened with (the UI link's owner key), the same calls
// the desktop app makes. A key made there works from the openai SDK at once, and stops working
// the moment it is revoked there.
import { DEFAULT_MODEL_ID } from '../src/shared/api/chat-request'
import { expect, test, type Page } from '@playwright/test'
import OpenAI from 'openai'
import { startMortarServer, type MortarServer } from './fixtures/mortar-server'
import { openUi, saveScreenshot, signInWithKey, readClipboard } from './fixtures/ui'

let server: MortarServer

test.beforeAll(async () => {
  server = await startMortarServer()
})

test.afterAll(async () => {
  await server?.stop()
})

/** Creates a key in Settings and returns it, read from the shown-once view. */
async function createKeyInSettings(page: Page, name: string, role: string, expiry: string): Promise<string> {
  await page.getByTestId('key-name').fill(name)
  await page.getByTestId('key-role').selectOption(role)
  await page.getByTestId('key-expiry').selectOption(expiry)
  await page.getByTestId('key-create').click()
  await expect(page.getByTestId('key-revealed')).toContainText(name)
  const key = (await page.getByTestId('key-revealed-value').textContent()) ?? ''
  expect(key).toMatch(/^mk_live_[A-Za-z0-9]{40}$/)
  return key
}

const sdk = (apiKey: string) => new OpenAI({ baseURL: `${server.url}/v1`, apiKey, maxRetries: 0 })

test('a key created in Settings works from the openai SDK, and stops working when revoked there', async ({ page, context }, testInfo) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url })
  await openUi(page, server)
  await page.getByTestId('nav-settings').click()
  await expect(page.getByTestId('settings-keys')).toHaveAttribute('data-access', 'allowed')
  // The owner key `mortar serve` made on first run is listed (by its hint, never in full).
  await expect(page.getByTestId('key-row').first()).toContainText('owner')

  const key = await createKeyInSettings(page, 'e2e-sdk', 'member', '7')
  const revealed = page.getByTestId('key-revealed')
  const in7Days = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10)
  await expect(revealed).toContainText(`member, expires ${in7Days}`)
  // Copy puts exactly the shown key on the clipboard.
  await page.getByTestId('key-copy').click()
  await expect(page.getByTestId('key-copy')).toHaveText('Copied')
  expect(await readClipboard(page)).toBe(key)

  // Listed by its hint only, with its role and expiry.
  const row = page.getByTestId('key-row').filter({ hasText: 'e2e-sdk' })
  await expect(row).toHaveAttribute('data-status', 'active')
  await expect(row).toContainText('member')
  await expect(row).toContainText(in7Days)
  await expect(row).toContainText(`${key.slice(0, 12)}…${key.slice(-4)}`)
  await expect(page.getByTestId('keys-table')).not.toContainText(key)
  await saveScreenshot(page, testInfo, 'settings-keys')

  // Shown once: after Done, nowhere on the page.
  await page.getByTestId('key-revealed-done').click()
  await expect(page.getByTestId('key-revealed')).toHaveCount(0)
  await expect(page.locator('body')).not.toContainText(key)

  // The SDK with the new key: it lists models and gets a completion.
  const client = sdk(key)
  const models = await client.models.list()
  expect(models.data.map((m) => m.id)).toContain(DEFAULT_MODEL_ID)
  const completion = await client.chat.completions.create({ model: DEFAULT_MODEL_ID, messages: [{ role: 'user', content: 'hello from the sdk' }], stream: false })
  expect(completion.choices[0]?.message.content).toBe('hello from the sdk')

  // Traffic names the key that sent it.
  await page.getByTestId('nav-traffic').click()
  // (Every call is an exchange: models.list and the completion, each under the key's name.)
  const sent = page
    .getByTestId('traffic-row')
    .filter({ has: page.getByTestId('traffic-key-name').filter({ hasText: 'e2e-sdk' }) })
    .filter({ has: page.getByTestId('traffic-endpoint').filter({ hasText: '/v1/chat/completions' }) })
  await expect(sent).toHaveAttribute('data-outcome', 'finished')
  await expect(page.getByTestId('traffic-row').filter({ has: page.getByTestId('traffic-key-name').filter({ hasText: 'e2e-sdk' }) })).toHaveCount(2)

  // Revoke in Settings (with its confirmation): the next SDK call gets 401.
  await page.getByTestId('nav-settings').click()
  await row.getByTestId('key-revoke').click()
  await expect(row.getByTestId('key-confirm')).toContainText('Revoke it?')
  await row.getByTestId('key-confirm-yes').click()
  await expect(row).toHaveAttribute('data-status', 'revoked')
  await expect(row.getByTestId('key-revoke')).toHaveCount(0)
  const refused = await client.models.list().catch((error: unknown) => error)
  expect(refused).toBeInstanceOf(OpenAI.AuthenticationError)
  expect((refused as InstanceType<typeof OpenAI.AuthenticationError>).status).toBe(401)
  await expect(
    client.chat.completions.create({ model: DEFAULT_MODEL_ID, messages: [{ role: 'user', content: 'again' }], stream: false }),
  ).rejects.toMatchObject({ status: 401 })
  await saveScreenshot(page, testInfo, 'settings-keys-revoked')
})

test('rotating in Settings shows the new key once; the old one stops working', async ({ page }) => {
  await openUi(page, server)
  await page.getByTestId('nav-settings').click()
  const old = await createKeyInSettings(page, 'e2e-rotate', 'admin', 'never')
  await expect(page.getByTestId('key-revealed')).toContainText('admin, never expires')
  await page.getByTestId('key-revealed-done').click()

  const row = page.getByTestId('key-row').filter({ hasText: 'e2e-rotate' }).and(page.locator('[data-status="active"]'))
  await row.getByTestId('key-rotate').click()
  await row.getByTestId('key-confirm-yes').click()
  await expect(page.getByTestId('key-revealed')).toContainText('e2e-rotate')
  const rotated = (await page.getByTestId('key-revealed-value').textContent()) ?? ''
  expect(rotated).toMatch(/^mk_live_/)
  expect(rotated).not.toBe(old)
  await expect(page.getByTestId('key-row').filter({ hasText: 'e2e-rotate' })).toHaveCount(2)
  await expect(page.getByTestId('key-row').filter({ hasText: 'e2e-rotate' }).and(page.locator('[data-status="revoked"]'))).toHaveCount(1)

  await expect(sdk(old).models.list()).rejects.toMatchObject({ status: 401 })
  expect((await sdk(rotated).models.list()).data.length).toBeGreaterThan(0)
})

test('a member key sees why it cannot manage keys, instead of a broken panel', async ({ browser }, testInfo) => {
  const made = await fetch(`${server.url}/v1/keys`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${await server.uiKey()}` },
    body: JSON.stringify({ name: 'e2e-member', role: 'member' }),
  })
  expect(made.status).toBe(201)
  const { key } = (await made.json()) as { key: string }

  const context = await browser.newContext()
  try {
    const page = await context.newPage()
    await signInWithKey(page, server, key)
    await page.getByTestId('nav-settings').click()
    const panel = page.getByTestId('settings-keys')
    await expect(panel).toHaveAttribute('data-access', 'forbidden')
    await expect(page.getByTestId('keys-forbidden')).toContainText('This key cannot manage API keys.')
    await expect(page.getByTestId('keys-forbidden')).toContainText('Managing keys needs an owner or admin key.')
    await expect(page.getByTestId('key-create')).toHaveCount(0)
    await expect(page.getByTestId('keys-table')).toHaveCount(0)
    // Everything else still works with a member key.
    await expect(page.getByTestId('settings-snippets')).toBeVisible()
    await saveScreenshot(page, testInfo, 'settings-keys-member')
  } finally {
    await context.close()
  }
})

// Each key may have its own API dialect; the setup snippets say which one their tool needs and
// create its key with it.
/** `create()` without `stream`: JSON in the openai dialect, which the response header names. */
async function askWithoutStream(apiKey: string) {
  const { data, response } = await sdk(apiKey).chat.completions.create({ model: DEFAULT_MODEL_ID, messages: [{ role: 'user', content: 'Hello' }] }).withResponse()
  return { dialect: response.headers.get('x-mortar-dialect'), content: data.choices[0]?.message.content }
}

test('a key made in Settings with the openai dialect answers in it', async ({ page }) => {
  await openUi(page, server)
  await page.getByTestId('nav-settings').click()
  await expect(page.getByTestId('settings-keys')).toHaveAttribute('data-access', 'allowed')
  await page.getByTestId('key-name').fill('e2e-ai-sdk')
  await page.getByTestId('key-dialect').selectOption('openai')
  await page.getByTestId('key-create').click()
  await expect(page.getByTestId('key-revealed')).toContainText('openai dialect')
  const key = (await page.getByTestId('key-revealed-value').textContent()) ?? ''
  const row = page.getByTestId('key-row').filter({ hasText: 'e2e-ai-sdk' })
  await expect(row.getByTestId('key-row-dialect')).toHaveText('openai dialect')
  // The first-run key has no dialect of its own.
  await expect(page.getByTestId('key-row').filter({ hasText: 'owner' }).first().getByTestId('key-row-dialect')).toHaveText("gateway's dialect")
  expect(await askWithoutStream(key)).toEqual({ dialect: 'openai', content: 'Hello' })
})

test('each setup snippet says which dialect it needs and creates its key with it', async ({ page }, testInfo) => {
  await openUi(page, server)
  await page.getByTestId('nav-settings').click()
  await expect(page.getByTestId('settings-keys')).toHaveAttribute('data-access', 'allowed')
  await page.getByTestId('snippet-curl').click()
  await expect(page.getByTestId('snippet-dialect')).toHaveAttribute('data-dialect', 'mortar')
  await page.getByTestId('snippet-continue').click()
  await expect(page.getByTestId('snippet-dialect')).toHaveAttribute('data-dialect', 'openai')
  await page.getByTestId('snippet-create-key').click()
  await expect(page.getByTestId('key-revealed')).toContainText('Continue (setup)')
  const key = (await page.getByTestId('key-revealed-value').textContent()) ?? ''
  // The snippet now carries the key just made, so it can be copied as it is.
  await expect(page.getByTestId('snippet-text')).toContainText(`apiKey: ${key}`)
  // Chat, tab autocomplete (/v1/completions) and codebase indexing, each with that key.
  await expect(page.getByTestId('snippet-text')).toContainText('roles: [autocomplete]')
  await saveScreenshot(page, testInfo, 'settings-snippet-dialect')
  expect(await askWithoutStream(key)).toEqual({ dialect: 'openai', content: 'Hello' })

  // Codex CLI speaks the Responses API, which no dialect changes: any key will do, and the one made
  // for it (in the gateway's dialect) goes in the environment variable its config.toml names.
  await page.getByTestId('snippet-codex').click()
  await expect(page.getByTestId('snippet-dialect')).toHaveAttribute('data-dialect', 'any')
  await expect(page.getByTestId('snippet-dialect')).toContainText('Any key will do')
  await page.getByTestId('snippet-create-key').click()
  await expect(page.getByTestId('key-revealed')).toContainText('Codex CLI (setup)')
  const codexKey = (await page.getByTestId('key-revealed-value').textContent()) ?? ''
  await expect(page.getByTestId('key-row').filter({ hasText: 'Codex CLI (setup)' }).getByTestId('key-row-dialect')).toHaveText("gateway's dialect")
  await expect(page.getByTestId('snippet-text')).toContainText(`export MORTAR_API_KEY=${codexKey}`)
  await expect(page.getByTestId('snippet-text')).toContainText(`base_url = "${server.url}/v1"`)
  await saveScreenshot(page, testInfo, 'settings-snippet-codex')
  const reply = await sdk(codexKey).responses.create({ model: DEFAULT_MODEL_ID, input: 'Hello' })
  expect(reply.output_text).toBe('Hello')
})
