import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_MODEL_ID } from '../shared/api/chat-request'
import { startTestGateway, type TestGateway } from './harness'

// Codex CLI (`codex exec`), unmodified, against `mortar serve` with the scripted model through
// POST /v1/responses. (The Vercel AI SDK's default `openai(model)`, the other Responses client,
// runs with the other AI SDK providers in client-libraries.test.ts.)
// The binary comes in @openai/codex's platform package (an optional dependency of it): skipped
// only on a platform npm installed none for.
const CODEX = join(process.cwd(), 'node_modules', '.bin', 'codex')

describe('Codex CLI, codex exec', () => {
  // Codex's own instructions and tools are ~10k tokens: more than the scripted model's default
  // window of 4,096, so this gateway's config gives it a window a real model of its kind has.
  let gw: TestGateway
  beforeAll(async () => {
    const mortarHome = mkdtempSync(join(tmpdir(), 'mortar-codex-gateway-'))
    writeFileSync(
      join(mortarHome, 'config.json'),
      JSON.stringify({ version: 1, models: [{ id: DEFAULT_MODEL_ID, contextWindow: 32768, deployment: { kind: 'scripted' } }] }),
    )
    gw = await startTestGateway([], { home: mortarHome })
  })
  afterAll(() => gw.close())

  it.skipIf(!existsSync(CODEX))('runs a turn through /v1/responses and prints the echoed text', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mortar-codex-home-'))
    const work = mkdtempSync(join(tmpdir(), 'mortar-codex-work-'))
    try {
      writeFileSync(
        join(home, 'config.toml'),
        [
          `model = "${DEFAULT_MODEL_ID}"`,
          'model_provider = "mortar"',
          '[model_providers.mortar]',
          'name = "Mortar"',
          `base_url = "${gw.url}/v1"`,
          'wire_api = "responses"',
          'env_key = "MORTAR_API_KEY"',
          '',
        ].join('\n'),
      )
      const key = gw.createKey({ name: 'codex' })
      const run = await runCommand(CODEX, ['exec', '--skip-git-repo-check', '-C', work, 'Mortar says hello'], {
        ...process.env,
        CODEX_HOME: home,
        MORTAR_API_KEY: key,
      })
      expect(run.code, run.stderr).toBe(0)
      // Its last message is the reply; before it, the scripted model called Codex's first tool
      // (exec_command, with an empty command), and Codex ran it and sent back its output.
      expect(run.stdout.trim()).toBe('Mortar says hello')
      const turns = gw.completions.filter((record) => record.id.startsWith('resp_'))
      expect(turns.map((record) => [record.outcome, record.finishReason])).toEqual([
        ['finished', 'tool_calls'],
        ['finished', 'stop'],
      ])
    } finally {
      rmSync(home, { recursive: true, force: true })
      rmSync(work, { recursive: true, force: true })
    }
  }, 60_000)
})

function runCommand(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (bytes: Buffer) => (stdout += bytes.toString()))
    child.stderr.on('data', (bytes: Buffer) => (stderr += bytes.toString()))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}
