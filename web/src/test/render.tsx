import { render } from '@testing-library/react'
import { App, ConfigProvider } from 'antd'
import zhCN from 'antd/locale/zh_CN'
import type { ReactNode } from 'react'

/** Renders inside the providers the console's pages run in (zh, antd App context). */
export function renderInApp(node: ReactNode) {
  return render(
    <ConfigProvider locale={zhCN}>
      <App>{node}</App>
    </ConfigProvider>,
  )
}
