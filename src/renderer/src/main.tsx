import './lib/zod-config'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './App'
// Stylesheets in cascade order: the palette, the app's frame, shared controls, then each feature's.
import './styles/theme.css'
import './styles/app.css'
import './components/common/common.css'
import './components/playground/playground.css'
import './components/inspector/inspector.css'
import './components/traffic/traffic.css'
import './components/settings/settings.css'

const container = document.getElementById('root')
if (container === null) throw new Error('index.html has no #root element')

createRoot(container).render(
  <StrictMode>
    <App />
  </StrictMode>,
)
