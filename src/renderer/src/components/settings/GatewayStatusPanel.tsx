import type { DeploymentStatus, ReplicaStatus } from '../../../../shared/api/health'
import type { GatewayStatusState } from '../../hooks/use-gateway-status'
import { MessageText } from '../common/MessageText'

function ReplicaRow({ replica }: { replica: ReplicaStatus }) {
  return (
    <li data-testid="status-replica" data-state={replica.state}>
      <code>{replica.id}</code> <span className={`state--${replica.state}`}>{replica.state}</span>
      {replica.last_error !== null ? (
        <span className="muted">
          {' '}
          · last error{replica.last_error_at !== null ? ` (${new Date(replica.last_error_at).toLocaleTimeString()})` : ''}:{' '}
          <span data-testid="status-replica-error">
            <MessageText text={replica.last_error} />
          </span>
        </span>
      ) : null}
    </li>
  )
}

function DeploymentRow({ deployment }: { deployment: DeploymentStatus }) {
  return (
    <tr data-testid="status-deployment" data-deployment={deployment.deployment} data-state={deployment.state}>
      <td>
        <code>{deployment.model}</code>
      </td>
      <td>{deployment.deployment}</td>
      <td className={`state--${deployment.state}`} data-testid="status-deployment-state">
        {deployment.state}
      </td>
      <td title={`from ${deployment.context_window_source}`}>
        {deployment.context_window === null ? 'unknown: the server decides' : `${deployment.context_window.toLocaleString('en-US')} tokens`}
      </td>
      <td>
        {deployment.kind === 'in-process' ? (
          <span className="muted">in-process (the scripted model)</span>
        ) : (
          <>
            {deployment.replicas_up} up · {deployment.replicas_down} down
            <ul className="plain-list">
              {deployment.replicas.map((replica) => (
                <ReplicaRow key={replica.id} replica={replica} />
              ))}
            </ul>
          </>
        )}
      </td>
    </tr>
  )
}

/** Settings → Model servers: what `/v1/status` says of each deployment, refreshed while shown. */
export function GatewayStatusPanel({ state }: { state: GatewayStatusState }) {
  return (
    <section className="settings__section" data-testid="settings-status">
      <h3>Model servers</h3>
      {state.kind === 'loading' ? <p className="muted">Checking…</p> : null}
      {state.kind === 'failed' ? (
        <p className="field__problem" role="alert">
          <MessageText text={state.message} />
        </p>
      ) : null}
      {state.kind === 'ready' ? (
        <table className="status-table">
          <thead>
            <tr>
              <th>Model</th>
              <th>Deployment</th>
              <th>State</th>
              <th>Context window</th>
              <th>Replicas</th>
            </tr>
          </thead>
          <tbody>
            {state.value.deployments.map((deployment) => (
              <DeploymentRow key={deployment.model} deployment={deployment} />
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  )
}
