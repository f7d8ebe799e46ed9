import type { ChatCompletionRequest } from '../../shared/api/chat-request'
import type { Usage } from '../../shared/api/chat-response'
import type { Principal } from '../auth/key-store'
import type { DeployedModel } from '../config/model-catalog'
import type { GenerationResult } from '../generation/run-generation'
import type { TokenPlan } from './plan-tokens'

/** Everything the stages decided about one chat completion, for the responders to use. */
export interface CompletionContext {
  id: string
  /** When the request was accepted, in Unix seconds: `created` on every object. */
  created: number
  principal: Principal
  request: ChatCompletionRequest
  model: DeployedModel
  session: string
  plan: TokenPlan
}

/** The reply's usage: the model server's own when it reported one, else the gateway's count. */
export function usageOf(context: CompletionContext, result: GenerationResult): Usage {
  if (result.reportedUsage !== undefined) return result.reportedUsage
  const prompt = context.plan.promptTokens
  return { prompt_tokens: prompt, completion_tokens: result.completionTokens, total_tokens: prompt + result.completionTokens }
}
