import { DEFAULT_MODEL_ID } from '../../shared/api/chat-request'
import { ScriptedBackend } from '../backends/scripted/scripted-backend'
import { o200kTokenizer } from '../tokens/gpt-tokenizer'
import { ModelCatalog } from './model-catalog'

export const DEFAULT_CONTEXT_WINDOW = 4096
/** Qwen2.5's release (2024-09-19), as `created` in /v1/models. */
const QWEN25_RELEASED = 1726704000

/** With no model server configured: the default model, served by the scripted model. */
export function scriptedCatalog(options: { tokensPerSecond: number }): ModelCatalog {
  return new ModelCatalog([
    {
      id: DEFAULT_MODEL_ID,
      created: QWEN25_RELEASED,
      ownedBy: 'mortar',
      contextWindow: DEFAULT_CONTEXT_WINDOW,
      tokenizer: o200kTokenizer,
      backend: new ScriptedBackend({
        deployment: 'scripted',
        tokenizer: o200kTokenizer,
        tokensPerSecond: options.tokensPerSecond,
      }),
    },
  ])
}
