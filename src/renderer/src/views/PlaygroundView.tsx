import { useCallback } from 'react'
import type { AssembledReply } from '../logic/inspector/assemble-reply'
import { buildPlaygroundRequest, continueConversation, formFromRequest } from '../logic/playground/playground-request'
import { PlaygroundForm } from '../components/playground/PlaygroundForm'
import { RunHistory } from '../components/playground/RunHistory'
import { useModels } from '../hooks/use-models'
import type { ExchangeRuns } from '../hooks/use-exchange-runs'
import type { PlaygroundFormState } from '../hooks/use-playground-form'
import type { ExchangeRun } from '../lib/exchange-run'
import type { GatewayClient } from '../lib/gateway-client'
import { EmptyRunPane, RunPane } from './RunPane'

interface PlaygroundViewProps {
  client: GatewayClient
  formState: PlaygroundFormState
  runs: ExchangeRuns
}

export function PlaygroundView({ client, formState, runs }: PlaygroundViewProps) {
  const models = useModels(client)
  const { form, problems, replace } = formState
  const canSend = problems.length === 0
  const blockedBy = problems[0]?.message ?? null
  const { send } = runs

  const onSend = useCallback(() => {
    const built = buildPlaygroundRequest(form)
    if (built.ok) send(built.request)
  }, [form, send])
  const onEditAndResend = useCallback(
    (run: ExchangeRun) => replace(formFromRequest(run.exchange.request.body, run.exchange.request.headers)),
    [replace],
  )
  const onContinue = useCallback(
    (run: ExchangeRun, reply: AssembledReply) => replace(continueConversation(run.exchange.request.body, run.exchange.request.headers, reply)),
    [replace],
  )

  return (
    <div className="playground" data-testid="playground">
      <aside className="playground__form">
        <PlaygroundForm state={formState} models={models} />
      </aside>
      <main className="playground__run">
        {runs.selected === null ? (
          <EmptyRunPane canSend={canSend} blockedBy={blockedBy} onSend={onSend} />
        ) : (
          <RunPane
            run={runs.selected}
            history={<RunHistory runs={runs.runs} selectedId={runs.selected.id} onSelect={runs.select} />}
            canSend={canSend}
            blockedBy={blockedBy}
            onSend={onSend}
            onEditAndResend={onEditAndResend}
            onContinue={onContinue}
          />
        )}
      </main>
    </div>
  )
}
