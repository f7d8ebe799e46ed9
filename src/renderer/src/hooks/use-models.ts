import { useCallback } from 'react'
import type { ModelObject } from '../../../shared/api/chat-response'
import type { GatewayClient } from '../lib/gateway-client'
import { useLoad, type Loaded } from './use-load'

export type ModelsState = Loaded<ModelObject[]>

/** GET /v1/models once per connection. */
export function useModels(client: GatewayClient): ModelsState {
  return useLoad(
    useCallback((signal: AbortSignal) => client.listModels(signal), [client]),
    [client],
  )
}
