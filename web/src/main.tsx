import './locales/i18n'
import 'antd/dist/reset.css'
import './index.css'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import App from './App'
import { useSettingsStore } from './stores/settings'

document.documentElement.lang = useSettingsStore.getState().language === 'en' ? 'en' : 'zh-CN'

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
)
