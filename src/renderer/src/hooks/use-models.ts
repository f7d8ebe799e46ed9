import { useEffect, useState } from 'react'
import type { ModelObject } from '../../../shared/api/chat-response'
import type { GatewayClient } from '../lib/gateway-client'

export type ModelsState = { kind: 'loading' } | { kind: 'ready'; models: ModelObject[] } | { kind: 'error'; message: string }

/** GET /v1/models once per connection. */
export function useModels(client: GatewayClient): ModelsState {
  const [state, setState] = useState<ModelsState>({ kind: 'loading' })
  useEffect(() => {
    const controller = new AbortController()
    client
      .listModels(controller.signal)
      .then((models) => setState({ kind: 'ready', models }))
      .catch((error: unknown) => {
        if (!controller.signal.aborted) setState({ kind: 'error', message: error instanceof Error ? error.message : String(error) })
      })
    return () => controller.abort()
  }, [client])
  return state
}
