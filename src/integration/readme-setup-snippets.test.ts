import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { DEFAULT_MODEL_ID } from '../shared/api/chat-request'
import { setupSnippets } from '../renderer/src/logic/setup-snippets'

// The README's IDE section and Settings' setup snippets are the same setup told twice: for the
// README's gateway (the default address and model, the scripted model's window, no key yet) each
// snippet must say what the README's block for its tool says. Comments may differ (the README
// explains in prose); every setting must not.
const README = readFileSync(join(resolve(__dirname, '../..'), 'README.md'), 'utf8')
const snippets = setupSnippets({ baseUrl: 'http://127.0.0.1:7313/v1', model: DEFAULT_MODEL_ID, contextWindow: 4096 })
const snippet = (id: string) => {
  const found = snippets.find((s) => s.id === id)
  if (found === undefined) throw new Error(`no setup snippet ${id}`)
  return found.text
}

/** The first fenced block after the README's `**<tool>**` paragraph. */
function readmeBlock(tool: string): string {
  const start = README.indexOf(`**${tool}**`)
  if (start < 0) throw new Error(`README has no **${tool}** paragraph`)
  const block = /```[a-z]*\n([\s\S]*?)```/.exec(README.slice(start))?.[1]
  if (block === undefined) throw new Error(`README has no code block after **${tool}**`)
  return block
}

/** The settings of a YAML, TOML or shell text: comments and blank lines left out. */
function settings(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.replace(/\s+#\s.*$/, '').trimEnd())
    .filter((line) => line.trim() !== '' && !line.trim().startsWith('#'))
}

describe("the README's IDE section and the Settings page's setup snippets say the same", () => {
  it.each([
    ['Continue', 'continue'],
    ['Claude Code', 'claude-code'],
    ['Codex CLI', 'codex'],
  ])('%s', (tool, id) => {
    expect(settings(snippet(id))).toEqual(settings(readmeBlock(tool)))
  })

  it('Zed', () => {
    expect(JSON.parse(snippet('zed'))).toEqual(JSON.parse(readmeBlock('Zed')))
  })

  it('Cline', () => {
    const paragraph = README.slice(README.indexOf('**Cline**'), README.indexOf('\n\n', README.indexOf('**Cline**')))
    for (const line of settings(snippet('cline'))) {
      const [, label, value] = /^([^:]+): (.*)$/.exec(line) ?? []
      expect(paragraph, line).toContain(label === 'API Provider' ? `*${value}*` : value)
    }
  })
})
