import type { ChatMessage } from '../../shared/api/chat-request'
import { OPTIMIZER_PASSES, type OptimizerPass } from '../../shared/api/optimizer'
import { collapseSpaces } from './collapse-spaces'
import { compactJson } from './json-compact'
import { compactJsonBlocks } from './json-tool-blocks'

/**
 * The optimizer's ruleset. Bump it whenever a pass is added or changes what it does: clients and
 * the inspector read it in the report, and the same ruleset always makes the same prompt.
 */
export const RULESET_VERSION = 2

interface PassDefinition {
  /** Which messages' contents the pass reads. */
  roles: 'any' | 'tool'
  /** The new text, and how many units (contents or blocks) the pass changed. */
  apply(text: string): { text: string; changed: number }
}

/** Each pass is a pure function over one content's text. */
export const PASS_DEFINITIONS: Readonly<Record<OptimizerPass, PassDefinition>> = {
  'json-compact': {
    roles: 'any',
    apply(text) {
      const out = compactJson(text)
      return { text: out, changed: out === text ? 0 : 1 }
    },
  },
  'json-tool-blocks': { roles: 'tool', apply: compactJsonBlocks },
  'collapse-spaces': {
    roles: 'tool',
    apply(text) {
      const out = collapseSpaces(text)
      return { text: out, changed: out === text ? 0 : 1 }
    },
  },
}

export interface RulesetRun {
  /** The messages with every changed content replaced (a new array), or undefined when none changed. */
  messages: ChatMessage[] | undefined
  /** UTF-8 bytes of all message contents before the passes. */
  bytes: number
  /** UTF-8 bytes the passes removed. */
  saved: number
  /** Each pass that ran, in ruleset order, with how many contents (or blocks) it changed. */
  counts: Array<[OptimizerPass, number]>
}

/**
 * Runs the given passes, in ruleset order whatever order they are named in, over every message's
 * content. Never mutates `messages`: a changed message is copied with its new content, an
 * unchanged one is reused as is. `tool_calls` and `tools` are not read.
 */
export function runRuleset(messages: readonly ChatMessage[], passes: ReadonlySet<OptimizerPass>): RulesetRun {
  const ordered = OPTIMIZER_PASSES.filter((name) => passes.has(name))
  const counts = new Map<OptimizerPass, number>(ordered.map((name) => [name, 0]))
  let bytes = 0
  let saved = 0
  let out: ChatMessage[] | undefined
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index]
    if (message === undefined) continue
    const content = message.content
    if (content === null || content === '') continue
    const before = Buffer.byteLength(content, 'utf8')
    bytes += before
    let text = content
    for (const name of ordered) {
      const pass = PASS_DEFINITIONS[name]
      if (pass.roles === 'tool' && message.role !== 'tool') continue
      const result = pass.apply(text)
      if (result.changed > 0) {
        counts.set(name, (counts.get(name) ?? 0) + result.changed)
        text = result.text
      }
    }
    if (text === content) continue
    saved += before - Buffer.byteLength(text, 'utf8')
    out ??= messages.slice()
    out[index] = { ...message, content: text }
  }
  return { messages: out, bytes, saved, counts: [...counts] }
}
