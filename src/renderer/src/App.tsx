import { useGatewayHealth, type GatewayHealth } from './hooks/use-gateway-health'

const healthLabel: Record<GatewayHealth, string> = {
  checking: 'Gateway: checking…',
  ok: 'Gateway: ok',
  unreachable: 'Gateway: unreachable',
}

// Placeholder for the first milestone: proves the page loads and can reach the gateway.
export function App() {
  const health = useGatewayHealth()
  return (
    <main>
      <h1>Mortar</h1>
      <p data-testid="gateway-status" data-health={health}>
        {healthLabel[health]}
      </p>
    </main>
  )
}
