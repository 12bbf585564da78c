import './locales/i18n'
import 'antd/dist/reset.css'
import './index.css'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import App from './App'
import { useSettingsStore } from './stores/settings'
import { captureErrors } from './utils/errorLog'
import { rootFontSize } from './utils/screen'

// Uncaught errors and unhandled rejections go to the local error log (the top bar's log dialog).
captureErrors()

// Root font size scales with the window width against a 1920 base, capped at twice.
const scaleRootFont = () => {
  document.documentElement.style.fontSize = `${rootFontSize(window.innerWidth)}px`
}
scaleRootFont()
window.addEventListener('resize', scaleRootFont)

document.documentElement.lang = useSettingsStore.getState().language === 'en' ? 'en' : 'zh-CN'

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
)
