import { QueryClientProvider } from '@tanstack/react-query'
import { App as AntdApp, ConfigProvider, theme as antdTheme } from 'antd'
import enUS from 'antd/locale/en_US'
import zhCN from 'antd/locale/zh_CN'
import { useEffect } from 'react'
import { RouterProvider } from 'react-router-dom'
import { queryClient } from './api/queryClient'
import RequestBridge from './RequestBridge'
import { router } from './router'
import { useSettingsStore } from './stores/settings'

export default function App() {
  const language = useSettingsStore((s) => s.language)
  const theme = useSettingsStore((s) => s.theme)
  const colour = useSettingsStore((s) => s.colour)
  useEffect(() => {
    // theme-white / theme-dark on <body> for styles outside antd's tokens.
    document.body.classList.remove('theme-white', 'theme-dark')
    document.body.classList.add(theme)
  }, [theme])
  return (
    <ConfigProvider
      locale={language === 'en' ? enUS : zhCN}
      theme={{
        algorithm: theme === 'theme-dark' ? antdTheme.darkAlgorithm : antdTheme.defaultAlgorithm,
        token: { colorPrimary: colour },
      }}
    >
      <AntdApp>
        <RequestBridge />
        <QueryClientProvider client={queryClient}>
          <RouterProvider router={router} />
        </QueryClientProvider>
      </AntdApp>
    </ConfigProvider>
  )
}
