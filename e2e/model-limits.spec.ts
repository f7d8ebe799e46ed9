// The limits a model server reported, as the playground shows them: the window the server named
// (in the model picker) and the max_tokens a blank field sends.
import { expect, test } from '@playwright/test'
import { startFakeModelServer, type FakeModelServer } from '../src/test-kit/fake-model-server'
import { startMortarServer, type MortarServer } from './fixtures/mortar-server'
import { openUi } from './fixtures/ui'

let fake: FakeModelServer
let server: MortarServer

test.beforeAll(async () => {
  fake = await startFakeModelServer({
    info: { 'GET /v1/models': { object: 'list', data: [{ id: 'Qwen/Qwen2.5-7B-Instruct', object: 'model', max_model_len: 32768 }] } },
  })
  server = await startMortarServer({ args: ['--upstream', fake.url, '--default-max-tokens', '300'] })
})

test.afterAll(async () => {
  await server?.stop()
  await fake?.close()
})

test("the playground shows the server's window and the default max_tokens a blank field sends", async ({ page }) => {
  await openUi(page, server)
  await expect(page.getByTestId('model-select').locator('option', { hasText: 'Qwen/Qwen2.5-7B-Instruct' })).toHaveText(
    `Qwen/Qwen2.5-7B-Instruct · ${(32768).toLocaleString()} tokens · upstream`,
  )
  await expect(page.getByTestId('max-tokens')).toHaveAttribute('placeholder', '300 (model default)')
  await page.getByTestId('send-button').click()
  await expect(page.getByTestId('outcome')).toHaveAttribute('data-outcome', 'finished', { timeout: 15_000 })
  expect(fake.requests.at(-1)?.body?.max_tokens).toBe(300)
})
